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

    public init(schema: CacheSchema = CacheSchema(), records: RecordSet = RecordSet()) {
        self.schema = schema
        self.stored = Mutex(records)
    }

    /// `operation`'s result read from the records, marked as coming from the cache; nil on a
    /// miss — any selected field missing, or an operation whose selections cannot be read.
    public func load(_ operation: GraphQLOperation) -> GraphQLResponse? {
        guard let normalizer = try? ResultNormalizer(operation: operation, schema: schema) else { return nil }
        let data = stored.withLock { normalizer.read(from: $0) }
        return data.map { GraphQLResponse(source: .cache, data: $0) }
    }

    /// Merges `records` into the store; returns the `key.field` pairs that changed.
    @discardableResult
    public func publish(records: RecordSet) -> Set<String> {
        stored.withLock { $0.merge(records: records) }
    }

    /// Normalizes `data` as a result of `operation` and merges its records (upstream's
    /// `ReadWriteTransaction.write(data:for:)`); returns the records written.
    /// - Throws: when the operation's selections cannot be read.
    @discardableResult
    public func write(data: JSONValue, for operation: GraphQLOperation) throws(SelectionParseError) -> RecordSet {
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
