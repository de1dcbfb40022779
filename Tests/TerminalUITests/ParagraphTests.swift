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

    @Test func withoutWrapLinesAreCutWithAnEllipsis() {
        let paragraph = Paragraph(["abcdefghijkl", Line([Span("GET ", style: .bold), Span("/graphql")]), "abcde", "x"])
        #expect(paragraph.rowCount(width: 5) == 4)
        var buffer = Buffer(width: 5, height: 3)
        paragraph.render(in: buffer.area, into: &buffer)
        expectLines(buffer.lines, ["abcd…", "GET …", "abcde"])
        #expect(buffer[0, 1].style == .bold)
        #expect(buffer[4, 1].style == .plain)
    }

    @Test func aWordWiderThanTheRowBreaksAfterItsLastTokenEnd() {
        expectLines(TextSnapshot.render(Paragraph(["Content-Type: application/json;charset=utf-8"], wrap: true), width: 14, height: 4), [
            "Content-Type: ",
            "application/  ",
            "json;charset= ",
            "utf-8         ",
        ])
    }

    @Test func rowsAfterTheFirstStartAtTheHangingIndent() {
        let line = Line([Span("key   ", style: .bold), Span("what it does, in a few words")], hangingIndent: 6)
        expectLines(TextSnapshot.render(Paragraph([line], wrap: true), width: 20, height: 3), [
            "key   what it does, ",
            "      in a few words",
            "                    ",
        ])
        // An indent of half the row or more would leave too little room: rows start at the edge.
        expectLines(TextSnapshot.render(Paragraph([Line("abcdef ghij", style: .plain).indented(5)], wrap: true), width: 8, height: 2), [
            "abcdef  ",
            "ghij    ",
        ])
    }

    @Test func cutEndsInAnEllipsisAndKeepsStyles() {
        let line = Line([Span("ab", style: .bold), Span("日本語")])
        #expect(line.cut(to: 10) == line)
        #expect(line.cut(to: 5) == Line([Span("ab", style: .bold), Span("日")]).appending("…"))
        #expect(line.cut(to: 4) == Line([Span("ab", style: .bold), Span("")]).appending("…"))
        #expect(line.cut(to: 0) == Line([]))
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

private extension Line {
    func indented(_ columns: Int) -> Line { Line(spans, hangingIndent: columns) }
    func appending(_ text: String) -> Line { Line(spans + [Span(text)]) }
}
