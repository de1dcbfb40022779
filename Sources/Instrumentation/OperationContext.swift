package import Stops
import ChainKit
import Synchronization
import Foundation
package import Timeline

/// Thrown when an operation makes more attempts than the lab allows, which only happens when
/// nothing in the chain limits retries (no `MaxRetryInterceptor`, or one placed too low).
public struct LabSafetyCapError: Error, Sendable, Hashable, CustomStringConvertible {
    public let attempts: Int
    public var description: String {
        "the lab stopped the operation after \(attempts) attempts (safety cap): nothing in the chain limited its retries"
    }
}

/// Everything the instrumentation of one operation shares: who it is, which attempt it is
/// on, where events go, and the gate at its stops.
public final class OperationContext: Sendable {
    /// What the operations of one session share, made once for the session: the gate,
    /// where events go and the clock they read, the snapshot cache and the hop layouts. A
    /// context is made and dropped for every operation; holding these as one reference, it
    /// retains and releases one object instead of each of them.
    public final class Shared: Sendable {
        /// Who decides at every stop: the lab's scheduler.
        let scheduler: any StopGate
        /// The scheduler's ``StopGate/soloLane``, read at every stop: held here, it is read in
        /// place, with no call through the protocol.
        let soloLane: SoloLane
        // Where events go: `store`, or `recordClosure` when there is no store. Two constants
        // rather than an enum, so recording an event does not copy (and retain) a payload.
        /// Owns the store; events reach it through ``storeReference``.
        let store: TimelineStore?
        let storeReference: UnretainedReference<TimelineStore>?
        let recordClosure: (@Sendable (TimelineEvent) -> Void)?
        /// Where events read the time: read it through ``seconds``.
        private let clock: EventClock
        /// The last snapshots published, shared by the session's operations.
        package let snapshots: SnapshotCache
        /// The hop layouts of the session's chains.
        let layouts: HopLayouts

        /// The time an event happens at. Read here, the clock is read in place; read from
        /// outside, `shared.clock` would be copied first (its references retained) for every event.
        package var seconds: Double {
            @inline(__always) get { clock.seconds }
        }

        /// Events go to `store`.
        package init(scheduler: any StopGate, store: TimelineStore, snapshots: SnapshotCache = SnapshotCache(), layouts: HopLayouts = HopLayouts(), clock: EventClock) {
            self.scheduler = scheduler
            self.soloLane = scheduler.soloLane
            self.store = store
            self.storeReference = UnretainedReference(store)
            self.recordClosure = nil
            self.snapshots = snapshots
            self.layouts = layouts
            self.clock = clock
        }

        /// Events go to `record`.
        package init(
            scheduler: any StopGate, record: @escaping @Sendable (TimelineEvent) -> Void, snapshots: SnapshotCache = SnapshotCache(),
            layouts: HopLayouts = HopLayouts(), clock: EventClock
        ) {
            self.scheduler = scheduler
            self.soloLane = scheduler.soloLane
            self.store = nil
            self.storeReference = nil
            self.recordClosure = record
            self.snapshots = snapshots
            self.layouts = layouts
            self.clock = clock
        }
    }

    public let request: Int
    public let safetyCap: Int
    let shared: Shared
    /// The last snapshots published, shared with the session's other operations: ``Shared``'s,
    /// held here too because the hops read it for nearly every event, and read through
    /// ``shared`` from outside the context it would be retained and released each time.
    package let snapshots: SnapshotCache
    private let attemptCount = Atomic<Int>(0)
    /// The first hop of the network lane while a CacheAndNetwork fetch overlaps the cached
    /// result's way up (``Lane``); `Int.max` while the operation has one lane.
    private let networkLaneFrom = Atomic<Int>(Int.max)
    /// What few operations need, behind one lock: one field of a concrete type, where two
    /// locked fields of generic types were destroyed through their metadata at the end of
    /// every operation.
    private let rare = Mutex(Rare())

    private struct Rare {
        /// Hops (by index) that threw a retry a person forced at their pre-flight stop, not
        /// yet reported by the hop above.
        var forcedRetries: Set<Int> = []
        /// Who waits for the network lane to end; nil while none runs.
        var networkLaneWaiters: [CheckedContinuation<Void, Never>]?
    }

    /// A context for request `request` of a session that shares `shared`.
    public init(request: Int, safetyCap: Int, shared: Shared) {
        self.request = request
        self.safetyCap = safetyCap
        self.shared = shared
        self.snapshots = shared.snapshots
    }

    /// A context whose events go to `store`, sharing nothing with other operations unless
    /// `snapshots` and `layouts` are handed in.
    package convenience init(
        request: Int, scheduler: any StopGate, safetyCap: Int, store: TimelineStore, snapshots: SnapshotCache = SnapshotCache(),
        layouts: HopLayouts = HopLayouts(), clock: EventClock
    ) {
        self.init(request: request, safetyCap: safetyCap, shared: Shared(scheduler: scheduler, store: store, snapshots: snapshots, layouts: layouts, clock: clock))
    }

    /// A context whose events go to `record`.
    package convenience init(
        request: Int, scheduler: any StopGate, safetyCap: Int, record: @escaping @Sendable (TimelineEvent) -> Void,
        snapshots: SnapshotCache = SnapshotCache(), layouts: HopLayouts = HopLayouts(), clock: EventClock
    ) {
        self.init(request: request, safetyCap: safetyCap, shared: Shared(scheduler: scheduler, record: record, snapshots: snapshots, layouts: layouts, clock: clock))
    }

    // Read through ``shared``: in place within the context, retained and released when read
    // from outside it (fine for what is read once an operation; see ``snapshots``).
    package var scheduler: any StopGate { shared.scheduler }
    /// The hop layouts of the session's chains.
    var layouts: HopLayouts { shared.layouts }
    private var storeReference: UnretainedReference<TimelineStore>? { @inline(__always) get { shared.storeReference } }

    /// Whether the operation would pass its next stop straight through: it runs alone in a
    /// free run (``StopGate/soloLane``).
    var passesStraight: Bool { shared.soloLane.passesStraight(request: request) }

    /// The attempt in progress, from 1.
    public var attempt: Int { attemptCount.load(ordering: .relaxed) }

    /// Starts the next attempt; fails past the safety cap.
    func beginAttempt() throws -> Int {
        let attempt = attemptCount.wrappingAdd(1, ordering: .relaxed).newValue
        guard attempt <= safetyCap else { throw LabSafetyCapError(attempts: attempt - 1) }
        return attempt
    }

    /// Leaves a note that `hop` threw a retry a person forced at its pre-flight stop, for the
    /// hop above, which reports it.
    func noteForcedRetry(at hop: HopInfo) {
        rare.withLock { _ = $0.forcedRetries.insert(hop.index) }
    }

    /// The detail of a retry `hop` threw: set when a person forced it at the pre-flight stop.
    func takeForcedRetryNote(at hop: HopInfo) -> String? {
        rare.withLock { $0.forcedRetries.remove(hop.index) } == nil
            ? nil : "forced retry from pre-flight"
    }

    /// Records an event of this operation at `hop`. The snapshot, diff and detail are taken
    /// over (moved into the event, not copied: a copy is a retain and a release).
    func emit(_ hop: borrowing HopInfo, _ phase: Phase, _ snapshot: consuming HopSnapshot = .empty, diff: consuming HeaderDiff = .none, detail: consuming String? = nil) {
        if let storeReference {
            append(to: storeReference, site: hop.site, hop: hop.index, phase: phase, snapshot: snapshot, diff: diff, detail: detail)
        } else {
            record(
                time: shared.seconds, hop: hop.index, name: hop.name, kind: hop.kind,
                phase: phase, snapshot: snapshot, diff: diff, detail: detail, lane: lane(ofHop: hop.index))
        }
    }

    /// ``emit(_:_:_:diff:detail:)`` for `hops[index]`. Only the hop's number and site are read
    /// for the store (a hop read whole from an array is copied, its name retained and released).
    func emit(_ hops: [HopInfo], _ index: Int, _ phase: Phase, _ snapshot: consuming HopSnapshot = .empty, diff: consuming HeaderDiff = .none, detail: consuming String? = nil) {
        if let storeReference {
            append(to: storeReference, site: hops[index].site, hop: hops[index].index, phase: phase, snapshot: snapshot, diff: diff, detail: detail)
        } else {
            emit(hops[index], phase, snapshot, diff: diff, detail: detail)
        }
    }

    /// Appends an event of the hop numbered `hop` to the store, which is told the hop's site by
    /// its number: the name is neither read nor copied.
    @inline(__always)
    private func append(
        to store: UnretainedReference<TimelineStore>, site: HopSiteKey, hop: Int, phase: Phase, snapshot: consuming HopSnapshot, diff: consuming HeaderDiff,
        detail: consuming String?
    ) {
        let time = shared.seconds
        // Moved into the closure through an optional: a closure cannot consume what it captures.
        var pending = Optional(snapshot)
        store.read { store in
            _ = store.append(
                time: time, request: request, attempt: attempt, site: site, phase: phase,
                snapshot: pending.take()!, diff: diff, detail: detail, lane: lane(ofHop: hop))
        }
    }

    /// Records an event of this operation that belongs to no hop: the token manager's.
    package func emitTokenEvent(_ phase: Phase, _ snapshot: consuming HopSnapshot = .empty, detail: consuming String? = nil) {
        record(
            time: shared.seconds, hop: TimelineEvent.noHop, name: "TokenManager", kind: .auth,
            phase: phase, snapshot: snapshot, diff: .none, detail: detail, lane: lane(ofHop: TimelineEvent.noHop))
    }

    // MARK: - Two lanes

    /// The lane of hop `index` (``TimelineEvent/noHop``: the operation's own task) while the
    /// operation has two; nil while it has one.
    @inline(__always)
    func lane(ofHop index: Int) -> Lane? {
        let from = networkLaneFrom.load(ordering: .relaxed)
        if from == Int.max { return nil }
        return index >= from ? .network : .cache
    }

    /// The network fetch starts overlapping, with hop `firstHop` and those below it in its lane.
    func forkNetworkLane(from firstHop: Int) {
        rare.withLock { $0.networkLaneWaiters = $0.networkLaneWaiters ?? [] }
        networkLaneFrom.store(firstHop, ordering: .relaxed)
        scheduler.fork(request: request)
    }

    /// The network lane hands a result or (`isEnd`) its end to the cache lane.
    func handOnFromNetworkLane(isEnd: Bool) {
        if isEnd { networkLaneFrom.store(Int.max, ordering: .relaxed) }
        scheduler.handOn(request: request, isEnd: isEnd)
        guard isEnd else { return }
        for waiter in rare.withLock({ rare in defer { rare.networkLaneWaiters = nil }; return rare.networkLaneWaiters ?? [] }) { waiter.resume() }
    }

    /// Returns once no network lane runs: the operation has ended only when both lanes have.
    package func networkLaneEnded() async {
        // Most operations never fork: no continuation for them.
        guard rare.withLock({ $0.networkLaneWaiters != nil }) else { return }
        await withCheckedContinuation { continuation in
            let running = rare.withLock { rare -> Bool in
                guard rare.networkLaneWaiters != nil else { return false }
                rare.networkLaneWaiters!.append(continuation)
                return true
            }
            if !running { continuation.resume() }
        }
    }

    /// Records `error` as an `error` event of `hop` and returns it, to be thrown:
    /// `throw context.reported(error: fault, at: hop)`.
    func reported(error: any Error, at hop: HopInfo) -> any Error {
        emit(hop, .error, HopSnapshot(error: error))
        return error
    }

    /// What `body` returns; what it throws is recorded as an `error` event of `hop` first.
    func reporting<T>(at hop: HopInfo, _ body: () throws -> T) throws -> T {
        do { return try body() } catch { throw reported(error: error, at: hop) }
    }

    /// What `body` returns; what it throws is recorded as an `error` event of `hop` first.
    func reporting<T>(at hop: HopInfo, _ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch { throw reported(error: error, at: hop) }
    }

    /// Records a line a logging layer wrote, as a `log` event of that layer.
    package func log(name: String, line: String) {
        record(
            time: shared.seconds, hop: TimelineEvent.noHop, name: name, kind: name.hasSuffix("Middleware") ? .middleware : .graphql,
            phase: .log, snapshot: .empty, diff: .none, detail: line)
    }

    private func record(
        time: Double, hop: Int, name: borrowing String, kind: HopKind, phase: Phase, snapshot: consuming HopSnapshot,
        diff: consuming HeaderDiff, detail: consuming String?, lane: Lane? = nil
    ) {
        // The name is only read (the store copies it once per hop site): borrowed, not copied,
        // it costs no retain and release per event.
        if let storeReference {
            // Moved into the closure through an optional: a closure cannot consume what it captures.
            var pending = Optional(snapshot)
            storeReference.read { store in
                _ = store.append(
                    time: time, request: request, attempt: attempt, hop: hop, name: name, kind: kind, phase: phase,
                    snapshot: pending.take()!, diff: diff, detail: detail, lane: lane)
            }
        } else if let recordClosure = shared.recordClosure {
            recordClosure(TimelineEvent(
                time: time, request: request, attempt: attempt, hop: hop, name: copy name, kind: kind, phase: phase,
                snapshot: snapshot, diff: diff, detail: detail, lane: lane))
        }
    }

    /// Waits at a stop of `hop` until the scheduler lets the operation go. `snapshot` and
    /// `capabilities` are evaluated only when the operation waits there (held, or waiting its
    /// turn), not when it passes straight through.
    ///
    /// Where the stop is on every operation's way, test ``passesStraight`` in line instead:
    /// `passesStraight ? .proceed : await wait(…)`, so the task awaits only when it may wait
    /// (docs/performance.md, `middleware.instrumented.*`).
    @inline(__always)
    func gate(_ hop: HopInfo, _ position: StopPosition, _ snapshot: @autoclosure () -> HopSnapshot, _ capabilities: @autoclosure () -> StopCapabilities) async -> Release {
        if passesStraight { return .proceed }
        return await wait(hop, position, snapshot(), capabilities())
    }

    /// The slow side of ``gate(_:_:_:_:)``: the operation may have to wait.
    @inline(never)
    func wait(_ hop: HopInfo, _ position: StopPosition, _ snapshot: @autoclosure () -> HopSnapshot, _ capabilities: @autoclosure () -> StopCapabilities) async -> Release {
        let place = StopPlace.hop(hop.index, position)
        let lane = lane(ofHop: hop.index)
        return await scheduler.arrive(request: request, lane: lane ?? .cache, place: place) {
            ParkedStop(
                request: request, lane: lane, attempt: attempt, place: place, hopName: hop.name, hopKind: hop.kind,
                snapshot: snapshot(), capabilities: capabilities(), held: false)
        }
    }

    /// Waits at a stop that belongs to no hop (launch, refresh, wake); `snapshot` and
    /// `capabilities` are evaluated only when the operation waits there.
    package func gate(
        _ place: StopPlace, name: String, kind: HopKind, snapshot: @autoclosure () -> HopSnapshot = .empty,
        capabilities: @autoclosure () -> StopCapabilities = .none
    ) async -> Release {
        let lane = lane(ofHop: TimelineEvent.noHop)
        return await scheduler.arrive(request: request, lane: .cache, place: place) {
            ParkedStop(
                request: request, lane: lane, attempt: attempt, place: place, hopName: name, hopKind: kind,
                snapshot: snapshot(), capabilities: capabilities(), held: false)
        }
    }
}

