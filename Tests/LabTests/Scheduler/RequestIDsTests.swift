@testable import Lab
@testable import Scheduling
import Testing
import Timeline

@Suite("Launched, finished and running requests")
struct RequestIDsTests {
    @Test("launched requests read by id, in id order, and refuse nothing but unknown ids")
    func launched() {
        var launched = LaunchedRequests()
        #expect(launched.isEmpty && launched.ids == 1..<1 && launched[1] == nil)
        launched.launch(1, operation: 2)
        launched.launch(2, operation: 0)
        launched.launch(3, operation: 2)
        #expect(launched.count == 3)
        #expect(launched.ids == 1..<4)
        #expect([0, 1, 2, 3, 4].map { launched[$0] } == [nil, 2, 0, 2, nil])
        #expect(launched.map { "\($0.request):\($0.operation)" } == ["1:2", "2:0", "3:2"])
        #expect(launched.byRequest == [1: 2, 2: 0, 3: 2])
    }

    @Test("finished requests in order, out of order and twice: the same set, whatever the order of finishing")
    func finished() {
        var inOrder = FinishedRequests()
        for request in 1...5 { inOrder.insert(request) }
        var shuffled = FinishedRequests()
        for request in [3, 5, 1, 4, 2, 3, 1] { shuffled.insert(request) }
        #expect(inOrder == shuffled)
        #expect(inOrder == [1, 2, 3, 4, 5])
        #expect(shuffled.count == 5 && shuffled.sorted == [1, 2, 3, 4, 5])

        var gaps: FinishedRequests = [2, 4, 1]
        #expect(gaps.count == 3)
        #expect([0, 1, 2, 3, 4, 5].map { gaps.contains($0) } == [false, true, true, false, true, false])
        #expect(gaps.sorted == [1, 2, 4])
        gaps.insert(3)
        #expect(gaps == [1, 2, 3, 4] && gaps.sorted == [1, 2, 3, 4])
        #expect(FinishedRequests().isEmpty && !gaps.isEmpty)
    }

    @Test("running lanes: a lane once however often it is added, the only one read back, and the same answers past the limit where a set holds them")
    func runningLanes() {
        var lanes = RunningLanes()
        #expect(lanes.isEmpty && lanes.count == 0 && lanes.only == nil)
        lanes.insert(LaneKey(1, .cache))
        lanes.insert(LaneKey(1, .cache))
        #expect(lanes.count == 1 && lanes.only == LaneKey(1, .cache))
        lanes.insert(LaneKey(1, .network))
        #expect(lanes.count == 2 && lanes.only == nil && lanes.requests == [1])
        lanes.remove(LaneKey(1, .cache))
        lanes.remove(LaneKey(2, .cache))
        #expect(lanes.only == LaneKey(1, .network) && !lanes.contains(LaneKey(1, .cache)))

        let many = (1...RunningLanes.limit + 5).map { LaneKey($0, .cache) }
        for key in many { lanes.insert(key) }
        lanes.insert(many[0])
        #expect(lanes.count == many.count + 1)
        #expect(many.allSatisfy(lanes.contains) && lanes.contains(LaneKey(1, .network)))
        #expect(lanes.requests == Set(1...RunningLanes.limit + 5))
        for key in many.dropFirst() { lanes.remove(key) }
        #expect(lanes.count == 2 && lanes.only == nil)
        lanes.remove(LaneKey(1, .network))
        #expect(lanes.only == LaneKey(1, .cache))
        lanes.remove(LaneKey(1, .cache))
        #expect(lanes.isEmpty && lanes.only == nil)
        // Back below the limit, an array again: the next lanes read back as before.
        lanes.insert(LaneKey(9, .cache))
        #expect(lanes.only == LaneKey(9, .cache) && lanes.count == 1)
    }
}
