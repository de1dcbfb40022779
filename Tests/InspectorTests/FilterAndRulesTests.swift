import ChainKit
import Foundation
import Inspector
import Lab
import TerminalUI
import Testing
import Timeline
import TimelineFilter

/// `/` (filter expressions) and `Ctrl-B` (breakpoints by rule) in the inspector.
@Suite("Filter and rules keys")
struct FilterAndRulesTests {
    func type(_ text: String, into driver: Driver) async {
        for character in text { await driver.press(.char(character)) }
    }

    @Test("/ applies an expression on Enter to the Requests pane and the waterfall, titled with it; Esc clears it")
    func filter() async {
        let driver = Driver("token-expiry", stepMode: false)
        await driver.press(.char("n"))
        await driver.press(.char("/"))
        await type("~c 401", into: driver)
        #expect(driver.state.filter == nil)
        await driver.press(.enter)
        #expect(driver.state.filter?.source == "~c 401")
        #expect(driver.state.visibleRequests.map(\.id) == [1])
        #expect(driver.state.notice?.text == "filter ~c 401: 1 of 1 requests · Esc clears")
        #expect(driver.screen().contains { $0.contains("Requests · ~c 401") })
        await driver.press(.char("/"))
        #expect(driver.state.modal == .filter(FilterPrompt(text: "~c 401")))
        for _ in 0..<6 { await driver.press(.backspace) }
        await type("~cache", into: driver)
        await driver.press(.enter)
        #expect(driver.state.visibleRequests.isEmpty)
        let screen = driver.screen()
        #expect(screen.contains { $0.contains("no request matches") })
        // The waterfall draws no row for request #1.
        #expect(!screen.contains { $0.contains("#1 ") && $0.contains("▇") })
        await driver.press(.escape)
        #expect(driver.state.filter == nil)
        #expect(driver.state.visibleRequests.map(\.id) == [1])
    }

    @Test("a bad expression is refused inline with its position; the previous filter stays")
    func badExpression() async {
        let driver = Driver("token-expiry", stepMode: false)
        await driver.press(.char("n"), .char("/"))
        await type("~retry", into: driver)
        await driver.press(.enter)
        await driver.press(.char("/"))
        await type(" & ~c 4", into: driver)
        await driver.press(.enter)
        #expect(driver.state.filter?.source == "~retry")
        #expect(driver.state.modal == .filter(FilterPrompt(
            text: "~retry & ~c 4",
            error: FilterSyntaxError(position: 13, reason: "expected a status code such as 401 or 4xx after ~c, found '4'"))))
        let screen = driver.screen()
        // The caret stands under the 4, one column right of the '/'.
        #expect(screen[37] == String(repeating: " ", count: 13) + "^ at 13: expected a status code such as 401 or 4xx after ~c, found '4'" + String(repeating: " ", count: 120 - 13 - 70))
        #expect(screen[38].hasPrefix("/~retry & ~c 4"))
        await driver.press(.escape)
        #expect(driver.state.filter == nil)
    }

    @Test("Ctrl-B adds a rule and closes; the rule holds the next request at AuthInterceptor's post-flight after the 401; Ctrl-T and Ctrl-D")
    func rules() async {
        let driver = Driver("token-expiry", stepMode: false)
        await driver.press(.ctrl("b"))
        await type("post@Nowhere", into: driver)
        await driver.press(.enter)
        guard case .breakRules(let refused) = driver.state.modal else { Issue.record("no overlay"); return }
        #expect(refused.error?.hasPrefix("no hop named 'Nowhere' in the chain; hops: MaxRetryInterceptor,") == true)
        for _ in 0..<7 { await driver.press(.backspace) }
        await type("AuthInterceptor if ~op HeroQuery & ~c 401", into: driver)
        let effects = await driver.press(.enter)
        let rule = try? BreakRule(parsing: "post@AuthInterceptor if ~op HeroQuery & ~c 401")
        #expect(effects == [.command(.setBreakRules([rule!]))])
        #expect(driver.state.lab.rules == [rule!])
        // Enter closed the overlay, so the next key is a main key again.
        #expect(driver.state.modal == nil)
        #expect(driver.state.notice?.text == "rule added: post@AuthInterceptor if ~op HeroQuery & ~c 401 (Ctrl-B lists the rules)")
        await driver.press(.char("n"))
        #expect(driver.state.heldStop?.place == .hop(1, .post))
        let screen = driver.screen()
        #expect(screen.contains { $0.contains("Chain · #1 HeroQuery · attempt 1 of 1 · ◆ 1 rule") })
        #expect(screen.contains { $0.contains("AuthInterceptor") && $0.contains("◆") })
        await driver.press(.char("c"))
        // Attempt 2 comes back with a 200; the request had its 401, so the rule holds it again.
        #expect(driver.state.heldStop.map { "\($0.attempt) \($0.place)" } == "2 hop 2 post")
        await driver.press(.char("c"))
        #expect(driver.state.lab.requests.map(\.state) == [.succeeded])

        await driver.press(.ctrl("b"))
        #expect(driver.screen().contains { $0.contains("◆ post@AuthInterceptor if ~op HeroQuery & ~c 401") })
        await driver.press(.ctrl("t"))
        #expect(driver.state.lab.rules.map(\.isEnabled) == [false])
        await driver.press(.ctrl("d"))
        #expect(driver.state.lab.rules.isEmpty)
        #expect(driver.session.control.rules.isEmpty)
    }
}
