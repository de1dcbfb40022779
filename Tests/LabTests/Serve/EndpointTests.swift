import Backend
import ChainKit
import Foundation
import Lab
import Serve
import Testing
import Timeline

/// `--endpoint` against `serve`: the same scenario run through ``URLSessionTransport``
/// against a ``LabHTTPService`` ends the way it ends in process.
@Suite("--endpoint against serve")
struct EndpointTests {
    /// The counters both runs must agree on. `passwordGrants` differs on purpose: the remote
    /// session signs in over HTTP, the in-process one is handed its tokens.
    static let comparedCounters = ["graphqlRequests", "tokenRefreshes", "refreshRejected", "unauthorized"]

    /// Runs `name` in process and against a served backend configured like the scenario's.
    func bothRuns(_ name: String) async throws -> (local: LabSession.RunResult, remote: LabSession.RunResult, served: LabBackend) {
        let scenario = try #require(Catalog.scenario(named: name))
        let local = LabSession(scenario: scenario)
        let localResult = await local.runHeadless()
        await local.shutDown()

        let lab = try ServedLab(scenario.backend)
        defer { lab.service.stop() }
        let remote = try await LabSession.connect(scenario: scenario, baseURL: lab.baseURL)
        let remoteResult = await remote.runHeadless()
        await remote.shutDown()
        return (localResult, remoteResult, lab.backend)
    }

    @Test func basicsSucceedsInOneAttemptBothWays() async throws {
        let (local, remote, served) = try await bothRuns("basics")

        let expected = [RequestSummary(id: 1, operation: "HeroQuery", outcome: .success, attempts: 1, results: ["server"], operationType: "query")]
        #expect(local.requests == expected)
        #expect(remote.requests == expected)
        #expect(remote.unfinished == [])
        #expect(remote.refusals == [])
        for name in Self.comparedCounters {
            #expect(remote.backend[name] == local.backend[name], "counter \(name)")
        }
        #expect(remote.backend["graphqlRequests"] == 1)
        #expect(remote.backend["tokenRefreshes"] == 0)
        #expect(served.counters["graphqlRequests"] == 1)
    }

    @Test func tokenExpiryRefreshesOnceAndSucceedsInTwoAttemptsBothWays() async throws {
        let (local, remote, served) = try await bothRuns("token-expiry")

        let expected = [RequestSummary(id: 1, operation: "HeroQuery", outcome: .success, attempts: 2, results: ["server"], operationType: "query")]
        #expect(local.requests == expected)
        #expect(remote.requests == expected)
        #expect(remote.unfinished == [])
        #expect(remote.refusals == [])
        for name in Self.comparedCounters {
            #expect(remote.backend[name] == local.backend[name], "counter \(name)")
        }
        #expect(remote.backend["graphqlRequests"] == 2)
        #expect(remote.backend["tokenRefreshes"] == 1)
        #expect(remote.backend["refreshRejected"] == 0)
        #expect(remote.backend["unauthorized"] == 1)
        #expect(served.counters["tokenRefreshes"] == 1)
        #expect(served.counters["passwordGrants"] == 1)
    }

    @Test func bothWaysPublishTheSameHopsInTheSameOrder() async throws {
        for name in ["basics", "token-expiry"] {
            let (local, remote, _) = try await bothRuns(name)
            let shape: (TimelineEvent) -> String = { "\($0.request).\($0.attempt) \($0.name) \($0.phase.rawValue) \($0.snapshot.status.map(String.init) ?? "")" }
            #expect(remote.events.map(shape) == local.events.map(shape), "scenario \(name)")
        }
    }

    /// The token endpoint's answer reaches the remote session as the server sent it: its
    /// headers in the order they came (the lab's own, then the framing the server adds), so
    /// the same run gives the same trace every time.
    @Test func theRemoteRefreshEventListsResponseHeadersAsSent() async throws {
        let (local, remote, _) = try await bothRuns("token-expiry")
        let localRefresh = try #require(local.events.first { $0.phase == .refresh })
        let remoteRefresh = try #require(remote.events.first { $0.phase == .refresh })

        #expect(localRefresh.headers.map { $0.map(\.name) } == ["Content-Type", "Cache-Control", "Pragma"])
        #expect(remoteRefresh.headers.map { $0.map(\.name) } == ["Content-Type", "Cache-Control", "Pragma", "Content-Length", "Connection"])
        #expect(remoteRefresh.body?.text == localRefresh.body?.text)
        #expect(remoteRefresh.status == 200)
    }
}
