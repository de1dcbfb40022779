import Testing
import TerminalUI

@Suite struct HostileTextTests {
    static let hostile = "\u{1B}]2;PWNED\u{07}\u{1B}[2J\u{202E}x"

    /// Whether any scalar written to the terminal could act as a control.
    static func hasUnsafeScalar(_ writes: [[CellChange]]) -> Bool {
        writes.joined().contains { change in
            change.cell.symbol.unicodeScalars.contains { scalar in
                scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
                    || [0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069].contains(scalar.value)
            }
        }
    }

    @Test func hostileTextIsDrawnAsVisibleEscapes() {
        var buffer = Buffer(width: 30, height: 1)
        buffer.set(string: Self.hostile, at: Position(x: 0, y: 0))
        expectLines(buffer.lines, [#"\e]2;PWNED\x07\e[2J\u{202E}x  "#])
    }

    @Test func bytesWrittenToTheTerminalCarryNoPayloadControls() {
        let terminal = TestBackend(width: 40, height: 6)
        terminal.draw { buffer in
            let block = Block(title: Self.hostile)
            block.render(in: buffer.area, into: &buffer)
            Paragraph(Line.lines(of: "body " + Self.hostile + "\r\nnext\u{9B}31m"), wrap: true).render(in: block.inner(buffer.area), into: &buffer)
        }
        expectLines(terminal.screen.lines, [
            #"┌ \e]2;PWNED\x07\e[2J\u{202E}x ────────┐"#,
            #"│body \e]2;PWNED\x07\e[2J\u{202E}x     │"#,
            #"│next\x9B31m                           │"#,
            "│                                      │",
            "│                                      │",
            "└──────────────────────────────────────┘",
        ])
        terminal.draw { buffer in
            List(["\u{202D}item", Line(Self.hostile)], selected: 1).render(in: buffer.area, into: &buffer)
            TextInput(text: "a\u{7F}\u{0}b").render(in: Rect(x: 0, y: 5, width: 40, height: 1), into: &buffer)
        }
        expectLines(terminal.screen.lines, [
            #"\u{202D}item                            "#,
            #"\e]2;PWNED\x07\e[2J\u{202E}x            "#,
            "                                        ",
            "                                        ",
            "                                        ",
            #"a\x7F\x00b                              "#,
        ])
        let bytes = terminal.writes.joined().flatMap { Array($0.cell.symbol.utf8) }
        #expect(!bytes.contains(0x1B))
        #expect(!bytes.contains(0x07))
        #expect(!Self.hasUnsafeScalar(terminal.writes))
    }
}
