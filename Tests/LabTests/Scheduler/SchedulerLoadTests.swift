import ChainKit
@testable import Lab
@testable import Scheduling
import Testing
import TestSupport
import Timeline

@Suite("Scheduler under load")
struct SchedulerLoadTests {
    static let operations = 10_000
    static let cap = 20_000
    /// Commands submitted at random while operations take turns.
    static let chaosCommands = 2_000
    /// Every stop a basics request can reach (a cache hit skips the HTTP hops).
    static let basicsStops: [(Int, StopPosition)] = [
        (0, .pre), (1, .pre), (2, .pre), (3, .pre), (4, .pre), (5, .pre),
        (5, .post), (4, .post), (6, .pre), (2, .post), (1, .post), (0, .post),
    ]

    @Test("10,000 concurrent basics operations with random turns and faults all end, and the capped store accounts for every event")
    func tenThousandOperations() async throws {
        var scenario = try #require(Catalog.scenario(named: "basics"))
        scenario.launch = Array(repeating: 0, count: Self.operations)
        let store = try TimelineStore(cap: Self.cap)
        let session = LabSession(scenario: scenario, store: store)
        let scheduler = session.scheduler
        var random = SplitMix(seed: 0x00C4_A11A_B5EE)

        // About a tenth of the requests are held by a breakpoint of their own.
        for request in 1...Self.operations where Int.random(in: 0..<10, using: &random) == 0 {
            let (hop, position) = Self.basicsStops[Int.random(in: 0..<Self.basicsStops.count, using: &random)]
            scheduler.setBreakpoint(.init(hop: hop, position: position, request: request), enabled: true)
        }

        // A hang guard, not a time limit: if the run has not ended by then, end it so the
        // test fails instead of hanging.
        let hangGuard = Task {
            try await Task.sleep(for: .seconds(300))
            Issue.record("the run did not end within 300 s; shutting the scheduler down")
            scheduler.shutDown()
        }
        defer { hangGuard.cancel() }

        for operation in scenario.launch { scheduler.submit(.launch(operation: operation)) }
        let chaos = Task { [seed = random.next()] in
            var random = SplitMix(seed: seed)
            for _ in 0..<Self.chaosCommands {
                scheduler.submit(Self.chaosCommand(&random))
                await Task.yield()
            }
        }

        // Settle, then give every held request a random command, until nothing is held.
        var rounds = 0
        var chaosDone = false
        while true {
            await scheduler.waitUntilSettled()
            let held = scheduler.snapshot.parked.filter(\.held)
            if held.isEmpty {
                guard chaosDone else {
                    await chaos.value
                    chaosDone = true
                    continue
                }
                break
            }
            rounds += 1
            for stop in held { scheduler.submit(Self.heldCommand(for: stop.request, &random)) }
        }

        let result = session.result()
        let snapshot = scheduler.snapshot
        #expect(result.unfinished.isEmpty)
        #expect(snapshot.parked.isEmpty)
        #expect(snapshot.running.isEmpty && snapshot.blocked.isEmpty)
        #expect(snapshot.finished.count == Self.operations)
        #expect(result.requests.map(\.id) == Array(1...Self.operations))
        #expect(result.requests.allSatisfy { $0.attempts >= 1 && ($0.outcome == .success) == ($0.error == nil) })
        let failures = result.requests.filter { $0.outcome == .failure }.count
        #expect(failures > 0, "the injected faults failed no request")

        // Seqs: what the store kept is in order and within 1...lastSeq, so the gaps are
        // exactly the dropped events, and those belong to exactly the dropped requests.
        let stats = store.stats
        let kept = result.events.map(\.seq)
        #expect(stats.cap == Self.cap)
        #expect(stats.count == kept.count)
        #expect(zip(kept, kept.dropFirst()).allSatisfy { $0 < $1 })
        #expect(kept.first.map { $0 >= 1 } ?? true)
        #expect(kept.last.map { $0 <= stats.lastSeq } ?? true)
        #expect(stats.lastSeq == stats.count + stats.droppedEvents)
        #expect(stats.droppedEvents > 0, "the cap never dropped anything; raise the load or lower the cap")
        #expect(stats.count <= Self.cap)
        let keptRequests = Set(result.events.map(\.request)).subtracting([0])
        #expect(keptRequests.count + stats.droppedRequests == Self.operations)

        print("""
            scheduler load: \(Self.operations) operations, \(rounds) rounds of held commands, \
            \(failures) failed, \(result.refusals.count) commands refused, \
            \(stats.lastSeq) events (\(stats.count) kept, \(stats.droppedEvents) dropped from \(stats.droppedRequests) requests)
            """)
    }

    /// A command for a held request: mostly let it go, sometimes inject a fault or hold it
    /// longer. Refused commands (a 401 where none can be forced) leave it held for the next round.
    static func heldCommand(for request: Int, _ random: inout SplitMix) -> LabCommand {
        switch Int.random(in: 0..<20, using: &random) {
        case 0..<10: .resume(request: request)
        case 10..<12: .step(request: request)
        case 12..<14: .fail(request: request, fault: LabFault.allCases.randomElement(using: &random)!)
        case 14..<16: .force401(request: request)
        case 16..<18: .forceRetry(request: request)
        default: .delay(request: request, seconds: Double(Int.random(in: 0..<500, using: &random)) / 1000)
        }
    }

    /// A command submitted while operations run: who moves next, a fault, or the clock.
    static func chaosCommand(_ random: inout SplitMix) -> LabCommand {
        let request = 1 + Int.random(in: 0..<operations, using: &random)
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<50: return .pass(request: request)
        case 50..<60: return .fail(request: request, fault: LabFault.allCases.randomElement(using: &random)!)
        case 60..<70: return .force401(request: request)
        case 70..<80: return .forceRetry(request: request)
        case 80..<90: return .delay(request: request, seconds: 0.25)
        case 90..<99: return .advanceClock(seconds: 1)
        default: return .expireTokens
        }
    }
}
