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
/// What holds a stop and takes turns is a request's *lane* (``LaneKey``): a request has one,
/// ``Lane/cache``, until a CacheAndNetwork cache hit forks the network fetch into a second
/// (``fork(request:)``); the two run concurrently until their next stops, and stops reached
/// by a forked request's lanes take their turns in key order (request, then the cache lane
/// first), so a run stays determined. The operation's task reads the network lane's results
/// through a buffer: it is *awaiting* while there is nothing to read, and *waking* once the
/// network lane has handed something on (``handOn(request:isEnd:)``). A request finishes when
/// both lanes have. A network lane about to read the next part of a multipart answer waits at
/// a ``StopPlace/wake`` stop that goes last (``partReads``).
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

    struct Parked {
        var stop: ParkedStop
        var waiter: Waiter
    }

    var nextRequest = 1
    package private(set) var launched = LaunchedRequests()
    /// The requests whose mode is ``Scheduler/RunMode/step``: in a free run none, which a stop
    /// can tell without hashing. Change it through ``setMode(_:of:)``.
    var stepping: Set<Int> = []
    package private(set) var defaultMode: Scheduler.RunMode
    package private(set) var breakpoints: Set<Scheduler.Breakpoint> = []
    /// Breakpoints by rule, set by ``LabCommand/setBreakRules(_:)``; ``Scheduler`` evaluates
    /// them at a stop and says whether one matched in ``arrive(request:place:heldByRule:)``.
    package private(set) var rules: [BreakRule] = []
    /// Whether any rule is enabled.
    package private(set) var hasActiveRules = false
    /// Whether a stop a rule holds is released at once, as in a headless run with nobody to
    /// release it: it waits for its turn as if nothing held it (``releasedByRule``), so the
    /// run is the one without the rule. Not while a replay runs, whose own entries release it.
    package private(set) var releasesRuleStops = false
    /// Lanes a rule held that were released at once: each takes its turn where an unheld stop
    /// would, and its `resumed` event is recorded when it moves.
    var releasedByRule: Set<LaneKey> = []
    var parked: [LaneKey: Parked] = [:]
    /// The lanes between two stops.
    var runningLanes = RunningLanes()
    /// The lanes waiting for a refresh another request started.
    var blockedLanes: Set<LaneKey> = []
    /// Lanes about to arrive at a ``StopPlace/wake`` stop: back from a refresh, or handed a
    /// network result to read.
    var waking: Set<LaneKey> = []
    package private(set) var finished = FinishedRequests()
    package private(set) var commands: [LabCommand] = []
    /// Requests whose network fetch overlaps (a second live lane).
    package private(set) var forked: Set<Int> = []
    /// Results (or ends) a request's network lane handed on that its cache lane has not read yet.
    var handedOn: [Int: Int] = [:]
    /// Requests whose cache lane waits for the network lane to hand something on.
    package private(set) var awaiting: Set<Int> = []
    /// Requests whose cache lane has read its last result while the network lane runs
    /// (``endCacheLane(request:)``); it runs again, to finish, when the network lane ends.
    var cacheLanesEnded: Set<Int> = []
    /// `paused` events of a forked request's stops, held back until nothing runs: its two
    /// lanes reach their stops in whatever order the threads run, and are recorded in key order.
    var heldBackPauses: [(key: LaneKey, event: TimelineEvent)] = []
    var script: [Scenario.ScriptStep]
    package private(set) var replay: [RecordedCommand]?
    var replayIndex = 0
    /// Unheld waiting lanes in the order they take turns (round robin: a lane that moved goes
    /// to the back when it stops again).
    var ready: [LaneKey] = []
    var readyStart = 0
    /// Lanes that arrived in whatever order the threads ran — back from waiting on a shared
    /// refresh, or a forked request's two lanes — that join `ready` in key order at the next turn.
    var woken: Set<LaneKey> = []
    /// Network lanes waiting at their ``StopPlace/wake`` stop to read the next part of a
    /// multipart answer (a @defer increment, a subscription event). Reading it moves the lab
    /// clock on to when that part arrives, so such a lane goes only when nothing else can
    /// move: the result it handed on climbs to the caller first, as it does upstream, where
    /// the next part is still on the wire while the previous one is delivered.
    var partReads: Set<LaneKey> = []
    /// Token refreshes between `refreshStarted` and `refreshEnded`.
    var refreshesInFlight = 0
    /// The commands that took effect, in order (kept only when `recordsLog`).
    package private(set) var log: [RecordedCommand] = []
    let recordsLog: Bool
    /// How many are waiting for the scheduler to settle.
    var settleWaiters = 0
    package private(set) var refusals: [CommandRefusal] = []
    package private(set) var shuttingDown = false
    /// Bumped on every change a controller can see.
    package private(set) var version = 0

    package init(defaultMode: Scheduler.RunMode = .run, script: [Scenario.ScriptStep] = [], replay: [RecordedCommand]? = nil, recordsLog: Bool = true) {
        self.defaultMode = defaultMode
        self.script = script
        self.replay = replay
        self.recordsLog = recordsLog
    }

    /// Every launched request's mode: ``Scheduler/RunMode/step`` for those in ``stepping``,
    /// ``Scheduler/RunMode/run`` for the others. Worked out when asked (a controller's
    /// snapshot), so a launch in a free run keeps no entry of its own for it.
    package var modes: [Int: Scheduler.RunMode] {
        Dictionary(uniqueKeysWithValues: launched.ids.map { ($0, isStepping($0) ? .step : .run) })
    }

    /// The stops waiting now, by request id, the cache lane first.
    package var parkedStops: [ParkedStop] {
        parked.sorted { $0.key < $1.key }.map(\.value.stop)
    }

    /// The requests with a lane between two stops.
    package var running: Set<Int> { runningLanes.requests }
    /// The requests with a lane waiting for another request's refresh.
    package var blocked: Set<Int> { Set(blockedLanes.map(\.request)) }

    var isQuiescent: Bool { runningLanes.isEmpty && waking.isEmpty }

    var hasReady: Bool { readyStart < ready.count || !woken.isEmpty }

    /// Whether dispatching would do nothing: no command, script step or replay entry to
    /// carry out, nobody waiting for a turn, and nobody waiting for the scheduler to settle.
    package var isIdle: Bool {
        @inline(__always) get {
            heldBackPauses.isEmpty && commands.isEmpty && script.isEmpty && replay == nil && !hasReady && settleWaiters == 0 && parked.isEmpty
        }
    }

    // MARK: - Who may pass

    /// The one rule for passing a stop without waiting for a turn: `request` is the only one
    /// running, and nothing is queued, scripted, replayed, ready or waking that a turn would
    /// serve first. (Whether it is held at that stop is ``shouldHold(request:place:)``.)
    @inline(__always)
    package func mayPassWithoutTurn(_ request: Int, lane: Lane = .cache) -> Bool {
        !shuttingDown && runningLanes.only == LaneKey(request, lane)
            && commands.isEmpty && replay == nil && script.isEmpty && waking.isEmpty && !hasReady
    }

    /// The request that may pass every stop without the lock, or 0: one that
    /// ``mayPassWithoutTurn(_:)``, is held nowhere (no breakpoint, not stepping) and whose
    /// passes need no log entry, and that has one lane. ``Scheduler`` publishes it after every change.
    package var soloLane: Int {
        // Inlined where it is read, as are `isIdle`, `mayPassWithoutTurn` and `isStepping`:
        // called on the scheduler's locked state, a getter or method of the core is handed a
        // copy of the whole core (a struct this large passed by value is copied to the stack,
        // 272 bytes at every change of the state).
        @inline(__always) get {
            guard !recordsLog, breakpoints.isEmpty, !hasActiveRules, forked.isEmpty, let only = runningLanes.only,
                !isStepping(only.request), mayPassWithoutTurn(only.request, lane: only.lane)
            else { return 0 }
            return only.request
        }
    }

    @inline(__always)
    func isStepping(_ request: Int) -> Bool { !stepping.isEmpty && stepping.contains(request) }

    /// Whether `request` is held for a person at `place`: it steps, or a breakpoint matches.
    package func shouldHold(request: Int, place: StopPlace) -> Bool {
        guard place.isHoldable else { return false }
        if isStepping(request) { return true }
        guard case .hop(let hop, let position) = place else { return false }
        return breakpoints.contains(Scheduler.Breakpoint(hop: hop, position: position))
            || breakpoints.contains(Scheduler.Breakpoint(hop: hop, position: position, request: request))
    }

    /// Why a held request is held: `step` or `breakpoint`.
    package func holdReason(request: Int) -> String {
        isStepping(request) ? "step" : "breakpoint"
    }

    // MARK: - Controller side

    /// Queues a command; it takes effect at a dispatch round.
    package mutating func submit(_ command: LabCommand) {
        commands.append(command)
    }

    package mutating func setDefaultMode(_ mode: Scheduler.RunMode) {
        defaultMode = mode
        version += 1
    }

    package mutating func setReleasesRuleStops(_ releases: Bool) {
        releasesRuleStops = releases
    }

    package mutating func setBreakpoint(_ breakpoint: Scheduler.Breakpoint, enabled: Bool) {
        if enabled { breakpoints.insert(breakpoint) } else { breakpoints.remove(breakpoint) }
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
        commands.removeAll()
        let released = parked.sorted { $0.key < $1.key }.map(\.value)
        for key in parked.keys { runningLanes.insert(key) }
        parked.removeAll()
        ready.removeAll()
        readyStart = 0
        woken.removeAll()
        partReads.removeAll()
        releasedByRule.removeAll()
        return released.map { .resume($0.waiter, Release(disposition: .fail(.sessionEnded))) }
    }

    // MARK: - Operation side

    /// `request` reached a stop at `place`; `heldByRule` says a breakpoint by rule matched
    /// there. A pass that is logged is logged here.
    package mutating func arrive(request: Int, lane: Lane = .cache, place: StopPlace, heldByRule: Bool = false) -> Arrival {
        if shuttingDown { return .sessionEnded }
        let held = heldByRule || shouldHold(request: request, place: place)
        guard !held, mayPassWithoutTurn(request, lane: lane) else { return .wait(held: held) }
        if recordsLog { log.append(RecordedCommand(command: .pass(request: request, lane: forked.contains(request) ? lane : nil), place: place)) }
        return .pass
    }

    /// The operation waits at `stop` until an effect resumes `waiter`; `heldByRule` says a
    /// breakpoint by rule holds it. `paused`: the event of a forked request's held stop, which
    /// the next dispatch round records in key order (``heldBackPauses``).
    package mutating func park(_ stop: ParkedStop, waiter: Waiter, heldByRule: Bool = false, paused: TimelineEvent? = nil) {
        // The stop's `paused` event is recorded before it parks: a screen that rebuilt its view
        // in between saw the event without the stop, and learns the stop from the version
        // (nothing else need follow: a held stop ends in a round that does nothing).
        version += 1
        var stop = stop
        // A lane read just before the network lane ended names a lane the request no longer has.
        if stop.lane != nil, !forked.contains(stop.request) { stop.lane = nil }
        let key = stop.laneKey
        if let paused { heldBackPauses.append((key, paused)) }
        // A step done while a person moved the request: the script must not move it on past
        // where the step leads once it is released.
        if let step = script.first, step.request == stop.request, step.until == stop.place { script.removeFirst() }
        if heldByRule, stop.held, releasesRuleStops, replay == nil {
            // Moving it now, ahead of the script or the turns, would change what the run does:
            // a refresh rule would run the first refresh before the others' 401s.
            stop.held = false
            releasedByRule.insert(key)
        }
        runningLanes.remove(key)
        waking.remove(key)
        blockedLanes.remove(key)
        parked[key] = Parked(stop: stop, waiter: waiter)
        if stop.place == .wake {
            if key.lane == .network { partReads.insert(key) } else { woken.insert(key) }
        } else if !stop.held && forked.contains(stop.request) {
            woken.insert(key)
        } else if !stop.held {
            ready.append(key)
        }
    }

    /// The operation finished; it no longer takes turns. Returns whether a dispatch round
    /// has anything to do.
    package mutating func finish(request: Int) -> Bool {
        // The session sets the request's summary just before: a screen that polls the
        // version reads it, even when no event and no dispatch round follow.
        version += 1
        let key = LaneKey(request, .cache)
        runningLanes.remove(key)
        // Most often empty: skip hashing for nothing.
        if !waking.isEmpty { waking.remove(key) }
        if !blockedLanes.isEmpty { blockedLanes.remove(key) }
        if !cacheLanesEnded.isEmpty { cacheLanesEnded.remove(request) }
        if !forked.isEmpty { endNetworkLane(of: request) }
        if !handedOn.isEmpty { handedOn[request] = nil }
        if !awaiting.isEmpty { awaiting.remove(request) }
        finished.insert(request)
        return !isIdle
    }

    /// The operation waits for a refresh another operation started.
    package mutating func block(request: Int, lane: Lane = .cache) {
        // Blocked is a state the Requests pane shows, and a round may follow with nothing to do.
        version += 1
        let key = LaneKey(request, lane)
        runningLanes.remove(key)
        // A refresh that already ended wakes the request at once; the turn waits for it.
        if refreshesInFlight > 0 { blockedLanes.insert(key) } else { waking.insert(key) }
    }

    // MARK: - Two lanes

    /// `request`'s cache lane (running) forks its network fetch: the network lane runs from
    /// now, before its task exists, so nothing is dispatched until it reaches its first stop.
    package mutating func fork(request: Int) {
        // A new lane: nothing an earlier one handed on is for its reader.
        if !handedOn.isEmpty { handedOn[request] = nil }
        forked.insert(request)
        runningLanes.insert(LaneKey(request, .network))
        version += 1
    }

    /// `request`'s network lane (running) hands a result, or its end (`isEnd`: the lane is
    /// over), to the cache lane: a cache lane awaiting it wakes; otherwise it reads it later
    /// without waiting. Returns whether a dispatch round has anything to do.
    package mutating func handOn(request: Int, isEnd: Bool) -> Bool {
        if awaiting.remove(request) != nil {
            waking.insert(LaneKey(request, .cache))
        } else {
            handedOn[request, default: 0] += 1
        }
        if isEnd { endNetworkLane(of: request) }
        return !isIdle
    }

    /// `request`'s cache lane (running) reads the network lane's next result: at once when
    /// one was handed on (it wakes), else it awaits one and stops running.
    package mutating func readNetworkResult(request: Int) {
        let key = LaneKey(request, .cache)
        runningLanes.remove(key)
        if let count = handedOn[request], count > 0 {
            handedOn[request] = count == 1 ? nil : count - 1
            waking.insert(key)
        } else {
            awaiting.insert(request)
        }
    }

    /// `request`'s cache lane (running) has read its last result while its network lane still
    /// runs — the attempt failed on the cached result's way up, or stopped reading: it no
    /// longer runs, so the network lane takes its turns (or a person's commands) to its end,
    /// which lets the request finish. Returns whether a dispatch round has anything to do.
    package mutating func endCacheLane(request: Int) -> Bool {
        guard forked.contains(request) else { return false }
        // A request whose network lane is held now shows as held, not running.
        version += 1
        runningLanes.remove(LaneKey(request, .cache))
        cacheLanesEnded.insert(request)
        return !isIdle
    }

    private mutating func endNetworkLane(of request: Int) {
        guard forked.remove(request) != nil else { return }
        runningLanes.remove(LaneKey(request, .network))
        // The operation's task, waiting for the network lane, goes on to finish the request or
        // to start its next attempt (whose fork forgets what this lane handed on).
        if !cacheLanesEnded.isEmpty, cacheLanesEnded.remove(request) != nil { runningLanes.insert(LaneKey(request, .cache)) }
        // The request has one lane again: its stop no longer names one.
        parked[LaneKey(request, .cache)]?.stop.lane = nil
        version += 1
    }

    package mutating func refreshStarted() {
        refreshesInFlight += 1
    }

    /// The requests blocked on the refresh will arrive at ``StopPlace/wake``.
    package mutating func refreshEnded() {
        refreshesInFlight = max(0, refreshesInFlight - 1)
        guard refreshesInFlight == 0, !blockedLanes.isEmpty else { return }
        // The blocked requests run again: a screen that showed them blocked redraws.
        version += 1
        waking.formUnion(blockedLanes)
        blockedLanes.removeAll()
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
        guard isQuiescent else { return ([], false) }
        if !heldBackPauses.isEmpty {
            defer { heldBackPauses.removeAll() }
            return (heldBackPauses.sorted { $0.key < $1.key }.map { .record($0.event) }, true)
        }
        if let replay {
            if replayIndex < replay.count {
                let entry = replay[replayIndex]
                replayIndex += 1
                if let request = entry.command.request, let place = entry.place, parked[target(request, lane: entry.command.lane)]?.stop.place != place {
                    let found = parked[target(request, lane: entry.command.lane)]?.stop.place
                    let lane = entry.command.lane.map { " (\($0.rawValue) lane)" } ?? ""
                    refusals.append(CommandRefusal(
                        command: entry.command,
                        refusal: .replayDiverged(step: replayIndex, expected: "request #\(request)\(lane)", place: place, found: found)))
                    self.replay = nil
                    return ([], true)
                }
                return execute(entry.command, now: now)
            }
            self.replay = nil
        }
        if !commands.isEmpty {
            return execute(commands.removeFirst(), now: now)
        }
        guard hasReady else {
            if let read = partReads.min() {
                partReads.remove(read)
                return execute(.pass(request: read.request, lane: read.lane), now: now, popped: true)
            }
            let waiters = settleWaiters
            settleWaiters = 0
            return (waiters == 0 ? [] : [.settled], false)
        }
        while let step = script.first {
            guard let waiting = parked[target(step.request, lane: nil)], waiting.stop.place != step.until else {
                // Finished, waiting on another request, or already where the step leads.
                script.removeFirst()
                continue
            }
            // Held: the others take their turns meanwhile, and the step waits for the
            // request's release, so a stop does not drop the order the scenario runs in.
            if waiting.stop.held { break }
            if step.until == nil { script.removeFirst() }
            return execute(.pass(request: step.request), now: now)
        }
        let pick = popReady()!
        return execute(.pass(request: pick.request, lane: pick.lane), now: now, popped: true)
    }

    /// The lane a command about `request` acts on: `lane` when given; else the cache lane
    /// when it waits at a stop, else the network lane when that does.
    func target(_ request: Int, lane: Lane?) -> LaneKey {
        if let lane { return LaneKey(request, lane) }
        let cache = LaneKey(request, .cache)
        if forked.isEmpty || parked[cache] != nil { return cache }
        let network = LaneKey(request, .network)
        return parked[network] != nil ? network : cache
    }

    /// Starts operation number `operation` as a new request and returns its id.
    private mutating func launch(_ operation: Int) -> Int {
        let request = nextRequest
        nextRequest += 1
        launched.launch(request, operation: operation)
        setMode(defaultMode, of: request)
        runningLanes.insert(LaneKey(request, .cache))
        if recordsLog { log.append(RecordedCommand(command: .launch(operation: operation), place: nil)) }
        return request
    }

    /// Launches operation number `operation` at once when the next dispatch round would
    /// launch it first and stop there: nothing runs or wakes, and no replay entry or queued
    /// command comes before it. Returns the new request's id, with the state exactly as that
    /// round leaves it; nil when the launch has to be queued (``submit(_:)``). A free run
    /// launches every operation this way, without a queue entry and a dispatch round.
    package mutating func launchAtOnce(operation: Int) -> Int? {
        guard isQuiescent, replay == nil, commands.isEmpty else { return nil }
        let request = launch(operation)
        version += 1
        return request
    }

    private mutating func popReady() -> LaneKey? {
        if !woken.isEmpty {
            ready.append(contentsOf: woken.sorted())
            woken.removeAll()
        }
        guard readyStart < ready.count else { return nil }
        let id = ready[readyStart]
        readyStart += 1
        if readyStart > 1024, readyStart * 2 > ready.count {
            ready.removeFirst(readyStart)
            readyStart = 0
        }
        return id
    }

    private mutating func removeReady(_ id: LaneKey) {
        if woken.remove(id) != nil || partReads.remove(id) != nil { return }
        if let index = ready[readyStart...].firstIndex(of: id) { ready.remove(at: index) }
    }

    private mutating func setMode(_ mode: Scheduler.RunMode, of request: Int) {
        if mode == .step {
            stepping.insert(request)
        } else if !stepping.isEmpty {
            stepping.remove(request)
        }
    }

    /// Carries out one command, by family; `popped` says the request was already taken off the
    /// ready queue.
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
        refusals.append(CommandRefusal(command: command, refusal: refusal))
        return ([], true)
    }

    /// Records `command` (or `recorded`, what it is to be replayed as) for `--record`; `key`
    /// is the stop a request's command acted at, nil for the others.
    private mutating func logged(_ command: LabCommand, _ place: StopPlace?, at key: LaneKey? = nil, as recorded: LabCommand? = nil) {
        // The lane is recorded only while the request has two: a recording of a request
        // with one reads as before.
        let lane = key.flatMap { forked.contains($0.request) ? $0.lane : nil }
        if recordsLog { log.append(RecordedCommand(command: (recorded ?? command).inLane(lane), place: place)) }
    }

    /// How a refusal names the stop: `request #1` or `request #1 (network lane)`.
    private func named(_ key: LaneKey) -> String {
        guard forked.contains(key.request) || key.lane == .network else { return "request #\(key.request)" }
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
            self.rules = rules
            hasActiveRules = rules.contains(where: \.isEnabled)
            version += 1
            logged(command, nil)
            return ([], true)
        case .expireTokens:
            logged(command, nil)
            let event = TimelineEvent(time: now, request: 0, attempt: 0, hop: TimelineEvent.noHop, name: "LabBackend", kind: .auth, phase: .injected, detail: "expire all access tokens")
            return ([.expireTokens, .record(event)], true)
        case .resumeAll:
            logged(command, nil)
            for id in parked.keys.sorted() where parked[id]?.stop.held == true {
                setMode(.run, of: id.request)
                parked[id]?.stop.held = false
                ready.append(id)
            }
            return ([], true)
        default:
            preconditionFailure("\(command) is not a session command")
        }
    }

    /// Edits at a held stop: the request's headers, or the response's status and headers.
    private mutating func executeEdit(_ command: LabCommand, at key: LaneKey, now: Double) -> (effects: [Effect], again: Bool) {
        guard let waiting = parked[key], waiting.stop.held else { return refuse(command, .notHeld(stop: named(key))) }
        switch command {
        case .editRequestHeaders(let request, let edited, _):
            guard waiting.stop.capabilities.canEditRequest else { return refuse(command, .requestHeadersNotEditable(place: waiting.stop.place, hop: waiting.stop.hopName)) }
            let headers = RecordedSecret.restored(edited, from: waiting.stop.currentHeaders)
            let diff = HeaderDiff(from: waiting.stop.currentHeaders, to: headers)
            parked[key]?.stop.pending.requestHeaders = headers
            logged(command, waiting.stop.place, at: key, as: .editRequestHeaders(request: request, headers: RecordedSecret.redacted(headers)))
            let snapshot = HopSnapshot(method: waiting.stop.snapshot.method, url: waiting.stop.snapshot.url, headers: headers)
            return ([.record(waiting.stop.event(time: now, phase: .edited, snapshot: snapshot, diff: diff, detail: "request headers edited"))], true)
        case .editResponse(let request, let status, let edited, _):
            guard waiting.stop.capabilities.canEditResponse else { return refuse(command, .responseNotEditable(place: waiting.stop.place, hop: waiting.stop.hopName)) }
            let headers = edited.map { RecordedSecret.restored($0, from: waiting.stop.currentHeaders) }
            let diff = headers.map { HeaderDiff(from: waiting.stop.currentHeaders, to: $0) } ?? .none
            if let status { parked[key]?.stop.pending.responseStatus = status }
            if let headers { parked[key]?.stop.pending.responseHeaders = headers }
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
        guard let waiting = parked[key] else { return refuse(command, .notWaiting(stop: named(key))) }
        let request = key.request
        if case .delay(_, let seconds, _) = command {
            logged(command, waiting.stop.place, at: key)
            return ([.advanceClock(seconds), .record(waiting.stop.event(time: now + seconds, phase: .injected, detail: "delay \(formatSeconds(seconds))"))], true)
        }
        var release = waiting.stop.pending
        var effects: [Effect] = []
        if forked.contains(request), key.lane == .cache, command == .force401(request: request, lane: command.lane) || command == .forceRetry(request: request, lane: command.lane) {
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
        case .step: setMode(.step, of: request)
        case .resume: setMode(.run, of: request)
        default: break
        }
        if waiting.stop.held || (!releasedByRule.isEmpty && releasedByRule.remove(key) != nil) {
            let how = isStepping(request) ? "step" : "continue"
            effects.insert(.record(waiting.stop.event(time: now, phase: .resumed, detail: how)), at: 0)
        }
        parked[key] = nil
        if !waiting.stop.held && !popped { removeReady(key) }
        runningLanes.insert(key)
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

/// `0.25s`, `2s`: seconds without trailing zeros.
func formatSeconds(_ seconds: Double) -> String {
    "\(formatNumber(seconds))s"
}
