import Testing
import TerminalUI

@Suite struct ModalTests {
    let background = Paragraph(Array(repeating: Line(String(repeating: ".", count: 20)), count: 5))

    @Test func aCentredBoxClearsTheContentUnderIt() {
        let lines = TextSnapshot.render(width: 20, height: 5) { area, buffer in
            background.render(in: area, into: &buffer)
            Modal(title: "Quit?", width: 12, height: 3, content: Paragraph(["y/n"])).render(in: area, into: &buffer)
        }
        expectLines(lines, [
            "....................",
            "....┌ Quit? ───┐....",
            "....│y/n       │....",
            "....└──────────┘....",
            "....................",
        ])
    }

    @Test func aBoxLargerThanTheScreenShrinksToIt() {
        let modal = Modal(title: "Help", width: 30, height: 9, symbols: .ascii)
        let lines = TextSnapshot.render(width: 10, height: 3) { area, buffer in
            background.render(in: area, into: &buffer)
            modal.render(in: area, into: &buffer)
        }
        expectLines(lines, [
            "+ Help --+",
            "|        |",
            "+--------+",
        ])
        #expect(modal.contentArea(in: Rect(x: 0, y: 0, width: 10, height: 3)) == Rect(x: 1, y: 1, width: 8, height: 1))
        expectLines(TextSnapshot.render(modal, width: 0, height: 0), [])
    }
}
