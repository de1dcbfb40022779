package import Stops
package import Timeline

/// The scheduler's decisions as a value: every input (a command, an arrival at a stop, a
/// finish, a dispatch round) changes the state and returns what must happen as
/// ``Effect``s. No locks, tasks or clocks: ``Scheduler`` keeps one core under its lock and
/// carries the effects out; tests drive a core directly and state the exact effects.
///
/// `Waiter` is what lets a parked operation go: the scheduler's continuation, or a plain
/// label in a test, so effects compare.
///
/// ```
///  arrive ─▶ .pass                       (nothing to wait for: one predicate,
///         ─▶ .wait(held:) ─▶ park(…)      mayPassWithoutTurn, decides)
///  dispatch(now:) ─▶ [Effect] + again    (one command, script step, replay entry or turn)
/// ```
///
/// The state lives in parts, each a value with tests of its own; the core decides what an
/// input does and keeps the parts in step:
/// - ``Turns``: the lanes parked at stops, and whose turn is next;
/// - ``Lanes``: where the other lanes are (running, blocked, waking), and a forked request's two;
/// - ``Breaks``: what holds a request for a person (step mode, breakpoints, rules);
/// - ``Agenda``: replay entries, queued commands and script steps, served before any turn;
/// - ``CommandLog``: the commands that took effect, for `--record`, and those refused.
///
/// What holds a stop and takes turns is a request's *lane* (``LaneKey``): a request has one
/// until a CacheAndNetwork cache hit forks its network fetch into a second (``fork(request:)``);
/// the two run concurrently until their next stops, and stops reached by a forked request's
/// lanes take their turns in key order (request, then the cache lane first), so a run stays
/// determined.
package struct SchedulerCore<Waiter> {
    /// What the scheduler's surroundings must do after an input.
    package enum Effect {
        /// Append this event to the timeline.
        case record(TimelineEvent)
        /// Let the parked operation behind `Waiter` go with this release.
        case resume(Waiter, Release)
        /// Start request `request` for operation number `operation`.
        case launch(operation: Int, request: Int)
        case advanceClock(Double)
        case expireTokens
        /// Everybody waiting for the scheduler to settle may go on.
        case settled
    }

    /// What an operation arriving at a stop does.
    package enum Arrival: Hashable, Sendable {
        /// Go on at once: it may pass without waiting its turn.
        case pass
        /// Park (``park(_:waiter:)``) and wait: for a person when `held`, else for its turn.
        case wait(held: Bool)
        /// The session is ending: fail with ``LabFault/sessionEnded``.
        case sessionEnded
    }

    /// The lanes parked at stops and whose turn it is next.
    private(set) var turns = Turns<Waiter>()
    /// Where the lanes that are not parked are, and a forked request's two lanes.
    private(set) var lanes = Lanes()
    /// What holds a request for a person: modes, breakpoints, rules.
    private(set) var breaks: Breaks
    /// Replay entries, queued commands and script steps, served before turns.
    private(set) var agenda: Agenda
    /// The commands that took effect and those refused.
    private var history: CommandLog
    package private(set) var launched = LaunchedRequests()
    package private(set) var finished = FinishedRequests()
    /// How many are waiting for the scheduler to settle.
    private var settleWaiters = 0
    package private(set) var shuttingDown = false
    /// Bumped on every change a controller can see.
    package private(set) var version = 0

    package init(defaultMode: Scheduler.RunMode = .run, script: [ScriptStep] = [], replay: [RecordedCommand]? = nil, recordsLog: Bool = true) {
        breaks = Breaks(defaultMode: defaultMode)
        agenda = Agenda(script: script, replay: replay)
        history = CommandLog(keepsEntries: recordsLog)
    }

    /// Every launched request's mode: ``Scheduler/RunMode/step`` for those in step mode,
    /// ``Scheduler/RunMode/run`` for the others. Worked out when asked (a controller's
    /// snapshot), so a launch in a free run keeps no entry of its own for it.
    package var modes: [Int: Scheduler.RunMode] {
        Dictionary(uniqueKeysWithValues: launched.ids.map { ($0, breaks.isStepping($0) ? .step : .run) })
    }

    /// The stops waiting now, by request id, the cache lane first.
    package var parkedStops: [ParkedStop] { turns.stops }

    /// The requests with a lane between two stops.
    package var running: Set<Int> { lanes.running.requests }
    /// The requests with a lane waiting for another request's refresh.
    package var blocked: Set<Int> { Set(lanes.blocked.map(\.request)) }
    /// Requests whose network fetch overlaps (a second live lane).
    package var forked: Set<Int> { lanes.forked }
    /// Requests whose cache lane waits for the network lane to hand something on.
    package var awaiting: Set<Int> { lanes.awaiting }
    /// Commands queued, not yet carried out.
    package var commands: [LabCommand] { agenda.commands }
    package var replay: [RecordedCommand]? { agenda.replay }
    /// The commands that took effect, in order (kept only when `recordsLog`).
    package var log: [RecordedCommand] { history.entries }
    package var refusals: [CommandRefusal] { history.refusals }

    /// Whether dispatching would do nothing: no command, script step or replay entry to
    /// carry out, nobody waiting for a turn, and nobody waiting for the scheduler to settle.
    package var isIdle: Bool {
        @inline(__always) get { agenda.isEmpty && settleWaiters == 0 && turns.isEmpty }
    }

    // MARK: - Who may pass

    /// The one rule for passing a stop without waiting for a turn: `request` is the only one
    /// running, and nothing is queued, scripted, replayed, ready or waking that a turn would
    /// serve first. (Whether it is held at that stop is ``shouldHold(request:place:)``.)
    @inline(__always)
    package func mayPassWithoutTurn(_ request: Int, lane: Lane = .cache) -> Bool {
        !shuttingDown && lanes.running.only == LaneKey(request, lane)
            && agenda.isEmpty && lanes.waking.isEmpty && !turns.hasReady
    }

    /// The request that may pass every stop without the lock, or 0: one that
    /// ``mayPassWithoutTurn(_:)``, is held nowhere (no breakpoint, not stepping) and whose
    /// passes need no log entry, and that has one lane. ``Scheduler`` publishes it after every change.
    package var soloLane: Int {
        // Inlined where it is read, as are `isIdle`, `mayPassWithoutTurn` and `isStepping`:
        // called on the scheduler's locked state, a getter or method of the core is handed a
        // copy of the whole core (see docs/performance.md, "A large struct read where it is").
        @inline(__always) get {
            guard !history.keepsEntries, breaks.holdOnlyInStepMode, lanes.forked.isEmpty, let only = lanes.running.only,
                !breaks.isStepping(only.request), mayPassWithoutTurn(only.request, lane: only.lane)
            else { return 0 }
            return only.request
        }
    }

    /// Whether `request` is held for a person at `place`: it steps, or a breakpoint matches.
    package func shouldHold(request: Int, place: StopPlace) -> Bool {
        breaks.holds(request: request, at: place)
    }

    /// Why a held request is held: `step` or `breakpoint`.
    package func holdReason(request: Int) -> String {
        breaks.holdReason(request: request)
    }

    // MARK: - Controller side

    /// Queues a command; it takes effect at a dispatch round.
    package mutating func submit(_ command: LabCommand) {
        agenda.submit(command)
    }

    package mutating func setDefaultMode(_ mode: Scheduler.RunMode) {
        breaks.setDefaultMode(mode)
        version += 1
    }

    /// Whether a stop a rule holds is released at once, as in a headless run with nobody to
    /// release it: it waits for its turn as if nothing held it, so the run is the one without
    /// the rule. Not while a replay runs, whose own entries release it.
    package mutating func setReleasesRuleStops(_ releases: Bool) {
        breaks.releasesRuleStops = releases
    }

    package mutating func setBreakpoint(_ breakpoint: Scheduler.Breakpoint, enabled: Bool) {
        breaks.setBreakpoint(breakpoint, enabled: enabled)
        version += 1
    }

    /// Somebody waits for the scheduler to settle: a dispatch round that finds nothing to do
    /// answers with ``Effect/settled``.
    package mutating func awaitSettled() {
        settleWaiters += 1
    }

    /// Fails every parked operation, in request order, and every later arrival.
    package mutating func shutDown() -> [Effect] {
        shuttingDown = true
        agenda.dropCommands()
        let released = turns.leaveAll()
        for (key, _) in released { lanes.run(key) }
        breaks.forgetReleased()
        return released.map { .resume($0.parked.waiter, Release(disposition: .fail(.sessionEnded))) }
    }

    // MARK: - Operation side

    /// `request` reached a stop at `place`; `heldByRule` says a breakpoint by rule matched
    /// there. A pass that is logged is logged here.
    package mutating func arrive(request: Int, lane: Lane = .cache, place: StopPlace, heldByRule: Bool = false) -> Arrival {
        if shuttingDown { return .sessionEnded }
        let held = heldByRule || shouldHold(request: request, place: place)
        guard !held, mayPassWithoutTurn(request, lane: lane) else { return .wait(held: held) }
        history.record(.pass(request: request), at: place, lane: lanes.forked.contains(request) ? lane : nil)
        return .pass
    }

    /// The operation waits at `stop` until an effect resumes `waiter`; `heldByRule` says a
    /// breakpoint by rule holds it. `paused`: the event of a forked request's held stop, which
    /// the next dispatch round records in key order.
    package mutating func park(_ stop: ParkedStop, waiter: Waiter, heldByRule: Bool = false, paused: TimelineEvent? = nil) {
        // The stop's `paused` event is recorded before it parks: a screen that rebuilt its view
        // in between saw the event without the stop, and learns the stop from the version
        // (nothing else need follow: a held stop ends in a round that does nothing).
        version += 1
        var stop = stop
        let forked = lanes.forked.contains(stop.request)
        // A lane read just before the network lane ended names a lane the request no longer has.
        if stop.lane != nil, !forked { stop.lane = nil }
        let key = stop.laneKey
        agenda.stopped(request: stop.request, at: stop.place)
        // Moving a stop a rule holds now, ahead of the script or the turns, would change what
        // the run does: a refresh rule would run the first refresh before the others' 401s.
        if heldByRule, stop.held, breaks.releasesAtOnce(ruleStop: key, replaying: agenda.isReplaying) { stop.held = false }
        lanes.stop(key)
        turns.park(stop, waiter: waiter, forked: forked, paused: paused)
    }

    /// The operation finished; it no longer takes turns. Returns whether a dispatch round
    /// has anything to do.
    package mutating func finish(request: Int) -> Bool {
        // The session sets the request's summary just before: a screen that polls the
        // version reads it, even when no event and no dispatch round follow.
        version += 1
        if lanes.finish(request: request) { networkLaneEnded(of: request) }
        finished.insert(request)
        return !isIdle
    }

    /// The operation waits for a refresh another operation started.
    package mutating func block(request: Int, lane: Lane = .cache) {
        // Blocked is a state the Requests pane shows, and a round may follow with nothing to do.
        version += 1
        lanes.block(LaneKey(request, lane))
    }

    // MARK: - Two lanes

    /// `request`'s cache lane (running) forks its network fetch: the network lane runs from
    /// now, before its task exists, so nothing is dispatched until it reaches its first stop.
    package mutating func fork(request: Int) {
        lanes.fork(request: request)
        version += 1
    }

    /// `request`'s network lane (running) hands a result, or its end (`isEnd`: the lane is
    /// over), to the cache lane: a cache lane awaiting it wakes; otherwise it reads it later
    /// without waiting. Returns whether a dispatch round has anything to do.
    package mutating func handOn(request: Int, isEnd: Bool) -> Bool {
        if lanes.handOn(request: request, isEnd: isEnd) { networkLaneEnded(of: request) }
        return !isIdle
    }

    /// `request`'s cache lane (running) reads the network lane's next result: at once when
    /// one was handed on (it wakes), else it awaits one and stops running.
    package mutating func readNetworkResult(request: Int) {
        lanes.readNetworkResult(request: request)
    }

    /// `request`'s cache lane (running) has read its last result while its network lane still
    /// runs — the attempt failed on the cached result's way up, or stopped reading: it no
    /// longer runs, so the network lane takes its turns (or a person's commands) to its end,
    /// which lets the request finish. Returns whether a dispatch round has anything to do.
    package mutating func endCacheLane(request: Int) -> Bool {
        guard lanes.endCacheLane(request: request) else { return false }
        // A request whose network lane is held now shows as held, not running.
        version += 1
        return !isIdle
    }

    /// The request has one lane again: its stop no longer names one.
    private mutating func networkLaneEnded(of request: Int) {
        turns.change(LaneKey(request, .cache)) { $0.lane = nil }
        version += 1
    }

    /// Whether a token refresh is under way: a request that waits now may be waiting for it.
    package var refreshInFlight: Bool { lanes.refreshInFlight }

    package mutating func refreshStarted() {
        lanes.refreshStarted()
    }

    /// The requests blocked on the refresh will arrive at ``StopPlace/wake``.
    package mutating func refreshEnded() {
        // The blocked requests run again: a screen that showed them blocked redraws.
        if lanes.refreshEnded() { version += 1 }
    }

    // MARK: - Dispatch

    /// One dispatch round, when no operation runs between two stops: the next replay entry,
    /// else the next queued command, else the next script step or turn. `again`: whether
    /// another round may find more to do.
    package mutating func dispatch(now: Double) -> (effects: [Effect], again: Bool) {
        let result = dispatchOne(now: now)
        if !result.effects.isEmpty { version += 1 }
        return result
    }

    private mutating func dispatchOne(now: Double) -> (effects: [Effect], again: Bool) {
        guard lanes.isQuiescent else { return ([], false) }
        let pauses = turns.takeHeldBackPauses()
        if !pauses.isEmpty { return (pauses.map { .record($0) }, true) }
        if let (entry, step) = agenda.nextReplayEntry() {
            if let request = entry.command.request, let place = entry.place {
                let found = turns[target(request, lane: entry.command.lane)]?.stop.place
                if found != place {
                    let lane = entry.command.lane.map { " (\($0.rawValue) lane)" } ?? ""
                    history.refuse(entry.command, .replayDiverged(step: step, expected: "request #\(request)\(lane)", place: place, found: found))
                    agenda.endReplay()
                    return ([], true)
                }
            }
            return execute(entry.command, now: now)
        }
        if let command = agenda.nextCommand() {
            return execute(command, now: now)
        }
        guard turns.hasReady else { return lastRound(now: now) }
        if let round = scriptStep(now: now) { return round }
        guard let pick = turns.nextTurn() else { return lastRound(now: now) }
        return execute(.pass(request: pick.request, lane: pick.lane), now: now, popped: true)
    }

    /// The next script step, when one applies: its request, waiting for its turn, passes.
    private mutating func scriptStep(now: Double) -> (effects: [Effect], again: Bool)? {
        while let step = agenda.nextStep {
            guard let waiting = turns[target(step.request, lane: nil)], waiting.stop.place != step.until else {
                // Finished, waiting on another request, or already where the step leads.
                agenda.dropStep()
                continue
            }
            // Held: the others take their turns meanwhile, and the step waits for the
            // request's release, so a stop does not drop the order the scenario runs in.
            if waiting.stop.held { return nil }
            if step.until == nil { agenda.dropStep() }
            return execute(.pass(request: step.request), now: now)
        }
        return nil
    }

    /// A round with no turn to give: a network lane reads the next part of its answer, else
    /// those waiting for the scheduler to settle may go on.
    private mutating func lastRound(now: Double) -> (effects: [Effect], again: Bool) {
        if let read = turns.nextPartRead() {
            return execute(.pass(request: read.request, lane: read.lane), now: now, popped: true)
        }
        let waiters = settleWaiters
        settleWaiters = 0
        return (waiters == 0 ? [] : [.settled], false)
    }

    /// The lane a command about `request` acts on: `lane` when given; else the cache lane
    /// when it waits at a stop, else the network lane when that does.
    func target(_ request: Int, lane: Lane?) -> LaneKey {
        if let lane { return LaneKey(request, lane) }
        let cache = LaneKey(request, .cache)
        if lanes.forked.isEmpty || turns[cache] != nil { return cache }
        let network = LaneKey(request, .network)
        return turns[network] != nil ? network : cache
    }

    /// Starts operation number `operation` as a new request and returns its id.
    private mutating func launch(_ operation: Int) -> Int {
        // Ids are handed out in launch order, from 1.
        let request = launched.count + 1
        launched.launch(request, operation: operation)
        breaks.launch(request)
        lanes.run(LaneKey(request, .cache))
        history.record(.launch(operation: operation), at: nil)
        return request
    }

    /// Launches operation number `operation` at once when the next dispatch round would
    /// launch it first and stop there: nothing runs or wakes, and no replay entry or queued
    /// command comes before it. Returns the new request's id, with the state exactly as that
    /// round leaves it; nil when the launch has to be queued (``submit(_:)``). A free run
    /// launches every operation this way, without a queue entry and a dispatch round.
    package mutating func launchAtOnce(operation: Int) -> Int? {
        guard lanes.isQuiescent, !agenda.isReplaying, agenda.commands.isEmpty else { return nil }
        let request = launch(operation)
        version += 1
        return request
    }

    /// Carries out one command, by family; `popped` says the request was already taken off the
    /// turns.
    private mutating func execute(_ command: LabCommand, now: Double, popped: Bool = false) -> (effects: [Effect], again: Bool) {
        switch command {
        case .launch, .advanceClock, .setBreakRules, .expireTokens, .resumeAll:
            executeSessionCommand(command, now: now)
        case .editRequestHeaders(let request, _, _), .editResponse(let request, _, _, _):
            executeEdit(command, at: target(request, lane: command.lane), now: now)
        case .delay(let request, _, _), .step(let request, _), .resume(let request, _), .pass(let request, _), .force401(let request, _),
            .forceRetry(let request, _), .fail(let request, _, _):
            executeRelease(command, at: target(request, lane: command.lane), now: now, popped: popped)
        }
    }

    /// Records that `command` could not take effect, and why.
    private mutating func refuse(_ command: LabCommand, _ refusal: Refusal) -> ([Effect], Bool) {
        history.refuse(command, refusal)
        return ([], true)
    }

    /// Records `command` (or `recorded`, what it is to be replayed as) for `--record`; `key`
    /// is the stop a request's command acted at, nil for the others.
    private mutating func logged(_ command: LabCommand, _ place: StopPlace?, at key: LaneKey? = nil, as recorded: LabCommand? = nil) {
        let lane = key.flatMap { lanes.forked.contains($0.request) ? $0.lane : nil }
        history.record(recorded ?? command, at: place, lane: lane)
    }

    /// How a refusal names the stop: `request #1` or `request #1 (network lane)`.
    private func named(_ key: LaneKey) -> String {
        guard lanes.forked.contains(key.request) || key.lane == .network else { return "request #\(key.request)" }
        return "request #\(key.request) (\(key.lane.rawValue) lane)"
    }

    /// Commands about the session rather than a stop: launch, the clock, rules, tokens,
    /// releasing everyone.
    private mutating func executeSessionCommand(_ command: LabCommand, now: Double) -> (effects: [Effect], again: Bool) {
        switch command {
        case .launch(let operation):
            // Nothing more to dispatch until the new operation stops: the scheduler is not
            // quiescent while it runs.
            return ([.launch(operation: operation, request: launch(operation))], false)
        case .advanceClock(let seconds):
            logged(command, nil)
            return ([.advanceClock(seconds)], true)
        case .setBreakRules(let rules):
            breaks.setRules(rules)
            version += 1
            logged(command, nil)
            return ([], true)
        case .expireTokens:
            logged(command, nil)
            let event = TimelineEvent(time: now, request: 0, attempt: 0, hop: TimelineEvent.noHop, name: "LabBackend", kind: .auth, phase: .injected, detail: "expire all access tokens")
            return ([.expireTokens, .record(event)], true)
        case .resumeAll:
            logged(command, nil)
            for key in turns.releaseHeld() { breaks.setMode(.run, of: key.request) }
            return ([], true)
        default:
            preconditionFailure("\(command) is not a session command")
        }
    }

    /// Edits at a held stop: the request's headers, or the response's status and headers.
    private mutating func executeEdit(_ command: LabCommand, at key: LaneKey, now: Double) -> (effects: [Effect], again: Bool) {
        guard let waiting = turns[key], waiting.stop.held else { return refuse(command, .notHeld(stop: named(key))) }
        switch command {
        case .editRequestHeaders(let request, let edited, _):
            guard waiting.stop.capabilities.canEditRequest else { return refuse(command, .requestHeadersNotEditable(place: waiting.stop.place, hop: waiting.stop.hopName)) }
            let headers = RecordedSecret.restored(edited, from: waiting.stop.currentHeaders)
            let diff = HeaderDiff(from: waiting.stop.currentHeaders, to: headers)
            turns.change(key) { $0.pending.requestHeaders = headers }
            logged(command, waiting.stop.place, at: key, as: .editRequestHeaders(request: request, headers: RecordedSecret.redacted(headers)))
            let snapshot = HopSnapshot(method: waiting.stop.snapshot.method, url: waiting.stop.snapshot.url, headers: headers)
            return ([.record(waiting.stop.event(time: now, phase: .edited, snapshot: snapshot, diff: diff, detail: "request headers edited"))], true)
        case .editResponse(let request, let status, let edited, _):
            guard waiting.stop.capabilities.canEditResponse else { return refuse(command, .responseNotEditable(place: waiting.stop.place, hop: waiting.stop.hopName)) }
            let headers = edited.map { RecordedSecret.restored($0, from: waiting.stop.currentHeaders) }
            let diff = headers.map { HeaderDiff(from: waiting.stop.currentHeaders, to: $0) } ?? .none
            turns.change(key) { stop in
                if let status { stop.pending.responseStatus = status }
                if let headers { stop.pending.responseHeaders = headers }
            }
            logged(command, waiting.stop.place, at: key, as: .editResponse(request: request, status: status, headers: headers.map(RecordedSecret.redacted)))
            let snapshot = HopSnapshot(headers: headers ?? waiting.stop.currentHeaders, status: status ?? waiting.stop.snapshot.status)
            return ([.record(waiting.stop.event(time: now, phase: .edited, snapshot: snapshot, diff: diff, detail: "response edited"))], true)
        default:
            preconditionFailure("\(command) is not an edit")
        }
    }

    /// Commands that let a waiting lane go: step, continue, pass, a delay, or a forced 401,
    /// retry or failure.
    private mutating func executeRelease(_ command: LabCommand, at key: LaneKey, now: Double, popped: Bool) -> (effects: [Effect], again: Bool) {
        guard let waiting = turns[key] else { return refuse(command, .notWaiting(stop: named(key))) }
        let request = key.request
        if case .delay(_, let seconds, _) = command {
            logged(command, waiting.stop.place, at: key)
            return ([.advanceClock(seconds), .record(waiting.stop.event(time: now + seconds, phase: .injected, detail: "delay \(formatSeconds(seconds))"))], true)
        }
        var release = waiting.stop.pending
        var effects: [Effect] = []
        if lanes.forked.contains(request), key.lane == .cache, command == .force401(request: request, lane: command.lane) || command == .forceRetry(request: request, lane: command.lane) {
            // Either would drop the cached result's attempt, and with it the network fetch still under way.
            return refuse(command, .networkFetchOverlaps(stop: named(key)))
        }
        switch command {
        case .force401:
            guard waiting.stop.capabilities.canForce401 else { return refuse(command, .no401(place: waiting.stop.place, hop: waiting.stop.hopName)) }
            release.disposition = .force401
            effects.append(.record(waiting.stop.event(time: now, phase: .injected, detail: "force 401")))
        case .forceRetry:
            if let refusal = waiting.stop.capabilities.retryRefusal { return refuse(command, refusal) }
            release.disposition = .forceRetry
            effects.append(.record(waiting.stop.event(time: now, phase: .injected, detail: "force retry")))
        case .fail(_, let fault, _):
            guard waiting.stop.place.isHoldable else { return refuse(command, .cannotFail(request: request, place: waiting.stop.place)) }
            release.disposition = .fail(fault)
            effects.append(.record(waiting.stop.event(time: now, phase: .injected, detail: "fail: \(fault.rawValue)")))
        case .step: breaks.setMode(.step, of: request)
        case .resume: breaks.setMode(.run, of: request)
        default: break
        }
        if waiting.stop.held || breaks.moves(key) {
            let how = breaks.isStepping(request) ? "step" : "continue"
            effects.insert(.record(waiting.stop.event(time: now, phase: .resumed, detail: how)), at: 0)
        }
        turns.leave(key, popped: popped)
        lanes.run(key)
        logged(command, waiting.stop.place, at: key)
        effects.append(.resume(waiting.waiter, release))
        return (effects, true)
    }
}

extension SchedulerCore.Effect: Equatable where Waiter: Equatable {}

extension ParkedStop {
    /// The event a stop publishes: named after its hop, its detail ending in the stop's side.
    package func event(time: Double, phase: Phase, snapshot: HopSnapshot = .empty, diff: HeaderDiff = .none, detail: String?) -> TimelineEvent {
        let hop: Int
        if case .hop(let index, _) = place { hop = index } else { hop = TimelineEvent.noHop }
        let position: String
        if case .hop(_, let side) = place { position = side == .pre ? "pre-flight" : "post-flight" } else { position = place.description }
        return TimelineEvent(
            time: time, request: request, attempt: attempt, hop: hop, name: hopName, kind: hopKind,
            phase: phase, snapshot: snapshot, diff: diff, detail: detail.map { "\($0) · \(position)" }, lane: lane)
    }
}

/// `0.25`, `2`: a number as scenario files and commands write it, without trailing zeros.
package func formatNumber(_ value: Double) -> String {
    value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
}

/// `0.25s`, `2s`: seconds without trailing zeros.
package func formatSeconds(_ seconds: Double) -> String {
    "\(formatNumber(seconds))s"
}
