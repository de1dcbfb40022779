import ChainKit
import Inspector
import Lab
import TerminalUI
import Testing
import Timeline

@Suite("Inspector: lint marks, findings line and the L and F lists")
struct FindingsRenderTests {
    @Test("retry-order before anything runs: ⚠ on the hops the rule names, the rule in Detail, the status line counts it")
    func lintMarks() async throws {
        let driver = Driver("retry-order")
        let screen = driver.screen()
        #expect(screen.contains { $0.contains(" 1 ⚠ RetryOnErrorInterceptor") })
        #expect(screen.contains { $0.contains(" 2 ⚠ MaxRetryInterceptor") })
        #expect(screen.contains { $0.contains(" 3 AuthInterceptor") })
        #expect(screen.last?.hasSuffix("⚠ 1 lint (L) · retry-order") == true)
        // Hop 1 is selected: Detail shows the rule, its why and its fix.
        #expect(screen.contains { $0.contains("⚠ error retry-outside-max-retry: RetryOnErrorInterceptor (hop 1) turns every error into a retry") })
        #expect(screen.contains { $0.contains("fix Put MaxRetryInterceptor first, above every interceptor that retries.") })
        // Hop 3 is named by no rule.
        driver.state.selectedHop = 2
        #expect(!driver.screen().contains { $0.contains("retry-outside-max-retry") })
    }

    @Test("reordering retry-order's chain so MaxRetryInterceptor comes first clears its lint at once, marks included")
    func lintFollowsReorder() async throws {
        let driver = Driver("retry-order")
        #expect(driver.state.lintFindings.map(\.rule.id) == ["retry-outside-max-retry"])
        // Hop 2 (MaxRetryInterceptor) moves up above hop 1.
        await driver.press(.char("o"), .char("j"), .char("K"), .enter)
        #expect(driver.state.lab.chainHops.prefix(2).map(\.name) == ["MaxRetryInterceptor", "RetryOnErrorInterceptor"])
        #expect(driver.state.lintFindings == [])
        let screen = driver.screen()
        #expect(!screen.contains { $0.contains("⚠") })
        #expect(screen.contains { $0.contains(" 1 MaxRetryInterceptor") })
    }

    @Test("basics: no marks and no findings summary")
    func nothingToReport() async {
        let driver = Driver("basics", stepMode: false)
        await driver.press(.char("n"))
        let screen = driver.screen()
        #expect(!screen.contains { $0.contains("⚠") })
        #expect(screen.last?.hasSuffix("q quit") == false && screen.last?.hasSuffix("basics") == true)
        #expect(driver.state.lab.findings == [])
    }

    @Test("L lists the lint findings; Enter jumps to the first hop the finding names")
    func lintList() async throws {
        let driver = Driver("retry-order")
        driver.state.selectedHop = 2
        await driver.press(.char("L"))
        let screen = driver.screen()
        #expect(screen.contains { $0.contains("Lint findings of the chain · 1") })
        #expect(screen.contains { $0.contains("error retry-outside-max-retry: RetryOnErrorInterceptor (hop 1) turns every error") })
        await driver.press(.enter)
        #expect(driver.state.modal == nil)
        #expect(driver.state.selectedHop == 0)
        #expect(driver.state.focus == .chain)
    }

    @Test("refresh-storm run live: the findings line, F lists the storm with the events it cites, Enter jumps to them")
    func runFindingsList() async throws {
        let driver = Driver("refresh-storm", stepMode: false)
        await driver.press(.char("N"))
        let findings = try #require(driver.state.lab.findings)
        #expect(findings.map(\.id) == ["refresh-storm"])
        #expect(driver.screen().last?.hasSuffix("⚠ 1 lint (L) · 1 finding (F) · refresh-storm") == true)
        await driver.press(.char("F"))
        let screen = driver.screen()
        #expect(screen.contains { $0.contains("Findings of the run · 1") })
        #expect(screen.contains { $0.contains("error refresh-storm: 5 refreshes presented refresh token 1 (#1 seq 57, #2 seq 60,") })
        #expect(screen.contains { $0.contains("seq 57   0.072s #1.1 • TokenManager refresh 200 (refresh_token grant, refresh token 1)") })
        #expect(screen.contains { $0.contains("seq 60   0.084s #2.1 • TokenManager refresh 400 invalid_grant (refresh_token grant, refresh") })
        // Enter opens the cited events one by one, as the hop saw them, secrets masked.
        await driver.press(.enter)
        var event = driver.screen()
        #expect(event.contains { $0.contains("Event seq 57 · 1 of 6 cited") })
        #expect(event.contains { $0.contains("POST https://lab.chainlab.local/oauth/token") })
        #expect(event.contains { $0.contains(#""refresh_token":"••••-1-2""#) })
        #expect(!event.contains { $0.contains("rt-1-2") })
        await driver.press(.char("n"))
        event = driver.screen()
        #expect(event.contains { $0.contains("Event seq 60 · 2 of 6 cited") })
        #expect(event.contains { $0.contains("error invalid_grant") })
        // Esc goes back to the list; Enter there and again goes to that event's request.
        await driver.press(.escape)
        #expect(driver.screen().contains { $0.contains("Findings of the run · 1") })
        await driver.press(.enter, .char("n"), .enter)
        #expect(driver.state.modal == nil)
        #expect(driver.state.focus == .chain)
        // Seq 60 is #2's refresh answer in its first attempt: that row and side, that attempt.
        #expect(driver.state.selectedRequest == 2)
        #expect(driver.state.shownAttempt == 1 && driver.state.selectsRefresh && driver.state.selectedSide == .post)
        #expect(driver.screen().contains { $0.contains("TokenManager refresh · answer · attempt 1 of 1") })
    }

    @Test("Enter on a cited event selects that event's request, attempt, hop and side, in step mode too", arguments: [false, true])
    func citedEventIsSelected(stepMode: Bool) async throws {
        let driver = Driver("refresh-storm", stepMode: stepMode)
        if stepMode {
            // The README's race: #1 and #2 held at the refresh stop, #1 released first.
            await driver.press(.char("n"), .char("n"), .char("g"))
            await driver.step(until: .refresh)
            await driver.press(.char("G"))
            await driver.step(until: .refresh)
            await driver.press(.char("g"), .char("c"), .char("G"), .char("c"))
        } else {
            await driver.press(.char("N"))
        }
        let finding = try #require(driver.state.lab.findings?.first)
        let cited = try #require(driver.state.lab.timeline.events().first { $0.seq == finding.events.first })
        #expect(cited.kind == .auth && cited.phase == .refresh)
        await driver.press(.char("F"), .enter, .enter)
        #expect(driver.state.selectedRequest == cited.request)
        #expect(driver.state.shownAttempt == cited.attempt && driver.state.attemptCount == 2)
        #expect(driver.state.selectsRefresh && driver.state.selectedSide == .post)
        let screen = driver.screen()
        #expect(screen.contains { $0.contains("Chain · #\(cited.request) HeroQuery · attempt 1 of 2") })
        #expect(screen.contains { $0.contains("TokenManager refresh · answer · attempt 1 of 2") })
    }

    @Test("F on a run without findings says so; any other key closes")
    func emptyRunList() async {
        let driver = Driver("basics", stepMode: false)
        await driver.press(.char("n"), .char("F"))
        #expect(driver.screen().contains { $0.contains("the events prove no finding yet") })
        await driver.press(.char("x"))
        #expect(driver.state.modal == nil)
    }
}
