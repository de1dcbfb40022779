import Testing
import TerminalUI

@Suite struct ParagraphTests {
    @Test func wrapsAtSpacesAndScrolls() {
        let paragraph = Paragraph(["the quick brown fox jumps"], wrap: true)
        #expect(paragraph.rowCount(width: 10) == 3)
        expectLines(TextSnapshot.render(paragraph, width: 10, height: 4), [
            "the quick ",
            "brown fox ",
            "jumps     ",
            "          ",
        ])
        var scrolled = paragraph
        scrolled.scroll = 1
        expectLines(TextSnapshot.render(scrolled, width: 10, height: 2), [
            "brown fox ",
            "jumps     ",
        ])
    }

    @Test func aWordLongerThanTheRowBreaksMidWord() {
        expectLines(TextSnapshot.render(Paragraph(["ab abcdefghijkl"], wrap: true), width: 5, height: 4), [
            "ab   ",
            "abcde",
            "fghij",
            "kl   ",
        ])
    }

    @Test func withoutWrapLinesAreClipped() {
        let paragraph = Paragraph(["abcdefghijkl", Line([Span("GET ", style: .bold), Span("/graphql")]), "x"])
        #expect(paragraph.rowCount(width: 5) == 3)
        var buffer = Buffer(width: 5, height: 2)
        paragraph.render(in: buffer.area, into: &buffer)
        expectLines(buffer.lines, ["abcde", "GET /"])
        #expect(buffer[0, 1].style == .bold)
        #expect(buffer[4, 1].style == .plain)
    }

    @Test func wrappedSpansKeepTheirStylesAndWideCharactersMoveWhole() {
        var buffer = Buffer(width: 5, height: 2)
        Paragraph([Line([Span("ab", style: .underline), Span("c日本")])], wrap: true).render(in: buffer.area, into: &buffer)
        expectLines(buffer.lines, ["abc日", "本   "])
        #expect(buffer[1, 0].style == .underline)
        #expect(buffer[2, 0].style == .plain)
    }

    @Test func linesOfTextSplitAtLineBreaks() {
        #expect(Line.lines(of: "a\r\nb\nc") == ["a", "b", "c"])
        #expect(Paragraph(Line.lines(of: "")).rowCount(width: 4) == 1)
        #expect(Paragraph(["abc"]).rowCount(width: 0) == 0)
    }
}
