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

@Suite struct BaseDiffTests {
    /// Writes of every kind at places picked by `seed`.
    func scribble(_ buffer: inout Buffer, seed: Int) {
        var value = UInt64(truncatingIfNeeded: seed) &* 0x9E37_79B9_7F4A_7C15 | 1
        func next(_ bound: Int) -> Int {
            value ^= value << 13
            value ^= value >> 7
            value ^= value << 17
            return Int(value % UInt64(bound))
        }
        for _ in 0..<6 {
            let x = next(buffer.width), y = next(buffer.height)
            switch next(4) {
            case 0: buffer.set(string: ["日本", "ab", "é\u{1B}", "──"][next(4)], at: Position(x: x, y: y))
            case 1: buffer.fill(Rect(x: x, y: y, width: next(4) + 1, height: next(3) + 1), with: "│", style: .bold)
            case 2: buffer.setStyle(.reverse, in: Rect(x: x, y: y, width: next(5) + 1, height: 1))
            default: buffer.set(string: "x", at: Position(x: x, y: y), style: Style(foreground: .red))
            }
        }
    }

    @Test("frames drawn over copies of one base diff as the same frames drawn whole")
    func framesOverABaseDiffAsWholeFrames() {
        for seed in 1...200 {
            var base = Buffer(width: 9, height: 7)
            scribble(&base, seed: seed)
            let whole = base
            base.markAsBase()
            var previous = base, previousWhole = whole
            scribble(&previous, seed: seed + 1_000)
            scribble(&previousWhole, seed: seed + 1_000)
            var next = base, nextWhole = whole
            scribble(&next, seed: seed + 2_000)
            scribble(&nextWhole, seed: seed + 2_000)
            #expect(next == nextWhole)
            #expect(next.diff(from: previous) == nextWhole.diff(from: previousWhole))
            #expect(next.diff(from: base) == nextWhole.diff(from: whole))
            // A frame of another base, or of none, is compared cell by cell.
            var other = whole
            other.markAsBase()
            #expect(next.diff(from: other) == nextWhole.diff(from: whole))
        }
    }
}
