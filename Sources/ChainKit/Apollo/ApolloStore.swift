import Synchronization

/// Told of changes to an ``ApolloStore``'s records (Apollo iOS 2.4's `ApolloStoreSubscriber`).
public protocol ApolloStoreSubscriber: AnyObject, Sendable {
    /// `changedKeys` are the `key.field` pairs a publish changed (`Hero:2001.name`).
    func store(_ store: ApolloStore, didChangeKeys changedKeys: Set<CacheKey>)
}

/// The normalized cache a client's operations share (Apollo iOS 2.4's `ApolloStore`), over a
/// ChainKit ``CacheStore``.
public final class ApolloStore: Sendable {
    public let cacheStore: CacheStore
    /// Each subscriber's place among the cache store's subscribers.
    private let relays = Mutex<[SubscriptionToken: CacheStore.SubscriptionToken]>([:])

    public init(cacheStore: CacheStore = CacheStore()) {
        self.cacheStore = cacheStore
    }

    /// The cached result of `operation`, or nil when the cache cannot answer all of it.
    public func load<Operation: GraphQLOperation>(_ operation: Operation) async throws -> GraphQLResponse<Operation>? {
        try cacheStore.load(operation.chainOperation).map(GraphQLResponse<Operation>.init)
    }

    /// Merges `records` into the cache.
    public func publish(records: RecordSet) async throws {
        _ = cacheStore.publish(records: records)
    }

    /// What ``subscribe(_:)`` returns, to ``unsubscribe(_:)`` with.
    public struct SubscriptionToken: Sendable, Hashable {
        let id: ObjectIdentifier
    }

    /// Tells `subscriber` of every change to the records from now on. The store holds the
    /// subscriber until ``unsubscribe(_:)``; subscribing it again changes nothing.
    public func subscribe(_ subscriber: any ApolloStoreSubscriber) async -> SubscriptionToken {
        let token = SubscriptionToken(id: ObjectIdentifier(subscriber))
        let relay = Relay(store: self, subscriber: subscriber)
        let replaced = relays.withLock { $0.updateValue(cacheStore.subscribe(relay), forKey: token) }
        if let replaced { cacheStore.unsubscribe(replaced) }
        return token
    }

    /// Stops telling the subscriber of `subscriptionToken` of changes.
    public func unsubscribe(_ subscriptionToken: SubscriptionToken) {
        if let relay = relays.withLock({ $0.removeValue(forKey: subscriptionToken) }) { cacheStore.unsubscribe(relay) }
    }

    /// Passes the cache store's changes on as this store's. The subscriber holds no store, so
    /// neither does the relay: a store that is gone tells no one.
    private final class Relay: CacheStoreSubscriber {
        weak let store: ApolloStore?
        let subscriber: any ApolloStoreSubscriber

        init(store: ApolloStore, subscriber: any ApolloStoreSubscriber) {
            self.store = store
            self.subscriber = subscriber
        }

        func store(_ store: CacheStore, didChangeKeys changedKeys: Set<String>) {
            guard let apolloStore = self.store else { return }
            subscriber.store(apolloStore, didChangeKeys: changedKeys)
        }
    }
}
