import Synchronization

/// The in-memory timeline: an append-only log of ``TimelineEvent``s that many tasks write
/// at once and a UI reads without polling.
///
/// - Appending assigns the next ``TimelineEvent/seq`` (contiguous from 1) under a lock held
///   only for a few stores; events live in fixed-size chunks, so growing never copies the
///   history.
/// - Events are kept packed, 32 bytes each, their hop names, details and diffs kept once and
///   equal heads shared (see `PackedEvents.swift`); every read builds back the event that
///   was appended, with its seq.
/// - Reads copy the chunk list under the lock (a reference count, not the events) and filter
///   outside it, so a reader never holds up writers for long. A chunk is written only past
///   the events a reader's copy of it counts (`PackedEventStorage`), so appending never
///   copies a chunk a reader holds.
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
        // Read in place under the lock: only the snapshot is copied (one retain), where moving
        // the whole event in and out of an optional cost a generic copy and destroy of it.
        state.withLock { state in
            state.append(
                time: event.time, request: event.request32, attempt: event.attempt32, hop: event.hop32, name: event.name,
                kind: event.kind, phase: event.phase, snapshot: event.snapshot, diff: event.diff, detail: event.detail, lane: event.lane,
                cap: cap)
        }
    }

    /// Appends an event made of these fields (see ``TimelineEvent/init(time:request:attempt:hop:name:kind:phase:snapshot:diff:detail:)``)
    /// and returns its seq: what the instrumentation calls for events that belong to no hop.
    /// The snapshot is taken over (moved, not copied: a copy is a retain and a release); the
    /// name, diff and detail are only read, and copied only when the store has not kept them yet.
    @discardableResult
    public func append(
        time: Double, request: Int, attempt: Int, hop: Int, name: String, kind: HopKind, phase: Phase,
        snapshot: consuming HopSnapshot, diff: HeaderDiff, detail: String?, lane: Lane? = nil
    ) -> Int {
        append(time: time, request: request, attempt: attempt, phase: phase, snapshot: snapshot, diff: diff, detail: detail, lane: lane) {
            $0.id(name: name, kind: kind, hop: Int32(truncatingIfNeeded: hop))
        }
    }

    /// ``append(time:request:attempt:hop:name:kind:phase:snapshot:diff:detail:lane:)`` for the
    /// hop `site` names: what the instrumentation calls for the events of a chain's hops,
    /// whose sites are known before they run. The store finds its own id for the site by its
    /// number, without reading or comparing the name.
    @discardableResult
    public func append(
        time: Double, request: Int, attempt: Int, site: HopSiteKey, phase: Phase,
        snapshot: consuming HopSnapshot, diff: HeaderDiff, detail: String?, lane: Lane? = nil
    ) -> Int {
        append(time: time, request: request, attempt: attempt, phase: phase, snapshot: snapshot, diff: diff, detail: detail, lane: lane) {
            $0.id(key: site)
        }
    }

    /// Appends an event of the site `site` finds in the store's sites, under the lock.
    @inline(__always)
    private func append(
        time: Double, request: Int, attempt: Int, phase: Phase, snapshot: consuming HopSnapshot, diff: HeaderDiff, detail: String?,
        lane: Lane?, site: (inout HopSites) -> UInt32
    ) -> Int {
        var pending = Optional(snapshot)
        return state.withLock { state in
            state.append(
                time: time, request: Int32(truncatingIfNeeded: request), attempt: Int32(truncatingIfNeeded: attempt),
                site: site(&state.sites), phase: phase, snapshot: pending.take()!, diff: diff, detail: detail, lane: lane, cap: cap)
        }
    }

    /// Records that `request` will publish no more events, which makes it eligible for
    /// dropping under a cap. Idempotent; unknown requests are ignored. A store without a cap
    /// drops nothing, so it has nothing to record (and takes no lock).
    public func markFinished(request: Int) {
        guard let cap else { return }
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
        result.reserveCapacity(view.chunks.reduce(0) { $0 + $1.count })
        for chunk in view.chunks {
            view.appendEvents(of: chunk, from: 0, to: &result)
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
            view.appendEvents(of: view.chunks[position.chunk], from: position.offset, to: &result)
            position = (position.chunk + 1, 0)
        }
        return result
    }

    /// The events of one request, in seq order; empty when unknown or dropped.
    public func events(request: Int) -> [TimelineEvent] {
        let (view, seqs) = state.withLock { ($0.view, $0.seqs(of: request)) }
        return seqs.compactMap { view.event(seq: $0) }
    }

    /// The events whose time lies in `window`, in seq order. Concurrent hops may publish
    /// slightly out of time order, so this scans rather than bisects.
    public func events(in window: ClosedRange<Double>) -> [TimelineEvent] {
        let view = state.withLock { $0.view }
        var result: [TimelineEvent] = []
        for chunk in view.chunks {
            for index in 0..<chunk.count where window.contains(chunk.time(at: index)) && !view.hidden.contains(chunk.request(at: index)) {
                result.append(chunk.event(at: index, sites: view.sites))
            }
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

/// What readers copy out of the lock: the chunks, the hop sites their events name and the
/// requests dropped but not yet compacted away.
private struct StoreView {
    var chunks: ChunkList
    var sites: [HopSite]
    var hidden: Set<Int>

    /// The events of `chunk` from position `first` on, without the hidden ones.
    func appendEvents(of chunk: TimelineChunk, from first: Int, to result: inout [TimelineEvent]) {
        for index in first..<chunk.count where hidden.isEmpty || !hidden.contains(chunk.request(at: index)) {
            result.append(chunk.event(at: index, sites: sites))
        }
    }

    /// Where the first event with a seq above `seq` is; chunks are in seq order, and so is
    /// every chunk.
    func firstPosition(after seq: Int) -> (chunk: Int, offset: Int) {
        var low = 0, high = chunks.count
        while low < high {
            let middle = (low + high) / 2
            if chunks[middle].lastSeq <= seq { low = middle + 1 } else { high = middle }
        }
        guard low < chunks.count else { return (low, 0) }
        return (low, chunks[low].firstIndex(after: seq))
    }

    func event(seq: Int) -> TimelineEvent? {
        let position = firstPosition(after: seq - 1)
        guard position.chunk < chunks.count else { return nil }
        let chunk = chunks[position.chunk]
        guard chunk.seq(at: position.offset) == seq, !hidden.contains(chunk.request(at: position.offset)) else { return nil }
        return chunk.event(at: position.offset, sites: sites)
    }
}

/// The store's chunks as a reader sees them: the full ones, then the one being filled. Two
/// references to what the store holds, so taking a view copies no chunk.
private struct ChunkList: RandomAccessCollection {
    let full: [TimelineChunk]
    let open: TimelineChunk?

    var startIndex: Int { 0 }
    var endIndex: Int { open == nil ? full.count : full.count + 1 }
    subscript(position: Int) -> TimelineChunk { position < full.count ? full[position] : open! }
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

    init(first: Int, count: Int) {
        firstRun = Run(first: first, count: count)
        eventCount = count
    }

    /// What an index slot without a record holds.
    static let none = RequestRecord()

    private init() {
        firstRun = Run(first: 0, count: 0)
    }

    var exists: Bool { eventCount > 0 }

    /// Adds the seqs `first..<first + count`, all above the record's.
    mutating func append(first: Int, count: Int) {
        eventCount += count
        if moreRuns.isEmpty {
            if firstRun.first + firstRun.count == first { firstRun.count += count } else { moreRuns.append(Run(first: first, count: count)) }
        } else if moreRuns[moreRuns.count - 1].first + moreRuns[moreRuns.count - 1].count == first {
            moreRuns[moreRuns.count - 1].count += count
        } else {
            moreRuns.append(Run(first: first, count: count))
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
/// a dictionary. A dense slot without a record holds ``RequestRecord/none`` rather than nil,
/// so an append changes its record in place (through an optional it is copied out and back).
private struct RequestIndex {
    static let denseLimit = 1 << 20
    private var dense: [RequestRecord] = []
    private var sparse: [Int: RequestRecord] = [:]

    subscript(request: Int) -> RequestRecord? {
        get { isDense(request) ? (request < dense.count && dense[request].exists ? dense[request] : nil) : sparse[request] }
        set {
            if isDense(request) {
                if request >= dense.count { dense.append(contentsOf: repeatElement(.none, count: request - dense.count + 1)) }
                dense[request] = newValue ?? .none
            } else {
                sparse[request] = newValue
            }
        }
    }

    /// Adds the seqs `first..<first + count` to the request's record, creating the record at
    /// its first events.
    mutating func append(first: Int, count: Int, to request: Int) {
        if isDense(request), request < dense.count {
            if dense[request].exists {
                dense[request].append(first: first, count: count)
            } else {
                dense[request] = RequestRecord(first: first, count: count)
            }
        } else if isDense(request) {
            // Ids come in order, so the new id is mostly the next slot: one append, not a
            // repeated sequence of empty records.
            if request > dense.count { dense.append(contentsOf: repeatElement(.none, count: request - dense.count)) }
            dense.append(RequestRecord(first: first, count: count))
        } else if sparse[request] != nil {
            sparse[request]!.append(first: first, count: count)
        } else {
            sparse[request] = RequestRecord(first: first, count: count)
        }
    }

    /// Marks the request's record finished, in place (reading it out and back would copy,
    /// and retain, its runs); returns its first seq, or nil when it has no record or was
    /// already finished.
    mutating func markFinished(_ request: Int) -> Int? {
        if isDense(request) {
            guard request < dense.count, dense[request].exists, !dense[request].isFinished else { return nil }
            dense[request].isFinished = true
            return dense[request].firstSeq
        }
        guard let record = sparse[request], !record.isFinished else { return nil }
        sparse[request]!.isFinished = true
        return record.firstSeq
    }

    private func isDense(_ request: Int) -> Bool { request >= 0 && request < RequestIndex.denseLimit }
}

private struct State {
    /// The chunks before ``open``, in seq order.
    var chunks: [TimelineChunk] = []
    /// The chunk events are appended to, after ``chunks``; nil before the first event. Kept
    /// apart from the list, an append changes it in place without asking whether the list's
    /// storage is shared (a reader's view shares it).
    var open: TimelineChunk?
    var sites = HopSites()
    var snapshots = SnapshotSharing()
    /// Events physically in `chunks`, hidden ones included.
    var storedCount = 0
    var lastSeq = 0
    /// Requests with events held; a dropped request's record is gone. Read them only after
    /// ``settleRequests()``.
    private var requests = RequestIndex()
    /// The newest events' request and seqs, not yet in `requests`: a request's events mostly
    /// follow one another, so most appends only count here, and the run joins the record when
    /// another request's event comes or the records are read.
    private var newestRun = (request: 0, first: 0, count: 0)
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
    var view: StoreView { StoreView(chunks: ChunkList(full: chunks, open: open), sites: sites.all, hidden: hidden) }

    mutating func append(
        time: Double, request request32: Int32, attempt: Int32, hop: Int32, name: String, kind: HopKind, phase: Phase,
        snapshot: consuming HopSnapshot, diff: HeaderDiff, detail: String?, lane: Lane? = nil, cap: Int?
    ) -> Int {
        let site = sites.id(name: name, kind: kind, hop: hop)
        return append(
            time: time, request: request32, attempt: attempt, site: site, phase: phase, snapshot: snapshot, diff: diff, detail: detail,
            lane: lane, cap: cap)
    }

    /// Appends an event of the site with this id in ``sites``.
    mutating func append(
        time: Double, request request32: Int32, attempt: Int32, site: UInt32, phase: Phase,
        snapshot: consuming HopSnapshot, diff: HeaderDiff, detail: String?, lane: Lane? = nil, cap: Int?
    ) -> Int {
        let request = Int(request32)
        // A late event of a dropped request must not be hidden with the old ones.
        if !hidden.isEmpty, hidden.contains(request) { compact() }
        lastSeq += 1
        let seq = lastSeq
        if open == nil || !TimelineChunk.canAppend(seq: seq, firstSeq: open!.firstSeq, count: open!.count) {
            if let full = open.take() { chunks.append(full) }
            open = TimelineChunk(firstSeq: seq)
        }
        open!.append(
            seq: seq, time: time, request: request32, site: site, attempt: attempt, phase: phase,
            snapshot: snapshots.shared(snapshot), diff: diff, detail: detail, lane: lane)
        storedCount += 1
        if newestRun.count > 0, newestRun.request == request, newestRun.first + newestRun.count == seq {
            newestRun.count += 1
        } else {
            settleRequests()
            newestRun = (request, seq, 1)
        }
        if let cap, liveCount > cap { enforce(cap) }
        // Yielding under the lock keeps the values each stream sees in seq order.
        if !watchers.isEmpty { tellWatchers(seq) }
        return seq
    }

    /// Hands `seq` to every watcher. Out of line: inlined, the append would look up the
    /// continuation's generic types and make room for them on every event, watched or not.
    @inline(never)
    private func tellWatchers(_ seq: Int) {
        for continuation in watchers.values { continuation.yield(seq) }
    }

    /// Adds the newest run of seqs to its request's record.
    mutating func settleRequests() {
        guard newestRun.count > 0 else { return }
        requests.append(first: newestRun.first, count: newestRun.count, to: newestRun.request)
        newestRun.count = 0
    }

    /// The seqs of `request`'s events held, in order.
    mutating func seqs(of request: Int) -> [Int] {
        settleRequests()
        return requests[request]?.seqs ?? []
    }

    mutating func markFinished(_ request: Int, cap: Int) {
        settleRequests()
        guard let firstSeq = requests.markFinished(request) else { return }
        finished.insert(firstSeq: firstSeq, request: request)
        if liveCount > cap { enforce(cap) }
    }

    private mutating func enforce(_ cap: Int) {
        settleRequests()
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
        var kept: [TimelineChunk] = []
        var chunk: TimelineChunk?
        for old in ChunkList(full: chunks, open: open) {
            for index in 0..<old.count where !hidden.contains(old.request(at: index)) {
                if let full = chunk, !TimelineChunk.canAppend(seq: old.seq(at: index), firstSeq: full.firstSeq, count: full.count) {
                    kept.append(full)
                    chunk = nil
                }
                if chunk == nil { chunk = TimelineChunk(firstSeq: old.seq(at: index)) }
                chunk!.append(index, of: old)
            }
        }
        chunks = kept
        open = chunk
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
