import Synchronization

/// Turns one operation's result data into normalized cache records, and records back into
/// that operation's data: the two directions of Apollo's executor, with
/// `GraphQLResultNormalizer` (write) and `CacheDataExecutionSource` (read).
///
/// ```
/// query HeroQuery { hero { id name } }   {"hero": {"id": "2001", "name": "R2-D2"}}
///   QUERY_ROOT  {hero: -> #Hero:2001}          (key fields Hero: id)
///   Hero:2001   {id: "2001", name: "R2-D2"}
/// ```
///
/// Root fields live in the operation's root record (`QUERY_ROOT`, `MUTATION_ROOT`,
/// `SUBSCRIPTION_ROOT`); an object with a key (``CacheSchema``) gets the record of that key,
/// shared by every operation that reaches it; any other object is stored under its path
/// (`QUERY_ROOT.hero`, `QUERY_ROOT.hero.friends.0`). Fields are keyed with their arguments
/// (``CacheFieldKey``), so `hero(id:1000)` and `hero` are different fields.
public struct ResultNormalizer: Sendable {
    public let operation: ChainOperation
    public let schema: CacheSchema
    let selections: SelectionSet

    /// Reads the operation's selections from its document.
    /// - Throws: when the operation has no document (a persisted-only one) or it cannot be read.
    public init(operation: ChainOperation, schema: CacheSchema) throws(SelectionParseError) {
        self.operation = operation
        self.schema = schema
        self.selections = try Self.selections(of: operation)
    }

    /// The records of `data`, a result of this operation; fields absent from `data` are not
    /// written (a record merge keeps what the cache had for them).
    public func records(for data: JSONValue) -> RecordSet {
        var records = RecordSet()
        guard case .object(let root) = data else { return records }
        write(root, with: [selections], key: CacheReference.root(for: operation.kind).key,
              typename: CacheSchema.rootTypename(operation.kind), into: &records)
        return records
    }

    /// This operation's data read from `records`, or nil when any field it needs is missing
    /// (upstream's cache miss: a partly cached result is not returned).
    public func read(from records: RecordSet) -> JSONValue? {
        readObject(CacheReference.root(for: operation.kind).key, with: [selections],
                   typename: CacheSchema.rootTypename(operation.kind), from: records).map(JSONValue.object)
    }

    // MARK: Writing

    private func write(_ object: [String: JSONValue], with sets: [SelectionSet], key: CacheKey, typename: String?, into records: inout RecordSet) {
        var record = Record(key: key)
        for field in SelectionSet.collectFields(sets, typename: typename, variables: operation.variables) {
            guard let value = object[field.field.responseKey] else { continue }
            record[field.key] = normalize(value, with: field.selections, path: "\(key).\(field.key)", field: field.field.name, parent: typename, into: &records)
        }
        records.merge(record: record)
    }

    private func normalize(_ value: JSONValue, with sets: [SelectionSet], path: String, field: String, parent: String?, into records: inout RecordSet) -> Record.Value {
        switch value {
        case .array(let elements):
            return .list(elements.enumerated().map { index, element in
                normalize(element, with: sets, path: "\(path).\(index)", field: field, parent: parent, into: &records)
            })
        case .object(let object) where !sets.isEmpty:
            let typename = schema.typename(of: object, field: field, parent: parent)
            let key = schema.cacheKey(of: object, typename: typename) ?? path
            write(object, with: sets, key: key, typename: typename, into: &records)
            return .reference(CacheReference(key))
        default:
            return .scalar(value)
        }
    }

    // MARK: Reading

    private func readObject(_ key: CacheKey, with sets: [SelectionSet], typename: String?, from records: RecordSet) -> [String: JSONValue]? {
        guard let record = records[key] else { return nil }
        var typename = typename
        if case .scalar(.string(let stored)) = record["__typename"] { typename = stored }
        var object: [String: JSONValue] = [:]
        for field in SelectionSet.collectFields(sets, typename: typename, variables: operation.variables) {
            guard let value = record[field.key] else {
                if field.isRequired { return nil }
                continue
            }
            guard let resolved = resolve(value, with: field.selections, field: field.field.name, parent: typename, from: records) else { return nil }
            object[field.field.responseKey] = resolved
        }
        return object
    }

    private func resolve(_ value: Record.Value, with sets: [SelectionSet], field: String, parent: String?, from records: RecordSet) -> JSONValue? {
        switch value {
        case .scalar(let scalar):
            return scalar
        case .list(let elements):
            var resolved: [JSONValue] = []
            for element in elements {
                guard let value = resolve(element, with: sets, field: field, parent: parent, from: records) else { return nil }
                resolved.append(value)
            }
            return .array(resolved)
        case .reference(let reference):
            let typename = parent.flatMap { schema.fieldTypes["\($0).\(field)"] }
            return readObject(reference.key, with: sets, typename: typename, from: records).map(JSONValue.object)
        }
    }

    // MARK: Selections

    /// Selections already read, by operation name and document: operations are sent again and
    /// again with the same document, and the cache reads and writes them on every pass.
    private static let parsed = Mutex<[String: SelectionSet]>([:])
    /// Documents remembered at most; past it the memo starts again.
    private static let parsedLimit = 256

    static func selections(of operation: ChainOperation) throws(SelectionParseError) -> SelectionSet {
        guard !operation.isPersistedOnly, !operation.document.isEmpty else {
            throw SelectionParseError(offset: 0, reason: "\(operation.name) has no document to read its selections from")
        }
        let memoKey = operation.name + "\u{0}" + operation.document
        if let known = parsed.withLock({ $0[memoKey] }) { return known }
        let selections = try SelectionSet(document: operation.document, operationName: operation.name)
        parsed.withLock { memo in
            if memo.count >= parsedLimit { memo.removeAll() }
            memo[memoKey] = selections
        }
        return selections
    }
}
