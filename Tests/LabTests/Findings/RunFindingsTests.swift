import Findings
import Backend
import ChainKit
import Foundation
import Lab
import Testing
import Timeline

/// `severity id: message` for each finding.
func lines(_ findings: [Finding]) -> [String] {
    findings.map { "\($0.severity.rawValue) \($0.id): \($0.message)" }
}

func runFindings(_ scenario: Scenario) async -> [Finding] {
    let session = LabSession(scenario: scenario)
    let result = await session.runHeadless()
    await session.shutDown()
    return result.findings
}

func runFindings(_ name: String) async throws -> [Finding] {
    await runFindings(try #require(Catalog.scenario(named: name)))
}

@Suite("Run findings of the built-in scenarios")
struct RunFindingsScenarioTests {
    static let expected: [String: [String]] = [
        "basics": [],
        "token-expiry": [],
        "refresh-storm": [
            "error refresh-storm: 5 refreshes presented refresh token 1 (#1 seq 57, #2 seq 60, #3 seq 63, #4 seq 66, #5 seq 69): #1's won (200, seq 57); #2, #3, #4 and #5 got invalid_grant; the token family was revoked: #1's new access token from seq 57 was refused at seq 82 (RFC 6749 §10.4)",
        ],
        "refresh-storm-fixed": [
            "info shared-refresh: #1's refresh (seq 57) was shared: #2, #3, #4 and #5 waited for it instead of refreshing, and it released all 4 (seq 60, 62, 64, 66)",
        ],
        "stale-token": [
            "error stale-token-retry: #1 retried with the Authorization the server had refused: attempt 2 (seq 21) after the 401 at seq 7, attempt 3 (seq 36) after the 401 at seq 22, attempt 4 (seq 51) after the 401 at seq 37",
            "warning max-retries-exhausted: #1 ran out of retries: MaxRetriesError on attempt 5 (seq 61); retries triggered by AuthInterceptor ×4 (seq 14, 29, 44, 59)",
        ],
        "retry-order": [
            "error unbounded-retry: #1 retried without bound: 20 retries until the lab's safety cap stopped it after 20 attempts; retries triggered by RetryOnErrorInterceptor ×20 (20 events: seq 13, 26, 39, …, 90); 17 of them turned MaxRetriesError into another retry (17 events: seq 41, 44, 47, …, 89)",
        ],
        "apq": [],
        "cache-fallback": [
            "warning cache-fallback-hid-error: #1's 503 (seq 6) was answered from the cache (seq 10): the request succeeded and no GraphQL interceptor saw the error",
        ],
        "cache-and-network": [],
        "cache-records": [
            "info cache-only-result: #4 was answered from the cache (seq 52) and never reached the network",
            "info cache-only-result: #5 was answered from the cache (seq 61) and never reached the network",
        ],
        "graphql-errors-200": [],
        "empty-401": [
            "error empty-401-no-results: #1 got a 401 with an empty body (seq 7) and failed with noResults instead of an auth error",
        ],
        "openapi-middleware": [],
        "defer": [],
        "subscription": [],
        "hostile-server": [],
        "partial-data": [],
        "watcher": [],
    ]

    @Test("every built-in scenario's run findings", arguments: Catalog.names)
    func builtIn(_ name: String) async throws {
        let expected = try #require(Self.expected[name], "no expectation for \(name)")
        #expect(lines(try await runFindings(name)) == expected)
    }

    @Test("findings cite events that exist and belong to the requests they name")
    func citationsAreReal() async throws {
        for name in ["refresh-storm", "refresh-storm-fixed", "stale-token", "retry-order", "cache-fallback", "empty-401"] {
            let session = LabSession(scenario: try #require(Catalog.scenario(named: name)))
            let result = await session.runHeadless()
            await session.shutDown()
            let bySeq = Dictionary(uniqueKeysWithValues: result.events.map { ($0.seq, $0) })
            for finding in result.findings {
                #expect(!finding.events.isEmpty && finding.events == finding.events.sorted())
                for seq in finding.events {
                    let event = try #require(bySeq[seq], "\(name): \(finding.id) cites seq \(seq)")
                    #expect(finding.requests.contains(event.request), "\(name): seq \(seq) is of #\(event.request)")
                }
            }
        }
    }
}

@Suite("Run findings: each detector fires on its pattern and not on a close run")
struct RunFindingsDetectorTests {
    func scenario(_ name: String, _ change: (inout Scenario) -> Void) throws -> Scenario {
        var scenario = try #require(Catalog.scenario(named: name))
        change(&scenario)
        return scenario
    }

    @Test("a storm without rotation is still a storm, and claims no winner or revocation")
    func stormWithoutRotation() async throws {
        let findings = await runFindings(try scenario("refresh-storm") { $0.backend.rotateRefreshTokens = false })
        #expect(lines(findings).filter { $0.hasPrefix("error refresh-storm") } == [
            "error refresh-storm: 5 refreshes presented refresh token 1 (#1 seq 57, #2 seq 60, #3 seq 63, #4 seq 66, #5 seq 69): none was refused",
        ])
    }

    @Test("one request refreshing once: no storm, no shared refresh, no stale retry")
    func singleRefresh() async throws {
        #expect(try await runFindings("token-expiry").isEmpty)
    }

    @Test("a retry that fails with MaxRetriesError is exhausted, not unbounded")
    func exhaustedIsNotUnbounded() async throws {
        let ids = try await runFindings("stale-token").map(\.id)
        #expect(ids.contains("max-retries-exhausted") && !ids.contains("unbounded-retry"))
    }

    @Test("the retry-order chain fixed (MaxRetry first) ends in MaxRetriesError, not without bound")
    func retryOrderFixed() async throws {
        let fixed = try scenario("retry-order") {
            $0.chain = .graphQL(
                graphQL: [Scenario.Layer("MaxRetryInterceptor", ["maxRetries": 2]), Scenario.Layer("RetryOnErrorInterceptor"), Scenario.Layer("AuthInterceptor")],
                http: [Scenario.Layer("ResponseCodeInterceptor")])
        }
        #expect(lines(await runFindings(fixed)) == [
            "warning max-retries-exhausted: #1 ran out of retries: MaxRetriesError on attempt 4 (seq 40); retries triggered by RetryOnErrorInterceptor ×3 (seq 12, 25, 38)",
        ])
    }

    @Test("a 401 with a body is an auth error, not noResults")
    func unauthorizedWithBody() async throws {
        let findings = await runFindings(try scenario("empty-401") { $0.backend.authFailureMode = .status401 })
        #expect(findings.isEmpty)
    }

    @Test("NetworkFirst with a working server: no fallback to report")
    func fallbackWithoutFailure() async throws {
        #expect(await runFindings(try scenario("cache-fallback") { $0.backend.serverErrorMode = .none }).isEmpty)
    }

    @Test("CacheOnly on a filled cache: answered from the cache, never sent")
    func cacheOnly() async throws {
        let cacheOnly = try scenario("cache-fallback") {
            $0.backend.serverErrorMode = .none
            $0.operations = [Scenario.Operation(name: "HeroQuery") { $0.fetchBehavior = .CacheOnly }]
        }
        #expect(lines(await runFindings(cacheOnly)) == [
            "info cache-only-result: #1 was answered from the cache (seq 4) and never reached the network",
        ])
        // CacheFirst on an empty cache misses and fetches.
        #expect(try await runFindings("basics").isEmpty)
    }

    @Test("a refresh nobody waited for is not reported as shared")
    func refreshWithoutWaiters() async throws {
        let alone = try scenario("refresh-storm-fixed") { $0.launch = [0]; $0.script = [] }
        #expect(await runFindings(alone).isEmpty)
    }

    @Test("a rotation of the refresh token the person gave is reported; of a token nobody keeps, or without a new one, it is not", arguments: [
        ("refresh_token grant, refresh token 1, the one you gave", #"{"access_token":"a2","refresh_token":"r2"}"#, true),
        ("refresh_token grant, refresh token 1", #"{"access_token":"a2","refresh_token":"r2"}"#, false),
        ("refresh_token grant, refresh token 1, the one you gave", #"{"access_token":"a2"}"#, false),
    ])
    func storedRefreshTokenSpent(detail: String, answer: String, reported: Bool) {
        let store = TimelineStore()
        let seq = store.append(TimelineEvent(
            time: 0.2, request: 1, attempt: 1, hop: TimelineEvent.noHop, name: "TokenManager", kind: .auth, phase: .refresh,
            snapshot: HopSnapshot(method: "POST", url: "https://auth.example.test/token", status: 200, body: BodyPreview(Data(answer.utf8))), detail: detail))
        let findings = RunFindings.detect(events: store.events(), requests: [RequestSummary(id: 1, operation: "Me", outcome: .success, attempts: 2)])
        #expect(findings.map(\.id) == (reported ? ["stored-refresh-token-spent"] : []))
        #expect(findings.first?.events == (reported ? [seq] : nil))
    }

    @Test("detectors read only the events: no events, no findings")
    func emptyRun() {
        #expect(RunFindings.detect(events: [], requests: []).isEmpty)
        #expect(RunFindings.detect(events: [], requests: [RequestSummary(id: 1, operation: "HeroQuery", outcome: .failure, attempts: 5, error: "MaxRetriesError: x")]).isEmpty)
    }
}
