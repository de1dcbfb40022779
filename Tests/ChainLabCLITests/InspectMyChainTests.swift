import Foundation
import Testing

/// `swift run inspect-my-chain` (Examples/InspectMyChain, built by `swift build`) in a real
/// terminal: the app's own auth interceptor, in Apollo iOS 2.4's documented shape, in the
/// token-expiry scenario, stepped through its 401, its token manager's refresh and
/// `RequestChain.Retry`.
@Suite("The library example in a terminal", .serialized)
struct InspectMyChainTests {
    func builtExample() throws -> URL {
        let url = try builtChainlab().deletingLastPathComponent().appendingPathComponent("inspect-my-chain")
        guard FileManager.default.isExecutableFile(atPath: url.path) else {
            throw CLITestError(message: "inspect-my-chain is not built next to chainlab (\(url.path)); swift build builds it")
        }
        return url
    }

    @Test("n, nine s: the 401 held at the app's AuthorizationInterceptor; s: its token manager's refresh held before it is sent; s: sent, and the Retry; c: attempt 2 succeeds")
    func stepThroughTheRefresh() async throws {
        let tmux = try TmuxSession(try builtExample().path, width: 140, height: 45)
        try await tmux.waitFor("  3 AuthorizationInterceptor")
        try tmux.send("n")
        try await tmux.waitFor("⏸ held")
        try await tmux.step(times: 9)
        let refused = try await tmux.waitFor("Hop 3 AuthorizationInterceptor · post-flight stop · held · attempt 1 of 1")
        #expect(refused.contains("error ResponseCodeError: Received a 401 error."))
        try await tmux.step(times: 1)
        let held = try await tmux.waitFor("TokenManager refresh · stop · held · attempt 1 of 1")
        let heldRows = held.replacing(/\ {2,}/, with: " ")
        #expect(heldRows.contains("↻ TokenManager refresh ⏸ held · not sent yet"))
        #expect(heldRows.contains("refresh_token ••••-1-1"))
        try await tmux.step(times: 1)
        let refreshed = try await tmux.waitFor("Hop 2 AutomaticPersistedQueryInterceptor · post-flight stop · held · attempt 1 of 1")
        let rows = refreshed.replacing(/\ {2,}/, with: " ")
        #expect(rows.contains("3 AuthorizationInterceptor ✓ +Authorization ↻ retry"))
        #expect(rows.contains("↻ TokenManager refresh ✓ POST /oauth/token ✓ 200"))
        #expect(rows.contains("↻ Retry: retry HeroQuery from the top of the chain"))
        try tmux.send("c")
        let done = try await tmux.waitFor("✓ #1 HeroQuery 200")
        #expect(done.contains("Chain · #1 HeroQuery · attempt 2 of 2"))
        try tmux.send("q")
    }

    @Test("inspect-my-chain refresh-storm, N, C: the example's naive TokenStore refreshes on every 401 of five requests; the first refresh wins and the reuse revokes the family, so every later one is refused until MaxRetry gives up")
    func naiveStorm() async throws {
        let tmux = try TmuxSession(try builtExample().path + " refresh-storm", width: 140, height: 45)
        try await tmux.waitFor("  3 AuthorizationInterceptor")
        try tmux.send("N")
        try await tmux.waitFor("⏸ #5 HeroQuery")
        try tmux.send("C")
        let screen = try await tmux.waitFor("backend: 20 refreshes (19 refused) · 1 family revoked")
        #expect(screen.contains("✕ #5 HeroQuery MaxRetries(3)"))
        try tmux.send("q")
    }
}
