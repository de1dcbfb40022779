@testable import Lab
@testable import Scheduling
import Testing
import Timeline

/// Whose turn it is, without the core: each test parks stops with label waiters and reads
/// back the exact order of turns.
@Suite("Turns")
struct TurnsTests {
    typealias Parks = Turns<String>

    static func stop(_ request: Int, _ lane: Lane? = nil, at place: StopPlace = .hop(0, .pre), held: Bool = false) -> ParkedStop {
        ParkedStop(request: request, lane: lane, place: place, held: held)
    }

    static func turns(_ parks: inout Parks) -> [LaneKey] {
        var order: [LaneKey] = []
        while let key = parks.nextTurn() { order.append(key) }
        return order
    }

    @Test("lanes not held take their turns in the order they parked; held lanes wait for a command")
    func arrivalOrder() {
        var parks = Parks()
        #expect(parks.isEmpty && !parks.hasReady)
        parks.park(Self.stop(3), waiter: "three", forked: false, paused: nil)
        parks.park(Self.stop(2, held: true), waiter: "two", forked: false, paused: nil)
        parks.park(Self.stop(1), waiter: "one", forked: false, paused: nil)
        #expect(parks.hasReady && !parks.isEmpty)
        #expect(parks.stops.map(\.request) == [1, 2, 3])
        #expect(parks[LaneKey(2, .cache)]?.waiter == "two")
        #expect(Self.turns(&parks) == [LaneKey(3, .cache), LaneKey(1, .cache)])
        #expect(!parks.hasReady)
        // Popped turns stay parked until they leave.
        #expect(parks.parked.count == 3)
    }

    @Test("lanes that arrived together, a forked request's or back from a wait, join the round in key order behind those already in it")
    func arrivedTogether() {
        var parks = Parks()
        parks.park(Self.stop(3), waiter: "three", forked: false, paused: nil)
        parks.park(Self.stop(2, .network), waiter: "two network", forked: true, paused: nil)
        parks.park(Self.stop(2, .cache), waiter: "two cache", forked: true, paused: nil)
        parks.park(Self.stop(1, at: .wake), waiter: "one woke", forked: false, paused: nil)
        #expect(parks.hasReady)
        #expect(Self.turns(&parks) == [LaneKey(3, .cache), LaneKey(1, .cache), LaneKey(2, .cache), LaneKey(2, .network)])
    }

    @Test("a network lane at its wake stop is no turn: it goes only as a part read, lowest key first")
    func partReads() {
        var parks = Parks()
        parks.park(Self.stop(2, .network, at: .wake), waiter: "part of 2", forked: true, paused: nil)
        parks.park(Self.stop(1, .network, at: .wake), waiter: "part of 1", forked: true, paused: nil)
        #expect(!parks.hasReady && !parks.isEmpty)
        #expect(parks.nextTurn() == nil)
        #expect(parks.nextPartRead() == LaneKey(1, .network))
        #expect(parks.nextPartRead() == LaneKey(2, .network))
        #expect(parks.nextPartRead() == nil)
    }

    @Test("a lane that leaves without its turn is taken out of the round, wherever it waited; a popped one is already out")
    func leaving() {
        var parks = Parks()
        for request in 1...3 { parks.park(Self.stop(request), waiter: "\(request)", forked: false, paused: nil) }
        parks.park(Self.stop(4, .cache), waiter: "4", forked: true, paused: nil)
        parks.park(Self.stop(5, .network, at: .wake), waiter: "5", forked: true, paused: nil)
        parks.leave(LaneKey(2, .cache), popped: false)
        parks.leave(LaneKey(4, .cache), popped: false)
        parks.leave(LaneKey(5, .network), popped: false)
        #expect(parks.nextPartRead() == nil)
        #expect(parks.nextTurn() == LaneKey(1, .cache))
        parks.leave(LaneKey(1, .cache), popped: true)
        #expect(Self.turns(&parks) == [LaneKey(3, .cache)])
        #expect(parks.stops.map(\.request) == [3])
        // Leaving twice, or a lane never parked, changes nothing.
        parks.leave(LaneKey(1, .cache), popped: false)
        parks.leave(LaneKey(9, .cache), popped: false)
        #expect(parks.stops.map(\.request) == [3])
    }

    @Test("releasing the held: each stops being held and joins the round in key order, after the lanes already in it")
    func releaseHeld() {
        var parks = Parks()
        parks.park(Self.stop(2, held: true), waiter: "two", forked: false, paused: nil)
        parks.park(Self.stop(3), waiter: "three", forked: false, paused: nil)
        parks.park(Self.stop(1, held: true), waiter: "one", forked: false, paused: nil)
        #expect(parks.releaseHeld() == [LaneKey(1, .cache), LaneKey(2, .cache)])
        #expect(parks.stops.map(\.held) == [false, false, false])
        #expect(Self.turns(&parks) == [LaneKey(3, .cache), LaneKey(1, .cache), LaneKey(2, .cache)])
        #expect(parks.releaseHeld() == [])
    }

    @Test("pauses held back come out once, in key order, whatever order the lanes parked in")
    func heldBackPauses() {
        var parks = Parks()
        let network = TimelineEvent(time: 1, request: 1, attempt: 1, hop: 4, name: "transport", kind: .transport, phase: .paused, detail: "step")
        let cache = TimelineEvent(time: 2, request: 1, attempt: 1, hop: 2, name: "cache", kind: .cache, phase: .paused, detail: "step")
        parks.park(Self.stop(1, .network, held: true), waiter: "network", forked: true, paused: network)
        parks.park(Self.stop(1, .cache, held: true), waiter: "cache", forked: true, paused: cache)
        #expect(parks.takeHeldBackPauses() == [cache, network])
        #expect(parks.takeHeldBackPauses() == [])
        #expect(!parks.hasReady)
    }

    @Test("everybody leaving at once comes out in key order with their waiters, and nobody is left to take a turn; held-back pauses stay")
    func leaveAll() {
        var parks = Parks()
        let paused = TimelineEvent(time: 0, request: 2, attempt: 1, hop: 0, name: "a", kind: .graphql, phase: .paused, detail: "step")
        parks.park(Self.stop(2, .network, held: true), waiter: "two network", forked: true, paused: paused)
        parks.park(Self.stop(2, .cache), waiter: "two cache", forked: true, paused: nil)
        parks.park(Self.stop(1), waiter: "one", forked: false, paused: nil)
        parks.park(Self.stop(3, .network, at: .wake), waiter: "three", forked: true, paused: nil)
        let all = parks.leaveAll()
        #expect(all.map(\.key) == [LaneKey(1, .cache), LaneKey(2, .cache), LaneKey(2, .network), LaneKey(3, .network)])
        #expect(all.map(\.parked.waiter) == ["one", "two cache", "two network", "three"])
        #expect(parks.parked.isEmpty && !parks.hasReady)
        #expect(parks.nextTurn() == nil && parks.nextPartRead() == nil)
        #expect(!parks.isEmpty)
        #expect(parks.takeHeldBackPauses() == [paused])
        #expect(parks.isEmpty)
    }

    @Test("a change reaches the stop a lane waits at, and nothing when it waits nowhere")
    func change() {
        var parks = Parks()
        parks.park(Self.stop(1, .cache, held: true), waiter: "one", forked: true, paused: nil)
        parks.change(LaneKey(1, .cache)) { $0.lane = nil; $0.pending.responseStatus = 500 }
        parks.change(LaneKey(2, .cache)) { $0.pending.responseStatus = 404 }
        #expect(parks.stops.map(\.lane) == [nil])
        #expect(parks.stops.map(\.pending.responseStatus) == [500])
        #expect(parks.stops.count == 1)
    }
}
