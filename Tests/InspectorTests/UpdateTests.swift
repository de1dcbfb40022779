import ChainKit
import Foundation
import Inspector
import Lab
import TerminalUI
import Testing
import Timeline

@Suite("Inspector update")
struct UpdateTests {
    @Test("n starts an operation, held before the first hop in step mode, and selects it")
    func newOperation() async {
        let driver = Driver()
        #expect(await driver.press(.char("n")) == [.command(.launch(operation: 0))])
        #expect(driver.state.selectedRequest == 1)
        #expect(driver.state.selectedStop?.place == .hop(0, .pre))
        #expect(driver.state.heldStop != nil)
        #expect(driver.state.lab.requests.map(\.state) == [.paused])
    }

    @Test("N starts five operations, queued together")
    func newSeveral() async {
        let driver = Driver()
        #expect(await driver.press(.char("N")) == [.commands(Array(repeating: .launch(operation: 0), count: 5))])
        #expect(driver.state.lab.requests.map(\.id) == [1, 2, 3, 4, 5])
    }

    @Test("n and N start the scenario's operations in its launch order, from the start again once it is used up")
    func launchOrder() async {
        // cache-records launches HeroQuery, HeroDetailsQuery, RenameHero, HeroQuery, HeroDetailsQuery.
        let driver = Driver("cache-records", stepMode: false)
        #expect(await driver.press(.char("n")) == [.command(.launch(operation: 0))])
        #expect(await driver.press(.char("n")) == [.command(.launch(operation: 1))])
        #expect(await driver.press(.char("n")) == [.command(.launch(operation: 2))])
        #expect(await driver.press(.char("N")) == [.commands([0, 1, 0, 1, 2].map { .launch(operation: $0) })])
    }

    @Test("s steps the selected request one hop; the Chain selection follows the stop")
    func step() async {
        let driver = Driver()
        await driver.press(.char("n"))
        #expect(await driver.press(.char("s")) == [.command(.step(request: 1))])
        #expect(driver.state.selectedStop?.place == .hop(1, .pre))
        #expect(driver.state.selectedHop == 1)
    }

    @Test("s with nothing held explains what to do")
    func stepWithNothingHeld() async {
        let driver = Driver()
        #expect(await driver.press(.char("s")) == [])
        #expect(driver.state.notice == .init(text: "no request is selected; press n to start one, b to set a breakpoint, B for step mode", isError: true))
    }

    @Test("c continues the selected request to the end; C continues all")
    func continueRequests() async {
        let driver = Driver()
        await driver.press(.char("n"), .char("n"))
        // The second n selected #2.
        #expect(await driver.press(.char("c")) == [.command(.resume(request: 2))])
        #expect(driver.state.lab.requests.map(\.state) == [.paused, .succeeded])
        #expect(await driver.press(.char("C")) == [.command(.resumeAll)])
        #expect(driver.state.lab.requests.map(\.state) == [.succeeded, .succeeded])
        #expect(await driver.press(.char("C")) == [])
        #expect(driver.state.notice?.text == "no request is held")
    }

    @Test("B turns step mode off: new operations run through")
    func stepModeOff() async {
        let driver = Driver()
        #expect(await driver.press(.char("B")) == [.setStepMode(false)])
        #expect(driver.state.lab.stepMode == false)
        await driver.press(.char("n"))
        #expect(driver.state.lab.requests.map(\.state) == [.succeeded])
    }

    @Test("b cycles the selected hop's breakpoint: pre, post, both, none")
    func breakpoints() async {
        let driver = Driver()
        driver.state.focus = .chain
        await driver.press(.char("j"), .char("j"))
        #expect(driver.state.selectedHop == 2)
        let pre = Scheduler.Breakpoint(hop: 2, position: .pre), post = Scheduler.Breakpoint(hop: 2, position: .post)
        #expect(await driver.press(.char("b")) == [.setBreakpoint(pre, enabled: true), .setBreakpoint(post, enabled: false)])
        #expect(driver.state.lab.breakpoints == [pre])
        await driver.press(.char("b"))
        #expect(driver.state.lab.breakpoints == [post])
        await driver.press(.char("b"))
        #expect(driver.state.lab.breakpoints == [pre, post])
        await driver.press(.char("b"))
        #expect(driver.state.lab.breakpoints == [])
        #expect(driver.state.notice?.text == "breakpoint on AutomaticPersistedQueryInterceptor: none")
    }

    @Test("e opens the header editor at a pre-flight stop; an invalid name is shown inline and nothing is sent")
    func editorValidation() async throws {
        let driver = Driver()
        await driver.press(.char("n"))
        await driver.step(until: .hop(2, .pre))
        await driver.press(.char("e"))
        guard case .editor(let editor) = driver.state.modal else { Issue.record("no editor"); return }
        // A GraphQL hop edits the request's additional headers, which Auth filled in.
        #expect(editor.rows.map(\.name.text) == ["Authorization"])
        await driver.press(.ctrl("n"), .char("B"), .char("a"), .char("d"), .char(" "), .char("N"), .tab, .char("1"), .enter)
        guard case .editor(let invalid) = driver.state.modal else { Issue.record("the editor closed"); return }
        #expect(invalid.errors == [1: #"header name "Bad N" is not a valid token: space at offset 3 is not allowed; use letters, digits and !#$%&'*+-.^_`|~ (RFC 9110 §5.6.2)"#])
        #expect(driver.effects == [])
        await driver.press(.backTab, .home, .delete, .delete, .delete, .delete, .delete, .char("X"), .char("-"), .char("O"), .char("K"), .enter)
        #expect(driver.state.modal == nil)
        var expected = HTTPFields()
        try expected.append("Authorization", "Bearer at-1-1")
        try expected.append("X-OK", "1")
        #expect(driver.effects == [.command(.editRequestHeaders(request: 1, headers: expected))])
        await driver.press(.char("c"))
        let send = driver.session.timeline().events().first { $0.phase == .send }
        #expect(send?.headers?["X-OK"] == "1")
    }

    @Test("4 is refused where no 401 can be forced and forces one at the transport")
    func force401() async {
        let driver = Driver()
        await driver.press(.char("n"))
        #expect(await driver.press(.char("4")) == [])
        #expect(driver.state.notice?.text == "a 401 cannot be forced at hop 1 pre of MaxRetryInterceptor: force it at the transport or at a post-flight stop")
        await driver.step(until: .hop(5, .pre))
        #expect(await driver.press(.char("4")) == [.command(.force401(request: 1))])
        await driver.press(.char("c"))
        #expect(driver.state.lab.requests.map(\.attempt) == [2])
        #expect(driver.state.lab.requests.map(\.state) == [.succeeded])
    }

    @Test("r at an HTTP hop shows the upstream reason; at a GraphQL hop it retries")
    func forceRetry() async {
        let driver = Driver()
        await driver.press(.char("n"))
        await driver.step(until: .hop(4, .pre))
        #expect(await driver.press(.char("r")) == [])
        #expect(driver.state.notice == .init(text: "HTTP interceptors see only the HTTP request, so they cannot throw RequestChain.Retry (Apollo iOS 2.x); force the retry at a GraphQL hop", isError: true))
        let other = Driver()
        await other.press(.char("n"), .char("s"))
        #expect(await other.press(.char("r")) == [.command(.forceRetry(request: 1))])
    }

    @Test("x opens the fault picker; t fails the request with a timeout")
    func fail() async {
        let driver = Driver()
        await driver.press(.char("n"))
        await driver.press(.char("x"))
        #expect(driver.state.modal == .failPicker(request: 1))
        #expect(await driver.press(.char("t")) == [.command(.fail(request: 1, fault: .timeout))])
        #expect(driver.state.lab.requests.map(\.state) == [.failed])
        #expect(driver.state.lab.requests.first?.error == "LabFault: the request timed out (injected)")
    }

    @Test("t advances the lab clock and T expires tokens")
    func clockAndTokens() async {
        let driver = Driver()
        #expect(await driver.press(.char("t")) == [.command(.advanceClock(seconds: 1))])
        #expect(driver.state.lab.clock == 1)
        #expect(await driver.press(.char("T")) == [.command(.expireTokens)])
        await driver.press(.char("B"), .char("n"))
        #expect(driver.state.lab.requests.map(\.attempt) == [2])
    }

    @Test("T on a server without lab controls says so and sends nothing")
    func expireTokensWithoutLabControls() async {
        let driver = Driver()
        driver.state.lab.hasLabControls = false
        #expect(Inspector.update(&driver.state, .key(.char("T"))) == [])
        #expect(driver.state.notice == .init(text: "this server has no lab controls: tokens cannot be expired from here", isError: true))
    }

    @Test("o reorders the chain for new operations; GraphQL and HTTP interceptors stay on their side of the cache")
    func reorder() async {
        let driver = Driver()
        await driver.press(.char("o"), .char("j"), .char("J"))
        guard case .reorder(let reorder) = driver.state.modal else { Issue.record("no reorder overlay"); return }
        #expect(reorder.names == ["MaxRetryInterceptor", "AutomaticPersistedQueryInterceptor", "AuthInterceptor", "ResponseCodeInterceptor"])
        await driver.press(.char("J"))
        #expect(driver.state.notice?.text == "GraphQL interceptors stay above the cache step; HTTP interceptors below it")
        let effects = await driver.press(.enter)
        #expect(effects == [.setChain(.graphQL(
            graphQL: [Scenario.Layer("MaxRetryInterceptor", ["maxRetries": 3]), Scenario.Layer("AutomaticPersistedQueryInterceptor"), Scenario.Layer("AuthInterceptor")],
            http: [Scenario.Layer("ResponseCodeInterceptor")]))])
        #expect(driver.session.chainHops.map(\.name).prefix(3) == ["MaxRetryInterceptor", "AutomaticPersistedQueryInterceptor", "AuthInterceptor"])
    }

    @Test("Enter in the reorder overlay lays the new chain's hops out at once, numbered as its operations will be")
    func reorderLaysOutHops() async {
        let driver = Driver()
        await driver.press(.char("o"), .char("j"), .char("J"))
        #expect(driver.state.lab.chainHops[1].name == "AuthInterceptor")
        // Before the lab says anything: the update alone.
        _ = Inspector.update(&driver.state, .key(.enter))
        #expect(driver.state.lab.chainHops == [
            HopInfo(index: 0, name: "MaxRetryInterceptor", kind: .graphql), HopInfo(index: 1, name: "AutomaticPersistedQueryInterceptor", kind: .graphql),
            HopInfo(index: 2, name: "AuthInterceptor", kind: .graphql), HopInfo(index: 3, name: "cache", kind: .cache),
            HopInfo(index: 4, name: "ResponseCodeInterceptor", kind: .http), HopInfo(index: 5, name: "transport", kind: .transport),
            HopInfo(index: 6, name: "JSONResponseParsingInterceptor", kind: .parser),
        ])
    }

    @Test("w exports; Tab switches to HAR and renames the file")
    func export() async {
        let driver = Driver()
        await driver.press(.char("w"), .tab)
        guard case .export(let prompt) = driver.state.modal else { Issue.record("no export overlay"); return }
        #expect(prompt.format == .har)
        #expect(prompt.path.text == "chainlab-basics.har")
        await driver.press(.escape)
        #expect(driver.state.modal == nil)
    }

    @Test("w offers OTLP as the third format: Tab goes JSON, HAR, OTLP and back, renaming the file")
    func exportFormatsCycle() async {
        let driver = Driver()
        await driver.press(.char("w"), .tab, .tab)
        guard case .export(let otlp) = driver.state.modal else { Issue.record("no export overlay"); return }
        #expect(otlp.format == .otlp)
        #expect(otlp.path.text == "chainlab-basics.otlp.json")
        #expect(driver.screen().contains { $0.contains("format JSON HAR [OTLP]   Tab switches") })
        var state = driver.state
        #expect(Inspector.update(&state, .key(.enter)) == [.export(format: .otlp, path: "chainlab-basics.otlp.json")])
        await driver.press(.tab)
        guard case .export(let json) = driver.state.modal else { Issue.record("no export overlay"); return }
        #expect(json.format == .json)
        #expect(json.path.text == "chainlab-basics.json")
    }

    @Test("the OTLP export of the inspector writes one trace per finished operation")
    func exportOTLP() async throws {
        let driver = Driver()
        await driver.press(.char("n"), .char("c"))
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("chainlab-\(UUID().uuidString).otlp.json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var state = driver.state
        _ = InspectorApp.perform(.export(format: .otlp, path: path), session: driver.session, state: &state)
        #expect(state.notice == .init(text: "exported to \(path)", isError: false))
        let document = try JSONValue(parsing: try #require(FileManager.default.contents(atPath: path)))
        let spans = try #require(document["resourceSpans"]?[0]?["scopeSpans"]?[0]?["spans"]?.arrayValue)
        #expect(spans.first?["name"] == "HeroQuery")
        #expect(Set(spans.compactMap { $0["traceId"]?.stringValue }).count == 1)
        #expect(!String(decoding: FileManager.default.contents(atPath: path)!, as: UTF8.self).contains("at-1-1"))
    }

    @Test("a line from the background OTLP export shows in the status line")
    func otlpStatus() async {
        let driver = Driver()
        _ = Inspector.update(&driver.state, .otlpExportStatus(text: "OTLP export of #1 failed, retrying", isError: true))
        #expect(driver.state.notice == .init(text: "OTLP export of #1 failed, retrying", isError: true))
    }

    @Test("an export to a folder that does not exist says so and writes nothing")
    func exportFailure() async {
        let driver = Driver()
        var state = driver.state
        _ = InspectorApp.perform(.export(format: .json, path: "/nonexistent-folder/out.json"), session: driver.session, state: &state)
        #expect(state.notice == .init(text: "cannot write /nonexistent-folder/out.json: the folder /nonexistent-folder does not exist", isError: true))
    }

    @Test("y shows the curl command for the request at the selected hop, secrets masked")
    func curl() async {
        let driver = Driver()
        await driver.press(.char("n"), .char("c"))
        driver.state.selectedHop = 4
        await driver.press(.char("y"))
        guard case .curl(let title, let command) = driver.state.modal else { Issue.record("no curl overlay"); return }
        #expect(title == "curl · #1 attempt 1 · as ResponseCodeInterceptor handed it on")
        #expect(command.contains("-H 'Authorization: Bearer ••••-1-1'"))
        #expect(command.hasPrefix("curl 'https://lab.chainlab.local/graphql'"))
    }

    @Test("Tab and Shift-Tab move between panes; j/k move; Enter opens; Esc goes back")
    func navigation() async {
        let driver = Driver()
        await driver.press(.char("B"), .char("n"), .char("n"))
        #expect(driver.state.focus == .requests)
        await driver.press(.char("j"))
        #expect(driver.state.selectedRequest == 2)
        await driver.press(.char("k"))
        #expect(driver.state.selectedRequest == 1)
        await driver.press(.enter)
        #expect(driver.state.focus == .chain)
        await driver.press(.end)
        #expect(driver.state.selectedHop == 6)
        await driver.press(.escape)
        #expect(driver.state.focus == .requests)
        await driver.press(.tab, .tab, .tab, .tab)
        #expect(driver.state.focus == .requests)
        await driver.press(.backTab)
        #expect(driver.state.focus == .detail)
    }

    @Test("? opens help, any key closes it; i shows what the scenario teaches; v reveals secrets")
    func overlays() async {
        let driver = Driver()
        await driver.press(.char("?"))
        #expect(driver.state.modal == .help(scroll: 0))
        await driver.press(.char("j"))
        #expect(driver.state.modal == .help(scroll: 1))
        await driver.press(.char("x"))
        #expect(driver.state.modal == nil)
        await driver.press(.char("i"))
        #expect(driver.state.modal == .scenarioInfo)
        await driver.press(.char("v"))
        #expect(driver.state.modal == nil)
        await driver.press(.char("v"))
        #expect(driver.state.revealSecrets)
    }

    @Test("q asks y/n while requests are paused or running, with only its keys on the status line, and quits at once otherwise")
    func quit() async {
        let driver = Driver()
        #expect(await driver.press(.char("q")) == [.quit])
        await driver.press(.char("n"))
        #expect(await driver.press(.char("q")) == [])
        #expect(driver.state.modal == .confirmQuit)
        // The status line offers the prompt's keys only: any key but y stays.
        #expect(driver.screen().last == "y/Y quit  Esc stay" + String(repeating: " ", count: 120 - 18 - 6) + "basics")
        #expect(await driver.press(.char("n")) == [])
        #expect(driver.state.modal == nil)
        await driver.press(.char("q"))
        #expect(await driver.press(.char("y")) == [.quit])
    }

    @Test("n selects the request it started, so c right after acts on it")
    func newSelectsTheNewRequest() async {
        let driver = Driver()
        await driver.press(.char("n"), .char("c"))
        #expect(driver.state.lab.requests.map(\.state) == [.succeeded])
        await driver.press(.char("n"))
        #expect(driver.state.selectedRequest == 2)
        #expect(driver.state.heldStop?.place == .hop(0, .pre))
        #expect(await driver.press(.char("c")) == [.command(.resume(request: 2, lane: nil))])
        #expect(driver.state.lab.requests.map(\.state) == [.succeeded, .succeeded])
    }

    @Test("N selects the first of its five requests, and none runs ahead of the others")
    func newFiveTogether() async {
        let driver = Driver("refresh-storm", stepMode: false)
        await driver.press(.char("N"))
        #expect(driver.state.selectedRequest == 1)
        // All five saw the first 401 before any refreshed: the storm of the README.
        #expect(driver.state.lab.findings?.map(\.id) == ["refresh-storm"])
    }

    @Test("a request the filter hides is started but not selected, and the status line says so")
    func newHiddenByTheFilter() async {
        let driver = Driver("token-expiry", stepMode: false)
        await driver.press(.char("n"), .char("/"))
        for character in "~c 500" { await driver.press(.char(character)) }
        await driver.press(.enter, .char("n"))
        #expect(driver.state.lab.requests.map(\.id) == [1, 2])
        #expect(driver.state.selectedRequest == 1)
        #expect(driver.state.notice?.text == "#2 started; the filter ~c 500 hides it (Esc clears the filter)")
    }

    @Test("+ maximizes the focused pane and restores the layout")
    func maximize() async {
        let driver = Driver(size: Size(width: 80, height: 24))
        await driver.press(.char("n"), .tab)
        #expect(await driver.press(.char("+")) == [])
        #expect(driver.state.maximized)
        var screen = driver.screen()
        #expect(screen[0].hasPrefix("┌ Chain · #1 HeroQuery · attempt 1 of 1 · step mode"))
        #expect(!screen.contains { $0.contains("Requests") || $0.contains("Timeline") })
        #expect(screen[22].hasSuffix("┘"))
        await driver.press(.tab)
        screen = driver.screen()
        #expect(screen[0].hasPrefix("┌ Timeline"), "Tab moves to the next pane, which takes the screen")
        await driver.press(.char("+"))
        #expect(!driver.state.maximized)
        #expect(driver.screen()[0].hasPrefix("┌ Requests"))
    }

    @Test("the status line offers the keys that act, most useful first; at any width what does not fit is behind … and ? ends it")
    func statusLine() async {
        let driver = Driver(size: Size(width: 80, height: 24))
        await driver.press(.char("n"))
        let keys = { (width: Int) in Inspector.statusHints(driver.state, width: width).map(\.key) }
        #expect(keys(1000) == ["s", "c", "n", "C", "b", "e", "r", "x", "Tab", "Enter", "q", "/", "N", "B", "Ctrl-B", "t", "T", "o", "w", "v", "L", "F", "i", "+", "Shift-Tab", "y", "l", "Ctrl-F", "z", "S", "A", "m", "d", "#", "?"], "held, Requests focused: the stop keys, acting, moving, the pane's own, the rest, other panes' keys; no j/k with one request, no f without JSON")
        #expect(keys(80) == ["s", "c", "n", "C", "b", "…", "?"])
        #expect(keys(40) == ["s", "c", "n", "…", "?"])
        #expect(keys(10) == ["…", "?"])
        #expect(driver.screen()[23] == "s step  c continue  n new  C continue all  b breakpoint  …  ? help        basics")
        driver.state.size = Size(width: 40, height: 24)
        #expect(driver.screen()[23] == "s step  c continue  n new  …  ? help    ", "below 60 columns the keys come before the scenario's name")
        driver.state.size = Size(width: 80, height: 24)
        driver.state.focus = .chain
        #expect(keys(1000).prefix(14) == ["s", "c", "n", "C", "b", "e", "r", "x", "Tab", "j", "Enter", "Esc", "q", "y"], "in the Chain pane, its own keys come before other panes'; at the first hop only j moves")
        driver.state.focus = .requests
        await driver.press(.char("]"))
        #expect(driver.screen()[23] == " request #1 made 1 attempt; this is attempt 1" + String(repeating: " ", count: 80 - 45 - 6) + "? help", "a notice keeps ? help at the right")
        driver.state.size = Size(width: 44, height: 24)
        #expect(driver.screen()[23] == " request #1 made 1 attempt; this is attempt…", "a notice too long to share the line takes it, cut with …")
    }
}
