public import Foundation

/// Why a value of a result does not fit the selection it answers (Apollo's
/// `JSONDecodingError`, `Sources/ApolloAPI/JSONDecodingError.swift`).
public enum JSONDecodingError: Error, Hashable, LocalizedError {
    /// A field the operation selects is not in the result.
    case missingValue
    /// A field the schema declares non-null is `null`.
    case nullValue
    /// An object was expected (the field has selections) and something else came.
    case wrongType

    /// Upstream's texts.
    public var errorDescription: String? {
        switch self {
        case .missingValue: "Missing value"
        case .nullValue: "Unexpected null value"
        case .wrongType: "Wrong type"
        }
    }
}

/// A result that does not fit its operation's selections, and where (Apollo's
/// `GraphQLExecutionError`, `Sources/Apollo/Execution/GraphQLExecutor.swift`). The response
/// parser throws it, so it climbs through every interceptor's `mapErrors` as upstream's does.
///
/// Its text is upstream's, to the character: `Error at path "hero.name)": missingValue`
/// (upstream's format string has that closing parenthesis, and prints the underlying error
/// as Swift describes it).
public struct GraphQLExecutionError: Error, LocalizedError, CustomStringConvertible {
    /// The response keys from the data's root to the field, joined with dots (`hero.friends.0.name`).
    public let pathString: String
    /// What was wrong there.
    public let underlying: any Error

    public init(pathString: String, underlying: any Error) {
        self.pathString = pathString
        self.underlying = underlying
    }

    public var errorDescription: String? { "Error at path \"\(pathString))\": \(underlying)" }
    public var description: String { errorDescription! }
}

/// Checking a server's data against the operation's selections, as Apollo's executor does
/// when it maps a network response to the operation's `Data` (`GraphQLExecutor`,
/// `ResultAccumulators/DataDictMapper.swift`): every field the operation asks for must be
/// there (a deferred or a type-conditioned one whose type is unknown excepted), `null` only
/// where the schema allows it, and an object where the field has selections.
///
/// What ChainKit knows of nullability comes from ``CacheSchema/nonNullFields``; without it
/// any field may be `null`, and only absent fields and wrong types are errors.
extension ResultNormalizer {
    /// Checks `data`, the `data` member of a result: the first field in document order that
    /// does not fit throws.
    public func execute(_ data: [String: JSONValue]) throws(GraphQLExecutionError) {
        try check(data, with: [selections], typename: CacheSchema.rootTypename(operation.kind), path: "")
    }

    private func check(_ object: [String: JSONValue], with sets: [SelectionSet], typename: String?, path: String) throws(GraphQLExecutionError) {
        for collected in SelectionSet.collectFields(sets, typename: typename, variables: operation.variables) {
            let field = collected.field
            let fieldPath = path.isEmpty ? field.responseKey : path + "." + field.responseKey
            guard let value = object[field.responseKey] else {
                guard collected.isRequired else { continue }
                throw GraphQLExecutionError(pathString: fieldPath, underlying: JSONDecodingError.missingValue)
            }
            if value == .null {
                if let typename, schema.nonNullFields.contains("\(typename).\(field.name)") {
                    throw GraphQLExecutionError(pathString: fieldPath, underlying: JSONDecodingError.nullValue)
                }
                continue
            }
            guard !collected.selections.isEmpty else { continue }
            try complete(value, with: collected.selections, field: field.name, parent: typename, path: fieldPath)
        }
    }

    /// A composite field's value: an object, or a list of them (nulls allowed in a list).
    private func complete(_ value: JSONValue, with sets: [SelectionSet], field: String, parent: String?, path: String) throws(GraphQLExecutionError) {
        switch value {
        case .object(let object):
            try check(object, with: sets, typename: schema.typename(of: object, field: field, parent: parent), path: path)
        case .array(let elements):
            for (index, element) in elements.enumerated() where element != .null {
                try complete(element, with: sets, field: field, parent: parent, path: "\(path).\(index)")
            }
        default:
            throw GraphQLExecutionError(pathString: path, underlying: JSONDecodingError.wrongType)
        }
    }
}
