import ChainKit
import Synchronization
import Timeline

/// A scenario's watched query (``Scenario/Operation/watch``) once it has a result: as
/// upstream's `GraphQLQueryWatcher`, a write to the records that result read delivers the
/// query again, read from the cache. Each delivery is an event of the watched request, at the
/// time of the write that set it off and right after that write's own event, so a run stays
/// determined. A reload that misses is shown as one; the lab does not refetch it.
final class LabQueryWatcher: CacheStoreSubscriber {
    static let eventName = LabSession.watcherDeliveryEventName

    let request: Int
    let attempt: Int
    let operation: ChainOperation
    private let dependentKeys: Mutex<Set<String>>
    private let delivered: @Sendable (_ event: TimelineEvent, _ result: ChainResponse?) -> Void
    private let now: @Sendable () -> Double
    private let snapshot: @Sendable (ChainResponse) -> HopSnapshot

    init(
        request: Int, attempt: Int, operation: ChainOperation, dependentKeys: Set<String>, now: @escaping @Sendable () -> Double,
        snapshot: @escaping @Sendable (ChainResponse) -> HopSnapshot, delivered: @escaping @Sendable (TimelineEvent, ChainResponse?) -> Void
    ) {
        self.request = request
        self.attempt = attempt
        self.operation = operation
        self.dependentKeys = Mutex(dependentKeys)
        self.now = now
        self.snapshot = snapshot
        self.delivered = delivered
    }

    func store(_ store: CacheStore, didChangeKeys changedKeys: Set<String>) {
        let touched = dependentKeys.withLock { $0.intersection(changedKeys) }
        guard !touched.isEmpty else { return }
        let reloaded = store.load(operation)
        if let reloaded, let keys = store.dependentKeys(of: reloaded, for: operation) {
            dependentKeys.withLock { $0 = keys }
        }
        let changed = touched.sorted().joined(separator: ", ")
        let event = TimelineEvent(
            time: now(), request: request, attempt: attempt, hop: TimelineEvent.noHop, name: Self.eventName, kind: .cache,
            phase: reloaded == nil ? .cacheMiss : .cacheHit, snapshot: reloaded.map(snapshot) ?? .empty,
            detail: reloaded == nil
                ? "the store changed \(changed); reading \(operation.name) again missed, so nothing was delivered"
                : "the store changed \(changed); \(operation.name) delivered again from the cache")
        delivered(event, reloaded)
    }
}

extension LabSession {
    /// The name of a watched query's delivery events. A delivery is an event of the watched
    /// request, but it does not lengthen the request: that took as long as its own exchange.
    public static let watcherDeliveryEventName = "GraphQLQueryWatcher"
}
