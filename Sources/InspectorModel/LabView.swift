import Findings
import ChainKit
public import Lab
import Synchronization
public import Timeline

/// One line of the Requests pane and one row of the Timeline waterfall.
public struct RequestRow: Sendable, Hashable {
    public enum State: String, Sendable, Hashable {
        /// `partial`: the last result carried data and GraphQL errors.
        case running, paused, blocked, retrying, succeeded, partial, failed
    }

    /// A moment worth marking on the waterfall.
    public struct Mark: Sendable, Hashable {
        public enum Kind: Sendable, Hashable { case retry, error }
        public var time: Double
        public var kind: Kind
    }

    public var id: Int
    public var operation: String
    public var attempt: Int
    public var state: State
    /// The last status the transport received.
    public var status: Int?
    /// Lab-clock seconds of the first and the latest event.
    public var start: Double
    public var end: Double
    public var marks: [Mark]
    public var error: String?
    /// Where the delivered results came from, in order (`server`, `cache`).
    public var results: [String] = []

    public var duration: Double { end - start }

    /// Whether the request has ended, however it ended.
    public var isFinished: Bool { state == .succeeded || state == .partial || state == .failed }

    public init(
        id: Int, operation: String, attempt: Int, state: State, status: Int? = nil, start: Double, end: Double,
        marks: [Mark] = [], error: String? = nil, results: [String] = []
    ) {
        self.id = id
        self.operation = operation
        self.attempt = attempt
        self.state = state
        self.status = status
        self.start = start
        self.end = end
        self.marks = marks
        self.error = error
        self.results = results
    }

    /// What decided the outcome, short: `cache` for a result from the cache, `invalid_grant`
    /// when the token endpoint refused the refresh, `MaxRetries(3)`, `noResults`, or the
    /// status of the last transport exchange when that is what the request ended on.
    public var cause: String? {
        switch state {
        case .succeeded:
            if results.last == "cache" { return results.count > 1 ? "server+cache" : "cache" }
            return status.map(String.init)
        case .partial:
            return "partial"
        case .failed:
            return error.map { RequestRow.cause(ofError: $0, status: status) } ?? status.map(String.init)
        default: return nil
        }
    }

    /// The cause named in an error's text.
    public static func cause(ofError text: String, status: Int?) -> String {
        if let code = text.firstMatch(of: /token endpoint refused the refresh: HTTP \d{3} ([A-Za-z_]+)/) { return String(code.1) }
        if let count = text.firstMatch(of: /maximum number of retries \((\d+)\)/) { return "MaxRetries(\(count.1))" }
        if text.contains("(noResults)") { return "noResults" }
        if text.contains("persistedQueryRetryFailed") { return "persistedQueryRetryFailed" }
        if let code = text.firstMatch(of: /HTTP (\d{3})/) ?? text.firstMatch(of: /Received a (\d{3}) error/) { return String(code.1) }
        if let fault = LabFault.allCases.first(where: { text.contains($0.description) }) { return fault.rawValue }
        let type = text.split(separator: ":").first.map(String.init) ?? text
        return type.count <= 24 ? type : (status.map(String.init) ?? "error")
    }
}

/// What the screen knows about the lab at one moment: a value that `update` stores and
/// `render` reads. Its ``timeline`` answers queries for one request's events as they were
/// at ``lastSeq``, so a frame drawn from it shows the same whenever it is drawn.
public struct LabView: Sendable {
    public var requests: [RequestRow] {
        didSet {
            requestsEnd = nil
            origin = nil
        }
    }
    /// The latest ``RequestRow/end`` of ``requests`` when the builder worked it out with them.
    var requestsEnd: Double?
    /// Where each waiting request is: its cache lane's stop when it has two lanes waiting.
    public var parked: [Int: ParkedStop]
    /// The stops of requests with two lanes (an overlapping CacheAndNetwork fetch), by lane.
    public var laneStops: [LaneKey: ParkedStop] = [:]
    /// The requests with two live lanes.
    public var forked: Set<Int> = []
    public var blocked: Set<Int>
    public var breakpoints: Set<Breakpoint>
    /// Breakpoints by rule (`Ctrl-B`), in the order they were added.
    public var rules: [BreakRule] = []
    public var stepMode: Bool
    public var chain: Scenario.Chain
    public var chainHops: [HopInfo]
    public var hops: [Int: [HopInfo]]
    /// The newest seq the view has seen: ``timeline``'s.
    public var lastSeq: Int { timeline.lastSeq }
    public var clock: Double
    /// Refusals the scheduler reported since the previous view (a forced retry at an HTTP hop…).
    public var newRefusals: [String]
    /// What the lab backend has counted so far (refreshes, rejections, revoked families,
    /// requests…), by counter name.
    public var backend: [String: Int] = [:]
    /// The timeline up to ``lastSeq``: the events render reads.
    public var timeline: TimelineView {
        didSet {
            requestEvents = RequestEventsMemo(seq: timeline.lastSeq)
            origin = nil
        }
    }
    /// Requests' events as ``timeline`` has them, read once and kept for the frames that
    /// follow (``events(of:)``).
    var requestEvents: RequestEventsMemo
    /// Which builder made the view, and how many views it had made by then: with
    /// ``remade``, what a filter in force reads again (``Inspector/refreshFilter(_:)``). Nil
    /// for a view made or changed any other way, or made after the store dropped events.
    package var origin: Origin?
    /// The requests whose rows and events may differ from those of the builder's view before
    /// this one; every other row and its events are the same.
    package var remade: Set<Int> = []

    /// A view's place in its builder's sequence of views.
    package struct Origin: Sendable, Hashable {
        package var builder: Int
        package var number: Int

        package init(builder: Int, number: Int) {
            self.builder = builder
            self.number = number
        }
    }
    /// Whether the server has the lab's controls (expiring tokens); false on a plain server.
    public var hasLabControls = true
    /// Whether `https://` certificates go unchecked (`--insecure`): the status line says so.
    public var tlsUnverified = false
    /// How the finished requests ended, by id.
    public var summaries: [RequestSummary] = []
    /// What the recorded events prove (``RunFindings``); nil when the store is too large to
    /// read on every change (``LabViewBuilder/liveFindingsLimit``): `F` then reads it on demand.
    public var findings: [Finding]? = []

    /// A view of `timeline` with no requests listed yet.
    public init(timeline: TimelineView, chain: Scenario.Chain, chainHops: [HopInfo], stepMode: Bool) {
        requests = []
        parked = [:]
        blocked = []
        breakpoints = []
        self.stepMode = stepMode
        self.chain = chain
        self.chainHops = chainHops
        hops = [:]
        clock = 0
        newRefusals = []
        self.timeline = timeline
        requestEvents = RequestEventsMemo(seq: timeline.lastSeq)
    }

    /// The events of `request` up to ``lastSeq``, in seq order: what
    /// `timeline.events(request:)` answers, read from the store once for all the frames
    /// drawn from this view and the views after it until the request has new events.
    public func events(of request: Int) -> [TimelineEvent] {
        requestEvents.events(of: request, in: timeline)
    }

    /// The hops of `request` (or of the chain new requests get).
    public func hops(of request: Int?) -> [HopInfo] {
        request.flatMap { hops[$0] } ?? chainHops
    }

    /// The index of request `id` in ``requests``, which are in ascending id order: a binary
    /// search, since the screen asks for the selected request many times a frame and a run can
    /// hold thousands (`frame.waterfall.10k`).
    public func index(of id: Int) -> Int? {
        var low = 0, high = requests.count - 1
        while low <= high {
            let middle = (low + high) / 2
            let found = requests[middle].id
            if found == id { return middle }
            if found < id { low = middle + 1 } else { high = middle - 1 }
        }
        return nil
    }

    /// The latest end of any request, 0 with none: the waterfall's extent.
    package var latestRequestEnd: Double {
        requestsEnd ?? requests.reduce(0) { max($0, $1.end) }
    }

    /// Whether any request is paused or still running.
    public var hasUnfinishedRequests: Bool {
        requests.contains { !$0.isFinished }
    }
}

/// Builds ``LabView``s from a session, reading only the events that arrived since the last
/// view and making again only the rows of the requests that changed, so a view costs about
/// the same with a thousand events or a million, ten requests or ten thousand
/// (`input.latency.10k`).
public final class LabViewBuilder {
    private struct Accumulator {
        var attempt = 1
        var status: Int?
        var start: Double
        var end: Double
        var marks: [RequestRow.Mark] = []
    }

    public let session: LabSession
    private var accumulators: [Int: Accumulator] = [:]
    private var lastSeq = 0
    private var refusalsSeen = 0
    /// The launched requests' rows as the last view listed them: request `id` at `id - 1`.
    private var rows: [RequestRow] = []
    /// The hops of each launched request that has started.
    private var hops: [Int: [HopInfo]] = [:]
    /// The finished requests' summaries in id order, and their ids.
    private var summaries: [RequestSummary] = []
    private var summarized: Set<Int> = []
    /// Requests whose row may change with no event of theirs: those at a stop or blocked
    /// (their place is not an event), those with no event yet (drawn at the lab clock), and
    /// those whose hops are not known yet. Their rows are made again for every view.
    private var watched: Set<Int> = []
    /// The latest end of the rows made from events: their ends only grow.
    private var latestEventEnd: Double = 0
    /// Events the store had dropped (its cap) as of the last view.
    private var dropped = 0
    /// Tells builders apart in ``LabView/Origin``.
    private static let builders = Atomic<Int>(0)
    private let id = LabViewBuilder.builders.add(1, ordering: .relaxed).newValue
    /// How many views this builder has made.
    private var made = 0
    /// Requests' events read by frames, moved on from view to view.
    private let requestEvents = RequestEventsMemo(seq: 0)
    private var findings: (seq: Int, finished: Int, findings: [Finding]?) = (0, 0, [])
    private let synchronousFindingsLimit: Int
    private let worker = FindingsWorker()

    /// Up to this many events, findings are read again whenever events arrive. Detectors read
    /// the whole store, and a view must cost the same with a million events (the frame figure),
    /// so past it they run only when `F` asks.
    public static let liveFindingsLimit = 50_000

    /// Up to this many events, findings are read within the view; past it, on a task of their
    /// own, so a key is drawn within a frame however many requests ran (`input.latency.1k`):
    /// the view shows the latest findings read, and ``hasNewFindings`` says when newer ones
    /// are ready.
    public static let synchronousFindingsLimit = 2_000

    /// - Parameter synchronousFindingsLimit: see ``synchronousFindingsLimit``; tests lower it.
    public init(session: LabSession, synchronousFindingsLimit: Int = LabViewBuilder.synchronousFindingsLimit) {
        self.session = session
        self.synchronousFindingsLimit = synchronousFindingsLimit
    }

    /// Whether findings read on their own task arrived since the last view.
    public var hasNewFindings: Bool { worker.hasResult }

    /// Returns once findings being read on their own task, if any, are ready: the bench waits
    /// for them so that a key's instruction count holds exactly one reading.
    package func findingsSettled() async {
        await worker.settled()
    }

    /// The lab as it is now, its timeline frozen at the newest event read.
    public func view() -> LabView {
        // Where requests are and which have finished, read before the events: a stop or an
        // end is recorded after the events that led to it, so the frame never shows a request
        // held (or finished) at a place its events have not reached yet.
        let snapshot = session.control
        let summaries = session.summaries
        let previousSeq = lastSeq
        var changed: Set<Int> = []
        for event in session.events(after: lastSeq) {
            lastSeq = event.seq
            guard event.request > 0 else { continue }
            changed.insert(event.request)
            var row = accumulators[event.request] ?? Accumulator(start: event.time, end: event.time)
            if event.name != LabSession.watcherDeliveryEventName { row.end = max(row.end, event.time) }
            if event.attempt > row.attempt {
                row.marks.append(RequestRow.Mark(time: event.time, kind: .retry))
                row.attempt = event.attempt
            }
            if event.kind == .transport, event.phase == .receive { row.status = event.status }
            accumulators[event.request] = row
        }
        // When the store's cap dropped events, which requests lost them is not known: what
        // frames read of any request is read again.
        let dropped = session.droppedEventCount, dropping = dropped != self.dropped
        requestEvents.advance(from: previousSeq, to: lastSeq, changed: changed, dropped: dropping)
        self.dropped = dropped
        var view = LabView(timeline: session.timeline(upTo: lastSeq), chain: session.chain, chainHops: session.chainHops, stepMode: snapshot.defaultMode == .step)
        view.requestEvents = requestEvents
        // Listed cache lane first: a request with two stops is placed at its cache lane's.
        view.parked = Dictionary(snapshot.parked.map { ($0.request, $0) }, uniquingKeysWith: { first, _ in first })
        view.laneStops = Dictionary(uniqueKeysWithValues: snapshot.parked.filter { $0.lane != nil }.map { ($0.laneKey, $0) })
        view.forked = snapshot.forked
        view.blocked = snapshot.blocked
        view.breakpoints = snapshot.breakpoints
        view.rules = snapshot.rules
        view.clock = session.clock.seconds
        view.hasLabControls = session.hasLabControls
        view.tlsUnverified = session.tlsUnverified
        view.newRefusals = snapshot.refusals.dropFirst(refusalsSeen).map(\.reason)
        view.backend = session.labCounters ?? [:]
        refusalsSeen = snapshot.refusals.count
        if summaries.count != summarized.count {
            // Requests finish about in the order they were launched: new summaries are added
            // at the end unless one comes before the last listed.
            let finished = summaries.keys.filter { !summarized.contains($0) }.sorted()
            if let first = finished.first, first > (self.summaries.last?.id ?? Int.min) {
                self.summaries += finished.map { summaries[$0]! }
            } else {
                self.summaries = summaries.keys.sorted().map { summaries[$0]! }
            }
            summarized.formUnion(finished)
            changed.formUnion(finished)
        }
        view.summaries = self.summaries
        if let read = worker.take(), read.seq >= findings.seq {
            findings = (read.seq, read.finished, read.findings)
        }
        if findings.seq != lastSeq || findings.finished != summaries.count {
            let count = session.eventCount
            if count > Self.liveFindingsLimit {
                findings = (lastSeq, summaries.count, nil)
            } else if count <= synchronousFindingsLimit {
                findings = (lastSeq, summaries.count, RunFindings.detect(events: view.timeline.events(), requests: view.summaries))
            } else {
                worker.read(view.timeline, requests: view.summaries)
            }
        }
        view.findings = findings.findings
        let placed = Set(snapshot.parked.map(\.request)).union(snapshot.blocked)
        var remade = changed.union(watched).union(placed)
        if rows.count < snapshot.launched.count { remade.formUnion((rows.count + 1)...snapshot.launched.count) }
        watched = placed
        // Rows with no event yet end at the clock, which may pass the time of their first
        // event: they count for this view only.
        var latestEnd = latestEventEnd
        // In id order, so the rows of newly launched requests are appended in order.
        for request in remade.sorted() {
            guard let operation = snapshot.launched[request] else { continue }
            let row = self.row(request, operation: operation, view: view, summary: summaries[request])
            if request <= rows.count { rows[request - 1] = row } else { rows.append(row) }
            latestEnd = max(latestEnd, row.end)
            if accumulators[request] == nil { watched.insert(request) } else { latestEventEnd = max(latestEventEnd, row.end) }
            if hops[request] == nil {
                let hops = session.hops(of: request)
                if hops.isEmpty { watched.insert(request) } else { self.hops[request] = hops }
            }
        }
        view.requests = rows
        view.requestsEnd = latestEnd
        view.hops = hops
        made += 1
        view.origin = dropping ? nil : LabView.Origin(builder: id, number: made)
        view.remade = remade
        return view
    }

    /// Request `request`'s row in `view`: where its events, its summary and its stop put it.
    private func row(_ request: Int, operation: Int, view: LabView, summary: RequestSummary?) -> RequestRow {
        let accumulated = accumulators[request] ?? Accumulator(start: view.clock, end: view.clock)
        var marks = accumulated.marks
        let state: RequestRow.State
        if let summary {
            state = switch summary.outcome {
            case .success: .succeeded
            case .partial: .partial
            case .failure: .failed
            }
            if summary.outcome == .failure { marks.append(RequestRow.Mark(time: accumulated.end, kind: .error)) }
        } else if view.parked[request]?.held == true || view.laneStops[LaneKey(request, .network)]?.held == true {
            state = .paused
        } else if view.blocked.contains(request) {
            state = .blocked
        } else {
            state = accumulated.attempt > 1 ? .retrying : .running
        }
        return RequestRow(
            id: request, operation: session.scenario.operations[operation].name,
            attempt: accumulated.attempt, state: state, status: accumulated.status,
            start: accumulated.start, end: accumulated.end, marks: marks, error: summary?.error, results: summary?.results ?? [])
    }
}

/// Requests' events as one view of the timeline has them, read from the store once and
/// kept while the views that follow agree. A frame reads the selected request's events
/// several times (Chain, Detail, layout) and those of every row of the waterfall, and most
/// keys change none of them (`input.type.char`, `input.latency.10k`).
///
/// The memo answers for one seq. ``LabViewBuilder`` moves it on to each new view, forgetting
/// the requests that had events in between (it read them all); a view of any other seq reads
/// the store as it would without the memo.
final class RequestEventsMemo: Sendable {
    private struct Entries {
        var seq: Int
        var events: [Int: [TimelineEvent]] = [:]
    }

    private let entries: Mutex<Entries>

    /// At most this many requests are kept, many more than a screen shows.
    static let limit = 1024

    init(seq: Int) {
        entries = Mutex(Entries(seq: seq))
    }

    /// `timeline.events(request: request)`.
    func events(of request: Int, in timeline: TimelineView) -> [TimelineEvent] {
        let seq = timeline.lastSeq
        if let kept = entries.withLock({ $0.seq == seq ? $0.events[request] : nil }) { return kept }
        let events = timeline.events(request: request)
        entries.withLock { entries in
            guard entries.seq == seq else { return }
            if entries.events.count >= Self.limit { entries.events.removeAll(keepingCapacity: true) }
            entries.events[request] = events
        }
        return events
    }

    /// Moves the memo from seq `previous` on to `seq`: `changed` are the requests that had
    /// events in between. When the memo is not at `previous`, or events were dropped, it
    /// starts again empty.
    func advance(from previous: Int, to seq: Int, changed: Set<Int>, dropped: Bool) {
        entries.withLock { entries in
            guard entries.seq == previous, !dropped else {
                entries = Entries(seq: seq)
                return
            }
            if changed.count < entries.events.count {
                for request in changed { entries.events[request] = nil }
            } else {
                entries.events = entries.events.filter { !changed.contains($0.key) }
            }
            entries.seq = seq
        }
    }
}

/// Reads a run's findings on a task of its own, one reading at a time, for stores too large
/// to read within a frame. What it read waits until the next view takes it.
private final class FindingsWorker: Sendable {
    struct Reading: Sendable {
        var seq: Int
        var finished: Int
        var findings: [Finding]
    }

    private struct State {
        var reading: Task<Void, Never>?
        var result: Reading?
    }

    private let state = Mutex(State())

    var hasResult: Bool { state.withLock { $0.result != nil } }

    /// Starts reading the findings of `timeline` now, unless a reading is under way (the view
    /// asks again once it has taken that one).
    func read(_ timeline: TimelineView, requests: [RequestSummary]) {
        state.withLock { current in
            guard current.reading == nil else { return }
            current.reading = Task.detached(priority: .utility) { [self] in
                let findings = RunFindings.detect(events: timeline.events(), requests: requests)
                state.withLock { $0 = State(reading: nil, result: Reading(seq: timeline.lastSeq, finished: requests.count, findings: findings)) }
            }
        }
    }

    /// Returns once the reading under way, if any, has finished.
    func settled() async {
        await state.withLock { $0.reading }?.value
    }

    /// The findings read since the last call, if any.
    func take() -> Reading? {
        state.withLock { state in defer { state.result = nil }; return state.result }
    }
}
