public import Instrumentation
public import Scheduling
import Backend
import ChainKit
public import Timeline
import Outbound

/// What the inspector, the CLI and an app see of a session: the one way in.
///
/// The scheduler, the in-process backend and the timeline store stay inside `Lab`; from
/// outside a session is driven with commands, breakpoints and the step mode, and read as a
/// ``SessionControl`` (where each request is) and a ``Timeline/TimelineView`` (the events up
/// to a seq), with the lab's counters only when there is a lab in process, and exported in
/// an ``ExportFormat``.
///
/// ```swift
/// let session = LabSession(scenario: Catalog.scenario(named: "basics")!, defaultMode: .step)
/// session.setBreakpoint(Breakpoint(hop: 3, position: .pre), enabled: true)
/// session.submit(.launch(operation: 0))
/// await session.waitUntilSettled()
/// session.control.parked.first?.place      // launch
/// let seen = session.timeline()           // what has been recorded so far
/// let json = session.export(.json)        // masked
/// ```
extension LabSession {
    // MARK: - Driving

    /// Queues a command (step, continue, force 401, launch…); it takes effect at the
    /// scheduler's next decision, or is refused with a reason in ``SessionControl/refusals``.
    /// A command about a stop of a request with two lanes names its lane (``Lane``).
    public func submit(_ command: LabCommand) {
        scheduler.submit(command)
    }

    /// Queues `commands` together, in order, before any of them takes effect.
    public func submit(_ commands: [LabCommand]) {
        scheduler.submit(commands)
    }

    /// Sets or clears a breakpoint.
    public func setBreakpoint(_ breakpoint: Breakpoint, enabled: Bool) {
        scheduler.setBreakpoint(breakpoint, enabled: enabled)
    }

    /// The breakpoints set now.
    public var breakpoints: Set<Breakpoint> { scheduler.snapshot.breakpoints }

    /// Whether new operations hold at every stop (``RunMode/step``) rather than only at
    /// breakpoints.
    public var stepMode: Bool { scheduler.snapshot.defaultMode == .step }

    /// Makes new operations hold at every stop, or only at breakpoints.
    public func setStepMode(_ on: Bool) {
        scheduler.setDefaultMode(on ? .step : .run)
    }

    /// Returns once no operation can move without a command: every one finished, held at a
    /// stop or waiting.
    public func waitUntilSettled() async {
        await scheduler.waitUntilSettled()
    }

    // MARK: - Reading

    /// Where every request is now: held stops, blocked and launched requests, breakpoints,
    /// the step mode and the refusals so far.
    public var control: SessionControl { scheduler.snapshot }

    /// Grows each time ``control`` changes; a screen compares it with the one it last showed.
    public var controlVersion: Int { scheduler.version }

    /// The newest seq recorded (0 before the first event).
    public var lastSeq: Int { store.lastSeq }

    /// Events held now; the timeline's size, without reading it.
    public var eventCount: Int { store.count }

    /// Events the store's cap has dropped so far (0 without a cap): a screen that kept
    /// events it read knows when to read them again.
    public var droppedEventCount: Int { store.stats.droppedEvents }

    /// The timeline as it is at `seq` (now when nil): later events never show through it.
    public func timeline(upTo seq: Int? = nil) -> TimelineView {
        store.view(upTo: seq ?? store.lastSeq)
    }

    /// The events recorded after `seq`, in seq order: what a reader that has seen everything
    /// up to `seq` has not seen yet.
    public func events(after seq: Int) -> [TimelineEvent] {
        store.events(after: seq)
    }

    /// The newest seq, now and after each new event: the change notification a screen
    /// waits on (see ``Timeline/TimelineStore/changes()``).
    public func timelineChanges() -> AsyncStream<Int> {
        store.changes()
    }

    /// The lab backend's counters (refreshes, rejections, requests…): the in-process lab's
    /// as they stand, or a remote lab's (`--endpoint` with `--lab`) as read after the last
    /// request ended; nil without a lab, for a plain server or an app's own chain.
    public var labCounters: [String: Int]? {
        guard launcher.custom == nil else { return nil }
        switch target {
        case .inProcess(let backend): return backend.counters
        case .remote(let remote): return remote.isLab ? launcher.remoteCounters.withLock { $0 } ?? [:] : nil
        }
    }

    /// The commands that took effect, in order: what `--record` writes.
    public var commandLog: [RecordedCommand] { scheduler.log }

    /// What has happened so far, in `format`, masked unless `masking` reveals secrets; with
    /// `requests`, only those requests (``RunResult/limited(to:)``).
    public func export(_ format: ExportFormat, masking: SecretMasking = .masked, serviceName: String? = nil, requests: Set<Int>? = nil) -> String {
        let run = requests.map { result().limited(to: $0) } ?? result()
        return run.export(format, scenario: scenario.name, anchor: otlpAnchor, masking: masking, serviceName: serviceName)
    }

    // MARK: - Running and results

    /// Launches the scenario's operations (or replays), runs until nothing can move, and
    /// reports what happened. A stop a breakpoint rule holds is recorded and released at
    /// once, since nobody is there to release it.
    public func runHeadless() async -> RunResult {
        scheduler.setReleasesRuleStops(true)
        if !scheduler.isReplaying {
            scheduler.submit(scenario.launch.map { .launch(operation: $0) })
        }
        await scheduler.waitUntilSettled()
        var result = result()
        if case .remote(let remote) = target, let counters = await remote.counters() {
            launcher.remoteCounters.withLock { $0 = counters }
            result.backend = counters
            result.hasLabControls = true
        }
        result.networkFailures = launcher.remote?.transport.failures ?? []
        return result
    }

    /// Launches operation number `operation` of the scenario (what `n` does).
    public func launch(operation: Int = 0) {
        scheduler.submit(.launch(operation: operation))
    }

    /// What has happened so far. Its counters are the in-process backend's; a remote lab's
    /// are read by ``runHeadless()`` only.
    public func result() -> RunResult {
        let snapshot = scheduler.snapshot
        let summaries = requests.summaries
        var result = RunResult(
            requests: summaries.keys.sorted().map { summaries[$0]! },
            events: store.events(), backend: labCounters ?? [:],
            unfinished: snapshot.launched.ids.filter { summaries[$0] == nil },
            refusals: snapshot.refusals)
        result.hasLabControls = labCounters != nil
        result.tlsUnverified = tlsUnverified
        return result
    }

    /// The hops of request `request`'s chain, from the top (empty until it starts).
    public func hops(of request: Int) -> [HopInfo] {
        requests.hops(of: request)
    }

    /// The chain new operations go through: the scenario's, unless reordered.
    public var chain: Scenario.Chain { launcher.chain.value }

    /// Replaces the chain for operations launched from now on (running ones keep theirs).
    public func setChain(_ chain: Scenario.Chain) {
        launcher.chain.withLock { $0 = chain }
    }

    /// The hops the current chain has, from the top, before any request runs.
    public var chainHops: [HopInfo] { chain.hops(parser: launcher.parserName) }

    /// Whether the server has the lab's controls (expiring tokens, counters): false on a
    /// plain server reached with `--endpoint`.
    public var hasLabControls: Bool { launcher.custom == nil && target.hasLabControls }

    /// Whether `https://` certificates go unchecked (`--insecure`): the process's
    /// ``HTTPSTrust``, which every screen and export of the session shows.
    public var tlsUnverified: Bool { HTTPSTrust.current == .unverified }

    /// The summaries of every finished request, by id.
    public var summaries: [Int: RequestSummary] { requests.summaries }

    /// A summary of request `request`, once it finished.
    public func summary(of request: Int) -> RequestSummary? {
        requests.summaries[request]
    }

    /// How many operations' tasks have not returned yet, whether running, waiting for their
    /// turn or held at a stop. 0 once ``shutDown()`` has returned: quitting leaks no task.
    public var activeTaskCount: Int { requests.activeCount }

    /// Ends every operation: waiting ones are released with a cancellation, and this returns
    /// when all their tasks have finished.
    public func shutDown() async {
        scheduler.shutDown()
        await requests.cancelAll()
        if let app = launcher.app { LabURLProtocol.unregister(host: app.host) }
    }
}

/// Where every request of a session is: its held stops, blocked and launched requests,
/// breakpoints, step mode and refusals (``LabSession/control``).
public typealias SessionControl = Scheduler.Snapshot
