import Stops
import Timeline

/// Where each lane is while it is not parked at a stop — running, blocked on a refresh another
/// request started, or waking — and a forked request's two-lane bookkeeping.
///
/// A request has one lane, ``Lane/cache``, until a CacheAndNetwork cache hit forks its network
/// fetch into a second (``fork(request:)``). The operation's task reads the network lane's
/// results through a buffer: its cache lane is *awaiting* while there is nothing to read, and
/// wakes once the network lane has handed something on (``handOn(request:isEnd:)``). A request
/// finishes when both lanes have.
struct Lanes: Sendable {
    /// The lanes between two stops.
    private(set) var running = RunningLanes()
    /// The lanes waiting for a refresh another request started.
    private(set) var blocked: Set<LaneKey> = []
    /// Lanes about to arrive at a ``StopPlace/wake`` stop: back from a refresh, or handed a
    /// network result to read.
    private(set) var waking: Set<LaneKey> = []
    /// Token refreshes between `refreshStarted` and `refreshEnded`.
    private var refreshesInFlight = 0
    /// Requests whose network fetch overlaps (a second live lane).
    private(set) var forked: Set<Int> = []
    /// Results (or ends) a request's network lane handed on that its cache lane has not read yet.
    private var handedOn: [Int: Int] = [:]
    /// Requests whose cache lane waits for the network lane to hand something on.
    private(set) var awaiting: Set<Int> = []
    /// Requests whose cache lane has read its last result while the network lane runs; it
    /// runs again, to finish, when the network lane ends.
    private var cacheLanesEnded: Set<Int> = []

    /// Whether a token refresh is between `refreshStarted` and `refreshEnded`.
    var refreshInFlight: Bool { refreshesInFlight > 0 }

    /// Whether no lane runs or is about to arrive at a stop.
    var isQuiescent: Bool {
        @inline(__always) get { running.isEmpty && waking.isEmpty }
    }

    /// `key` runs: launched, or let go from its stop.
    mutating func run(_ key: LaneKey) {
        running.insert(key)
    }

    /// `key` arrived at a stop.
    mutating func stop(_ key: LaneKey) {
        running.remove(key)
        waking.remove(key)
        blocked.remove(key)
    }

    /// `request` finished. Returns whether that ended its network lane.
    mutating func finish(request: Int) -> Bool {
        let key = LaneKey(request, .cache)
        running.remove(key)
        // Most often empty: skip hashing for nothing.
        if !waking.isEmpty { waking.remove(key) }
        if !blocked.isEmpty { blocked.remove(key) }
        if !cacheLanesEnded.isEmpty { cacheLanesEnded.remove(request) }
        let ended = !forked.isEmpty && endNetworkLane(of: request)
        if !handedOn.isEmpty { handedOn[request] = nil }
        if !awaiting.isEmpty { awaiting.remove(request) }
        return ended
    }

    /// `key` waits for a refresh another request started; a refresh that already ended wakes
    /// it at once.
    mutating func block(_ key: LaneKey) {
        running.remove(key)
        if refreshesInFlight > 0 { blocked.insert(key) } else { waking.insert(key) }
    }

    mutating func refreshStarted() {
        refreshesInFlight += 1
    }

    /// A refresh ended. Returns whether that woke the blocked lanes (the last refresh ended).
    mutating func refreshEnded() -> Bool {
        refreshesInFlight = max(0, refreshesInFlight - 1)
        guard refreshesInFlight == 0, !blocked.isEmpty else { return false }
        waking.formUnion(blocked)
        blocked.removeAll()
        return true
    }

    /// `request`'s cache lane (running) forks its network fetch: the network lane runs from now.
    mutating func fork(request: Int) {
        // A new lane: nothing an earlier one handed on is for its reader.
        if !handedOn.isEmpty { handedOn[request] = nil }
        forked.insert(request)
        running.insert(LaneKey(request, .network))
    }

    /// `request`'s network lane hands a result, or its end (`isEnd`), to the cache lane: a
    /// cache lane awaiting it wakes; otherwise it reads it later without waiting. Returns
    /// whether the network lane ended.
    mutating func handOn(request: Int, isEnd: Bool) -> Bool {
        if awaiting.remove(request) != nil {
            waking.insert(LaneKey(request, .cache))
        } else {
            handedOn[request, default: 0] += 1
        }
        return isEnd && endNetworkLane(of: request)
    }

    /// `request`'s cache lane (running) reads the network lane's next result: at once when one
    /// was handed on (it wakes), else it awaits one and stops running.
    mutating func readNetworkResult(request: Int) {
        let key = LaneKey(request, .cache)
        running.remove(key)
        if let count = handedOn[request], count > 0 {
            handedOn[request] = count == 1 ? nil : count - 1
            waking.insert(key)
        } else {
            awaiting.insert(request)
        }
    }

    /// `request`'s cache lane (running) has read its last result while its network lane still
    /// runs: it no longer runs until the network lane ends. Returns false, changing nothing,
    /// for a request with one lane.
    mutating func endCacheLane(request: Int) -> Bool {
        guard forked.contains(request) else { return false }
        running.remove(LaneKey(request, .cache))
        cacheLanesEnded.insert(request)
        return true
    }

    /// Returns false when `request` has one lane.
    private mutating func endNetworkLane(of request: Int) -> Bool {
        guard forked.remove(request) != nil else { return false }
        running.remove(LaneKey(request, .network))
        // The operation's task, waiting for the network lane, goes on to finish the request or
        // to start its next attempt (whose fork forgets what this lane handed on).
        if !cacheLanesEnded.isEmpty, cacheLanesEnded.remove(request) != nil { running.insert(LaneKey(request, .cache)) }
        return true
    }
}
