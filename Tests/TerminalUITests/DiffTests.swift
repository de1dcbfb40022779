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

    @Test func styleCodesAreEqualExactlyWhenStylesAre() {
        let named: [Color] = [
            .default, .black, .red, .green, .yellow, .blue, .magenta, .cyan, .white, .brightBlack, .brightRed,
            .brightGreen, .brightYellow, .brightBlue, .brightMagenta, .brightCyan, .brightWhite,
        ]
        let colors = named + (0...255).map { Color.indexed(UInt8($0)) }
        #expect(Set(colors.map(\.code)).count == 273)
        #expect(colors.allSatisfy { $0.code < 512 })
        var styles: [UInt32: Style] = [:]
        var clashes = 0
        for foreground in colors {
            for background in colors {
                for attributes: Attributes in [[], .bold, [.dim, .reverse, .underline]] {
                    let style = Style(foreground: foreground, background: background, attributes: attributes)
                    if let other = styles.updateValue(style, forKey: style.code), other != style { clashes += 1 }
                }
            }
        }
        #expect(styles.count == 273 * 273 * 3)
        #expect(clashes == 0)
    }

    @Test func aColourChangeAloneIsAChange() {
        var previous = frame(["ab"])
        previous.setStyle(Style(foreground: .indexed(1)), in: Rect(x: 0, y: 0, width: 2, height: 1))
        var next = previous
        next.setStyle(Style(foreground: .red), in: Rect(x: 1, y: 0, width: 1, height: 1))
        #expect(next.diff(from: previous) == [CellChange(x: 1, y: 0, cell: next[1, 0])])
        #expect(next[1, 0].style == Style(foreground: .red))
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
