import Synchronization
@_exported public import Stops
import Wire
public import Timeline
public import TimelineFilter

/// Decides, at every hop boundary, which operation moves next and what happens to it.
///
/// Operations advance only through stops. At most one operation runs between two stops at
/// any moment: when it reaches its next stop (or finishes), the scheduler picks what moves
/// next — the next queued ``LabCommand`` (a person, a script or a replay), or else the next
/// waiting operation in round-robin order (or in the order of a scheduling script). A run is
/// therefore fully determined by the commands that took effect, which ``log`` records.
///
/// An operation is *held* at a stop when its mode is ``RunMode/step`` or a breakpoint
/// matches; held operations wait for a command. Others wait only for their turn.
///
/// The decisions are ``SchedulerCore``'s, a value with no lock or task in it; this class
/// keeps one under a `Mutex`, parks operations on continuations, runs the dispatch loop,
/// carries out the core's effects and publishes the solo lane.
///
/// ```
///  op #1 ──▶ stop ──(turn)──▶ hop ──▶ stop ──(held: person steps)──▶ …
///  op #2 ──▶ stop ──────────(turn)──▶ hop ──▶ stop …
/// ```
///
/// Under CacheAndNetwork a request has two lanes while its network fetch overlaps the cached
/// result's way up (``Lane``): each lane has its own stop, a command names the lane it acts
/// on, and lanes that arrived together take their turns in key order (``SchedulerCore``).
public final class Scheduler: Sendable {
    /// How an operation treats stops (``Scheduling/RunMode``).
    public typealias RunMode = Scheduling.RunMode
    /// A stop at which every operation (or one request) is held (``Scheduling/Breakpoint``).
    public typealias Breakpoint = Scheduling.Breakpoint

    /// The side effects the scheduler needs from the lab around it.
    public struct Environment: Sendable {
        public var record: @Sendable (TimelineEvent) -> Void
        public var now: @Sendable () -> Double
        /// Starts request `request` for operation number `operation`; the new task must arrive
        /// at ``StopPlace/launch`` first.
        public var launch: @Sendable (_ operation: Int, _ request: Int) -> Void
        public var advanceClock: @Sendable (_ seconds: Double) -> Void
        public var expireTokens: @Sendable () -> Void
        /// Called after the scheduler's state changed (a UI redraws).
        public var changed: @Sendable () -> Void
        /// What a breakpoint rule's filter reads about a request at a stop: its events so
        /// far and the stop itself; given the stop and the request's operation number. By
        /// default a rule's filter sees nothing recorded.
        public var ruleSubject: @Sendable (_ stop: ParkedStop, _ operation: Int) -> FilterSubject

        public init(
            record: @escaping @Sendable (TimelineEvent) -> Void,
            now: @escaping @Sendable () -> Double,
            launch: @escaping @Sendable (Int, Int) -> Void,
            advanceClock: @escaping @Sendable (Double) -> Void,
            expireTokens: @escaping @Sendable () -> Void,
            changed: @escaping @Sendable () -> Void = {},
            ruleSubject: @escaping @Sendable (ParkedStop, Int) -> FilterSubject = { _, _ in FilterSubject(operation: "", events: []) }
        ) {
            self.record = record
            self.now = now
            self.launch = launch
            self.advanceClock = advanceClock
            self.expireTokens = expireTokens
            self.changed = changed
            self.ruleSubject = ruleSubject
        }
    }

    /// A summary of where every operation is, for controllers and tests.
    public struct Snapshot: Sendable, Hashable {
        /// By request, the cache lane first (a request with two lanes has up to two stops).
        public var parked: [ParkedStop]
        public var running: Set<Int>
        /// Requests with two live lanes (an overlapping network fetch).
        public var forked: Set<Int>
        public var blocked: Set<Int>
        public var finished: FinishedRequests
        public var launched: LaunchedRequests
        /// The launched requests in step mode.
        var stepping: Set<Int>
        public var breakpoints: Set<Breakpoint>
        public var rules: [BreakRule]
        public var defaultMode: RunMode
        public var refusals: [CommandRefusal]
        public var pendingCommands: Int

        /// Every launched request's mode: step for those in step mode, run for the others.
        /// Worked out when read, so a screen's snapshot of a long run does not build it.
        public var modes: [Int: RunMode] {
            Dictionary(uniqueKeysWithValues: launched.ids.map { ($0, stepping.contains($0) ? .step : .run) })
        }
    }

    /// The core's state and what only the running scheduler has: the continuations of those
    /// waiting for it to settle, and whether a dispatch loop is running.
    private struct State {
        var core: SchedulerCore<CheckedContinuation<Release, Never>>
        var settledWaiters: [CheckedContinuation<Void, Never>] = []
        var pumping = false
        var needsPump = false
    }

    private let state: Mutex<State>
    /// ``SchedulerCore/soloLane`` as of the last change, readable without the lock: a free run's
    /// stops cost one atomic load, inlined into the instrumentation.
    @usableFromInline package let soloLane = SoloLane()
    /// Whether any breakpoint rule is enabled, as of the last change: a stop reads the rules only
    /// when there are some.
    private let rulesActive = Atomic<Bool>(false)
    private let environment: Environment

    /// - Parameters:
    ///   - defaultMode: the mode of newly launched operations.
    ///   - script: which requests advance, in order, while the script lasts.
    ///   - replay: commands to carry out instead of the policy, in order.
    ///   - recordsLog: whether to keep ``log`` (off for benchmarks of the bare overhead).
    public init(environment: Environment, defaultMode: RunMode = .run, script: [ScriptStep] = [], replay: [RecordedCommand]? = nil, recordsLog: Bool = true) {
        self.environment = environment
        self.state = Mutex(State(core: SchedulerCore(defaultMode: defaultMode, script: script, replay: replay, recordsLog: recordsLog)))
    }

    /// Changes the state and republishes the lane. Every change goes through here, so an
    /// operation that finds itself in the lane passes exactly when the locked path would
    /// have let it through.
    private func mutate<Result>(_ body: (inout State) -> Result) -> Result {
        state.withLock { state in
            let result = body(&state)
            soloLane.publish(state.core.soloLane)
            rulesActive.store(state.core.breaks.hasActiveRules, ordering: .releasing)
            return result
        }
    }

    // MARK: - Controller side

    /// Queues a command; it takes effect when no operation is between two stops.
    public func submit(_ command: LabCommand) {
        // A launch that the dispatch round would carry out first happens at once, with the
        // same effect, unless a round is under way (it keeps the order).
        if case .launch(let operation) = command,
            let request = mutate({ $0.pumping ? nil : $0.core.launchAtOnce(operation: operation) })
        {
            environment.launch(operation, request)
            environment.changed()
            return
        }
        mutate { $0.core.submit(command) }
        pump()
    }

    /// Queues `commands` together, in order, before any of them takes effect. A scenario's
    /// launches go in this way: queued one at a time, the first request could run its script
    /// steps before the others were even launched, as far as the submitting thread happened
    /// to lag, and the trace would depend on that.
    public func submit(_ commands: [LabCommand]) {
        mutate { state in for command in commands { state.core.submit(command) } }
        pump()
    }

    /// Sets the mode new operations start in.
    public func setDefaultMode(_ mode: RunMode) {
        mutate { $0.core.setDefaultMode(mode) }
        environment.changed()
    }

    /// Whether a stop a breakpoint rule holds is recorded and released at once (a headless
    /// run, with nobody to release it) instead of waiting for a person.
    public func setReleasesRuleStops(_ releases: Bool) {
        mutate { $0.core.setReleasesRuleStops(releases) }
    }

    /// Adds or removes a breakpoint.
    public func setBreakpoint(_ breakpoint: Breakpoint, enabled: Bool) {
        mutate { $0.core.setBreakpoint(breakpoint, enabled: enabled) }
        environment.changed()
    }

    /// A number that changes whenever the scheduler's state does, so a screen can poll it.
    public var version: Int { state.withLock { $0.core.version } }

    /// Whether recorded commands are still being replayed.
    public var isReplaying: Bool { state.withLock { $0.core.agenda.isReplaying } }

    /// The commands that took effect so far, in order.
    public var log: [RecordedCommand] { state.withLock { $0.core.log } }

    /// Where every operation is now.
    public var snapshot: Snapshot {
        state.withLock { state in
            Snapshot(
                parked: state.core.parkedStops, running: state.core.running, forked: state.core.forked, blocked: state.core.blocked,
                finished: state.core.finished, launched: state.core.launched, stepping: state.core.breaks.stepping,
                breakpoints: state.core.breaks.breakpoints, rules: state.core.breaks.rules, defaultMode: state.core.breaks.defaultMode,
                refusals: state.core.refusals, pendingCommands: state.core.agenda.commands.count)
        }
    }

    /// Returns once nothing can move without a command: every operation has finished or is
    /// held, and no command is queued.
    public func waitUntilSettled() async {
        await withCheckedContinuation { continuation in
            mutate { state in
                state.settledWaiters.append(continuation)
                state.core.awaitSettled()
            }
            pump()
        }
    }

    /// Releases every waiting operation with a cancellation and fails every later arrival the
    /// same way, so all operations end promptly.
    public func shutDown() {
        perform(mutate { $0.core.shutDown() })
        pump()
    }

    // MARK: - Operation side

    /// Whether `request` would pass its next stop straight through: it runs alone in a free
    /// run. One atomic load, so a hop can skip building anything for a stop it will not wait at.
    @inlinable @inline(__always)
    public func passesStraight(request: Int) -> Bool {
        soloLane.passesStraight(request: request)
    }

    /// Called by an operation's hop at a stop; returns when the operation may go on.
    ///
    /// `makeStop` describes the stop (its snapshot, capabilities…) for `request` at `place`
    /// in `lane`; it is called only when the operation does not pass straight through, so a
    /// free run never builds what nobody will see.
    public func arrive(request: Int, lane: Lane = .cache, place: StopPlace, _ makeStop: () -> ParkedStop) async -> Release {
        if passesStraight(request: request) { return .proceed }
        var made: ParkedStop?
        var rule: BreakRule?
        if place.isHoldable, rulesActive.load(ordering: .acquiring) {
            let stop = makeStop()
            made = stop
            rule = matchingRule(at: stop)
        }
        // Neither a pass nor a refusal changes the lane: no need to republish it.
        let held: Bool
        let (arrival, forked) = state.withLock { ($0.core.arrive(request: request, lane: lane, place: place, heldByRule: rule != nil), $0.core.forked.contains(request)) }
        switch arrival {
        case .pass: return .proceed
        case .sessionEnded: return Release(disposition: .fail(.sessionEnded))
        case .wait(let isHeld): held = isHeld
        }
        var stop = made ?? makeStop()
        stop.held = held
        var heldBack: TimelineEvent?
        if held {
            let reason = state.withLock { $0.core.holdReason(request: stop.request) }
            let detail = reason == "step" ? reason : rule.map { "rule \($0)" } ?? reason
            let paused = stop.event(time: environment.now(), phase: .paused, detail: detail)
            // A forked request's two lanes may arrive together: the core records their pauses in order.
            if forked { heldBack = paused } else { environment.record(paused) }
        }
        let release = await withCheckedContinuation { continuation in
            mutate { $0.core.park(stop, waiter: continuation, heldByRule: rule != nil, paused: heldBack) }
            pump()
        }
        return release
    }

    /// The first enabled rule about `stop` whose filter the request passes now.
    private func matchingRule(at stop: ParkedStop) -> BreakRule? {
        let (rules, operation) = state.withLock { ($0.core.breaks.rules, $0.core.launched[stop.request] ?? 0) }
        var subject: FilterSubject?
        return rules.first { rule in
            guard rule.isEnabled, rule.isAbout(stop) else { return false }
            guard let condition = rule.condition else { return true }
            let read = subject ?? environment.ruleSubject(stop, operation)
            subject = read
            return condition.matches(read)
        }
    }

    /// The operation finished; it no longer takes turns.
    public func finish(request: Int) {
        // Nothing waits for a turn, a command or a settled scheduler: nothing to dispatch.
        if mutate({ $0.core.finish(request: request) }) { pump() }
    }

    /// The operation waits for a refresh another operation started; it cannot move until
    /// that refresh ends.
    public func block(request: Int) {
        mutate { $0.core.block(request: request) }
        pump()
    }

    /// `request`'s network fetch starts overlapping the cached result's way up: a second lane
    /// that runs from now (``SchedulerCore/fork(request:)``).
    public func fork(request: Int) {
        mutate { $0.core.fork(request: request) }
        environment.changed()
    }

    /// `request`'s network lane hands a result, or its end, to the cache lane.
    public func handOn(request: Int, isEnd: Bool) {
        if mutate({ $0.core.handOn(request: request, isEnd: isEnd) }) { pump() }
    }

    /// `request`'s cache lane reads the network lane's next result; it then arrives at
    /// ``StopPlace/wake`` once it has it.
    public func readNetworkResult(request: Int) {
        mutate { $0.core.readNetworkResult(request: request) }
        pump()
    }

    /// `request`'s cache lane has read its last result while its network lane still runs
    /// (``SchedulerCore/endCacheLane(request:)``).
    public func endCacheLane(request: Int) {
        if mutate({ $0.core.endCacheLane(request: request) }) { pump() }
    }

    /// A token refresh began; requests that wait for it from now on are blocked until it ends.
    public func refreshStarted() {
        mutate { $0.core.refreshStarted() }
    }

    /// Whether a token refresh is under way (between ``refreshStarted()`` and
    /// ``refreshEnded()``).
    public var refreshInFlight: Bool { state.withLock { $0.core.refreshInFlight } }

    /// A refresh ended: the operations waiting for it will arrive at ``StopPlace/wake``.
    public func refreshEnded() {
        mutate { $0.core.refreshEnded() }
    }

    // MARK: - Dispatch

    private func pump() {
        let start = state.withLock { state -> Bool in
            if state.pumping { state.needsPump = true; return false }
            state.pumping = true
            return true
        }
        guard start else { return }
        var changed = false
        while true {
            let now = environment.now()
            let (effects, settled, again) = mutate { state in
                state.needsPump = false
                let (effects, again) = state.core.dispatch(now: now)
                // `.settled` comes alone: the round found nothing else to do.
                guard case .settled = effects.first else { return (effects, [CheckedContinuation<Void, Never>](), again) }
                defer { state.settledWaiters.removeAll() }
                return (effects, state.settledWaiters, again)
            }
            changed = changed || !effects.isEmpty
            perform(effects)
            for waiter in settled { waiter.resume() }
            let stop = state.withLock { state -> Bool in
                if again || state.needsPump { return false }
                state.pumping = false
                return true
            }
            if stop { break }
        }
        if changed { environment.changed() }
    }

    private func perform(_ effects: [SchedulerCore<CheckedContinuation<Release, Never>>.Effect]) {
        for effect in effects {
            switch effect {
            case .record(let event): environment.record(event)
            case .resume(let continuation, let release): continuation.resume(returning: release)
            case .launch(let operation, let request): environment.launch(operation, request)
            case .advanceClock(let seconds): environment.advanceClock(seconds)
            case .expireTokens: environment.expireTokens()
            case .settled: break
            }
        }
    }
}
