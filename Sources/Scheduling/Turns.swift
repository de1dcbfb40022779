import Stops
import Timeline

/// Who waits at a stop, and in which order those not held take their turns.
///
/// ```
///  park ─▶ held ─────────────────────────────▶ (a command releases it)
///       ─▶ ready (round robin) ───────────────▶ nextTurn()
///       ─▶ woken (arrived together) ─ key order ─▶ ready
///       ─▶ partReads (next part of an answer) ─▶ only when nothing else can go
/// ```
///
/// A lane that moved goes to the back when it stops again. Lanes that arrived in whatever
/// order the threads ran — back from waiting on a shared refresh, or a forked request's two
/// lanes — join the round in key order at the next turn. A network lane waiting at its
/// ``StopPlace/wake`` stop to read the next part of a multipart answer goes last: reading it
/// moves the lab clock on to when that part arrives, so the result it handed on climbs to the
/// caller first, as upstream, where the next part is still on the wire meanwhile.
///
/// `Waiter` is what lets a parked operation go (see ``SchedulerCore``).
struct Turns<Waiter> {
    struct Parked {
        var stop: ParkedStop
        var waiter: Waiter
    }

    private(set) var parked: [LaneKey: Parked] = [:]
    private var ready: [LaneKey] = []
    private var readyStart = 0
    private var woken: Set<LaneKey> = []
    private var partReads: Set<LaneKey> = []
    /// `paused` events of a forked request's held stops, kept back until nothing runs: its two
    /// lanes reach their stops in whatever order the threads run, and are recorded in key order.
    private var heldBackPauses: [(key: LaneKey, event: TimelineEvent)] = []

    /// Whether a lane waits for its turn (other than a part read).
    var hasReady: Bool {
        @inline(__always) get { readyStart < ready.count || !woken.isEmpty }
    }

    /// Whether nobody is parked and no pause is held back.
    var isEmpty: Bool {
        @inline(__always) get { heldBackPauses.isEmpty && !hasReady && parked.isEmpty }
    }

    /// The stops waiting now, by request id, the cache lane first.
    var stops: [ParkedStop] {
        parked.sorted { $0.key < $1.key }.map(\.value.stop)
    }

    subscript(key: LaneKey) -> Parked? { parked[key] }

    /// `stop` waits for `waiter` to be let go. `forked`: its request has two lanes, so its turn
    /// is taken in key order with the other lane's. `paused`: its held stop's event, held back.
    mutating func park(_ stop: ParkedStop, waiter: Waiter, forked: Bool, paused: TimelineEvent?) {
        let key = stop.laneKey
        if let paused { heldBackPauses.append((key, paused)) }
        parked[key] = Parked(stop: stop, waiter: waiter)
        if stop.place == .wake {
            if key.lane == .network { partReads.insert(key) } else { woken.insert(key) }
        } else if !stop.held && forked {
            woken.insert(key)
        } else if !stop.held {
            ready.append(key)
        }
    }

    /// Changes the stop `key` waits at, if it waits: an edit made while held.
    mutating func change(_ key: LaneKey, _ body: (inout ParkedStop) -> Void) {
        guard var waiting = parked[key] else { return }
        body(&waiting.stop)
        parked[key] = waiting
    }

    /// `key` leaves its stop; `popped`: it was already taken from the turns (``nextTurn()``).
    mutating func leave(_ key: LaneKey, popped: Bool) {
        guard let waiting = parked.removeValue(forKey: key) else { return }
        if !waiting.stop.held && !popped { removeFromTurns(key) }
    }

    /// The held pauses, in key order; they are then forgotten.
    mutating func takeHeldBackPauses() -> [TimelineEvent] {
        guard !heldBackPauses.isEmpty else { return [] }
        defer { heldBackPauses.removeAll() }
        return heldBackPauses.sorted { $0.key < $1.key }.map(\.event)
    }

    /// Whose turn it is: the next lane in the round, after those that arrived together join
    /// it in key order. Nil when none waits (part reads aside).
    mutating func nextTurn() -> LaneKey? {
        if !woken.isEmpty {
            ready.append(contentsOf: woken.sorted())
            woken.removeAll()
        }
        guard readyStart < ready.count else { return nil }
        let key = ready[readyStart]
        readyStart += 1
        if readyStart > 1024, readyStart * 2 > ready.count {
            ready.removeFirst(readyStart)
            readyStart = 0
        }
        return key
    }

    /// The network lane, lowest key first, that reads the next part of its answer; nil when none waits.
    mutating func nextPartRead() -> LaneKey? {
        guard let read = partReads.min() else { return nil }
        partReads.remove(read)
        return read
    }

    /// Every held stop stops being held and takes its turn, in key order; returns their lanes.
    mutating func releaseHeld() -> [LaneKey] {
        let held = parked.keys.sorted().filter { parked[$0]?.stop.held == true }
        for key in held {
            parked[key]?.stop.held = false
            ready.append(key)
        }
        return held
    }

    /// Everybody leaves at once, in key order, and nobody takes turns. Pauses held back stay,
    /// to be recorded.
    mutating func leaveAll() -> [(key: LaneKey, parked: Parked)] {
        let all = parked.sorted { $0.key < $1.key }.map { (key: $0.key, parked: $0.value) }
        parked.removeAll()
        ready.removeAll()
        readyStart = 0
        woken.removeAll()
        partReads.removeAll()
        return all
    }

    private mutating func removeFromTurns(_ key: LaneKey) {
        if woken.remove(key) != nil || partReads.remove(key) != nil { return }
        if let index = ready[readyStart...].firstIndex(of: key) { ready.remove(at: index) }
    }
}
