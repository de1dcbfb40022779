import Foundation
import Testing

/// `/` and `Ctrl-B` in a real terminal (tmux).
@Suite("Filters and rules in a terminal", .serialized)
struct FilterEndToEndTests {
    func open(_ arguments: String) async throws -> TmuxSession {
        let session = try TmuxSession("\(try builtChainlab().path) \(arguments)", width: 120, height: 40)
        try await session.waitFor("Requests", timeout: .seconds(30))
        return session
    }

    @Test("/ filters the Requests pane by an expression; a bad one is refused in place; Esc clears")
    func filter() async throws {
        let tmux = try await open("token-expiry --no-step")
        // A key pressed while the machine is loaded can arrive before the screen reads keys:
        // press until the request shows.
        try await tmux.press("n", until: "#1 HeroQuery")
        try await tmux.waitFor("#1 HeroQuery 200")
        try tmux.send("n")
        // The second request finds HeroQuery's result in the cache.
        try await tmux.waitFor("#2 HeroQuery cache")
        try tmux.send("/")
        try tmux.type("~retry & ~c 401")
        try tmux.send("Enter")
        var screen = try await tmux.waitFor("Requests · ~retry & ~c 401")
        #expect(screen.contains("filter ~retry & ~c 401: 1 of 2 requests"))
        #expect(screen.contains("#1 HeroQuery 200"))
        #expect(!screen.contains("#2 HeroQuery"))
        try tmux.send("/")
        try tmux.type(" | (~cache")
        try tmux.send("Enter")
        screen = try await tmux.waitFor("expected ')' to close the '(' at 19")
        #expect(screen.contains("^ at 26: expected ')' to close the '(' at 19, found the end"))
        #expect(screen.contains("Requests · ~retry & ~c 401"))
        try tmux.send("Escape")
        screen = try await tmux.waitFor("filter cleared")
        #expect(screen.contains("#2 HeroQuery cache"))
        #expect(!screen.contains("Requests · "))
    }

    @Test("Ctrl-B adds a rule and closes: the next request is held at AuthInterceptor's post-flight after its 401")
    func rule() async throws {
        let tmux = try await open("token-expiry --no-step")
        try await tmux.press("C-b", until: "Breakpoints by rule")
        try tmux.type("post@AuthInterceptor if ~op HeroQuery & ~c 401 & !~retry")
        try tmux.send("Enter")
        // Enter adds the rule and closes the overlay, so n is a main key again.
        try await tmux.waitFor("rule added: post@AuthInterceptor if ~op HeroQuery & ~c 401 & !~retry")
        try tmux.send("n")
        // The stop's detail is drawn with the held request, or a frame after it: wait for it.
        let held = try await tmux.waitFor("Hop 2 AuthInterceptor · post-flight stop")
        #expect(held.contains("⏸ held"))
        #expect(held.contains("◆ 1 rule"))
        try tmux.send("c")
        try await tmux.waitFor("✓ #1 HeroQuery 200")
    }
}
