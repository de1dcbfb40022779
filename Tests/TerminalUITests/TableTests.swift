import Testing
import TerminalUI

@Suite struct TableTests {
    let table = Table(
        columns: [.init("hop", width: .length(6)), .init("pre", width: .fill), .init("post", width: .length(4))],
        rows: [
            ["1 Max", "✓", "·"],
            ["2 Auth", "✓ +Auth", "⏸"],
            ["3 APQ", "✓", "·"],
            ["4 Code", "✓", "✕ 401"],
        ],
        selected: 3
    )

    @Test func headerColumnsAndSelectedRowScrolledIntoView() {
        var buffer = Buffer(width: 20, height: 4)
        table.render(in: buffer.area, into: &buffer)
        expectLines(buffer.lines, [
            "hop    pre      post",
            "2 Auth ✓ +Auth  ⏸   ",
            "3 APQ  ✓        ·   ",
            "4 Code ✓        ✕ 40",
        ])
        #expect(buffer[0, 0].style == .bold)
        #expect(buffer[6, 3].style == .reverse)
        #expect(buffer[6, 2].style == .plain)
        #expect(table.offset(height: 4) == 1)
    }

    @Test func columnAreasFollowTheConstraints() {
        #expect(table.columnAreas(in: Rect(x: 0, y: 0, width: 20, height: 1)) == [
            Rect(x: 0, y: 0, width: 6, height: 1),
            Rect(x: 7, y: 0, width: 8, height: 1),
            Rect(x: 16, y: 0, width: 4, height: 1),
        ])
    }

    @Test func narrowAreasShrinkTheLastColumnsFirst() {
        expectLines(TextSnapshot.render(table, width: 9, height: 2), [
            "hop     p",
            "4 Code  ✕",
        ])
        expectLines(TextSnapshot.render(table, width: 3, height: 1), ["hop"])
    }
}
