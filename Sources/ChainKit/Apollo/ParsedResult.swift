import Foundation

/// An operation's result (Apollo iOS 2.4's `GraphQLResponse<Operation>`): its data decoded
/// into the operation's `Data`, its errors and extensions, and where it came from.
public struct GraphQLResponse<Operation: GraphQLOperation>: Sendable, Hashable {
    /// Where a result came from.
    public enum Source: Sendable, Hashable {
        case cache
        case server
    }

    public let data: Operation.Data?
    public let errors: [GraphQLError]?
    public let extensions: [String: JSONValue]?
    public let source: Source

    public init(data: Operation.Data?, extensions: [String: JSONValue]?, errors: [GraphQLError]?, source: Source) {
        self.data = data
        self.extensions = extensions
        self.errors = errors
        self.source = source
    }

    /// The result as the lab's chain engine holds one.
    public var chainResponse: ChainResponse {
        ChainResponse(
            source: source == .cache ? .cache : .server, data: data.map { .object($0.__data) }, errors: errors,
            extensions: extensions)
    }

    /// The engine's result decoded into `Operation.Data`; a `data` that is not an object, or
    /// that `Data` refuses, throws.
    public init(_ response: ChainResponse) throws {
        let data: Operation.Data? = switch response.data {
        case .object(let object): try Operation.Data(_jsonObject: object)
        case .null, nil: nil
        case .some(let other): throw GraphQLResponseDecodingError(found: other)
        }
        self.init(data: data, extensions: response.extensions, errors: response.errors, source: response.source == .cache ? .cache : .server)
    }
}

/// A result's `data` that is not a JSON object.
public struct GraphQLResponseDecodingError: Error, Hashable, CustomStringConvertible {
    public let found: JSONValue
    public var description: String { "the result's data is not a JSON object: \(found.jsonString)" }
}

/// A parsed result on its way up the chain, with the records the parser made for the cache
/// (Apollo iOS 2.4's `ParsedResult`).
public struct ParsedResult<Operation: GraphQLOperation>: Sendable, Hashable {
    public let result: GraphQLResponse<Operation>
    public let cacheRecords: RecordSet?
    /// The engine's result this one was decoded from, handed back when nothing changed it.
    let origin: ChainResponse?

    public init(result: GraphQLResponse<Operation>, cacheRecords: RecordSet?) {
        self.init(result: result, cacheRecords: cacheRecords, origin: nil)
    }

    init(result: GraphQLResponse<Operation>, cacheRecords: RecordSet?, origin: ChainResponse?) {
        self.result = result
        self.cacheRecords = cacheRecords
        self.origin = origin
    }

    /// The engine's form of this result: the very one it came from when unchanged.
    package var chainResponse: ChainResponse {
        var response = result.chainResponse
        if let origin, origin.cacheRecords == cacheRecords, origin.data == response.data, origin.errors == response.errors,
            origin.extensions == response.extensions, origin.source == response.source {
            return origin
        }
        response.cacheRecords = cacheRecords
        return response
    }

    public static func == (lhs: ParsedResult, rhs: ParsedResult) -> Bool {
        lhs.result == rhs.result && lhs.cacheRecords == rhs.cacheRecords
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(result)
        hasher.combine(cacheRecords)
    }
}
