import Synchronization
import ChainKit
public import Timeline

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
/// ```
///  op #1 ──▶ stop ──(turn)──▶ hop ──▶ stop ──(held: person steps)──▶ …
///  op #2 ──▶ stop ──────────(turn)──▶ hop ──▶ stop …
/// ```
public final class Scheduler: Sendable {
    /// How an operation treats stops.
    public enum RunMode: String, Sendable, Hashable {
        /// Hold only at breakpoints.
        case run
        /// Hold at every stop.
        case step
    }

    /// A stop at which every operation (or one request) is held.
    public struct Breakpoint: Sendable, Hashable {
        public var hop: Int
        public var position: StopPosition
        /// nil: every request.
        public var request: Int?

        public init(hop: Int, position: StopPosition, request: Int? = nil) {
            self.hop = hop
            self.position = position
            self.request = request
        }
    }

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

        public init(
            record: @escaping @Sendable (TimelineEvent) -> Void,
            now: @escaping @Sendable () -> Double,
            launch: @escaping @Sendable (Int, Int) -> Void,
            advanceClock: @escaping @Sendable (Double) -> Void,
            expireTokens: @escaping @Sendable () -> Void,
            changed: @escaping @Sendable () -> Void = {}
        ) {
            self.record = record
            self.now = now
            self.launch = launch
            self.advanceClock = advanceClock
            self.expireTokens = expireTokens
            self.changed = changed
        }
    }

    /// A summary of where every operation is, for controllers and tests.
    public struct Snapshot: Sendable, Hashable {
        public var parked: [ParkedStop]
        public var running: Set<Int>
        public var blocked: Set<Int>
        public var finished: Set<Int>
        public var launched: [Int: Int]
        public var modes: [Int: RunMode]
        public var breakpoints: Set<Breakpoint>
        public var defaultMode: RunMode
        public var refusals: [CommandRefusal]
        public var pendingCommands: Int
    }

    private struct Waiting {
        var stop: ParkedStop
        var continuation: CheckedContinuation<Release, Never>
    }

    private enum Effect {
        case record(TimelineEvent)
        case resume(CheckedContinuation<Release, Never>, Release)
        case launch(operation: Int, request: Int)
        case advanceClock(Double)
        case expireTokens
        case settled([CheckedContinuation<Void, Never>])
    }

    private struct State {
        var nextRequest = 1
        var launched: [Int: Int] = [:]
        /// Every launched request's mode; change it through ``setMode(_:of:)``.
        private(set) var modes: [Int: RunMode] = [:]
        /// The requests whose mode is ``RunMode/step``: in a free run none, which a stop can
        /// tell without hashing.
        var stepping: Set<Int> = []
        var defaultMode: RunMode
        var breakpoints: Set<Breakpoint> = []
        var parked: [Int: Waiting] = [:]
        var running: Set<Int> = []
        var blocked: Set<Int> = []
        var waking: Set<Int> = []
        var finished: Set<Int> = []
        var commands: [LabCommand] = []
        var script: [Scenario.ScriptStep]
        var replay: [RecordedCommand]?
        var replayIndex = 0
        /// Unheld waiting requests in the order they take turns (round robin: a request that
        /// moved goes to the back when it stops again).
        var ready: [Int] = []
        var readyStart = 0
        /// Requests back from waiting on a shared refresh; they join `ready` in id order at
        /// the next turn, since they wake up in whatever order the threads run.
        var woken: Set<Int> = []
        /// Token refreshes between `refreshStarted` and `refreshEnded`.
        var refreshesInFlight = 0
        var log: [RecordedCommand] = []
        var recordsLog: Bool
        var pumping = false
        var needsPump = false
        var settledWaiters: [CheckedContinuation<Void, Never>] = []
        var refusals: [CommandRefusal] = []
        var shuttingDown = false
        /// Bumped on every change a controller can see.
        var version = 0

        var isQuiescent: Bool { running.isEmpty && waking.isEmpty }

        mutating func setMode(_ mode: RunMode, of request: Int) {
            modes[request] = mode
            if mode == .step {
                stepping.insert(request)
            } else if !stepping.isEmpty {
                stepping.remove(request)
            }
        }

        func isStepping(_ request: Int) -> Bool { !stepping.isEmpty && stepping.contains(request) }

        /// The request that may pass its stops without taking the lock, or 0: the only one
        /// running, in a free run with nothing queued, scripted, held or logged that a stop
        /// would have to look at.
        var soloLane: Int {
            guard !shuttingDown, !recordsLog, commands.isEmpty, replay == nil, script.isEmpty, waking.isEmpty,
                breakpoints.isEmpty, running.count == 1, !hasReady, let only = running.first, !isStepping(only)
            else { return 0 }
            return only
        }

        var hasReady: Bool { readyStart < ready.count || !woken.isEmpty }

        /// Whether dispatching would do nothing: no command, script step or replay entry to
        /// carry out, nobody waiting for a turn, and nobody waiting for the scheduler to settle.
        var isIdle: Bool {
            commands.isEmpty && script.isEmpty && replay == nil && !hasReady && settledWaiters.isEmpty && parked.isEmpty
        }

        mutating func popReady() -> Int? {
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

        mutating func removeReady(_ id: Int) {
            if woken.remove(id) != nil { return }
            if let index = ready[readyStart...].firstIndex(of: id) { ready.remove(at: index) }
        }

        func shouldHold(request: Int, place: StopPlace) -> Bool {
            guard place.isHoldable else { return false }
            if isStepping(request) { return true }
            guard case .hop(let hop, let position) = place else { return false }
            return breakpoints.contains(Breakpoint(hop: hop, position: position))
                || breakpoints.contains(Breakpoint(hop: hop, position: position, request: request))
        }
    }

    private let state: Mutex<State>
    /// ``State/soloLane`` as of the last change, readable without the lock: a free run's
    /// stops cost one atomic load.
    private let lane = Atomic<Int>(0)
    private let environment: Environment

    /// - Parameters:
    ///   - defaultMode: the mode of newly launched operations.
    ///   - script: which requests advance, in order, while the script lasts.
    ///   - replay: commands to carry out instead of the policy, in order.
    ///   - recordsLog: whether to keep ``log`` (off for benchmarks of the bare overhead).
    public init(environment: Environment, defaultMode: RunMode = .run, script: [Scenario.ScriptStep] = [], replay: [RecordedCommand]? = nil, recordsLog: Bool = true) {
        self.environment = environment
        self.state = Mutex(State(defaultMode: defaultMode, script: script, replay: replay, recordsLog: recordsLog))
    }

    /// Changes the state and republishes the lane. Every change goes through here, so an
    /// operation that finds itself in the lane passes exactly when the locked path would
    /// have let it through.
    private func mutate<Result>(_ body: (inout State) -> Result) -> Result {
        state.withLock { state in
            let result = body(&state)
            lane.store(state.soloLane, ordering: .releasing)
            return result
        }
    }

    // MARK: - Controller side

    /// Queues a command; it takes effect when no operation is between two stops.
    public func submit(_ command: LabCommand) {
        mutate { $0.commands.append(command) }
        pump()
    }

    /// Sets the mode new operations start in.
    public func setDefaultMode(_ mode: RunMode) {
        mutate { $0.defaultMode = mode; $0.version += 1 }
        environment.changed()
    }

    /// Adds or removes a breakpoint.
    public func setBreakpoint(_ breakpoint: Breakpoint, enabled: Bool) {
        mutate { state in
            if enabled { state.breakpoints.insert(breakpoint) } else { state.breakpoints.remove(breakpoint) }
            state.version += 1
        }
        environment.changed()
    }

    /// A number that changes whenever the scheduler's state does, so a screen can poll it.
    public var version: Int { state.withLock { $0.version } }

    /// Whether recorded commands are still being replayed.
    public var isReplaying: Bool { state.withLock { $0.replay != nil } }

    /// The commands that took effect so far, in order.
    public var log: [RecordedCommand] { state.withLock { $0.log } }

    /// Where every operation is now.
    public var snapshot: Snapshot {
        state.withLock { state in
            Snapshot(
                parked: state.parked.values.map(\.stop).sorted { $0.request < $1.request },
                running: state.running, blocked: state.blocked, finished: state.finished,
                launched: state.launched, modes: state.modes, breakpoints: state.breakpoints,
                defaultMode: state.defaultMode, refusals: state.refusals, pendingCommands: state.commands.count)
        }
    }

    /// Returns once nothing can move without a command: every operation has finished or is
    /// held, and no command is queued.
    public func waitUntilSettled() async {
        await withCheckedContinuation { continuation in
            mutate { $0.settledWaiters.append(continuation) }
            pump()
        }
    }

    /// Releases every waiting operation with a cancellation and fails every later arrival the
    /// same way, so all operations end promptly.
    public func shutDown() {
        let waiting = mutate { state -> [Waiting] in
            state.shuttingDown = true
            state.commands.removeAll()
            let waiting = Array(state.parked.values)
            for id in state.parked.keys { state.running.insert(id) }
            state.parked.removeAll()
            state.ready.removeAll()
            state.readyStart = 0
            state.woken.removeAll()
            return waiting
        }
        for entry in waiting { entry.continuation.resume(returning: Release(disposition: .fail(.sessionEnded))) }
        pump()
    }

    // MARK: - Operation side

    /// Whether `request` would pass its next stop straight through: it runs alone in a free
    /// run. One atomic load, so a hop can skip building anything for a stop it will not wait at.
    @inline(__always)
    public func passesStraight(request: Int) -> Bool {
        lane.load(ordering: .acquiring) == request
    }

    /// Called by an operation's hop at a stop; returns when the operation may go on.
    ///
    /// `makeStop` describes the stop (its snapshot, capabilities…) for `request` at `place`;
    /// it is called only when the operation does not pass straight through, so a free run
    /// never builds what nobody will see.
    public func arrive(request: Int, place: StopPlace, _ makeStop: () -> ParkedStop) async -> Release {
        if passesStraight(request: request) { return .proceed }
        let (held, fastPass, shuttingDown) = state.withLock { state -> (Bool, Bool, Bool) in
            if state.shuttingDown { return (false, false, true) }
            let held = state.shouldHold(request: request, place: place)
            guard !held, state.commands.isEmpty, state.replay == nil, state.script.isEmpty, state.waking.isEmpty,
                state.running.count == 1, state.running.contains(request), !state.hasReady
            else { return (held, false, false) }
            if state.recordsLog { state.log.append(RecordedCommand(command: .pass(request: request), place: place)) }
            return (false, true, false)
        }
        if shuttingDown { return Release(disposition: .fail(.sessionEnded)) }
        if fastPass { return .proceed }
        var stop = makeStop()
        stop.held = held
        if held { environment.record(event(for: stop, phase: .paused, detail: holdReason(stop))) }
        let release = await withCheckedContinuation { continuation in
            mutate { state in
                state.running.remove(stop.request)
                state.waking.remove(stop.request)
                state.blocked.remove(stop.request)
                state.parked[stop.request] = Waiting(stop: stop, continuation: continuation)
                if stop.place == .wake {
                    state.woken.insert(stop.request)
                } else if !stop.held {
                    state.ready.append(stop.request)
                }
            }
            pump()
        }
        return release
    }

    /// The operation finished; it no longer takes turns.
    public func finish(request: Int) {
        let idle = mutate { state -> Bool in
            state.running.remove(request)
            // Most often empty: skip hashing for nothing.
            if !state.waking.isEmpty { state.waking.remove(request) }
            if !state.blocked.isEmpty { state.blocked.remove(request) }
            state.finished.insert(request)
            return state.isIdle
        }
        // Nothing waits for a turn, a command or a settled scheduler: nothing to dispatch.
        if !idle { pump() }
    }

    /// The operation waits for a refresh another operation started; it cannot move until
    /// that refresh ends.
    public func block(request: Int) {
        mutate { state in
            state.running.remove(request)
            // A refresh that already ended wakes the request at once; the turn waits for it.
            if state.refreshesInFlight > 0 { state.blocked.insert(request) } else { state.waking.insert(request) }
        }
        pump()
    }

    /// A token refresh began; requests that wait for it from now on are blocked until it ends.
    public func refreshStarted() {
        mutate { $0.refreshesInFlight += 1 }
    }

    /// A refresh ended: the operations waiting for it will arrive at ``StopPlace/wake``.
    public func refreshEnded() {
        mutate { state in
            state.refreshesInFlight = max(0, state.refreshesInFlight - 1)
            guard state.refreshesInFlight == 0 else { return }
            state.waking.formUnion(state.blocked)
            state.blocked.removeAll()
        }
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
            let (effects, again) = mutate { state -> ([Effect], Bool) in
                state.needsPump = false
                let result = Self.dispatchOne(&state, now: now)
                if !result.0.isEmpty { state.version += 1 }
                return result
            }
            changed = changed || !effects.isEmpty
            perform(effects)
            let stop = state.withLock { state -> Bool in
                if again || state.needsPump { return false }
                state.pumping = false
                return true
            }
            if stop { break }
        }
        if changed { environment.changed() }
    }

    private func perform(_ effects: [Effect]) {
        for effect in effects {
            switch effect {
            case .record(let event): environment.record(event)
            case .resume(let continuation, let release): continuation.resume(returning: release)
            case .launch(let operation, let request): environment.launch(operation, request)
            case .advanceClock(let seconds): environment.advanceClock(seconds)
            case .expireTokens: environment.expireTokens()
            case .settled(let waiters): for waiter in waiters { waiter.resume() }
            }
        }
    }

    private static func dispatchOne(_ state: inout State, now: Double) -> ([Effect], Bool) {
        guard state.isQuiescent else { return ([], false) }
        if var replay = state.replay {
            if state.replayIndex < replay.count {
                let entry = replay[state.replayIndex]
                state.replayIndex += 1
                if let request = entry.command.request, let place = entry.place, state.parked[request]?.stop.place != place {
                    let found = state.parked[request].map { "at \($0.stop.place)" } ?? "not waiting at a stop"
                    state.refusals.append(CommandRefusal(
                        command: entry.command,
                        reason: "replay diverged at step \(state.replayIndex): expected request #\(request) at \(place), found it \(found)"))
                    replay.removeAll()
                    state.replay = nil
                    return ([], true)
                }
                return execute(entry.command, &state, now: now)
            }
            state.replay = nil
        }
        if !state.commands.isEmpty {
            return execute(state.commands.removeFirst(), &state, now: now)
        }
        guard state.hasReady else {
            let waiters = state.settledWaiters
            state.settledWaiters.removeAll()
            return (waiters.isEmpty ? [] : [.settled(waiters)], false)
        }
        while let step = state.script.first {
            guard let waiting = state.parked[step.request], !waiting.stop.held, waiting.stop.place != step.until else {
                // Finished, held, waiting on another request, or already where the step leads.
                state.script.removeFirst()
                continue
            }
            if step.until == nil { state.script.removeFirst() }
            return execute(.pass(request: step.request), &state, now: now)
        }
        let pick = state.popReady()!
        return execute(.pass(request: pick), &state, now: now, popped: true)
    }

    /// Carries out one command; `popped` says the request was already taken off the ready queue.
    private static func execute(_ command: LabCommand, _ state: inout State, now: Double, popped: Bool = false) -> ([Effect], Bool) {
        func refuse(_ reason: String) -> ([Effect], Bool) {
            state.refusals.append(CommandRefusal(command: command, reason: reason))
            return ([], true)
        }
        func logged(_ place: StopPlace?) {
            if state.recordsLog { state.log.append(RecordedCommand(command: command, place: place)) }
        }
        switch command {
        case .launch(let operation):
            let request = state.nextRequest
            state.nextRequest += 1
            state.launched[request] = operation
            state.setMode(state.defaultMode, of: request)
            state.running.insert(request)
            logged(nil)
            // Nothing more to dispatch until the new operation stops: the scheduler is not
            // quiescent while it runs.
            return ([.launch(operation: operation, request: request)], false)
        case .advanceClock(let seconds):
            logged(nil)
            return ([.advanceClock(seconds)], true)
        case .expireTokens:
            logged(nil)
            let event = TimelineEvent(time: now, request: 0, attempt: 0, hop: TimelineEvent.noHop, name: "LabBackend", kind: .auth, phase: .injected, detail: "expire all access tokens")
            return ([.expireTokens, .record(event)], true)
        case .resumeAll:
            logged(nil)
            for id in state.parked.keys.sorted() where state.parked[id]!.stop.held {
                state.setMode(.run, of: id)
                state.parked[id]!.stop.held = false
                state.ready.append(id)
            }
            return ([], true)
        case .editRequestHeaders(let request, let headers):
            guard let waiting = state.parked[request], waiting.stop.held else { return refuse("request #\(request) is not held at a stop") }
            guard waiting.stop.capabilities.canEditRequest else { return refuse("request headers cannot be edited at \(waiting.stop.place) of \(waiting.stop.hopName)") }
            let diff = HeaderDiff(from: waiting.stop.currentHeaders, to: headers)
            state.parked[request]!.stop.pending.requestHeaders = headers
            logged(waiting.stop.place)
            let snapshot = HopSnapshot(method: waiting.stop.snapshot.method, url: waiting.stop.snapshot.url, headers: headers)
            return ([.record(event(for: waiting.stop, time: now, phase: .edited, snapshot: snapshot, diff: diff, detail: "request headers edited"))], true)
        case .editResponse(let request, let status, let headers):
            guard let waiting = state.parked[request], waiting.stop.held else { return refuse("request #\(request) is not held at a stop") }
            guard waiting.stop.capabilities.canEditResponse else { return refuse("the response cannot be edited at \(waiting.stop.place) of \(waiting.stop.hopName)") }
            let diff = headers.map { HeaderDiff(from: waiting.stop.currentHeaders, to: $0) } ?? .none
            if let status { state.parked[request]!.stop.pending.responseStatus = status }
            if let headers { state.parked[request]!.stop.pending.responseHeaders = headers }
            logged(waiting.stop.place)
            let snapshot = HopSnapshot(headers: headers ?? waiting.stop.currentHeaders, status: status ?? waiting.stop.snapshot.status)
            return ([.record(event(for: waiting.stop, time: now, phase: .edited, snapshot: snapshot, diff: diff, detail: "response edited"))], true)
        case .delay(let request, let seconds):
            guard let waiting = state.parked[request] else { return refuse("request #\(request) is not waiting at a stop") }
            logged(waiting.stop.place)
            return ([.advanceClock(seconds), .record(event(for: waiting.stop, time: now + seconds, phase: .injected, detail: "delay \(formatSeconds(seconds))"))], true)
        case .step(let request), .resume(let request), .pass(let request), .force401(let request), .forceRetry(let request), .fail(let request, _):
            guard let waiting = state.parked[request] else { return refuse("request #\(request) is not waiting at a stop") }
            var release = waiting.stop.pending
            var effects: [Effect] = []
            switch command {
            case .force401:
                guard waiting.stop.capabilities.canForce401 else { return refuse("a 401 cannot be forced at \(waiting.stop.place) of \(waiting.stop.hopName)") }
                release.disposition = .force401
                effects.append(.record(event(for: waiting.stop, time: now, phase: .injected, detail: "force 401")))
            case .forceRetry:
                if let refusal = waiting.stop.capabilities.retryRefusal { return refuse(refusal) }
                release.disposition = .forceRetry
                effects.append(.record(event(for: waiting.stop, time: now, phase: .injected, detail: "force retry")))
            case .fail(_, let fault):
                guard waiting.stop.place.isHoldable else { return refuse("request #\(request) cannot fail at \(waiting.stop.place)") }
                release.disposition = .fail(fault)
                effects.append(.record(event(for: waiting.stop, time: now, phase: .injected, detail: "fail: \(fault.rawValue)")))
            case .step: state.setMode(.step, of: request)
            case .resume: state.setMode(.run, of: request)
            default: break
            }
            if waiting.stop.held {
                let how = state.modes[request] == .step ? "step" : "continue"
                effects.insert(.record(event(for: waiting.stop, time: now, phase: .resumed, detail: how)), at: 0)
            }
            state.parked[request] = nil
            if !waiting.stop.held && !popped { state.removeReady(request) }
            state.running.insert(request)
            logged(waiting.stop.place)
            effects.append(.resume(waiting.continuation, release))
            return (effects, true)
        }
    }

    private func holdReason(_ stop: ParkedStop) -> String {
        state.withLock { $0.modes[stop.request] == .step ? "step" : "breakpoint" }
    }

    private func event(for stop: ParkedStop, phase: Phase, detail: String?) -> TimelineEvent {
        Self.event(for: stop, time: environment.now(), phase: phase, detail: detail)
    }

    private static func event(for stop: ParkedStop, time: Double, phase: Phase, snapshot: HopSnapshot = .empty, diff: HeaderDiff = .none, detail: String?) -> TimelineEvent {
        let hop: Int
        if case .hop(let index, _) = stop.place { hop = index } else { hop = TimelineEvent.noHop }
        let position: String
        if case .hop(_, let side) = stop.place { position = side == .pre ? "pre-flight" : "post-flight" } else { position = stop.place.description }
        return TimelineEvent(
            time: time, request: stop.request, attempt: stop.attempt, hop: hop, name: stop.hopName, kind: stop.hopKind,
            phase: phase, snapshot: snapshot, diff: diff, detail: detail.map { "\($0) · \(position)" })
    }
}

/// `0.25s`, `2s`: seconds without trailing zeros.
func formatSeconds(_ seconds: Double) -> String {
    "\(formatNumber(seconds))s"
}
