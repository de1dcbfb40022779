@testable import Lab
import Testing

@Suite("Launched and finished request ids")
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
}
