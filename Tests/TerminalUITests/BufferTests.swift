import Testing
import TerminalUI

@Suite struct BufferTests {
    @Test func textIsClippedAtTheBufferEdges() {
        var buffer = Buffer(width: 5, height: 3)
        let end = buffer.set(string: "hello world", at: Position(x: 2, y: 0))
        buffer.set(string: "abcdef", at: Position(x: -2, y: 1))
        buffer.set(string: "below", at: Position(x: 0, y: 3))
        buffer.set(string: "above", at: Position(x: 0, y: -1))
        #expect(end == 13)
        expectLines(buffer.lines, [
            "  hel",
            "cdef ",
            "     ",
        ])
    }

    @Test func textIsClippedToTheGivenRect() {
        var buffer = Buffer(width: 6, height: 2)
        buffer.set(string: "abcdef", at: Position(x: 0, y: 0), clip: Rect(x: 1, y: 0, width: 3, height: 1))
        buffer.set(string: "abcdef", at: Position(x: 0, y: 1), clip: Rect(x: 1, y: 0, width: 3, height: 1))
        expectLines(buffer.lines, [" bcd  ", "      "])
    }

    @Test func wideCharactersTakeTwoCellsAndAreNotSplitAtTheEdge() {
        var buffer = Buffer(width: 5, height: 2)
        buffer.set(string: "日本語", at: Position(x: 0, y: 0))
        buffer.set(string: "a🙂b", at: Position(x: 0, y: 1))
        expectLines(buffer.lines, ["日本 ", "a🙂b "])
        #expect(buffer[0, 0].symbol == "日")
        #expect(buffer[1, 0].isContinuation)
        #expect(buffer[4, 0] == .blank)
        #expect(buffer[2, 1].isContinuation)
    }

    @Test func wideCharacterCutByTheLeftEdgeIsNotDrawn() {
        var buffer = Buffer(width: 4, height: 1)
        buffer.set(string: "日本x", at: Position(x: -1, y: 0))
        expectLines(buffer.lines, [" 本x"])
    }

    @Test func overwritingHalfAWideCharacterBlanksTheOtherHalf() {
        var buffer = Buffer(width: 4, height: 1)
        buffer.set(string: "日本", at: Position(x: 0, y: 0))
        buffer.set(string: "x", at: Position(x: 1, y: 0))
        expectLines(buffer.lines, [" x本"])
        buffer.set(string: "y", at: Position(x: 2, y: 0))
        expectLines(buffer.lines, [" xy "])
        buffer.set(string: "語", at: Position(x: 1, y: 0))
        expectLines(buffer.lines, [" 語 "])
        #expect(!buffer[3, 0].isContinuation)
    }

    @Test func combiningMarksStayWithTheirLetterAndZeroWidthCharactersTakeNoCell() {
        var buffer = Buffer(width: 4, height: 1)
        buffer.set(string: "e\u{301}\u{200B}x", at: Position(x: 0, y: 0))
        expectLines(buffer.lines, ["e\u{301}x  "])
        #expect(TextWidth.of("e\u{301}\u{200B}x") == 2)
        #expect(TextWidth.of("日本") == 4)
        #expect(TextWidth.of("✓ ⏸ ✕ ↻ ▇ ─") == 11)
        #expect(TextWidth.of("a\u{1B}") == 3)
    }

    @Test func setStylePatchesAndFillReplaces() {
        var buffer = Buffer(width: 4, height: 2)
        buffer.set(string: "ab", at: Position(x: 0, y: 0), style: Style(foreground: .red))
        buffer.setStyle(.reverse, in: Rect(x: 1, y: 0, width: 10, height: 10))
        #expect(buffer[0, 0].style == Style(foreground: .red))
        #expect(buffer[1, 0].style == Style(foreground: .red, attributes: .reverse))
        #expect(buffer[3, 1].style == .reverse)
        buffer.fill(Rect(x: 1, y: 0, width: 2, height: 2), with: "#")
        buffer.fill(Rect(x: 3, y: 0, width: 1, height: 1), with: "\u{1B}")
        expectLines(buffer.lines, ["a## ", " ## "])
        #expect(buffer[1, 0].style == .plain)
    }

    @Test func fillBlanksTheOtherHalfOfWideCharactersItCuts() {
        var buffer = Buffer(width: 8, height: 2)
        buffer.set(string: "日本語x", at: Position(x: 0, y: 0), style: .bold)
        buffer.set(string: "日本語x", at: Position(x: 0, y: 1))
        buffer.fill(Rect(x: 1, y: 0, width: 2, height: 1), with: "-", style: .dim)
        buffer.fill(Rect(x: 3, y: 1, width: 3, height: 1), with: "=")
        expectLines(buffer.lines, [" -- 語x ", "日 ===x "])
        #expect(buffer[0, 0].symbol == " " && buffer[0, 0].style == .bold)
        #expect(buffer[3, 0].symbol == " " && buffer[3, 0].style == .bold)
        #expect(buffer[1, 0].style == .dim)
        #expect(!buffer[5, 1].isContinuation)
    }

    @Test func printableASCIIAndLineDrawingTakeTheWidthTheUnicodeTablesGive() {
        for range in TextWidth.oneColumnRanges {
            for value in range {
                let scalar = Unicode.Scalar(value)!
                #expect(TextWidth.columnsByTables(of: scalar) == 1, "U+\(String(value, radix: 16))")
            }
        }
        #expect(TextWidth.of("~op HeroQuery & ~c 401") == 22)
        #expect(TextWidth.of("a\tb") == 4)
        #expect(TextWidth.columns(of: Unicode.Scalar(0x25FD)!) == 2)
    }

    @Test func degenerateBuffersAreEmpty() {
        var buffer = Buffer(width: -3, height: 0)
        buffer.set(string: "x", at: Position(x: 0, y: 0))
        buffer.fill(Rect(x: 0, y: 0, width: 5, height: 5))
        #expect(buffer.width == 0)
        #expect(buffer.lines == [])
        #expect(buffer.allCells == [])
    }
}
