import Foundation

/// What ChainKit knows of the schema: which fields identify an object of each type, so
/// objects of that type get one record wherever they appear (`Hero:2001`), as upstream's
/// `@typePolicy(keyFields:)` or `SchemaConfiguration.cacheKeyInfo` say; and which fields are
/// non-null, which a result is checked against (``ResultNormalizer/execute(_:)``), as upstream's generated
/// selection sets know.
///
/// An object's type is its `__typename` (Apollo's generated operations select it
/// everywhere). `fieldTypes` names the type of a field for servers whose results carry no
/// `__typename` (the lab's), keyed `Parent.field` with the roots as `Query`, `Mutation`,
/// `Subscription`. An object without a type or key fields is stored under its path from the
/// root (`QUERY_ROOT.hero`), as upstream's default configuration does.
///
/// ```swift
/// let schema = CacheSchema(keyFields: ["Hero": ["id"]], fieldTypes: ["Query.hero": "Hero"], nonNullFields: ["Hero.name"])
/// ```
public struct CacheSchema: Sendable, Hashable {
    /// The fields whose values form the key of an object of each type.
    public var keyFields: [String: [String]]
    /// The type of a field's objects, `Parent.field` → type, used when an object has no `__typename`.
    public var fieldTypes: [String: String]
    /// The fields declared non-null, `Type.field` (`Hero.name` for `name: String!`): a `null`
    /// there fails the result with ``JSONDecodingError/nullValue``.
    public var nonNullFields: Set<String>

    public init(keyFields: [String: [String]] = [:], fieldTypes: [String: String] = [:], nonNullFields: Set<String> = []) {
        self.keyFields = keyFields
        self.fieldTypes = fieldTypes
        self.nonNullFields = nonNullFields
    }

    /// The same keys and types, with no field known to be non-null.
    public var withoutNullability: CacheSchema {
        CacheSchema(keyFields: keyFields, fieldTypes: fieldTypes)
    }

    /// The root type name of an operation kind, as `fieldTypes` keys use it.
    static func rootTypename(_ kind: ChainOperation.Kind) -> String {
        switch kind {
        case .query: "Query"
        case .mutation: "Mutation"
        case .subscription: "Subscription"
        }
    }

    /// The type of `object`, reached through `field` of an object of type `parent`.
    func typename(of object: [String: JSONValue], field: String, parent: String?) -> String? {
        if let typename = object["__typename"]?.stringValue { return typename }
        return parent.flatMap { fieldTypes["\($0).\(field)"] }
    }

    /// `Type:id` for an object with every key field present (several are joined with `+`,
    /// with `+` and `\` escaped, as upstream joins them); nil otherwise.
    func cacheKey(of object: [String: JSONValue], typename: String?) -> CacheKey? {
        guard let typename, let fields = keyFields[typename], !fields.isEmpty else { return nil }
        var values: [String] = []
        for field in fields {
            guard let value = object[field] else { return nil }
            let text: String
            switch value {
            case .string(let string): text = string
            case .number, .exactNumber, .bool: text = value.jsonString
            default: return nil
            }
            values.append(text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "+", with: "\\+"))
        }
        return "\(typename):\(values.joined(separator: "+"))"
    }
}
