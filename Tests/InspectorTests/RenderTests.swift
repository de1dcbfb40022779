import ChainKit
import Inspector
import Lab
import TerminalUI
import Testing

@Suite("Inspector screens")
struct RenderTests {
    /// basics with request #1 stepped to the cache stop: Auth's +Authorization is visible.
    func pausedAtCache(size: Size) async -> Driver {
        let driver = Driver(size: size)
        await driver.press(.char("n"))
        await driver.step(until: .hop(3, .pre))
        return driver
    }

    @Test("the main screen at 120x40, paused at the cache stop")
    func main120x40() async {
        expectSnapshot(await pausedAtCache(size: Size(width: 120, height: 40)).screen(), named: "main-120x40")
    }

    @Test("the main screen at 80x24")
    func main80x24() async {
        expectSnapshot(await pausedAtCache(size: Size(width: 80, height: 24)).screen(), named: "main-80x24")
    }

    @Test("a paused hop with a header diff in Detail")
    func pausedHopWithDiff() async {
        let driver = await pausedAtCache(size: Size(width: 120, height: 40))
        driver.state.selectedHop = 1
        let screen = driver.screen()
        #expect(screen.contains { $0.contains("Hop 2 AuthInterceptor · pre-flight · attempt 1") })
        #expect(screen.contains { $0.replacing(/\ {2,}/, with: " ").contains("+ Authorization Bearer ••••-1-1") })
        expectSnapshot(screen, named: "paused-hop-diff")
    }

    @Test("the header editor with a validation error")
    func editorWithError() async {
        let driver = await pausedAtCache(size: Size(width: 100, height: 30))
        await driver.step(until: .hop(4, .pre))
        await driver.press(.char("e"), .ctrl("n"), .char("X"), .char(" "), .char("Y"), .tab, .char("1"), .enter)
        let screen = driver.screen()
        #expect(screen.contains { $0.contains(#"✕ header name "X Y" is not a valid token: space at offset 1"#) })
        expectSnapshot(screen, named: "editor-error")
    }

    @Test("the help overlay")
    func help() async {
        let driver = Driver(size: Size(width: 100, height: 40))
        await driver.press(.char("?"))
        expectSnapshot(driver.screen(), named: "help")
    }

    @Test("too small: a short message, never a crash, down to 1x1")
    func tiny() async {
        let driver = Driver(size: Size(width: 20, height: 6))
        await driver.press(.char("n"))
        #expect(driver.screen() == ["enlarge the terminal", " (40x8 or more)     ", "                    ", "                    ", "                    ", "                    "])
        for (width, height) in [(1, 1), (0, 0), (39, 7), (40, 8), (79, 23), (81, 13)] {
            driver.state.size = Size(width: width, height: height)
            #expect(driver.screen().count == height)
        }
    }

    @Test("hostile server content is drawn as visible escapes")
    func hostile() async {
        let driver = Driver("hostile-server", size: Size(width: 140, height: 50))
        await driver.press(.char("n"))
        await driver.step(until: .hop(4, .post))
        let screen = driver.screen().joined(separator: "\n")
        #expect(screen.contains("\\e]2;PWNED\\x07"))
        #expect(!screen.contains("\u{1B}"))
        #expect(!screen.contains("\u{202E}"))
        #expect(!screen.contains("\u{07}"))
    }

    @Test("the help overlay at 80x24 wraps, and scrolls to the last overlay key")
    func help80x24() async {
        let driver = Driver(size: Size(width: 80, height: 24))
        await driver.press(.char("?"))
        expectSnapshot(driver.screen(), named: "help-80x24")
        for _ in 0..<40 { await driver.press(.pageDown) }
        #expect(driver.state.notice == InspectorState.Notice(text: "already at the end", isError: false), "the help stops at its last line, and says so")
        let screen = driver.screen()
        #expect(screen[19] == "└│About (i) and curl (y)                                                      │┘")
        #expect(screen[20] == "┌│other keys  close                                                           │┐")
        #expect(screen[21] == "│└────────────────────────────────────────────────────────────────────────────┘│")
    }

    @Test("at 160x48 Detail sits beside the Chain and takes only the rows it needs")
    func sideBySide160x48() async {
        let driver = await pausedAtCache(size: Size(width: 160, height: 48))
        let screen = driver.screen()
        #expect(screen[0].contains("┐┌ Hop 4 cache · pre-flight stop · held · attempt 1 of 1"))
        expectSnapshot(screen, named: "main-160x48")
    }

    @Test("+ maximizes the focused pane at 80x24 and 160x48")
    func maximized() async {
        for size in [Size(width: 80, height: 24), Size(width: 160, height: 48)] {
            let driver = await pausedAtCache(size: size)
            await driver.press(.tab, .char("+"))
            expectSnapshot(driver.screen(), named: "maximized-chain-\(size.width)x\(size.height)")
        }
    }
}
