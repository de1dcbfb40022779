import Testing
import TerminalUI

@Suite struct BlockTests {
    @Test func titleSitsInTheTopBorder() {
        expectLines(TextSnapshot.render(Block(title: "Req"), width: 12, height: 3), [
            "┌ Req ─────┐",
            "│          │",
            "└──────────┘",
        ])
    }

    @Test func aLongTitleEndsInAnEllipsisBeforeTheCorner() {
        expectLines(TextSnapshot.render(Block(title: "Requests"), width: 8, height: 2), [
            "┌ Requ…┐",
            "└──────┘",
        ])
    }

    @Test func asciiSymbols() {
        expectLines(TextSnapshot.render(Block(title: "Req", symbols: .ascii), width: 10, height: 3), [
            "+ Req ---+",
            "|        |",
            "+--------+",
        ])
    }

    @Test func contentGoesInside() {
        let block = Block(title: "A")
        #expect(block.inner(Rect(x: 0, y: 0, width: 12, height: 3)) == Rect(x: 1, y: 1, width: 10, height: 1))
        #expect(Block(borders: [.top, .left]).inner(Rect(x: 2, y: 2, width: 5, height: 5)) == Rect(x: 3, y: 3, width: 4, height: 4))
        #expect(block.inner(Rect(x: 0, y: 0, width: 1, height: 1)).isEmpty)
        let lines = TextSnapshot.render(width: 9, height: 3) { area, buffer in
            block.render(in: area, into: &buffer)
            Paragraph(["inside the box"]).render(in: block.inner(area), into: &buffer)
        }
        expectLines(lines, [
            "┌ A ────┐",
            "│inside…│",
            "└───────┘",
        ])
    }

    @Test func partialBordersAndTinyAreas() {
        expectLines(TextSnapshot.render(Block(title: "T", borders: [.top, .bottom]), width: 6, height: 3), [
            " T ───",
            "      ",
            "──────",
        ])
        expectLines(TextSnapshot.render(Block(title: "T"), width: 1, height: 1), ["┌"])
        expectLines(TextSnapshot.render(Block(title: "T"), width: 2, height: 1), ["┌┐"])
        expectLines(TextSnapshot.render(Block(title: "T"), width: 0, height: 0), [])
    }
}
