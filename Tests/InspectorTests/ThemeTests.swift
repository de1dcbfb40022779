import Inspector
import Lab
import TerminalUI
import Testing

@Suite("Themes and ASCII")
struct ThemeTests {
    /// A screen with a request that succeeded, one that failed, one held, and a header edit.
    func session() async -> Driver {
        let driver = Driver("token-expiry", size: Size(width: 120, height: 40))
        await driver.press(.char("n"))
        await driver.press(.char("c"))
        await driver.press(.char("n"), .char("j"), .char("x"), .char("e"))
        await driver.press(.char("n"))
        return driver
    }

    func shown(_ driver: Driver, _ display: Display) -> TestBackend {
        let terminal = TestBackend(width: driver.state.size.width, height: driver.state.size.height, display: display)
        var state = driver.state
        state.symbols = terminal.symbols
        terminal.draw { Inspector.render(state, into: &$0) }
        return terminal
    }

    /// The first cell whose symbol is `symbol`.
    func cell(_ symbol: String, in screen: Buffer) -> Cell? {
        for y in 0..<screen.height {
            for x in 0..<screen.width where screen[x, y].symbol == symbol { return screen[x, y] }
        }
        return nil
    }

    @Test("status is told by a symbol first: each request state has its own, whatever the colour")
    func symbolsTellStatus() async {
        let driver = await session()
        let lines = driver.screen()
        #expect(lines.contains { $0.contains("✓ #1 HeroQuery") })
        #expect(lines.contains { $0.contains("✕ #2 HeroQuery") })
        #expect(lines.contains { $0.contains("⏸ #3 HeroQuery") })
    }

    @Test("the light theme draws success, failure and holds in its darker colours")
    func light() async {
        let driver = await session()
        let screen = shown(driver, Display(palette: Theme.light.palette)).screen
        #expect(cell("✓", in: screen)?.style.foreground == .indexed(28))
        #expect(cell("✕", in: screen)?.style.foreground == .indexed(160))
        #expect(cell("⏸", in: screen)?.style.foreground == .indexed(130))
        #expect(screen.lines == driver.screen(), "the theme changes colours, never text")
    }

    @Test("high contrast: every cell is on the palette's black or reversed from it, in a 7:1 colour")
    func highContrast() async throws {
        let driver = await session()
        let screen = shown(driver, Display(palette: Theme.highContrast.palette)).screen
        var checked = 0
        for y in 0..<screen.height {
            for x in 0..<screen.width where !screen[x, y].isContinuation {
                let style = screen[x, y].style
                #expect(!style.attributes.contains(.dim))
                let ratio = try #require(style.foreground.contrastRatio(with: style.background), "\(x),\(y) \(style)")
                #expect(ratio >= 7, "\(x),\(y) \(style)")
                checked += 1
            }
        }
        #expect(checked > 4000)
    }

    @Test("dark keeps the terminal's own colours")
    func dark() async {
        let driver = await session()
        let screen = shown(driver, Display(palette: Theme.dark.palette)).screen
        #expect(cell("✓", in: screen)?.style.foreground == .green)
        #expect(cell("✕", in: screen)?.style.foreground == .red)
    }

    @Test("ASCII: the screen, the help and the waterfall contain no byte of 0x80 or more")
    func ascii() async {
        let driver = await session()
        let display = Display(asciiOnly: true)
        var screens = [shown(driver, display).screen.lines]
        await driver.press(.tab, .tab)
        await driver.press(.char("z"))
        screens.append(shown(driver, display).screen.lines)
        await driver.press(.char("?"))
        screens.append(shown(driver, display).screen.lines)
        for lines in screens {
            let bad = lines.filter { !$0.utf8.allSatisfy { $0 < 0x80 } }
            #expect(bad.isEmpty, "\(bad)")
        }
        #expect(screens[0].contains { $0.contains("+ #1 HeroQuery") })
        #expect(screens[0].contains { $0.contains("x #2 HeroQuery") })
        #expect(screens[0].contains { $0.contains("= #3 HeroQuery") })
        #expect(screens[0][0].hasPrefix("+ Requests ---"))
        // In the waterfall, #1's time on the transport and its refresh look different.
        let row = screens[0].first { $0.hasPrefix("|#1 |") }.map { String($0.dropFirst(5)) }
        #expect(row?.contains("#") == true && row?.contains("%") == true, "\(row ?? "no row for #1")")
    }
}
