public import TerminalUI

/// Everything a key can do in the inspector.
public enum Action: String, Sendable, Hashable, CaseIterable {
    case newOperation, newSeveral, step, continueRequest, switchLane, continueAll, toggleStepMode, toggleBreakpoint
    case editHeaders, force401, forceRetry, fail, advanceClock, expireTokens, reorderChain
    case breakRules, export, showCurl, filter, revealSecrets, scenarioInfo, lintFindings, runFindings
    case previousAttempt, nextAttempt, preFlight, postFlight, maximize, fold, search, zoomIn, zoomOut
    case sequenceDiagram, allRequests, mark, compareMarked, compareAttempts, compareHop, compareRequests
    case nextPane, previousPane, up, down, pageUp, pageDown, home, end, open, back, help, quit
}

/// One row of the keymap: the keys, what they do, and the words the help overlay, the
/// status line and docs/keys.md use.
public struct KeyBinding: Sendable, Hashable {
    /// Where the status line offers a key among the keys that act: the lower first. Keys
    /// that do not fit the width stay behind `…`, and `?` (help, which lists them) ends the line.
    public enum Priority: Int, Sendable, Hashable {
        /// What to do with a held request: step, continue.
        case stop
        /// Starting requests and acting on them at a stop.
        case act
        /// Moving between panes and rows, and quitting.
        case move
        /// A key that works on one pane (``KeyBinding/pane``): offered here while that pane
        /// is focused, after ``other`` otherwise.
        case pane
        /// Everything else.
        case other
    }

    public var keys: [Key]
    public var action: Action
    /// The action's name, short enough for the status line: "step", "force 401".
    public var name: String
    /// One sentence for the help overlay and docs/keys.md.
    public var summary: String
    public var priority: Priority
    /// The pane the key works on, when it works on one.
    public var pane: InspectorState.Pane?

    public init(_ keys: [Key], _ action: Action, _ name: String, _ summary: String, _ priority: Priority = .other, pane: InspectorState.Pane? = nil) {
        self.keys = keys
        self.action = action
        self.name = name
        self.summary = summary
        self.priority = priority
        self.pane = pane
    }

    /// The keys as the help overlay writes them: `j/Down`.
    public var keyNames: String { keys.map(\.name).joined(separator: "/") }
}

/// The one keymap: the standard keys. The keys in force are ``KeyBindings`` (this table
/// with the config file's bindings over it); the help overlay, the status line and the
/// key table of docs/keys.md are all generated from them. The status line offers every key that
/// acts, ordered by ``KeyBinding/Priority``; ``KeyBindings/disabledReason(_:in:)`` says why
/// any other does nothing.
public enum Keymap {
    public static let bindings: [KeyBinding] = [
        KeyBinding([.char("n")], .newOperation, "new", "start the scenario's next operation and select it", .act),
        KeyBinding([.char("N")], .newSeveral, "new ×5", "start its next five operations at once and select the first"),
        KeyBinding([.char("s")], .step, "step", "step the selected request one hop", .stop),
        KeyBinding([.char("c")], .continueRequest, "continue", "continue the selected request to the next breakpoint, or to the end", .stop),
        KeyBinding([.char("u")], .switchLane, "lane", "switch between the cache and the network lane of a request with two (a CacheAndNetwork fetch overlapping the cached result's way up): s, c and the stop keys act on the shown lane's stop", .act),
        KeyBinding([.char("C")], .continueAll, "continue all", "continue every held request to its next breakpoint, or to the end", .act),
        KeyBinding([.char("B")], .toggleStepMode, "step mode", "step mode on/off: new operations stop before every hop (on at start)"),
        KeyBinding([.char("b")], .toggleBreakpoint, "breakpoint", "breakpoint on the selected hop: pre, post, both, none", .act),
        KeyBinding([.ctrl("b")], .breakRules, "rules", "breakpoints by rule: add one (post@AuthInterceptor if ~op HeroQuery & ~c 401), switch it off, delete it"),
        KeyBinding([.char("e")], .editHeaders, "edit headers", "edit the headers at this stop (request at a pre-flight stop, response at a post stop)", .act),
        KeyBinding([.char("4")], .force401, "force 401", "force a 401 here", .act),
        KeyBinding([.char("r")], .forceRetry, "force retry", "force a retry from here", .act),
        KeyBinding([.char("x")], .fail, "fail", "fail here: timeout, cancellation or transport error", .act),
        KeyBinding([.char("t")], .advanceClock, "clock +1s", "advance the lab clock by one second"),
        KeyBinding([.char("T")], .expireTokens, "expire tokens", "expire every access token on the backend"),
        KeyBinding([.char("o")], .reorderChain, "reorder", "reorder the chain (applies to new operations)"),
        KeyBinding([.char("w")], .export, "export", "export the timeline as JSON, HAR or OTLP traces to a file"),
        KeyBinding([.char("y")], .showCurl, "curl", "show the curl command for this request at this hop", .pane, pane: .chain),
        KeyBinding([.char("/")], .filter, "filter", "filter the Requests pane and the waterfall by an expression such as ~op Hero & ~c 4xx (? shows the grammar); Esc clears", .pane, pane: .requests),
        KeyBinding([.char("v")], .revealSecrets, "reveal", "reveal or mask secrets (Authorization, cookies, tokens)"),
        KeyBinding([.char("L")], .lintFindings, "lint", "lint findings of the chain (⚠ marks their hops); Enter jumps to the hop"),
        KeyBinding([.char("F")], .runFindings, "findings", "what the recorded events prove; Enter opens the events each cites"),
        KeyBinding([.char("i")], .scenarioInfo, "about", "what the scenario teaches and what to look for"),
        KeyBinding([.char("["), .char("<")], .previousAttempt, "previous attempt", "show the selected request's previous attempt in the Chain pane", .pane, pane: .chain),
        KeyBinding([.char("]"), .char(">")], .nextAttempt, "next attempt", "show the selected request's next attempt in the Chain pane", .pane, pane: .chain),
        KeyBinding([.char("h"), .left], .preFlight, "pre-flight", "select the hop's pre-flight: the request it received on the way down", .pane, pane: .chain),
        KeyBinding([.char("l"), .right], .postFlight, "post-flight", "select the hop's post-flight: the result or error it received on the way up", .pane, pane: .chain),
        KeyBinding([.char("f")], .fold, "fold", "fold or unfold JSON objects and arrays in Detail below the top two levels", .pane, pane: .detail),
        KeyBinding([.ctrl("f")], .search, "search", "search Detail: type, Enter or Down for the next match, Up the previous, Esc clears", .pane, pane: .detail),
        KeyBinding([.char("z")], .zoomIn, "zoom in", "zoom the Timeline's waterfall in around the selected request", .pane, pane: .timeline),
        KeyBinding([.char("Z")], .zoomOut, "zoom out", "zoom the Timeline's waterfall out", .pane, pane: .timeline),
        KeyBinding([.char("S")], .sequenceDiagram, "sequence", "the Chain pane as a sequence diagram of the selected request (hops as columns, events as rows), or back to the hops", .pane, pane: .chain),
        KeyBinding([.char("A")], .allRequests, "all requests", "the sequence diagram of every request's events on one axis, or of the selected request", .pane, pane: .chain),
        KeyBinding([.char("m")], .mark, "mark", "mark the selected event for a compare", .pane, pane: .chain),
        KeyBinding([.char("=")], .compareMarked, "compare", "compare the marked event with the selected one: headers side by side, bodies as a diff", .pane, pane: .chain),
        KeyBinding([.char("p")], .compareAttempts, "vs previous attempt", "compare the selected hop and side with the same in the previous attempt", .pane, pane: .chain),
        KeyBinding([.char("d")], .compareHop, "hop's change", "compare what the selected hop received with what it passed on", .pane, pane: .chain),
        KeyBinding([.char("#")], .compareRequests, "vs other request", "compare the selected request with the marked one's request (or the one before) at the same hop", .pane, pane: .chain),
        KeyBinding([.char("+")], .maximize, "maximize", "maximize the focused pane, or restore the layout"),
        KeyBinding([.tab], .nextPane, "pane", "move to the next pane", .move),
        KeyBinding([.backTab], .previousPane, "previous pane", "move to the previous pane"),
        KeyBinding([.char("k"), .up], .up, "up", "move up", .move),
        KeyBinding([.char("j"), .down], .down, "down", "move down", .move),
        KeyBinding([.pageUp], .pageUp, "page up", "move a page up"),
        KeyBinding([.pageDown], .pageDown, "page down", "move a page down"),
        KeyBinding([.home, .char("g")], .home, "first", "move to the first row"),
        KeyBinding([.end, .char("G")], .end, "last", "move to the last row"),
        KeyBinding([.enter], .open, "open", "open the selected item in the next pane", .move),
        KeyBinding([.escape], .back, "back", "close the overlay, or go back a pane", .move),
        KeyBinding([.char("?")], .help, "help", "show this help: the panes, the symbols and every key"),
        KeyBinding([.char("q")], .quit, "quit", "quit (asks y/n while requests are paused or running)", .move),
    ]
}
