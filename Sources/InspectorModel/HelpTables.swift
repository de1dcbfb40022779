import TerminalUI

/// A table of the help overlay: a heading, then terms and what each means. The reference
/// tables below, each overlay's keys (``OverlayKeymap``) and `chainlab keys` all print
/// through one function, ``Inspector/helpLines(keys:state:)``, so the overlay has one shape.
package struct HelpTable: Sendable {
    package var title: String
    package var rows: [(term: String, text: String)]

    init(_ title: String, _ rows: [(term: String, text: String)]) {
        self.title = title
        self.rows = rows
    }

    /// The tables before the keys: what each pane shows, what each symbol on screen means,
    /// and the grammar of filters and rules.
    package static let reference = [panes, symbols, filters]

    static let panes = HelpTable("Panes", [
        ("Requests", "every operation started, its state and, once finished, its outcome and cause (200, cache, invalid_grant, MaxRetries(3))"),
        ("Chain", "the selected request's hops for one attempt ([ ] other attempts): each hop's pre-flight ↓ (the request going down) and post-flight ↑ (the result or error coming up); h/l choose the side; S draws it as a sequence diagram (hops as columns, events as rows, ↓ down, ↑ up, ◇/◆ cache miss/hit, each retry under a divider, the refresh in the ↻ column), A with every request's events"),
        ("Timeline", "a waterfall on the lab clock: █ transport, ▓ refresh, ▒ held, ░ waiting, and where a hop took time ━ pre-flight, ┉ cache, ═ HTTP, ▄ parse, ┅ post-flight; the title counts what the lab backend saw"),
        ("Compare", "m marks an event and = compares it with the selected one; p: with the previous attempt, d: what the hop received vs passed on, #: another request at the same hop"),
        ("Detail", "what the selected hop saw on the selected side: method, URL, status, headers (+ added, ~ changed, - removed by this hop) and body"),
    ])

    static let symbols = HelpTable("Symbols", [
        ("⏸", "held at a stop (step mode or a breakpoint): s steps, c continues"),
        ("… ", "running, or waiting its turn between two stops"),
        ("✓", "done: a hop passed the request or result on; a request succeeded"),
        ("!", "partial: a request whose result carried data and GraphQL errors"),
        ("✕", "failed: an error at that hop; a request that failed, with its cause"),
        ("·", "not reached (yet) in this attempt"),
        ("↻", "a retry: the chain starts again from the top (a new attempt)"),
        ("⧗", "blocked: waiting for another request's token refresh"),
        ("◀", "the lane s and c act on, of a request with two (· cache, · network); u switches"),
        ("miss/hit", "the cache step's read: miss goes on to the network, hit answers from the cache"),
        ("●", "a breakpoint on that hop (b)"),
        ("◆", "a breakpoint by rule on that side of the hop (Ctrl-B): holds when its filter matches"),
        ("⚡ / ✎", "a forced or injected change, and who made it (you, scenario, server); an edit"),
    ])

    static let filters = HelpTable("Filters (/) and rules (Ctrl-B)", [
        ("~op NAME", "operation · ~c 401 or 4xx: any status seen · ~m POST · ~u ~h ~b: URL, header, body"),
        ("~hop NAME", "reached that hop · ~retry ~refresh ~err ~held ~edited ~cache ~finding"),
        ("! & |", "not, and, or (binding in that order) · ( ) · \"quoted\" · regexes ignore case"),
        ("rule", "pre@HOP, post@HOP, answer or refresh, then optionally if FILTER, such as"),
        ("", "post@AuthInterceptor if ~op HeroQuery & ~c 401"),
    ])

    /// An overlay's keys as a table: "other keys" stands for a row that takes every key the
    /// rows above do not name.
    package static func keys(of overlay: OverlayKeymap.Overlay) -> HelpTable {
        HelpTable(overlay.title, OverlayKeymap.bindings(overlay).map { binding in
            (binding.keys.isEmpty ? "other keys" : binding.keys.map(\.name).joined(separator: "/"), binding.summary)
        })
    }
}
