import Foundation
import Testing

/// The tour's walkthroughs (the README and docs/tour.md) replayed in a real terminal (tmux)
/// with the keys exactly as they give them, checking the screen they describe.
@Suite("README walkthroughs in a terminal", .serialized)
struct ReadmeWalkthroughTests {
    func open(_ arguments: String) async throws -> TmuxSession {
        let session = try TmuxSession("\(try builtChainlab().path) \(arguments)", width: 120, height: 40)
        try await session.waitFor("Requests")
        return session
    }

    /// Step 1's keys: `n`, `s` nine times to APQ's post-flight, `c`; returns the last screen.
    func traceARequest(_ tmux: TmuxSession) async throws -> String {
        try tmux.send("n")
        try await tmux.waitFor("⏸ held")
        try await tmux.step(times: 9)
        try await tmux.waitFor("Hop 3 AutomaticPersistedQueryInterceptor · post-flight stop · held")
        try tmux.send("c")
        return try await tmux.waitFor("✓ #1 HeroQuery 200")
    }

    /// `F`, `Enter`, `Enter` on refresh-storm's finished run: the finding, its first cited
    /// event, then that event in its request, attempt and hop.
    func landOnTheCitedRefresh(_ tmux: TmuxSession) async throws -> String {
        try tmux.send("F")
        try await tmux.waitFor("Findings of the run · 1")
        try tmux.send("Enter")
        try await tmux.waitFor("Event seq 57 · 1 of 6 cited")
        try tmux.send("Enter")
        return try await tmux.waitFor("#1's refresh answer in attempt 1") {
            $0.contains("Chain · #1 HeroQuery · attempt 1 of 2") && $0.contains("TokenManager refresh · answer · attempt 1 of 2")
        }
    }

    /// The README's tour, step 1: `n`, `s` nine times, `c`.
    @Test("README tour 1: n, nine s hold #1 at APQ's post-flight with the 200 below; c ends it")
    func tourTraceARequest() async throws {
        let screen = try await traceARequest(try await open(""))
        #expect(screen.replacing(/\ {2,}/, with: " ").contains("✓ #1 HeroQuery 200 12ms"))
    }

    /// The README's tour, step 2, from where step 1 ends: `Tab`, `j`, `h`, `v`, `?`, `q`.
    @Test("README tour 2: Tab, j, h show Auth's pre-flight, its header marked and masked; v reveals; ? lists keys; q quits")
    func tourLookBack() async throws {
        let tmux = try await open("")
        _ = try await traceARequest(tmux)
        try tmux.send("Tab", "j", "h")
        let masked = try await tmux.waitFor("Hop 2 AuthInterceptor · pre-flight · attempt 1 of 1")
        #expect(masked.replacing(/\ {2,}/, with: " ").contains("+ Authorization Bearer ••••-1-1"))
        #expect(masked.contains("secrets masked · v to reveal"))
        try tmux.send("v")
        let revealed = try await tmux.waitFor("⚠ secrets revealed · v to mask")
        #expect(revealed.replacing(/\ {2,}/, with: " ").contains("+ Authorization Bearer at-1-1"))
        try tmux.send("?")
        try await tmux.waitFor("Help (j/k PgUp/PgDn scroll, any other key closes)")
        try tmux.send("Escape")
        try await tmux.waitFor("help closed") { !$0.contains("Help (j/k") }
        try tmux.send("q")
        try await tmux.waitFor("the inspector to quit") { !$0.contains("Requests") }
    }

    /// The README's tour, step 3: `n`, `s` four times, `e`, the header, `c`, `Tab` `G` `k` `h`.
    @Test("README tour 3: four s hold #1 before ResponseCode; the edited header is what the transport sent")
    func tourEditAHeader() async throws {
        let tmux = try await open("")
        try tmux.send("n")
        try await tmux.waitFor("⏸ held")
        try await tmux.step(times: 4)
        try await tmux.waitFor("Hop 5 ResponseCodeInterceptor · pre-flight stop")
        try tmux.send("e")
        try await tmux.waitFor("Edit request headers")
        try tmux.send("C-n")
        try tmux.type("X-Demo")
        try tmux.send("Tab")
        try tmux.type("from-the-tour")
        try tmux.send("Enter")
        try await tmux.waitFor("+ X-Demo from-the-tour in Detail") { $0.replacing(/\ {2,}/, with: " ").contains("+ X-Demo from-the-tour") }
        try tmux.send("c")
        try await tmux.waitFor("✓ #1 HeroQuery 200")
        try tmux.send("Tab", "G", "k", "h")
        let screen = try await tmux.waitFor("Hop 6 transport · pre-flight · sent")
        #expect(screen.replacing(/\ {2,}/, with: " ").contains("X-Demo from-the-tour"))
    }

    /// The README's tour, step 4: `n`, five `s`, `4`, five `s`, `c`, `[`, `]`.
    @Test("README tour 4: a 401 forced at the transport; five s reach the held refresh; c ends it on attempt 2")
    func tourForceA401() async throws {
        let tmux = try await open("")
        try tmux.send("n")
        try await tmux.waitFor("⏸ held")
        try await tmux.step(times: 5)
        try await tmux.waitFor("Hop 6 transport · pre-flight stop")
        try tmux.send("4")
        try await tmux.waitFor("⚡401 you")
        try await tmux.step(times: 5)
        try await tmux.waitFor("the refresh held, not sent") { $0.replacing(/\ {2,}/, with: " ").contains("↻ TokenManager refresh ⏸ held · not sent yet") }
        try tmux.send("c")
        let screen = try await tmux.waitFor("✓ #1 HeroQuery 200")
        #expect(screen.replacing(/\ {2,}/, with: " ").contains("✓ #1 HeroQuery 200 24ms ×2"))
        try tmux.send("[")
        try await tmux.waitFor("attempt 1 of 2")
        try tmux.send("]")
        try await tmux.waitFor("attempt 2 of 2")
    }

    /// The README's tour, step 6: refresh-storm-fixed with the storm's keys.
    @Test("README tour 6: refresh-storm-fixed, n n, g eleven s, G eleven s: #2 waits for #1's refresh; both succeed")
    func tourTheFix() async throws {
        let tmux = try await open("refresh-storm-fixed")
        try tmux.send("n")
        try await tmux.waitFor("Chain · #1 HeroQuery")
        try tmux.send("n")
        try await tmux.waitFor("Chain · #2 HeroQuery")
        try tmux.send("g")
        try await tmux.waitFor("Chain · #1 HeroQuery")
        try await tmux.step(times: 11)
        try await tmux.waitFor("TokenManager refresh · stop · held")
        try tmux.send("G")
        try await tmux.waitFor("Chain · #2 HeroQuery")
        // The tenth step takes #2 to its refresh, where it joins #1's; the eleventh has
        // nothing to move, and says so.
        try await tmux.step(times: 10)
        try tmux.send("s")
        try await tmux.waitFor("⧗ #2 HeroQuery waits: refresh")
        try tmux.send("g", "c")
        try await tmux.waitFor("✓ #1 HeroQuery")
        try tmux.send("G", "c")
        let screen = try await tmux.waitFor("✓ #2 HeroQuery")
        #expect(screen.contains("1 refresh"))
    }

    @Test("Findings: --no-step refresh-storm, N, F, Enter, Enter lands on the cited refresh answer, in its attempt")
    func findingsEnterGoesToTheEvent() async throws {
        let tmux = try await open("--no-step refresh-storm")
        try tmux.send("N")
        try await tmux.waitFor("✕ #5 HeroQuery")
        let screen = try await landOnTheCitedRefresh(tmux)
        #expect(!screen.contains("no refresh request was sent in this attempt"))
    }

    /// The README's tour, step 5: `n` `n`, `g` and eleven `s`, `G` and eleven `s`, `g` `c`, `G` `c`.
    @Test("README tour 5: n n, g, eleven s hold #1 at its refresh with refresh token 1; G, eleven s hold #2 alike; g c, G c: #2 gets invalid_grant")
    func stormHeldAtTheRefreshStop() async throws {
        let tmux = try await open("refresh-storm")
        try tmux.send("n")
        try await tmux.waitFor("Chain · #1 HeroQuery")
        try tmux.send("n")
        try await tmux.waitFor("Chain · #2 HeroQuery")
        for (key, request) in [("g", 1), ("G", 2)] {
            try tmux.send(key)
            try await tmux.waitFor("Chain · #\(request) HeroQuery")
            try await tmux.step(times: 11)
            let screen = try await tmux.waitFor("TokenManager refresh · stop · held")
            #expect(screen.contains("Chain · #\(request) HeroQuery · attempt 1 of 1"))
            #expect(screen.replacing(/\ {2,}/, with: " ").contains("↻ TokenManager refresh ⏸ held · not sent yet"))
            #expect(screen.replacing(/\ {2,}/, with: " ").contains("refresh_token ••••-1-1"))
        }
        try tmux.send("g", "c")
        try await tmux.waitFor("✓ #1 HeroQuery")
        try tmux.send("G", "c")
        let screen = try await tmux.waitFor("✕ #2 HeroQuery")
        #expect(screen.replacing(/\ {2,}/, with: " ").contains("✕ #2 HeroQuery invalid_grant"))
        #expect(screen.contains("1 family revoked"))
    }

    /// The README's tour, step 7, as written: the filter, `Esc`, a rule by `Ctrl-B`, `F`, `Enter`, `Enter`.
    @Test("README tour 7: refresh-storm, B, N, / !~retry & ~finding keeps 4 of 5; Esc; Ctrl-B rule; F Enter Enter lands on the refresh")
    func filterKeepsFourOfFive() async throws {
        let tmux = try await open("refresh-storm")
        try tmux.send("B")
        try await tmux.waitFor("step mode off")
        try tmux.send("N")
        try await tmux.waitFor("✕ #5 HeroQuery")
        try tmux.send("/")
        try tmux.type("!~retry & ~finding")
        try tmux.send("Enter")
        let screen = try await tmux.waitFor("filter !~retry & ~finding: 4 of 5 requests")
        #expect(screen.contains("Requests · !~retry & ~finding"))
        try tmux.send("Escape")
        try await tmux.waitFor("filter cleared") { !$0.contains("Requests · !~retry") && $0.contains("#5 HeroQuery") && $0.contains("#1 HeroQuery") }
        // The rest of step 7: a rule by Ctrl-B, then the findings.
        try tmux.send("C-b")
        try await tmux.waitFor("Breakpoints by rule")
        try tmux.type("post@AuthInterceptor if ~c 401")
        try tmux.send("Enter")
        try await tmux.waitFor("rule added: post@AuthInterceptor if ~c 401")
        _ = try await landOnTheCitedRefresh(tmux)
    }

    /// The README's tour, step 8: `w`, `Tab` `Tab` to OTLP, `Enter` writes the file.
    @Test("README tour 8: w, Tab Tab, Enter writes chainlab-basics.otlp.json, an OTLP trace with the masked token")
    func tourExport() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chainlab-tour-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let tmux = try TmuxSession("/bin/sh -c 'cd \(folder.path) && exec \(try builtChainlab().path)'", width: 120, height: 40)
        try await tmux.waitFor("Requests")
        try tmux.send("n")
        try await tmux.waitFor("⏸ held")
        try tmux.send("c")
        try await tmux.waitFor("✓ #1 HeroQuery 200")
        try tmux.send("w")
        try await tmux.waitFor("Export the timeline")
        try tmux.send("Tab")
        try await tmux.waitFor("format JSON [HAR] OTLP")
        try tmux.send("Tab")
        try await tmux.waitFor("format JSON HAR [OTLP]")
        try tmux.send("Enter")
        try await tmux.waitFor("exported to chainlab-basics.otlp.json")
        let written = try String(contentsOf: folder.appendingPathComponent("chainlab-basics.otlp.json"), encoding: .utf8)
        #expect(written.hasPrefix(#"{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"chainlab"}}"#))
        #expect(written.contains("Bearer ••••-1-1"))
        #expect(!written.contains("at-1-1\""))
    }

    @Test("Find it and break on it: token-expiry, B, Ctrl-B, the rule, Enter, n holds #1 at Auth's post-flight")
    func ruleThenNRunsFreely() async throws {
        let tmux = try await open("token-expiry")
        try tmux.send("B")
        try await tmux.waitFor("step mode off")
        try tmux.send("C-b")
        try await tmux.waitFor("Breakpoints by rule")
        try tmux.type("post@AuthInterceptor if ~op HeroQuery & ~c 401")
        try tmux.send("Enter")
        try await tmux.waitFor("rule added: post@AuthInterceptor if ~op HeroQuery & ~c 401")
        try tmux.send("n")
        let screen = try await tmux.waitFor("Hop 2 AuthInterceptor · post-flight stop · held")
        #expect(screen.contains("Chain · #1 HeroQuery · attempt 1 of 1 · ◆ 1 rule"))
        #expect(!screen.contains("Breakpoints by rule"))
    }
}
