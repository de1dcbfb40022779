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

    @Test("Findings: --no-step refresh-storm, N, F, Enter, Enter lands on the cited refresh answer, in its attempt")
    func findingsEnterGoesToTheEvent() async throws {
        let tmux = try await open("--no-step refresh-storm")
        try tmux.send("N")
        try await tmux.waitFor("✕ #5 HeroQuery")
        try tmux.send("F")
        try await tmux.waitFor("Findings of the run · 1")
        try tmux.send("Enter")
        try await tmux.waitFor("Event seq 57 · 1 of 6 cited")
        try tmux.send("Enter")
        let screen = try await tmux.waitFor("#1's refresh answer in attempt 1") {
            $0.contains("Chain · #1 HeroQuery · attempt 1 of 2") && $0.contains("TokenManager refresh · answer · attempt 1 of 2")
        }
        #expect(!screen.contains("no refresh request was sent in this attempt"))
    }

    @Test("The refresh storm: n n, g, eleven s hold #1 at its refresh row with refresh token 1; G, eleven s hold #2 alike")
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
    }

    @Test("Find it and break on it: refresh-storm, B, N, / !~retry & ~finding Enter keeps 4 of 5")
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
