import Stops

/// What holds a request at a stop for a person: its mode (a request in step mode is held at
/// every stop it can be held at), breakpoints at a hop, and breakpoints by rule. In a headless
/// run a stop a rule holds is released at once; `Breaks` remembers those lanes until they move.
struct Breaks: Sendable {
    /// The mode a newly launched request starts in.
    private(set) var defaultMode: Scheduler.RunMode
    /// The requests in step mode: in a free run none, which a stop can tell without hashing.
    private(set) var stepping: Set<Int> = []
    private(set) var breakpoints: Set<Scheduler.Breakpoint> = []
    /// Breakpoints by rule; ``Scheduler`` matches them at a stop.
    private(set) var rules: [BreakRule] = []
    /// Whether any rule is enabled.
    private(set) var hasActiveRules = false
    /// Whether a stop a rule holds is released at once, as in a headless run with nobody to
    /// release it: it waits for its turn as if nothing held it, so the run is the one without
    /// the rule.
    var releasesRuleStops = false
    /// Lanes a rule held that were released at once: each says it was let go when it moves.
    private var releasedByRule: Set<LaneKey> = []

    init(defaultMode: Scheduler.RunMode) {
        self.defaultMode = defaultMode
    }

    /// Whether nothing but step mode can hold a request: no breakpoint and no enabled rule.
    var holdOnlyInStepMode: Bool {
        @inline(__always) get { breakpoints.isEmpty && !hasActiveRules }
    }

    @inline(__always)
    func isStepping(_ request: Int) -> Bool { !stepping.isEmpty && stepping.contains(request) }

    /// Whether `request` is held for a person at `place`: it steps, or a breakpoint matches.
    /// (Rules are matched by ``Scheduler``, which has the request's events.)
    func holds(request: Int, at place: StopPlace) -> Bool {
        guard place.isHoldable else { return false }
        if isStepping(request) { return true }
        guard case .hop(let hop, let position) = place else { return false }
        return breakpoints.contains(Scheduler.Breakpoint(hop: hop, position: position))
            || breakpoints.contains(Scheduler.Breakpoint(hop: hop, position: position, request: request))
    }

    /// Why a held request is held: `step` or `breakpoint`.
    func holdReason(request: Int) -> String {
        isStepping(request) ? "step" : "breakpoint"
    }

    mutating func setDefaultMode(_ mode: Scheduler.RunMode) {
        defaultMode = mode
    }

    mutating func setBreakpoint(_ breakpoint: Scheduler.Breakpoint, enabled: Bool) {
        if enabled { breakpoints.insert(breakpoint) } else { breakpoints.remove(breakpoint) }
    }

    mutating func setRules(_ rules: [BreakRule]) {
        self.rules = rules
        hasActiveRules = rules.contains(where: \.isEnabled)
    }

    /// A new request starts in the default mode.
    mutating func launch(_ request: Int) {
        setMode(defaultMode, of: request)
    }

    mutating func setMode(_ mode: Scheduler.RunMode, of request: Int) {
        if mode == .step {
            stepping.insert(request)
        } else if !stepping.isEmpty {
            stepping.remove(request)
        }
    }

    /// `key` parks at a stop a rule holds: whether it is released at once (a headless run, and
    /// no replay, whose own entries release it). A released lane is remembered until it moves.
    mutating func releasesAtOnce(ruleStop key: LaneKey, replaying: Bool) -> Bool {
        guard releasesRuleStops, !replaying else { return false }
        releasedByRule.insert(key)
        return true
    }

    /// `key` moves on: whether it was a rule's stop released at once, which it then forgets.
    mutating func moves(_ key: LaneKey) -> Bool {
        !releasedByRule.isEmpty && releasedByRule.remove(key) != nil
    }

    /// The session ends: no released lane will move.
    mutating func forgetReleased() {
        releasedByRule.removeAll()
    }
}
