import Synchronization

/// How ``TimelineStore`` keeps its events: `store.bytes_per_event`'s layout.
///
/// A ``TimelineEvent`` is 80 bytes, and most of them repeat from one event to the next: the
/// hop's name (16), the detail (16), the diff (8), the seq (8). The store keeps each event as
/// a 32-byte ``PackedEvent`` instead, with the repeated parts kept once:
///
/// - the hop's name, kind and index are one ``HopSite``, kept once per store and named by a
///   32-bit id;
/// - details, header diffs and attempts past 65,534 are an ``EventExtra``, kept once per chunk
///   among the last few alike (most events have none: id 0);
/// - seqs are a chunk's first seq plus the position, until the cap drops events from the
///   middle of a chunk (then each event keeps its offset, 4 bytes);
/// - equal heads seen one after the other and bare statuses (`200` with nothing else) share
///   one ``HopSnapshot`` (``SnapshotSharing``).
///
/// Reading an event back builds the same ``TimelineEvent`` that was appended (with the seq the
/// store gave it): `TimelineStoreTests` pins the round trip for every field and kind.
struct PackedEvent {
    /// What ``attempt`` holds when the attempt is kept in the event's extra instead.
    static let attemptInExtra = UInt16.max

    var time: Double
    var snapshot: HopSnapshot
    var request: Int32
    /// The hop's name, kind and index: an id in the store's ``HopSites``.
    var site: UInt32
    /// 0 when the event has no detail, no header change and an attempt that fits ``attempt``;
    /// else the position + 1 of its ``EventExtra`` in the chunk.
    var extra: UInt32
    var attempt: UInt16
    var phase: Phase
}

/// The hop an event belongs to, as the store keeps it once.
struct HopSite: Hashable {
    let name: String
    let kind: HopKind
    let hop: Int32
}

/// A hop site (its name, kind and index) known to the process by a number, worked out once
/// where the hop is laid out: a store finds its own id for the site by that number, without
/// reading or comparing the name of the hop for each event.
///
/// The numbers are the process's: every distinct site gets one the first time it is named,
/// and keeps it. Sites are few (a chain's layers), so the table stays small.
public struct HopSiteKey: Sendable, Hashable {
    let value: UInt32

    /// The number of the site with this name, kind and hop index.
    public init(name: String, kind: HopKind, hop: Int) {
        let site = HopSite(name: name, kind: kind, hop: Int32(truncatingIfNeeded: hop))
        value = hopSiteRegistry.withLock { registry in
            if let known = registry.keys[site] { return known }
            let key = UInt32(registry.sites.count)
            registry.sites.append(site)
            registry.keys[site] = key
            return key
        }
    }

    /// The site this number stands for.
    var site: HopSite { hopSiteRegistry.withLock { $0.sites[Int(value)] } }
}

/// Every site numbered in this process, by number and by site.
private let hopSiteRegistry = Mutex<(sites: [HopSite], keys: [HopSite: UInt32])>(([], [:]))

/// The store's hop sites, each kept once and named by its position in ``all``.
///
/// A hop's events follow one another closely, so a site is found in a small table indexed by
/// its hop index (GraphQL and middleware hops apart), comparing the name (the same string
/// object, so a comparison of two words), before any hashing.
struct HopSites {
    private(set) var all: [HopSite] = []
    private var ids: [HopSite: UInt32] = [:]
    private var recent = [Recent](repeating: Recent(id: HopSites.noSite, hop: 0, kind: .graphql), count: HopSites.recentSlots)
    /// The id of each site known by its number (``HopSiteKey``), ``noSite`` where not known yet.
    private var byKey: [UInt32] = []

    private static let noSite = UInt32.max
    private static let recentSlots = 128

    /// A site found lately, with what tells it apart in plain words: reading it retains
    /// nothing.
    private struct Recent {
        var id: UInt32
        var hop: Int32
        var kind: HopKind
    }

    mutating func id(name: String, kind: HopKind, hop: Int32) -> UInt32 {
        let slot = Int(UInt32(bitPattern: hop &+ 1) & 63) | (kind == .middleware ? 64 : 0)
        let recent = self.recent[slot]
        guard recent.id != HopSites.noSite, recent.hop == hop, recent.kind == kind else {
            return lookUp(name: name, kind: kind, hop: hop, slot: slot)
        }
        // Compared in place: `String`'s `==` tells the same string without reading it.
        if all.withUnsafeBufferPointer({ $0[Int(recent.id)].name == name }) { return recent.id }
        return lookUp(name: name, kind: kind, hop: hop, slot: slot)
    }

    /// The id of the site `key` stands for.
    mutating func id(key: HopSiteKey) -> UInt32 {
        let index = Int(key.value)
        if index < byKey.count, byKey[index] != HopSites.noSite { return byKey[index] }
        return lookUp(key: key)
    }

    @inline(never)
    private mutating func lookUp(key: HopSiteKey) -> UInt32 {
        let site = key.site
        let id = id(name: site.name, kind: site.kind, hop: site.hop)
        let index = Int(key.value)
        if index >= byKey.count { byKey.append(contentsOf: repeatElement(HopSites.noSite, count: index - byKey.count + 1)) }
        byKey[index] = id
        return id
    }

    @inline(never)
    private mutating func lookUp(name: String, kind: HopKind, hop: Int32, slot: Int) -> UInt32 {
        let site = HopSite(name: name, kind: kind, hop: hop)
        let id: UInt32
        if let known = ids[site] {
            id = known
        } else {
            id = UInt32(all.count)
            all.append(site)
            ids[site] = id
        }
        recent[slot] = Recent(id: id, hop: hop, kind: kind)
        return id
    }
}

/// What few events carry: a detail, a header diff, an attempt too large for 16 bits, a lane.
struct EventExtra {
    var detail: String?
    var diff: HeaderDiff
    /// The attempt when the event's ``PackedEvent/attempt`` is ``PackedEvent/attemptInExtra``; else 0.
    var attempt: Int32
    /// The lane of an event of a request with two (only while a CacheAndNetwork fetch overlaps).
    var lane: Lane? = nil

    func isSame(detail: String?, diff: HeaderDiff, attempt: Int32, lane: Lane?) -> Bool {
        // The lengths first: different details are told apart without comparing them.
        self.attempt == attempt && self.lane == lane && self.detail?.utf8.count == detail?.utf8.count && self.detail == detail
            && self.diff.isSame(as: diff)
    }
}

/// A chunk's packed events, in one allocation of ``TimelineChunk/capacity``: the events
/// `0..<header` are initialised, and only the chunk at the end of them appends.
///
/// Append-only, written past what any reader holds: a reader's copy of a chunk (taken under
/// the store's lock) reads the events below its own count, and the store appends above it,
/// so the two never touch the same event and nothing is copied when a reader holds the chunk
/// (an array would be, whole, on the next append). The store's lock orders each event's
/// writing before any copy that counts it is made.
final class PackedEventStorage: ManagedBuffer<Int, PackedEvent> {
    static func make() -> PackedEventStorage {
        unsafeDowncast(PackedEventStorage.create(minimumCapacity: TimelineChunk.capacity) { _ in 0 }, to: PackedEventStorage.self)
    }

    deinit {
        _ = withUnsafeMutablePointers { count, events in events.deinitialize(count: count.pointee) }
    }
}

/// Up to ``capacity`` events in seq order, packed. A copy reads the events there were when it
/// was made; only the copy at the end of its storage's events can append (see
/// ``PackedEventStorage``).
struct TimelineChunk {
    /// Large enough that the chunk list stays short, small enough that a chunk's one
    /// allocation is not much more than the events it ends up holding.
    static let capacity = 4096
    /// How many of the newest extras a new one is compared with before it is kept as new.
    private static let extrasSearched = 8

    private(set) var firstSeq: Int
    private let storage: PackedEventStorage
    /// The events this copy reads: those its storage held when the copy was made.
    private(set) var count = 0
    private var extras: [EventExtra] = []
    /// Each event's seq minus ``firstSeq``; empty while the seqs follow one another from
    /// ``firstSeq``, as they do until the cap drops events.
    private var offsets: [UInt32] = []
    /// The newest extra that holds a detail and nothing else: its position + 1 and its detail.
    /// Most details repeat (a result's source at each hop it climbs): found without a search.
    private var newestDetailOnly: (position: UInt32, detail: String)?

    init(firstSeq: Int) {
        self.firstSeq = firstSeq
        storage = PackedEventStorage.make()
    }

    var lastSeq: Int { seq(at: count - 1) }

    /// The event at `index`, below ``count``.
    private subscript(index: Int) -> PackedEvent {
        precondition(index >= 0 && index < count, "event index out of range")
        return storage.withUnsafeMutablePointerToElements { $0[index] }
    }

    func seq(at index: Int) -> Int {
        offsets.isEmpty ? firstSeq + index : firstSeq + Int(offsets[index])
    }

    func request(at index: Int) -> Int { Int(self[index].request) }
    func time(at index: Int) -> Double { self[index].time }

    /// Whether an event with this seq (above ``lastSeq``) can go at the end of a chunk that
    /// starts at `firstSeq` and holds `count` events.
    static func canAppend(seq: Int, firstSeq: Int, count: Int) -> Bool {
        count < TimelineChunk.capacity && seq - firstSeq <= Int(UInt32.max)
    }

    /// The position of the first event with a seq above `seq` (``count`` when none).
    func firstIndex(after seq: Int) -> Int {
        if offsets.isEmpty { return min(max(seq - firstSeq + 1, 0), count) }
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            if firstSeq + Int(offsets[middle]) <= seq { low = middle + 1 } else { high = middle }
        }
        return low
    }

    mutating func append(
        seq: Int, time: Double, request: Int32, site: UInt32, attempt: Int32, phase: Phase,
        snapshot: consuming HopSnapshot, diff: HeaderDiff, detail: String?, lane: Lane? = nil
    ) {
        let offset = seq - firstSeq
        if offsets.isEmpty, offset != count {
            offsets.reserveCapacity(TimelineChunk.capacity)
            offsets.append(contentsOf: (0..<UInt32(count)))
        }
        if !offsets.isEmpty { offsets.append(UInt32(offset)) }
        let fits = attempt >= 0 && attempt < Int32(PackedEvent.attemptInExtra)
        let extra: UInt32
        if detail == nil && diff.isEmpty && fits && lane == nil {
            extra = 0
        } else if let newest = newestDetailOnly, diff.isEmpty, fits, lane == nil, detail == newest.detail {
            // The detail the newest detail-only extra holds.
            extra = newest.position
        } else {
            extra = self.extra(detail: detail, diff: diff, attempt: fits ? 0 : attempt, lane: lane)
        }
        let event = PackedEvent(
            time: time, snapshot: snapshot, request: request, site: site, extra: extra,
            attempt: fits ? UInt16(attempt) : PackedEvent.attemptInExtra, phase: phase)
        let count = self.count
        storage.withUnsafeMutablePointers { stored, events in
            // Only the copy at the end of the stored events appends: another would write over
            // events a reader may hold.
            precondition(stored.pointee == count && count < TimelineChunk.capacity, "appending to a stale or full chunk")
            (events + count).initialize(to: event)
            stored.pointee = count &+ 1
        }
        self.count = count &+ 1
    }

    /// The event at `index` of `other` (a chunk being compacted into this one), seq kept.
    mutating func append(_ index: Int, of other: TimelineChunk) {
        let event = other[index]
        let extra = event.extra == 0 ? nil : other.extras[Int(event.extra) - 1]
        append(
            seq: other.seq(at: index), time: event.time, request: event.request, site: event.site,
            attempt: event.attempt == PackedEvent.attemptInExtra ? extra!.attempt : Int32(event.attempt), phase: event.phase,
            snapshot: event.snapshot, diff: extra?.diff ?? .none, detail: extra?.detail, lane: extra?.lane)
    }

    /// The event at `index` as it was appended, with its seq; `sites` are the store's.
    func event(at index: Int, sites: [HopSite]) -> TimelineEvent {
        let event = self[index]
        let site = sites[Int(event.site)]
        var attempt = Int32(event.attempt), diff = HeaderDiff.none, detail: String? = nil, lane: Lane? = nil
        if event.extra != 0 {
            let extra = extras[Int(event.extra) - 1]
            if event.attempt == PackedEvent.attemptInExtra { attempt = extra.attempt }
            diff = extra.diff
            detail = extra.detail
            lane = extra.lane
        }
        return TimelineEvent(
            storedSeq: seq(at: index), time: event.time, name: site.name, snapshot: event.snapshot, diff: diff, detail: detail,
            request32: event.request, attempt32: attempt, hop32: site.hop, kind: site.kind, phase: event.phase, lane: lane)
    }

    /// The position + 1 of an extra equal to this one among the newest few, or of a new one.
    private mutating func extra(detail: String?, diff: HeaderDiff, attempt: Int32, lane: Lane?) -> UInt32 {
        // Compared in place: copying an extra out of the array would retain its detail and diff.
        let found = extras.withUnsafeBufferPointer { extras in
            var index = extras.count - 1
            while index >= max(0, extras.count - TimelineChunk.extrasSearched) {
                if extras[index].isSame(detail: detail, diff: diff, attempt: attempt, lane: lane) { return index + 1 }
                index -= 1
            }
            return 0
        }
        let position = found > 0 ? found : extras.count + 1
        if found == 0 { extras.append(EventExtra(detail: detail, diff: diff, attempt: attempt, lane: lane)) }
        if diff.isEmpty, attempt == 0, lane == nil, let detail = extras[position - 1].detail {
            newestDetailOnly = (UInt32(position), detail)
        }
        return UInt32(position)
    }
}

/// One snapshot for what several events saw alike, where telling costs next to nothing:
/// a bare status (a result seen only as `200`) is kept once per status, and a head equal to
/// the head appended just before it (the same method, URL, headers and status, no body) is
/// that one. Heads with a body or an error are kept as they come: bodies are never compared.
/// So is a snapshot whose maker already shares it (``HopSnapshot/isSharedByMaker``).
struct SnapshotSharing {
    private static let bareSlots = 8
    private var lastHead: HopSnapshot?
    /// The last head handed in, which ``lastHead`` stands for: the same message seen by the
    /// next hop (a request at the transport's send, a response at the hop above) comes as
    /// the same object and is answered without comparing heads again.
    private var lastIncomingHead: HopSnapshot?
    private var bare = [HopSnapshot?](repeating: nil, count: SnapshotSharing.bareSlots)

    /// The snapshot to keep for `snapshot`. Inlined into the store's append: a snapshot its
    /// maker shares costs one load, where the tests of ``sharedAlike(_:)`` would retain it as
    /// the last head (and release the one before), and the call would save and restore the
    /// append's registers.
    @inline(__always)
    mutating func shared(_ snapshot: consuming HopSnapshot) -> HopSnapshot {
        if snapshot.isSharedByMaker { return snapshot }
        return sharedAlike(snapshot)
    }

    @inline(never)
    private mutating func sharedAlike(_ snapshot: consuming HopSnapshot) -> HopSnapshot {
        // Each test borrows the kept snapshot in place; only a snapshot handed back is retained.
        if lastHead === snapshot { return snapshot }
        if lastIncomingHead === snapshot, let lastHead { return lastHead }
        if let status = snapshot.bareStatus {
            let slot = Int(UInt32(bitPattern: status)) & (SnapshotSharing.bareSlots - 1)
            switch bare.withUnsafeBufferPointer({ $0[slot] === snapshot ? 0 : $0[slot]?.bareStatus == status ? 1 : 2 }) {
            case 0: return snapshot
            case 1: return bare[slot]!
            default:
                bare[slot] = snapshot
                return snapshot
            }
        }
        lastIncomingHead = snapshot
        if lastHead?.isSameHead(as: snapshot) == true { return lastHead! }
        lastHead = snapshot
        return snapshot
    }
}
