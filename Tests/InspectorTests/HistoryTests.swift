import ChainKit
import Foundation
import Inspector
import Lab
import TerminalUI
import Testing

@Suite("Looking back at what happened")
struct HistoryTests {
    /// refresh-storm with #1 and #2 taken to the refresh stop, then released in turn: #2's
    /// refresh reuses the refresh token #1 has just spent and is refused with invalid_grant.
    static func finishedStorm(size: Size) async -> Driver {
        let driver = Driver("refresh-storm", size: size)
        await driver.press(.char("n"), .char("n"))
        await driver.press(.char("g"))
        await driver.step(until: .refresh)
        await driver.press(.char("G"))
        await driver.step(until: .refresh)
        await driver.press(.char("g"), .char("c"), .char("G"), .char("c"))
        return driver
    }

    static func title(_ screen: [String], _ prefix: String) -> String? {
        screen.first { $0.contains("┌ " + prefix) }.map { line in
            let start = line.range(of: "┌ " + prefix)!.lowerBound
            return String(line[start...].dropFirst(2).prefix { $0 != "─" }).trimmingCharacters(in: .whitespaces)
        }
    }

    /// Whether a line of `screen` reads `text` once runs of spaces are squeezed to one.
    static func row(_ screen: [String], _ text: String) -> Bool {
        screen.contains { $0.replacing(/\ {2,}/, with: " ").contains(text) }
    }

    @Test("a finished storm: #2 names invalid_grant, and its refresh answer can be read after the fact")
    func finishedStormKeepsTheRefusal() async {
        let driver = await Self.finishedStorm(size: Size(width: 120, height: 40))
        #expect(driver.state.lab.requests.map(\.cause) == ["200", "invalid_grant"])
        var screen = driver.screen()
        #expect(screen.contains { $0.contains("✕ #2 HeroQuery invalid_grant 60ms") })
        // After c, Detail shows where #2 ended: the error at the top of the chain.
        #expect(driver.state.selectedHop == 0 && driver.state.selectedSide == .post)
        #expect(Self.title(screen, "Hop") == "Hop 1 MaxRetryInterceptor · post-flight · error · attempt 1 of 1")
        // The refresh row keeps the exchange: the grant sent and the answer.
        await driver.press(.tab, .char("G"))
        #expect(driver.state.selectsRefresh)
        screen = driver.screen()
        #expect(Self.row(screen, "↻ TokenManager refresh ✓ POST /oauth/token ✕ 400 invalid_grant"))
        #expect(Self.title(screen, "TokenManager") == "TokenManager refresh · answer · attempt 1 of 1")
        #expect(screen.contains { $0.contains("the token endpoint refused the refresh: invalid_grant") })
        await driver.press(.char("h"))
        screen = driver.screen()
        #expect(Self.title(screen, "TokenManager") == "TokenManager refresh · request sent · attempt 1 of 1")
        #expect(screen.contains { $0.contains("refresh_token  ••••-1-1") })
        expectSnapshot(screen, named: "history-storm-refresh-request-120x40")
    }

    @Test("a finished storm's refusal at 80x24 and 160x48")
    func finishedStormSnapshots() async {
        for size in [Size(width: 80, height: 24), Size(width: 160, height: 48)] {
            let driver = await Self.finishedStorm(size: size)
            await driver.press(.tab, .char("G"), .char("l"))
            expectSnapshot(driver.screen(), named: "history-storm-\(size.width)x\(size.height)")
        }
    }

    @Test("[ and ] (or < and >) move between attempts; the title says which of how many")
    func attempts() async {
        let driver = Driver("token-expiry")
        await driver.press(.char("n"), .char("c"))
        #expect(driver.state.shownAttempt == 2)
        #expect(Self.title(driver.screen(), "Chain") == "Chain · #1 HeroQuery · attempt 2 of 2 · step mode")
        await driver.press(.char("["))
        #expect(driver.state.selectedAttempt == 1)
        var screen = driver.screen()
        #expect(Self.title(screen, "Chain") == "Chain · #1 HeroQuery · attempt 1 of 2 · step mode")
        #expect(Self.row(screen, "6 transport ✓ POST /graphql 401 · 12ms"))
        #expect(Self.row(screen, "↻ TokenManager refresh ✓ POST /oauth/token ✓ 200"))
        await driver.press(.char("<"))
        #expect(driver.state.shownAttempt == 1)
        #expect(driver.state.notice?.text == "request #1 made 2 attempts; this is attempt 1")
        await driver.press(.char(">"))
        #expect(driver.state.selectedAttempt == nil && driver.state.shownAttempt == 2)
        screen = driver.screen()
        #expect(Self.row(screen, "6 transport ✓ POST /graphql 200 · 12ms"))
        await driver.press(.char("]"))
        #expect(driver.state.notice?.text == "request #1 made 2 attempts; this is attempt 2")
        await driver.press(.char("["), .char("j"))
        #expect(driver.state.notice?.text == "the last request is selected", "j has no other request to go to")
        #expect(driver.state.selectedAttempt == 1)
        await driver.press(.char("n"), .char("k"))
        #expect(driver.state.selectedRequest == 1)
        #expect(driver.state.selectedAttempt == nil, "selecting another request follows its latest attempt")
    }

    @Test("h and l select a hop's pre-flight and post-flight: what went down, what came up")
    func sides() async {
        let driver = Driver()
        await driver.press(.char("n"), .char("c"), .tab)
        for _ in 0..<5 { await driver.press(.char("j")) }
        await driver.press(.char("h"))
        #expect(driver.state.selectedHop == 5 && driver.state.selectedSide == .pre)
        var screen = driver.screen()
        #expect(Self.title(screen, "Hop") == "Hop 6 transport · pre-flight · sent · attempt 1 of 1")
        #expect(screen.contains { $0.contains("POST https://lab.chainlab.local/graphql") })
        await driver.press(.right)
        screen = driver.screen()
        #expect(Self.title(screen, "Hop") == "Hop 6 transport · post-flight · received · attempt 1 of 1")
        #expect(screen.contains { $0.contains("status 200") })
        await driver.press(.char("k"), .char("k"), .left)
        screen = driver.screen()
        #expect(Self.title(screen, "Hop") == "Hop 4 cache · pre-flight · cache miss · attempt 1 of 1")
        #expect(screen.contains { $0.contains("cache read: miss — the request goes on to the network") })
    }

    @Test("after c, Detail shows where the request ended, not an earlier pre-flight")
    func continueShowsTheEnd() async {
        let driver = Driver()
        await driver.press(.char("n"), .char("s"), .char("s"))
        #expect(driver.state.selectedHop == 2 && driver.state.selectedSide == .pre)
        await driver.press(.char("c"))
        #expect(driver.state.selectedHop == 0 && driver.state.selectedSide == .post)
        let screen = driver.screen()
        #expect(Self.title(screen, "Hop") == "Hop 1 MaxRetryInterceptor · post-flight · attempt 1 of 1")
        #expect(screen.contains { $0.contains(#"      "name": "R2-D2""#) })
    }

    @Test("the end is shown even when the screen saw the request running between its stop and its end")
    func continueShowsTheEndAfterAMovingView() async {
        let driver = Driver()
        await driver.press(.char("n"), .char("s"), .char("s"))
        // What the app sees when it redraws while #1 is between two stops.
        var moving = driver.state.lab
        moving.parked = [:]
        moving.requests[0].state = .running
        _ = Inspector.update(&driver.state, .labChanged(moving))
        #expect(driver.state.selectedHop == 2 && driver.state.selectedSide == .pre)
        await driver.press(.char("c"))
        #expect(driver.state.selectedHop == 0 && driver.state.selectedSide == .post)
    }

    @Test("a forced 401 is marked where it happened and by whom; the retry reads as a retry")
    func forcedMarks() async {
        let driver = Driver()
        await driver.press(.char("n"))
        await driver.step(until: .hop(5, .pre))
        await driver.press(.char("4"), .char("c"), .char("["))
        let screen = driver.screen()
        #expect(Self.row(screen, "6 transport ⚡401 you 401"))
        #expect(Self.row(screen, "1 MaxRetryInterceptor ✓ ↻ retry"))
        #expect(Self.title(screen, "Hop") == "Hop 1 MaxRetryInterceptor · post-flight · retry · attempt 1 of 2")
        #expect(screen.contains { $0.contains("↻ Retry: retry HeroQuery from the top of the chain") })
        #expect(driver.state.personActions == [PersonAction(request: 1, attempt: 1, place: .hop(5, .pre))])
    }

    @Test("a stop the scenario's script forced is marked as the scenario's")
    func scriptedMarks() async {
        let driver = Driver()
        driver.state.personActions = []
        await driver.press(.char("n"))
        await driver.step(until: .hop(5, .pre))
        driver.session.submit(.force401(request: 1))
        await driver.refresh()
        await driver.press(.char("c"), .char("["))
        #expect(Self.row(driver.screen(), "6 transport ⚡401 scenario 401"))
    }

    @Test("refresh-storm-fixed: #2's second attempt is answered from the cache, and the row says so")
    func fixedStormFromCache() async {
        let driver = Driver("refresh-storm-fixed")
        await driver.press(.char("n"), .char("n"), .char("g"))
        await driver.step(until: .refresh)
        await driver.press(.char("G"))
        for _ in 0..<11 { await driver.press(.char("s")) }
        #expect(driver.state.lab.requests.map(\.state) == [.paused, .blocked])
        await driver.press(.char("g"), .char("c"), .char("G"), .char("c"))
        #expect(driver.state.lab.requests.map(\.cause) == ["200", "cache"])
        #expect(driver.screen().contains { $0.contains("✓ #2 HeroQuery cache 48ms ×2") })
    }

    @Test("the Requests pane names the cause from the error", arguments: [
        ("TokenEndpointError: token endpoint refused the refresh: HTTP 400 invalid_grant (reused)", 401, "invalid_grant"),
        ("MaxRetriesError: The maximum number of retries (3) was hit without success for operation \"HeroQuery\".", 401, "MaxRetries(3)"),
        ("ResponseCodeError: HTTP 503 from https://lab.chainlab.local/graphql (ResponseCodeError)", 503, "503"),
        ("ResponseCodeError: Received a 401 error.", 401, "401"),
        ("RequestChainError: the request chain finished without a result (noResults)", 401, "noResults"),
        ("LabFault: the request timed out (injected)", nil, "timeout"),
    ] as [(String, Int?, String)])
    func causes(error: String, status: Int?, cause: String) {
        #expect(RequestRow.cause(ofError: error, status: status) == cause)
    }

    @Test("the about screen shows the backend's counters and what to look at on screen")
    func about() async {
        let driver = await Self.finishedStorm(size: Size(width: 120, height: 40))
        await driver.press(.char("i"))
        let screen = driver.screen().joined(separator: "\n")
        #expect(screen.contains("Lab backend now (also in the Timeline title): 2 refreshes (1 refused) · 1 family revoked ·"))
        #expect(screen.contains("#2's refresh row answers ✕ 400 invalid_grant"))
        await driver.press(.escape)
        #expect(Self.title(driver.screen(), "Timeline") == "Timeline · lab clock 0.060s · backend: 2 refreshes (1 refused) · 1 family revoked · 2×401 · 3 requests")
    }
}
