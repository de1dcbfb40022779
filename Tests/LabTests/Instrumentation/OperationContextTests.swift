import ChainKit
import Foundation
@testable import Instrumentation
@testable import Lab
@testable import Scheduling
import Testing
import Timeline

/// Contexts of one session's operations made from one `OperationContext.Shared`, as a
/// `LabSession` makes them.
@Suite("Operation context")
struct OperationContextTests {
    @Test("contexts sharing one Shared record into its store and read its clock, each with its own request and attempts, the same request shown by one snapshot")
    func contextsShareTheSessionsParts() async throws {
        let clock = VirtualClock(start: .milliseconds(500))
        let store = TimelineStore()
        let scheduler = Scheduler(environment: Scheduler.Environment(record: { _ in }, now: { 0 }, launch: { _, _ in }, advanceClock: { _ in }, expireTokens: {}))
        let shared = OperationContext.Shared(scheduler: scheduler, store: store, clock: EventClock(clock))
        let first = OperationContext(request: 7, safetyCap: 3, shared: shared)
        let second = OperationContext(request: 8, safetyCap: 3, shared: shared)
        #expect(first.scheduler === scheduler && second.snapshots === shared.snapshots && first.layouts === second.layouts)
        #expect(try first.beginAttempt() == 1)
        #expect(try first.beginAttempt() == 2)
        #expect(second.attempt == 0)
        let transport = ClosureTransport { _, _, _, _ in (HTTPResponse(status: 204), nil) }
        let request = HTTPRequest(method: .get, path: "/heroes/2001")
        for context in [first, second] {
            _ = try await InstrumentedMiddlewareStack(middlewares: [], transport: transport, context: context)
                .send(request, body: nil, baseURL: URL(string: "https://lab.example")!, operationID: "getHero")
            // Ended, as a session ends it: the next operation's turn.
            scheduler.finish(request: context.request)
        }
        let events = store.events()
        #expect(events.map(\.request) == [7, 7, 8, 8])
        #expect(events.map(\.attempt) == [2, 2, 0, 0])
        #expect(events.map(\.time) == [0.5, 0.5, 0.5, 0.5])
        // Both operations sent the same request: their send events show one snapshot.
        #expect(events[0].snapshot === events[2].snapshot)
    }
}
