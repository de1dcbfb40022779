import Synchronization

/// Where one subscription is in its life (Apollo iOS 2.4's `SubscriptionState`): pending
/// until its first event, active while events arrive, finished for good at the end. Over
/// HTTP, as here, a subscription is never `paused` or `reconnecting`; those belong to a
/// WebSocket transport.
public enum SubscriptionState: Sendable, Equatable, CustomStringConvertible {
    /// Why a subscription finished.
    public enum FinishReason: Sendable, Equatable {
        /// The server ended the subscription.
        case completed
        /// The client cancelled it: the task reading it was cancelled, or it stopped reading.
        case cancelled
        /// It failed; read the error with `if case .finished(.error(let error)) = stream.state`.
        case error(any Error)

        /// Reasons compare by case only: two errors are equal whatever they are.
        public static func == (lhs: FinishReason, rhs: FinishReason) -> Bool {
            switch (lhs, rhs) {
            case (.completed, .completed), (.cancelled, .cancelled), (.error, .error): true
            default: false
            }
        }
    }

    /// Started, with no event yet.
    case pending
    /// At least one event has arrived and more may come.
    case active
    /// The connection is paused on purpose (WebSocket transports only).
    case paused
    /// The connection was lost and is being restored (WebSocket transports only).
    case reconnecting
    /// Over, for the reason given.
    case finished(FinishReason)

    public var description: String {
        switch self {
        case .pending: "pending"
        case .active: "active"
        case .paused: "paused"
        case .reconnecting: "reconnecting"
        case .finished(.completed): "finished(completed)"
        case .finished(.cancelled): "finished(cancelled)"
        case .finished(.error(let error)): "finished(error: \(error))"
        }
    }
}

/// The state of one subscription, set by the task that reads its events and read from
/// anywhere. The first `finished` stays: what ends a subscription is what it reports.
final class SubscriptionStateBox: Sendable {
    private let current = Mutex(SubscriptionState.pending)

    var state: SubscriptionState { current.withLock { $0 } }

    func set(_ state: SubscriptionState) {
        current.withLock { current in
            if case .finished = current { return }
            current = state
        }
    }
}
