import Testing
import TerminalUI

@Suite struct LayoutTests {
    func heights(_ constraints: [Constraint], _ total: Int) -> [Int] {
        Layout.vertical(constraints).split(Rect(x: 0, y: 0, width: 3, height: total)).map(\.height)
    }

    @Test(arguments: [
        ([Constraint.length(3), .fill, .length(1)], 10, [3, 6, 1]),
        ([.percentage(50), .percentage(50)], 5, [2, 3]),
        ([.percentage(30), .fill], 80, [24, 56]),
        ([.percentage(33), .percentage(33), .percentage(34)], 10, [3, 3, 4]),
        ([.min(2), .length(3)], 10, [7, 3]),
        ([.min(2), .fill], 10, [2, 8]),
        ([.length(3), .length(3)], 10, [3, 3]),
        ([.fill, .fill, .fill], 10, [4, 3, 3]),
        ([.length(3), .fill, .length(1)], 2, [2, 0, 0]),
        ([.length(-4), .percentage(250), .fill], 6, [0, 6, 0]),
        ([.length(1), .fill], 0, [0, 0]),
        ([], 5, []),
    ])
    func sizes(constraints: [Constraint], total: Int, expected: [Int]) {
        #expect(heights(constraints, total) == expected)
    }

    @Test func verticalSplitOfTwentyBySix() {
        let rows = Layout.vertical([.length(1), .fill, .length(1)]).split(Rect(x: 0, y: 0, width: 20, height: 6))
        #expect(rows == [
            Rect(x: 0, y: 0, width: 20, height: 1),
            Rect(x: 0, y: 1, width: 20, height: 4),
            Rect(x: 0, y: 5, width: 20, height: 1),
        ])
    }

    @Test func horizontalSplitKeepsTheOrigin() {
        let columns = Layout.horizontal([.percentage(25), .fill]).split(Rect(x: 2, y: 3, width: 20, height: 6))
        #expect(columns == [Rect(x: 2, y: 3, width: 5, height: 6), Rect(x: 7, y: 3, width: 15, height: 6)])
    }

    @Test func degenerateAreasSplitIntoEmptyRects() {
        let layout = Layout.vertical([.length(1), .fill, .length(1)])
        #expect(layout.split(.zero) == Array(repeating: Rect.zero, count: 3))
        #expect(layout.split(Rect(x: 0, y: 0, width: 1, height: 1)) == [
            Rect(x: 0, y: 0, width: 1, height: 1),
            Rect(x: 0, y: 1, width: 1, height: 0),
            Rect(x: 0, y: 1, width: 1, height: 0),
        ])
        #expect(Layout.horizontal([.percentage(50), .fill]).split(Rect(x: 0, y: 0, width: 1, height: 1)).map(\.width) == [0, 1])
    }

    @Test func rectHelpersNeverGoNegative() {
        let one = Rect(x: 4, y: 4, width: 1, height: 1)
        #expect(one.inset(by: 1).isEmpty)
        #expect(one.inset(by: 1).width == 0)
        #expect(Rect(x: 0, y: 0, width: 10, height: 4).inset(by: 1) == Rect(x: 1, y: 1, width: 8, height: 2))
        #expect(Rect(x: 0, y: 0, width: -5, height: 3).width == 0)
        #expect(Rect(x: 0, y: 0, width: 20, height: 6).splitBottom(1) == (Rect(x: 0, y: 0, width: 20, height: 5), Rect(x: 0, y: 5, width: 20, height: 1)))
        #expect(Rect(x: 0, y: 0, width: 20, height: 6).splitLeft(30) == (Rect(x: 0, y: 0, width: 20, height: 6), Rect(x: 20, y: 0, width: 0, height: 6)))
        #expect(Rect(x: 0, y: 0, width: 20, height: 6).centered(width: 10, height: 2) == Rect(x: 5, y: 2, width: 10, height: 2))
        #expect(Rect(x: 0, y: 0, width: 3, height: 1).centered(width: 10, height: 2) == Rect(x: 0, y: 0, width: 3, height: 1))
        #expect(Rect(x: 0, y: 0, width: 4, height: 4).intersection(Rect(x: 6, y: 6, width: 2, height: 2)).isEmpty)
    }
}
