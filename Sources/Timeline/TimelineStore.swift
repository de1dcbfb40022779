import Synchronization

/// The in-memory timeline: an append-only log of ``TimelineEvent``s that many tasks write
/// at once and a UI reads without polling.
///
/// - Appending assigns the next ``TimelineEvent/seq`` (contiguous from 1) under a lock held
///   only for a few stores; events live in fixed-size chunks, so growing never copies the
///   history.
/// - Reads copy the chunk list under the lock (a reference count, not the events) and filter
///   outside it, so a reader never holds up writers for long.
/// - ``changes()`` is the change signal; each subscriber gets its own stream.
/// - With a cap, the events of the oldest *finished* requests (see ``markFinished(request:)``)
///   are dropped whole once the store holds more than the cap; running requests are never
///   dropped, so the store can exceed the cap while only running requests remain.
///
/// ```swift
/// let store = try TimelineStore(cap: 100_000)
/// Task { for await seq in store.changes() { redraw(upTo: seq) } }
/// store.append(event)          // 1
/// store.markFinished(request: 1)
/// store.events(request: 1)     // [event with seq 1]
/// ```
public final class TimelineStore: Sendable {
    /// A cap below one event; such a store could hold nothing.
    public struct InvalidCapError: Error, Equatable, CustomStringConvertible {
        public let cap: Int
        public init(cap: Int) { self.cap = cap }
        public var description: String {
            "timeline cap must be at least 1 event, got \(cap); leave the cap out to keep every event"
        }
    }

    /// How much the store holds and what its cap made it drop.
    public struct Stats: Sendable, Hashable {
        /// Events held now.
        public var count: Int
        /// The seq of the newest event ever appended (0 when none), dropped or not.
        public var lastSeq: Int
        public var droppedEvents: Int
        public var droppedRequests: Int
        /// The configured cap, nil when unbounded.
        public var cap: Int?

        public init(count: Int, lastSeq: Int, droppedEvents: Int, droppedRequests: Int, cap: Int?) {
            self.count = count
            self.lastSeq = lastSeq
            self.droppedEvents = droppedEvents
            self.droppedRequests = droppedRequests
            self.cap = cap
        }
    }

    /// Events per chunk: large enough that the chunk list stays short, small enough that the
    /// copy a reader can force on the next append is cheap.
    static let chunkCapacity = 4096

    private let cap: Int?
    private let state = Mutex(State())

    /// A store that keeps every event.
    public init() { cap = nil }

    /// A store that keeps at most `cap` events, dropping the oldest finished requests first.
    public init(cap: Int) throws(InvalidCapError) {
        guard cap > 0 else { throw InvalidCapError(cap: cap) }
        self.cap = cap
    }

    deinit {
        // Ends every `for await` over `changes()`; taken out first because finishing runs
        // termination handlers, which must not run under the lock.
        let watchers = state.withLock { $0.watchers }
        for continuation in watchers.values { continuation.finish() }
    }

    /// Appends `event`, replacing its `seq` with the next one, and returns that seq.
    @discardableResult
    public func append(_ event: consuming TimelineEvent) -> Int {
        // Moved in and out of an optional so the event reaches its chunk without a copy
        // (a copy retains each of its references).
        var pending = Optional(event)
        return state.withLock { $0.append(pending.take()!, cap: cap) }
    }

    /// Appends an event made of these fields (see ``TimelineEvent/init(time:request:attempt:hop:name:kind:phase:snapshot:diff:detail:)``)
    /// and returns its seq. The fields are taken over, so the event is never copied on its
    /// way in (a copy retains each of its references): what the instrumentation calls for
    /// every event it records.
    @discardableResult
    public func append(
        time: Double, request: Int, attempt: Int, hop: Int, name: consuming String, kind: HopKind, phase: Phase,
        snapshot: consuming HopSnapshot, diff: consuming HeaderDiff, detail: consuming String?
    ) -> Int {
        append(TimelineEvent(
            time: time, request: request, attempt: attempt, hop: hop, name: name, kind: kind, phase: phase,
            snapshot: snapshot, diff: diff, detail: detail))
    }

    /// Records that `request` will publish no more events, which makes it eligible for
    /// dropping under a cap. Idempotent; unknown requests are ignored.
    public func markFinished(request: Int) {
        state.withLock { $0.markFinished(request, cap: cap) }
    }

    public var stats: Stats {
        state.withLock {
            Stats(count: $0.liveCount, lastSeq: $0.lastSeq, droppedEvents: $0.droppedEvents,
                  droppedRequests: $0.droppedRequests, cap: cap)
        }
    }

    /// Events held now.
    public var count: Int { state.withLock { $0.liveCount } }

    /// The seq of the newest event (0 when none).
    public var lastSeq: Int { state.withLock { $0.lastSeq } }

    /// Every event held, in seq order.
    public func events() -> [TimelineEvent] {
        let view = state.withLock { $0.view }
        var result: [TimelineEvent] = []
        result.reserveCapacity(view.chunks.count * TimelineStore.chunkCapacity)
        for chunk in view.chunks {
            if view.hidden.isEmpty {
                result.append(contentsOf: chunk)
            } else {
                result.append(contentsOf: chunk.lazy.filter { !view.hidden.contains($0.request) })
            }
        }
        return result
    }

    /// The events held with a seq greater than `seq`, in seq order: what a UI that has shown
    /// everything up to `seq` still has to show.
    public func events(after seq: Int) -> [TimelineEvent] {
        let view = state.withLock { $0.view }
        var result: [TimelineEvent] = []
        var position = view.firstPosition(after: seq)
        while position.chunk < view.chunks.count {
            let chunk = view.chunks[position.chunk]
            result.append(contentsOf: chunk[position.offset...].lazy.filter { !view.hidden.contains($0.request) })
            position = (position.chunk + 1, 0)
        }
        return result
    }

    /// The events of one request, in seq order; empty when unknown or dropped.
    public func events(request: Int) -> [TimelineEvent] {
        let (view, seqs) = state.withLock { ($0.view, $0.requests[request]?.seqs ?? []) }
        return seqs.compactMap { view.event(seq: $0) }
    }

    /// The events whose time lies in `window`, in seq order. Concurrent hops may publish
    /// slightly out of time order, so this scans rather than bisects.
    public func events(in window: ClosedRange<Double>) -> [TimelineEvent] {
        let view = state.withLock { $0.view }
        var result: [TimelineEvent] = []
        for chunk in view.chunks {
            result.append(contentsOf: chunk.lazy.filter {
                window.contains($0.time) && !view.hidden.contains($0.request)
            })
        }
        return result
    }

    /// The event with this seq, if it is held.
    public func event(seq: Int) -> TimelineEvent? {
        state.withLock { $0.view }.event(seq: seq)
    }

    /// A stream of the newest seq: it yields the current ``lastSeq`` at once, then again after
    /// appends. Only the newest value is buffered, so a slow reader skips to the latest seq
    /// instead of queueing every one. Any number of streams may be open; a stream ends when
    /// its task is cancelled or the store goes away.
    ///
    /// ```swift
    /// for await seq in store.changes() {
    ///     shown += store.events(after: shownSeq)
    ///     shownSeq = seq
    /// }
    /// ```
    public func changes() -> AsyncStream<Int> {
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self, bufferingPolicy: .bufferingNewest(1))
        let id = state.withLock { state in
            let id = state.nextWatcherID
            state.nextWatcherID += 1
            state.watchers[id] = continuation
            continuation.yield(state.lastSeq)
            return id
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.watchers.removeValue(forKey: id) }
        }
        return stream
    }
}

/// What readers copy out of the lock: the chunk list and the requests dropped but not yet
/// compacted away.
private struct StoreView {
    var chunks: [[TimelineEvent]]
    var hidden: Set<Int>

    /// Where the first event with a seq above `seq` is; chunks are in seq order, and so is
    /// every chunk.
    func firstPosition(after seq: Int) -> (chunk: Int, offset: Int) {
        var low = 0, high = chunks.count
        while low < high {
            let middle = (low + high) / 2
            if chunks[middle].last!.seq <= seq { low = middle + 1 } else { high = middle }
        }
        guard low < chunks.count else { return (low, 0) }
        let chunk = chunks[low]
        var first = 0, last = chunk.count
        while first < last {
            let middle = (first + last) / 2
            if chunk[middle].seq <= seq { first = middle + 1 } else { last = middle }
        }
        return (low, first)
    }

    func event(seq: Int) -> TimelineEvent? {
        let position = firstPosition(after: seq - 1)
        guard position.chunk < chunks.count else { return nil }
        let event = chunks[position.chunk][position.offset]
        return event.seq == seq && !hidden.contains(event.request) ? event : nil
    }
}

/// A request's events as runs of consecutive seqs. A request that runs alone publishes one
/// run, kept inline, so its record allocates nothing; interleaved requests add a run each
/// time another request's event came between two of theirs.
private struct RequestRecord {
    struct Run {
        var first: Int
        var count: Int
    }

    var firstSeq: Int { firstRun.first }
    private(set) var eventCount = 0
    private var firstRun: Run
    private var moreRuns: [Run] = []
    var isFinished = false

    init(firstSeq: Int) {
        firstRun = Run(first: firstSeq, count: 1)
        eventCount = 1
    }

    mutating func append(_ seq: Int) {
        eventCount += 1
        if moreRuns.isEmpty {
            if firstRun.first + firstRun.count == seq { firstRun.count += 1 } else { moreRuns.append(Run(first: seq, count: 1)) }
        } else if moreRuns[moreRuns.count - 1].first + moreRuns[moreRuns.count - 1].count == seq {
            moreRuns[moreRuns.count - 1].count += 1
        } else {
            moreRuns.append(Run(first: seq, count: 1))
        }
    }

    /// Every seq, in order.
    var seqs: [Int] {
        var all: [Int] = []
        all.reserveCapacity(eventCount)
        for run in [firstRun] + moreRuns { all.append(contentsOf: run.first..<run.first + run.count) }
        return all
    }
}

/// Request records by id. Ids are handed out as #1, #2…, so records of ids up to
/// `denseLimit` sit in an array slot (no hashing on the append path); any other id goes to
/// a dictionary.
private struct RequestIndex {
    static let denseLimit = 1 << 20
    private var dense: [RequestRecord?] = []
    private var sparse: [Int: RequestRecord] = [:]

    subscript(request: Int) -> RequestRecord? {
        get { isDense(request) ? (request < dense.count ? dense[request] : nil) : sparse[request] }
        set {
            if isDense(request) {
                if request >= dense.count { dense.append(contentsOf: repeatElement(nil, count: request - dense.count + 1)) }
                dense[request] = newValue
            } else {
                sparse[request] = newValue
            }
        }
    }

    /// Adds `seq` to the request's record, creating the record at its first event.
    mutating func append(_ seq: Int, to request: Int) {
        if isDense(request), request < dense.count, dense[request] != nil {
            dense[request]!.append(seq)
        } else if isDense(request) {
            self[request] = RequestRecord(firstSeq: seq)
        } else if sparse[request] != nil {
            sparse[request]!.append(seq)
        } else {
            sparse[request] = RequestRecord(firstSeq: seq)
        }
    }

    private func isDense(_ request: Int) -> Bool { request >= 0 && request < RequestIndex.denseLimit }
}

private struct State {
    var chunks: [[TimelineEvent]] = []
    /// Events physically in `chunks`, hidden ones included.
    var storedCount = 0
    var lastSeq = 0
    /// Requests with events held; a dropped request's record is gone.
    var requests = RequestIndex()
    var finished = OldestFirst()
    /// Dropped requests whose events are still in `chunks`. Dropping only hides them;
    /// removing them rewrites every chunk, so it waits until enough have piled up to pay for it.
    var hidden: Set<Int> = []
    var hiddenCount = 0
    var droppedEvents = 0
    var droppedRequests = 0
    var watchers: [Int: AsyncStream<Int>.Continuation] = [:]
    var nextWatcherID = 0

    var liveCount: Int { storedCount - hiddenCount }
    var view: StoreView { StoreView(chunks: chunks, hidden: hidden) }

    mutating func append(_ event: consuming TimelineEvent, cap: Int?) -> Int {
        let request = event.request
        // A late event of a dropped request must not be hidden with the old ones.
        if !hidden.isEmpty, hidden.contains(request) { compact() }
        lastSeq += 1
        let seq = lastSeq
        event.seq = seq
        if chunks.isEmpty || chunks[chunks.count - 1].count == TimelineStore.chunkCapacity {
            var chunk: [TimelineEvent] = []
            chunk.reserveCapacity(TimelineStore.chunkCapacity)
            chunks.append(chunk)
        }
        chunks[chunks.count - 1].append(consume event)
        storedCount += 1
        requests.append(seq, to: request)
        if let cap, liveCount > cap { enforce(cap) }
        // Yielding under the lock keeps the values each stream sees in seq order.
        if !watchers.isEmpty {
            for continuation in watchers.values { continuation.yield(seq) }
        }
        return seq
    }

    mutating func markFinished(_ request: Int, cap: Int?) {
        guard let record = requests[request], !record.isFinished else { return }
        requests[request]!.isFinished = true
        finished.insert(firstSeq: record.firstSeq, request: request)
        if let cap, liveCount > cap { enforce(cap) }
    }

    private mutating func enforce(_ cap: Int) {
        while liveCount > cap, let request = finished.removeOldest() {
            guard let record = requests[request] else { continue }
            requests[request] = nil
            hidden.insert(request)
            hiddenCount += record.eventCount
            droppedEvents += record.eventCount
            droppedRequests += 1
        }
        // Compacting costs one pass over the store; doing it only once a quarter of the stored
        // events are hidden keeps that at a few copies per dropped event.
        if hiddenCount > 0, hiddenCount * 4 >= storedCount { compact() }
    }

    private mutating func compact() {
        var kept: [[TimelineEvent]] = []
        var chunk: [TimelineEvent] = []
        chunk.reserveCapacity(TimelineStore.chunkCapacity)
        for old in chunks {
            for event in old where !hidden.contains(event.request) {
                if chunk.count == TimelineStore.chunkCapacity {
                    kept.append(chunk)
                    chunk = []
                    chunk.reserveCapacity(TimelineStore.chunkCapacity)
                }
                chunk.append(event)
            }
        }
        if !chunk.isEmpty { kept.append(chunk) }
        chunks = kept
        storedCount -= hiddenCount
        hiddenCount = 0
        hidden = []
    }
}

/// Finished requests ordered by their first event: a binary min-heap, so the cap finds the
/// oldest one in O(log n) however requests finish.
private struct OldestFirst {
    private var heap: [(firstSeq: Int, request: Int)] = []

    mutating func insert(firstSeq: Int, request: Int) {
        heap.append((firstSeq, request))
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].firstSeq < heap[parent].firstSeq else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    mutating func removeOldest() -> Int? {
        guard !heap.isEmpty else { return nil }
        let oldest = heap[0].request
        heap[0] = heap[heap.count - 1]
        heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count, heap[left].firstSeq < heap[smallest].firstSeq { smallest = left }
            if right < heap.count, heap[right].firstSeq < heap[smallest].firstSeq { smallest = right }
            guard smallest != parent else { return oldest }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
