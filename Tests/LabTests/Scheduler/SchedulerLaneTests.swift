import ChainKit
import Lab
import Testing
import Timeline

/// A request with two lanes (CacheAndNetwork's overlapping network fetch) in the scheduler's
/// core: each test feeds the inputs the two tasks would, in the orders threads may run them,
/// and states the exact effects.
@Suite("Scheduler lanes")
struct SchedulerLaneTests {
    typealias Core = SchedulerCore<String>

    /// Request 1 launched and running in `mode`, its network fetch forked at the cache hit.
    static func forked(_ mode: Scheduler.RunMode = .run) -> Core {
        var core = Core(defaultMode: mode)
        core.submit(.launch(operation: 0))
        _ = core.dispatch(now: 0)
        core.fork(request: 1)
        return core
    }

    static func stop(_ lane: Lane, _ hop: Int, _ position: StopPosition, held: Bool = false) -> ParkedStop {
        ParkedStop(request: 1, lane: lane, place: .hop(hop, position), held: held)
    }

    @Test("a fork runs the network lane before its task exists: nothing moves until both lanes have stopped")
    func forkWaitsForBothLanes() {
        var core = Self.forked()
        #expect(core.running == [1])
        #expect(core.forked == [1])
        #expect(core.soloLane == 0)
        #expect(!core.mayPassWithoutTurn(1, lane: .network))
        #expect(core.arrive(request: 1, lane: .network, place: .hop(4, .pre)) == .wait(held: false))
        core.park(Self.stop(.network, 4, .pre), waiter: "network")
        // The cache lane still climbs: no turn yet.
        #expect(core.dispatch(now: 0) == ([], false))
        core.park(Self.stop(.cache, 2, .post), waiter: "cache")
        #expect(core.dispatch(now: 0).effects == [.resume("cache", .proceed)])
        #expect(core.log.last == RecordedCommand(command: .pass(request: 1, lane: .cache), place: .hop(2, .post)))
    }

    @Test("lanes that stop together take their turns in key order, whichever arrived first, then in turn")
    func keyOrderThenRoundRobin() {
        for networkFirst in [true, false] {
            var core = Self.forked()
            let arrivals = [(Self.stop(.network, 4, .pre), "network"), (Self.stop(.cache, 2, .post), "cache")]
            for (stop, waiter) in networkFirst ? arrivals : arrivals.reversed() { core.park(stop, waiter: waiter) }
            #expect(core.dispatch(now: 0).effects == [.resume("cache", .proceed)])
            core.park(Self.stop(.cache, 1, .post), waiter: "cache 2")
            #expect(core.dispatch(now: 0).effects == [.resume("network", .proceed)])
            core.park(Self.stop(.network, 5, .pre), waiter: "network 2")
            #expect(core.dispatch(now: 0).effects == [.resume("cache 2", .proceed)])
            #expect(core.log.suffix(3).map(\.command) == [
                .pass(request: 1, lane: .cache), .pass(request: 1, lane: .network), .pass(request: 1, lane: .cache),
            ])
        }
    }

    @Test("in step mode a command names the lane it steps; the other stays held, and a command without one acts on the cache lane")
    func stepEitherLane() {
        var core = Self.forked(.step)
        core.park(Self.stop(.network, 4, .pre, held: true), waiter: "network")
        core.park(Self.stop(.cache, 2, .post, held: true), waiter: "cache")
        _ = core.dispatch(now: 0)
        core.submit(.step(request: 1, lane: .network))
        let stepped = core.dispatch(now: 0).effects
        #expect(stepped.last == .resume("network", .proceed))
        #expect(core.parkedStops.map(\.laneKey) == [LaneKey(1, .cache)])
        core.park(Self.stop(.network, 5, .pre, held: true), waiter: "network 2")
        _ = core.dispatch(now: 0)
        #expect(core.parkedStops.map(\.place) == [.hop(2, .post), .hop(5, .pre)])
        core.submit(.step(request: 1))
        #expect(core.dispatch(now: 0).effects.last == .resume("cache", .proceed))
        #expect(core.log.suffix(2).map(\.command) == [.step(request: 1, lane: .network), .step(request: 1, lane: .cache)])
    }

    @Test("held stops of two lanes record their pauses in key order once both have stopped")
    func pausesInKeyOrder() {
        var core = Self.forked(.step)
        let network = Self.stop(.network, 4, .pre, held: true), cache = Self.stop(.cache, 2, .post, held: true)
        core.park(network, waiter: "network", paused: network.event(time: 0, phase: .paused, detail: "step"))
        #expect(core.dispatch(now: 0) == ([], false))
        core.park(cache, waiter: "cache", paused: cache.event(time: 0, phase: .paused, detail: "step"))
        let round = core.dispatch(now: 0)
        #expect(round.effects == [
            .record(cache.event(time: 0, phase: .paused, detail: "step")),
            .record(network.event(time: 0, phase: .paused, detail: "step")),
        ])
        #expect(round.again)
    }

    @Test("the cache lane reads the network's result: it waits for the hand-over, or wakes at once when it came first")
    func handOver() {
        // Read first: the cache lane awaits and stops running; the hand-over wakes it.
        var core = Self.forked()
        core.park(Self.stop(.network, 6, .pre), waiter: "parser")
        core.readNetworkResult(request: 1)
        #expect(core.awaiting == [1])
        #expect(core.dispatch(now: 0).effects == [.resume("parser", .proceed)])
        // Nothing else waits for a turn: no dispatch round is needed for either.
        let handedResult = core.handOn(request: 1, isEnd: false)
        #expect(!handedResult)
        #expect(core.awaiting == [])
        let handedEnd = core.handOn(request: 1, isEnd: true)
        #expect(!handedEnd)
        #expect(core.forked == [])
        // Nothing moves until the woken lane arrives at its wake stop.
        #expect(core.dispatch(now: 0) == ([], false))
        core.park(ParkedStop(request: 1, place: .wake), waiter: "wake")
        #expect(core.dispatch(now: 0).effects == [.resume("wake", .proceed)])
        #expect(core.log.last == RecordedCommand(command: .pass(request: 1), place: .wake))

        // Handed over first: the read after it wakes at once, one read per hand-over.
        var early = Self.forked()
        _ = early.handOn(request: 1, isEnd: false)
        early.readNetworkResult(request: 1)
        #expect(early.awaiting == [])
        early.park(ParkedStop(request: 1, lane: .cache, place: .wake), waiter: "wake")
        early.readNetworkResult(request: 1)
        #expect(early.awaiting == [1])
    }

    @Test("when the network lane ends, the cache lane's stop no longer names a lane and the request passes alone again")
    func networkLaneEnds() {
        var core = Self.forked(.step)
        core.park(Self.stop(.cache, 1, .post, held: true), waiter: "cache")
        _ = core.handOn(request: 1, isEnd: true)
        #expect(core.parkedStops.map(\.lane) == [nil])
        #expect(core.running == [])
        // A lane read before the end is not kept.
        var late = Self.forked()
        _ = late.handOn(request: 1, isEnd: true)
        late.park(Self.stop(.cache, 0, .post), waiter: "late")
        #expect(late.parkedStops.map(\.lane) == [nil])
        #expect(late.dispatch(now: 0).effects == [.resume("late", .proceed)])
        #expect(late.log.last == RecordedCommand(command: .pass(request: 1), place: .hop(0, .post)))
    }

    @Test("a lane that ends after its reader left (the attempt was retried) hands nothing to the next attempt's reader")
    func retriedAttemptForksAgain() {
        var core = Self.forked()
        // The cached result was retried: the cache lane leaves, the cancelled lane runs to its end.
        let ended = core.endCacheLane(request: 1)
        #expect(!ended)
        core.park(Self.stop(.network, 5, .pre), waiter: "cancelled transport")
        #expect(core.dispatch(now: 0).effects == [.resume("cancelled transport", .proceed)])
        _ = core.handOn(request: 1, isEnd: true)
        // The operation's task runs again and starts attempt 2, which forks again.
        #expect(core.running == [1])
        #expect(core.forked == [])
        core.fork(request: 1)
        core.park(Self.stop(.network, 5, .pre), waiter: "transport")
        // Its cached result reached the top; the reader awaits the new lane, which takes its turn.
        core.readNetworkResult(request: 1)
        #expect(core.awaiting == [1])
        #expect(core.dispatch(now: 0).effects == [.resume("transport", .proceed)])
        let handed = core.handOn(request: 1, isEnd: false)
        #expect(!handed)
        #expect(core.awaiting == [])
    }

    @Test("refusals name the lane; a retry or a 401 cannot be forced on the cached result while the fetch overlaps")
    func refusals() {
        var core = Self.forked(.step)
        core.park(Self.stop(.cache, 1, .post, held: true), waiter: "cache")
        core.park(ParkedStop(request: 1, lane: .network, place: .hop(4, .pre), capabilities: StopCapabilities(canForce401: true), held: true), waiter: "network")
        core.submit(.forceRetry(request: 1))
        core.submit(.force401(request: 1, lane: .cache))
        #expect(core.dispatch(now: 0) == ([], true))
        #expect(core.dispatch(now: 0) == ([], true))
        // The network lane's own stop takes a forced 401.
        core.submit(.force401(request: 1, lane: .network))
        #expect(core.dispatch(now: 0).effects.last == .resume("network", Release(disposition: .force401)))
        // A cache lane waiting for the network's result is at no stop.
        var reading = Self.forked(.step)
        reading.readNetworkResult(request: 1)
        reading.park(Self.stop(.network, 4, .pre, held: true), waiter: "network")
        reading.submit(.step(request: 1, lane: .cache))
        #expect(reading.dispatch(now: 0) == ([], true))
        #expect(core.refusals.map(\.reason) + reading.refusals.map(\.reason) == [
            "request #1 (cache lane) cannot retry or answer 401 while its network fetch overlaps; step the network lane to its end first",
            "request #1 (cache lane) cannot retry or answer 401 while its network fetch overlaps; step the network lane to its end first",
            "request #1 (cache lane) is not waiting at a stop",
        ])
    }

    @Test("a replay entry naming a lane acts on that lane's stop and diverges, naming it, when the stop is elsewhere")
    func replayLanes() {
        var core = Core(replay: [RecordedCommand(command: .pass(request: 1, lane: .network), place: .hop(4, .pre))])
        #expect(core.dispatch(now: 0) == ([], true))
        #expect(core.refusals.map(\.reason) == ["replay diverged at step 1: expected request #1 (network lane) at hop 5 pre, found it not waiting at a stop"])
    }
}
