import Testing
import TerminalUI

@Suite struct DiffTests {
    func frame(_ rows: [String], width: Int = 6) -> Buffer {
        var buffer = Buffer(width: width, height: rows.count)
        for (y, row) in rows.enumerated() { buffer.set(string: row, at: Position(x: 0, y: y)) }
        return buffer
    }

    func summary(_ changes: [CellChange]) -> [String] {
        changes.map { "\($0.x),\($0.y) \($0.cell.symbol)" }
    }

    @Test func diffListsExactlyTheChangedCells() {
        let previous = frame(["abc", "def"])
        var next = previous
        next.set(string: "x", at: Position(x: 1, y: 0))
        next.set(string: "Q", at: Position(x: 5, y: 1))
        next.set(string: "f", at: Position(x: 2, y: 1))
        #expect(summary(next.diff(from: previous)) == ["1,0 x", "5,1 Q"])
        #expect(previous.diff(from: previous) == [])
    }

    @Test func aStyleChangeIsAChange() {
        let previous = frame(["abc"])
        var next = previous
        next.setStyle(.bold, in: Rect(x: 2, y: 0, width: 1, height: 1))
        #expect(next.diff(from: previous) == [CellChange(x: 2, y: 0, cell: next[2, 0])])
        #expect(next[2, 0].style == .bold)
    }

    @Test func continuationCellsAreNeverWritten() {
        let previous = frame(["abcd"])
        let next = frame(["日cd"])
        #expect(summary(next.diff(from: previous)) == ["0,0 日"])
        #expect(summary(previous.diff(from: next)) == ["0,0 a", "1,0 b"])
    }

    @Test func aBufferOfAnotherSizeDiffersEverywhere() {
        let previous = frame(["ab"], width: 2)
        let next = frame(["ab", "日"], width: 2)
        #expect(summary(next.diff(from: previous)) == ["0,0 a", "1,0 b", "0,1 日"])
    }
}
