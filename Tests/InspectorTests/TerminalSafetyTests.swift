import Inspector
import Lab
import TerminalUI
import Testing

/// What the inspector writes to the terminal never carries a control or bidi-override
/// character, even when the server sends them in headers and bodies (`hostile-server`).
@Suite("Terminal safety of the inspector")
struct TerminalSafetyTests {
    /// C0 controls (ESC and BEL among them), DEL, C1 controls, and the characters that
    /// reorder text: bidi overrides and embeddings, isolates, and the directional marks.
    static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F, 0x80...0x9F: true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// Every forbidden scalar among the cells written, as `(x, y, U+hex)`.
    static func forbiddenWrites(_ terminal: TestBackend) -> [String] {
        terminal.writes.flatMap { $0 }.flatMap { change in
            change.cell.symbol.unicodeScalars.filter(isForbidden).map { "(\(change.x), \(change.y), U+\(String($0.value, radix: 16, uppercase: true)))" }
        }
    }

    @Test func hostileResponseHeadersReachTheTerminalOnlyAsVisibleEscapes() async {
        // Below the width that puts Detail beside the Chain, so Detail has whole rows.
        let size = Size(width: 140, height: 50)
        let driver = Driver("hostile-server", size: size)
        await driver.press(.char("n"))
        await driver.step(until: .hop(4, .post))
        let terminal = TestBackend(width: size.width, height: size.height)
        let draw = {
            var buffer = Buffer(size: size)
            Inspector.render(driver.state, into: &buffer)
            terminal.draw(buffer)
        }

        draw()
        #expect(terminal.writes[0].count == size.width * size.height)
        let screen = terminal.screen.lines
        #expect(screen.contains { $0.contains("Hop 5 ResponseCodeInterceptor · post-flight stop · held") })
        #expect(screen.contains { $0.replacing(/\ {2,}/, with: " ").contains(#"X-Lab-Title \e]2;PWNED\x07"#) })
        #expect(screen.contains { $0.replacing(/\ {2,}/, with: " ").contains(#"X-Lab-Clear \e[2J"#) })
        #expect(screen.contains { $0.replacing(/\ {2,}/, with: " ").contains(#"X-Lab-Bidi invoice\u{202E}fdp.exe\u{2066}"#) })

        // A second frame writes only the cells that changed: APQ's post stop shows the
        // parsed result, whose hero name carries every payload: JSON's \u escapes of control
        // characters read as the headers' do.
        await driver.step(until: .hop(2, .post))
        draw()

        #expect(terminal.screen.lines.contains { $0.contains("Hop 3 AutomaticPersistedQueryInterceptor · post-flight stop · held") })
        #expect(terminal.screen.lines.contains { $0.contains(#""R2-D2\e]2;PWNED\x07\e]52;c;"#) })
        #expect(terminal.writes.count == 2)
        #expect((1..<(size.width * size.height)).contains(terminal.writes[1].count))
        #expect(Self.forbiddenWrites(terminal) == [])
        #expect(terminal.screen == terminal.lastFrame)
    }
}
