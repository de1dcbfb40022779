/// The key of one record in the normalized cache: `QUERY_ROOT`, `Hero:2001`, or the path from
/// the operation root to an object that has no key of its own (`QUERY_ROOT.hero`).
public typealias CacheKey = String

/// A reference from one record's field to another record (Apollo's `CacheReference`).
public struct CacheReference: Sendable, Hashable, CustomStringConvertible {
    /// The record of the query root.
    public static let rootQuery = CacheReference("QUERY_ROOT")
    /// The record of the mutation root.
    public static let rootMutation = CacheReference("MUTATION_ROOT")
    /// The record of the subscription root.
    public static let rootSubscription = CacheReference("SUBSCRIPTION_ROOT")

    /// The root record an operation of `kind` reads and writes its root fields in.
    public static func root(for kind: ChainOperation.Kind) -> CacheReference {
        switch kind {
        case .query: rootQuery
        case .mutation: rootMutation
        case .subscription: rootSubscription
        }
    }

    public let key: CacheKey

    public init(_ key: CacheKey) {
        self.key = key
    }

    /// `-> #Hero:2001`, as upstream prints a reference.
    public var description: String { "-> #\(key)" }
}

/// One object of the normalized cache: its fields, keyed as ``CacheFieldKey`` formats them
/// (`name`, `hero(id:1000)`), each a scalar, a reference to another record, or a list of
/// those (Apollo's `Record`).
public struct Record: Sendable, Hashable {
    /// A field's value in a record.
    public indirect enum Value: Sendable, Hashable, CustomStringConvertible {
        /// A leaf value as the server sent it (a custom scalar may be any JSON).
        case scalar(JSONValue)
        /// An object stored as its own record.
        case reference(CacheReference)
        /// A list of values.
        case list([Value])

        /// The value as JSON, a reference as `{"$reference": key}` (the form Apollo's SQLite
        /// cache stores it in).
        public var json: JSONValue {
            switch self {
            case .scalar(let value): value
            case .reference(let reference): .object(["$reference": .string(reference.key)])
            case .list(let values): .array(values.map(\.json))
            }
        }

        public var description: String {
            switch self {
            case .scalar(let value): value.jsonString
            case .reference(let reference): reference.description
            case .list(let values): "[" + values.map(\.description).joined(separator: ", ") + "]"
            }
        }
    }

    public let key: CacheKey
    public var fields: [String: Value]

    public init(key: CacheKey, _ fields: [String: Value] = [:]) {
        self.key = key
        self.fields = fields
    }

    public subscript(field: String) -> Value? {
        get { fields[field] }
        set { fields[field] = newValue }
    }
}

/// Records by key (Apollo's `RecordSet`): what a parser produces from one result, and what the
/// ``CacheStore`` holds.
public struct RecordSet: Sendable, Hashable, CustomStringConvertible {
    public private(set) var storage: [CacheKey: Record] = [:]

    public init() {}

    public init(records: some Sequence<Record>) {
        for record in records { merge(record: record) }
    }

    public subscript(key: CacheKey) -> Record? { storage[key] }

    public var isEmpty: Bool { storage.isEmpty }
    public var count: Int { storage.count }
    /// The keys, sorted, for listings that must read the same every time.
    public var sortedKeys: [CacheKey] { storage.keys.sorted() }

    /// Merges every record of `records` into this set; returns the changed `key.field` pairs.
    @discardableResult
    public mutating func merge(records: RecordSet) -> Set<String> {
        var changed: Set<String> = []
        for key in records.sortedKeys { changed.formUnion(merge(record: records.storage[key]!)) }
        return changed
    }

    /// Merges one record field by field: a field it has replaces the stored one, a field it
    /// lacks keeps its stored value (upstream's `RecordSet.merge(record:)`). Returns the
    /// changed `key.field` pairs.
    @discardableResult
    public mutating func merge(record: Record) -> Set<String> {
        guard var stored = storage[record.key] else {
            storage[record.key] = record
            return Set(record.fields.keys.map { "\(record.key).\($0)" })
        }
        var changed: Set<String> = []
        for (field, value) in record.fields where stored.fields[field] != value {
            stored.fields[field] = value
            changed.insert("\(record.key).\(field)")
        }
        storage[record.key] = stored
        return changed
    }

    /// Every stored field as a `key.field` pair (`Hero:2001.name`), as changes are reported.
    public var fieldKeys: Set<String> {
        var keys: Set<String> = []
        for (key, record) in storage {
            for field in record.fields.keys { keys.insert("\(key).\(field)") }
        }
        return keys
    }

    /// Forgets every record.
    public mutating func removeAll() {
        storage.removeAll()
    }

    /// The records as one JSON object, key → fields, for showing what a hop wrote.
    public var json: JSONValue {
        .object(storage.mapValues { .object($0.fields.mapValues(\.json)) })
    }

    /// One line per record, in key order: `Hero:2001 {id: "2001", name: "R2-D2"}`.
    public var description: String {
        sortedKeys.map { key in
            let fields = storage[key]!.fields
            return key + " {" + fields.keys.sorted().map { "\($0): \(fields[$0]!)" }.joined(separator: ", ") + "}"
        }.joined(separator: "\n")
    }
}
