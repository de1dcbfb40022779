import ChainKit
import Foundation
@testable import Instrumentation
@testable import Lab
@testable import Scheduling
import Testing
import Timeline

/// Where an operation's events read the time (`EventClock.swift`): the lab's virtual clock,
/// read in place, or a closure.
@Suite("Event clock")
struct EventClockTests {
    @Test("a clock's reading follows the virtual clock as it moves; a closure's is what it returns")
    func readsTheClockOrTheClosure() {
        let clock = VirtualClock(start: .milliseconds(250))
        let time = EventClock(clock)
        #expect(time.seconds == 0.25)
        clock.advance(by: .seconds(2))
        #expect(time.seconds == 2.25)
        #expect(EventClock { 7.5 }.seconds == 7.5)
    }

    @Test("events recorded through a context carry the lab clock's time when each was recorded")
    func eventsCarryTheClocksTime() async throws {
        let clock = VirtualClock()
        let store = TimelineStore()
        let scheduler = Scheduler(environment: Scheduler.Environment(record: { _ in }, now: { 0 }, launch: { _, _ in }, advanceClock: { _ in }, expireTokens: {}))
        let context = OperationContext(request: 1, scheduler: scheduler, safetyCap: 10, store: store, clock: EventClock(clock))
        // The transport takes 1.5 s of lab time: what it receives is recorded after that.
        let transport = ClosureTransport { _, _, _, _ in
            clock.advance(by: .milliseconds(1500))
            return (HTTPResponse(status: 200), nil)
        }
        let stack = InstrumentedMiddlewareStack(middlewares: [], transport: transport, context: context)
        _ = try await stack.send(HTTPRequest(method: .get, path: "/heroes/2001"), body: nil, baseURL: URL(string: "https://lab.example")!, operationID: "getHero")
        let events = store.events()
        // The transport hop's send before the wait, its receive after it.
        #expect(events.map(\.phase) == [.send, .receive])
        #expect(events.map(\.time) == [0, 1.5])
    }
}
