import ChainKit
import Foundation
import Lab
import Testing
import Timeline

/// Quitting with requests held at stops, blocked on a shared refresh and running: every
/// gate is released with a cancellation, every request ends, and no task is left.
@Suite("Shutdown")
struct ShutdownTests {
    /// Whether `work` returned before `limit` passed. A guard against a hang, not a
    /// measurement: the work is expected to take a tiny fraction of it.
    static func returns(within limit: Duration, _ work: @escaping @Sendable () async -> Void) async -> Bool {
        let outcome = Locked<Bool?>(nil)
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let settle = { @Sendable (returned: Bool) in
                let first = outcome.withLock { value -> Bool in
                    guard value == nil else { return false }
                    value = returned
                    return true
                }
                if first { continuation.resume(returning: returned) }
            }
            Task {
                await work()
                settle(true)
            }
            Task {
                try? await Task.sleep(for: limit)
                settle(false)
            }
        }
    }

    @Test func quittingReleasesEveryGateEndsEveryRequestAndLeaksNoTask() async throws {
        // token-expiry: an expired token and a single-flight refresh, every request held.
        let session = steppingSession("token-expiry")
        for _ in 1...6 { await session.perform(.launch(operation: 0)) }
        await session.step(1, until: .hop(BasicsHop.auth, .pre))
        await session.step(2, until: .hop(BasicsHop.transport, .pre))
        await session.step(3, until: .hop(BasicsHop.responseCode, .post))
        // #4 starts the shared refresh and is held before sending it; #5 runs freely, gets
        // its 401 and waits for #4's refresh; #6 is held before its first hop.
        await session.step(4, until: .refresh)
        await session.perform(.resume(request: 5))

        let before = session.control
        #expect(before.parked.filter(\.held).map { "#\($0.request) \($0.place)" }.sorted() == [
            "#1 \(StopPlace.hop(BasicsHop.auth, .pre))",
            "#2 \(StopPlace.hop(BasicsHop.transport, .pre))",
            "#3 \(StopPlace.hop(BasicsHop.responseCode, .post))",
            "#4 \(StopPlace.refresh)",
            "#6 \(StopPlace.hop(BasicsHop.maxRetry, .pre))",
        ])
        #expect(before.blocked == [5])
        #expect(session.summaries.isEmpty)
        #expect(session.activeTaskCount == 6)

        let returned = await Self.returns(within: .seconds(1)) { await session.shutDown() }
        try #require(returned, "shutDown() did not return within 1 s")

        let summaries = session.summaries
        #expect(summaries.keys.sorted() == [1, 2, 3, 4, 5, 6])
        for (id, summary) in summaries.sorted(by: { $0.key < $1.key }) {
            #expect(summary.outcome == .failure, "#\(id)")
            #expect(summary.results == [], "#\(id)")
            #expect(summary.error?.contains("cancelled") == true, "#\(id): \(summary.error ?? "no error")")
        }
        let after = session.control
        #expect(after.parked == [])
        #expect(after.running == [])
        #expect(after.blocked == [])
        #expect(after.finished == [1, 2, 3, 4, 5, 6])
        #expect(session.activeTaskCount == 0)
        #expect(session.result().unfinished == [])
    }
}
