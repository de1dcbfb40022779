/// A read-only view of a ``TimelineStore`` as it was at one seq: it answers with the events
/// held whose seq is at most ``lastSeq``, so whatever the store records later never shows
/// through it. What a screen keeps with its state, so that drawing the state is a function
/// of the state and not of when it is drawn.
///
/// The view shares the store (it copies no events); a store with a cap can still drop a
/// finished request's events after the view was taken, and the view then no longer has them.
///
/// ```swift
/// let store = TimelineStore()
/// store.append(event)                     // seq 1
/// let view = store.view(upTo: store.lastSeq)
/// store.append(event)                     // seq 2
/// view.events().map(\.seq)                // [1]
/// ```
public struct TimelineView: Sendable {
    private let store: TimelineStore
    /// The newest seq the view shows.
    public let lastSeq: Int

    public init(store: TimelineStore, upTo lastSeq: Int) {
        self.store = store
        self.lastSeq = lastSeq
    }

    /// Every event held up to ``lastSeq``, in seq order.
    public func events() -> [TimelineEvent] {
        var events = store.events()
        if let end = events.lastIndex(where: { $0.seq <= lastSeq }) {
            events.removeSubrange((end + 1)...)
        } else {
            events = []
        }
        return events
    }

    /// The events of one request up to ``lastSeq``, in seq order.
    public func events(request: Int) -> [TimelineEvent] {
        store.events(request: request).filter { $0.seq <= lastSeq }
    }
}

extension TimelineStore {
    /// The store as it is at seq `seq`: a view that never shows later events.
    public func view(upTo seq: Int) -> TimelineView {
        TimelineView(store: self, upTo: seq)
    }
}
