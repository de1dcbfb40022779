import Lab
import TerminalUI

/// The about overlay (`i`): what the scenario teaches, told as what to look at on this screen,
/// and the lab backend's counters as they stand.
extension Inspector {
    /// What to look for on screen in each built-in scenario. A scenario from a file shows its
    /// own `teaches` text instead.
    static let onScreen: [String: String] = [
        "basics": "Press n, then s to step: the Chain pane fills in top-down (pre-flight ↓), the cache reads miss, the transport answers 200, and the post-flights fill in bottom-up (↑). Select a hop with j/k and h/l: Detail shows what that hop saw on the way down or up.",
        "token-expiry": "Step #1: the transport answers 401, the ✕ travels up to AuthInterceptor, the TokenManager refresh row appears under the hops, and AuthInterceptor's post-flight reads ↻ Retry. [ and ] move between attempt 1 (the 401) and attempt 2 (the 200 with the new token).",
        "refresh-storm": "Start #1 and #2 (n n) and step each to the TokenManager refresh row: both hold the same refresh token. Release #1, then #2: #2's refresh row answers ✕ 400 invalid_grant and the Requests pane says ✕ #2 … invalid_grant. The Timeline title counts the backend's refreshes, refusals and revoked families.",
        "refresh-storm-fixed": "Start #1 and #2 and step them: #2 shows ⧗ waits: refresh instead of sending its own grant. When #1's refresh ends both retry; the backend count stays at 1 refresh. #2's second attempt may be answered from the cache (✓ … cache) because #1 has just written the result.",
        "stale-token": "Each attempt refreshes (✓ 200 on the refresh row), yet the transport's pre-flight sends the same Authorization every time: compare attempts with [ and ]. The request ends ✕ … MaxRetries(3).",
        "retry-order": "RetryOnErrorInterceptor sits above MaxRetryInterceptor, so every error, MaxRetriesError included, becomes another attempt: the attempt count in the Chain title keeps climbing until the lab's safety cap stops it.",
        "apq": "Attempt 1 sends only the hash; the server answers PersistedQueryNotFound and the APQ interceptor's post-flight reads ↻ Retry. Attempt 2's request carries the query text.",
        "cache-fallback": "The transport answers 503 (⚡ server: the backend injects it), ResponseCodeInterceptor fails it, and the cache step answers instead: the request ends ✓ … cache.",
        "graphql-errors-200": "The transport answers 200, but the result carries UNAUTHENTICATED: AuthInterceptor's post-flight turns it into a refresh and ↻ Retry.",
        "empty-401": "The transport answers 401 with an empty body: no chunk reaches ResponseCodeInterceptor, so no error is raised and the request ends ✕ … noResults.",
        "openapi-middleware": "FaultInjectionMiddleware answers the first call with 503 before the transport; RetryingMiddleware calls next again, and the second call reaches the server.",
        "hostile-server": "Headers and the body carry terminal escapes and bidi overrides: every one is drawn as a visible escape (\\e, \\x07, \\u{202E}).",
    ]

    /// The about overlay's lines.
    static func aboutLines(_ state: InspectorState) -> [Line] {
        var lines = [Line(onScreen[state.scenario.name] ?? state.scenario.teaches)]
        if onScreen[state.scenario.name] != nil {
            lines += [Line(""), Line("Why: " + state.scenario.teaches, style: .dim)]
        }
        lines += [Line(""), Line([Span("Lab backend now ", style: .bold), Span("(also in the Timeline title): ", style: .dim), Span(state.lab.hasLabControls ? backendSummary(state.lab) : "not a ChainLab lab (no counters)")])]
        let counters = state.lab.backend.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: " · ")
        if !counters.isEmpty { lines.append(Line(counters, style: .dim)) }
        lines += [Line(""), Line("any key closes", style: .dim)]
        return lines
    }
}
