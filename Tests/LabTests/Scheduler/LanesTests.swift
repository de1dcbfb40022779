@testable import Lab
@testable import Scheduling
import Testing
import Timeline

/// Where each lane is when not parked, and a forked request's two lanes, without the core.
@Suite("Lanes")
struct LanesTests {
    static let cache1 = LaneKey(1, .cache), network1 = LaneKey(1, .network)

    @Test("a launched lane runs until it stops; the lanes are quiescent once none runs or wakes")
    func runAndStop() {
        var lanes = Lanes()
        #expect(lanes.isQuiescent)
        lanes.run(Self.cache1)
        #expect(!lanes.isQuiescent && lanes.running.only == Self.cache1)
        lanes.stop(Self.cache1)
        #expect(lanes.isQuiescent && lanes.running.isEmpty)
    }

    @Test("a lane blocked while refreshes are in flight wakes when the last one ends; with none in flight it wakes at once")
    func blockedUntilTheLastRefreshEnds() {
        var lanes = Lanes()
        lanes.run(Self.cache1)
        lanes.refreshStarted()
        lanes.refreshStarted()
        lanes.block(Self.cache1)
        #expect(lanes.blocked == [Self.cache1] && lanes.waking.isEmpty && lanes.isQuiescent)
        #expect(lanes.refreshEnded() == false)
        #expect(lanes.blocked == [Self.cache1])
        #expect(lanes.refreshEnded() == true)
        #expect(lanes.blocked.isEmpty && lanes.waking == [Self.cache1] && !lanes.isQuiescent)
        lanes.stop(Self.cache1)
        #expect(lanes.waking.isEmpty && lanes.isQuiescent)

        lanes.run(LaneKey(2, .cache))
        lanes.block(LaneKey(2, .cache))
        #expect(lanes.blocked.isEmpty && lanes.waking == [LaneKey(2, .cache)])
        // More ends than starts count as none in flight.
        #expect(lanes.refreshEnded() == false)
        lanes.refreshStarted()
        lanes.block(LaneKey(3, .cache))
        #expect(lanes.blocked == [LaneKey(3, .cache)])
    }

    @Test("a fork runs the network lane beside the cache lane; results handed on first are read without waiting, one per read")
    func handedOnFirst() {
        var lanes = Lanes()
        lanes.run(Self.cache1)
        lanes.fork(request: 1)
        #expect(lanes.forked == [1])
        #expect(lanes.running.count == 2 && lanes.running.contains(Self.network1))
        #expect(lanes.handOn(request: 1, isEnd: false) == false)
        #expect(lanes.handOn(request: 1, isEnd: false) == false)
        lanes.readNetworkResult(request: 1)
        #expect(lanes.waking == [Self.cache1] && lanes.awaiting.isEmpty && lanes.running.only == Self.network1)
        lanes.stop(Self.cache1)
        lanes.run(Self.cache1)
        lanes.readNetworkResult(request: 1)
        #expect(lanes.waking == [Self.cache1] && lanes.awaiting.isEmpty)
        lanes.stop(Self.cache1)
        lanes.run(Self.cache1)
        lanes.readNetworkResult(request: 1)
        #expect(lanes.waking.isEmpty && lanes.awaiting == [1])
    }

    @Test("a cache lane that reads before anything is handed on awaits it, and wakes at the hand-over")
    func awaitingThenWoken() {
        var lanes = Lanes()
        lanes.run(Self.cache1)
        lanes.fork(request: 1)
        lanes.readNetworkResult(request: 1)
        #expect(lanes.awaiting == [1] && lanes.waking.isEmpty && lanes.running.only == Self.network1)
        #expect(lanes.handOn(request: 1, isEnd: false) == false)
        #expect(lanes.awaiting.isEmpty && lanes.waking == [Self.cache1])
        // Read at the hand-over: nothing is left for the next read.
        lanes.stop(Self.cache1)
        lanes.run(Self.cache1)
        lanes.readNetworkResult(request: 1)
        #expect(lanes.awaiting == [1])
    }

    @Test("the network lane's end leaves one lane; a cache lane that ended early runs again, to finish")
    func networkLaneEnds() {
        var lanes = Lanes()
        lanes.run(Self.cache1)
        lanes.fork(request: 1)
        #expect(lanes.endCacheLane(request: 1) == true)
        #expect(lanes.running.only == Self.network1)
        #expect(lanes.handOn(request: 1, isEnd: true) == true)
        #expect(lanes.forked.isEmpty && lanes.running.only == Self.cache1)
        // A request with one lane: nothing to end.
        #expect(lanes.endCacheLane(request: 1) == false)
        #expect(lanes.running.only == Self.cache1)
        #expect(lanes.handOn(request: 1, isEnd: true) == false)
    }

    @Test("a finish forgets the request: its lanes, what was handed on, and whether it awaited; it says whether a network lane ended with it")
    func finish() {
        var lanes = Lanes()
        lanes.run(Self.cache1)
        lanes.fork(request: 1)
        _ = lanes.handOn(request: 1, isEnd: false)
        #expect(lanes.finish(request: 1) == true)
        #expect(lanes.forked.isEmpty && lanes.running.isEmpty && lanes.isQuiescent)
        lanes.run(Self.cache1)
        lanes.fork(request: 1)
        lanes.readNetworkResult(request: 1)
        #expect(lanes.awaiting == [1])
        #expect(lanes.finish(request: 1) == true)
        #expect(lanes.awaiting.isEmpty)

        lanes.run(LaneKey(2, .cache))
        lanes.refreshStarted()
        lanes.block(LaneKey(2, .cache))
        #expect(lanes.finish(request: 2) == false)
        #expect(lanes.blocked.isEmpty)
    }
}
