import Synchronization

/// The normalized cache the operations of one client share (Apollo's `ApolloStore` over an
/// `InMemoryNormalizedCache`): records by key, merged field by field as results arrive, and
/// results read back by reassembling an operation's selections from them.
///
/// Two operations that reach the same object share its record: a mutation that renames the
/// hero changes what a later `HeroQuery` reads from the cache.
///
/// ```swift
/// let store = CacheStore(schema: CacheSchema(keyFields: ["Hero": ["id"]], fieldTypes: ["Query.hero": "Hero"]))
/// store.write(data: ["hero": ["id": "2001", "name": "R2-D2"]], for: heroQuery)
/// store.records["Hero:2001"]?["name"]   // .scalar("R2-D2")
/// store.load(heroQuery)?.source          // .cache
/// ```
public final class CacheStore: Sendable {
    /// What the store knows of the schema, for writes through ``write(data:for:)`` and for
    /// the types of objects read back. Parsers that feed the store normalize with the same one.
    public let schema: CacheSchema
    private let stored: Mutex<RecordSet>
    private let subscribers = Mutex<[ObjectIdentifier: any CacheStoreSubscriber]>([:])
    /// How many subscribers there are: a publish with none takes no second lock.
    private let subscriberCount = Atomic<Int>(0)

    public init(schema: CacheSchema = CacheSchema(), records: RecordSet = RecordSet()) {
        self.schema = schema
        self.stored = Mutex(records)
    }

    /// `operation`'s result read from the records, marked as coming from the cache; nil on a
    /// miss — any selected field missing, or an operation whose selections cannot be read.
    public func load(_ operation: ChainOperation) -> ChainResponse? {
        guard let normalizer = try? ResultNormalizer(operation: operation, schema: schema) else { return nil }
        let data = stored.withLock { normalizer.read(from: $0) }
        return data.map { ChainResponse(source: .cache, data: $0) }
    }

    /// Merges `records` into the store; returns the `key.field` pairs that changed, which every
    /// subscriber is told of (upstream's `ApolloStore.publish(records:)`), unless none did.
    @discardableResult
    public func publish(records: RecordSet) -> Set<String> {
        let changed = stored.withLock { $0.merge(records: records) }
        if !changed.isEmpty, subscriberCount.load(ordering: .acquiring) > 0 {
            for subscriber in subscribers.withLock({ Array($0.values) }) {
                subscriber.store(self, didChangeKeys: changed)
            }
        }
        return changed
    }

    /// What ``subscribe(_:)`` returns, to ``unsubscribe(_:)`` with.
    public struct SubscriptionToken: Sendable, Hashable {
        let id: ObjectIdentifier
    }

    /// Tells `subscriber` of every change from now on (upstream's `ApolloStore.subscribe(_:)`).
    /// The store holds the subscriber until ``unsubscribe(_:)``.
    public func subscribe(_ subscriber: any CacheStoreSubscriber) -> SubscriptionToken {
        let token = SubscriptionToken(id: ObjectIdentifier(subscriber))
        subscribers.withLock { subscribers in
            if subscribers.updateValue(subscriber, forKey: token.id) == nil { subscriberCount.add(1, ordering: .releasing) }
        }
        return token
    }

    public func unsubscribe(_ token: SubscriptionToken) {
        subscribers.withLock { subscribers in
            if subscribers.removeValue(forKey: token.id) != nil { subscriberCount.subtract(1, ordering: .releasing) }
        }
    }

    /// The `key.field` pairs `result` of `operation` depends on: the records a server result
    /// was written as, or what a cached one was read from (``dependentKeys(of:data:)``).
    public func dependentKeys(of result: ChainResponse, for operation: ChainOperation) -> Set<String>? {
        if let records = result.cacheRecords { return records.fieldKeys }
        return result.data.flatMap { dependentKeys(of: operation, data: $0) }
    }

    /// The `key.field` pairs a result of `operation` reads: what a change must touch to
    /// change it (upstream's `GraphQLResponse.dependentKeys`). Nil when the operation's
    /// selections cannot be read.
    public func dependentKeys(of operation: ChainOperation, data: JSONValue) -> Set<String>? {
        guard let normalizer = try? ResultNormalizer(operation: operation, schema: schema) else { return nil }
        return normalizer.records(for: data).fieldKeys
    }

    /// Normalizes `data` as a result of `operation` and merges its records (upstream's
    /// `ReadWriteTransaction.write(data:for:)`); returns the records written.
    /// - Throws: when the operation's selections cannot be read.
    @discardableResult
    public func write(data: JSONValue, for operation: ChainOperation) throws(SelectionParseError) -> RecordSet {
        let records = try ResultNormalizer(operation: operation, schema: schema).records(for: data)
        publish(records: records)
        return records
    }

    /// Every record, as of now.
    public var records: RecordSet { stored.withLock { $0 } }

    /// How many records are stored.
    public var count: Int { stored.withLock { $0.count } }

    /// Forgets everything.
    public func clear() {
        stored.withLock { $0.removeAll() }
    }
}

/// Told of changes to a ``CacheStore``'s records (upstream's `ApolloStoreSubscriber`).
public protocol CacheStoreSubscriber: AnyObject, Sendable {
    /// `changedKeys` are the `key.field` pairs a publish changed (`Hero:2001.name`).
    func store(_ store: CacheStore, didChangeKeys changedKeys: Set<String>)
}
