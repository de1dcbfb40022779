import Testing
import TerminalUI

@Suite struct ListTests {
    let items = (0..<10).map { Line("item \($0)") }

    @Test func theSelectionIsScrolledIntoView() {
        var buffer = Buffer(width: 10, height: 3)
        List(items, selected: 7, highlightSymbol: "> ").render(in: buffer.area, into: &buffer)
        expectLines(buffer.lines, [
            "  item 5  ",
            "  item 6  ",
            "> item 7  ",
        ])
        #expect(buffer[0, 2].style == .reverse)
        #expect(buffer[9, 2].style == .reverse)
        #expect(buffer[9, 1].style == .plain)
    }

    @Test func theStoredOffsetIsKeptWhileTheSelectionIsVisible() {
        #expect(List(items, selected: 6, offset: 5).offset(visibleRows: 3) == 5)
        #expect(List(items, selected: 2, offset: 5).offset(visibleRows: 3) == 2)
        #expect(List(items, selected: nil, offset: 40).offset(visibleRows: 3) == 7)
        #expect(List(items, selected: 9, offset: 0).offset(visibleRows: 0) == 0)
        expectLines(TextSnapshot.render(List(items, selected: 6, offset: 5), width: 7, height: 2), [
            "item 5 ",
            "item 6 ",
        ])
    }

    @Test func highlightKeepsTheItemsColours() {
        var buffer = Buffer(width: 4, height: 1)
        List([Line("ok", style: Style(foreground: .green))], selected: 0).render(in: buffer.area, into: &buffer)
        #expect(buffer[0, 0].style == Style(foreground: .green, attributes: .reverse))
    }

    @Test func emptyAndTinyAreas() {
        expectLines(TextSnapshot.render(List([], selected: 0), width: 3, height: 1), ["   "])
        expectLines(TextSnapshot.render(List(items, selected: 9), width: 1, height: 1), ["i"])
        expectLines(TextSnapshot.render(List(items, selected: 9), width: 0, height: 0), [])
    }
}
