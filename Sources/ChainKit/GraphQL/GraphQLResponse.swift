public import Foundation

/// One error from a GraphQL response's `errors` array (Apollo's `GraphQLError`): any JSON
/// object, kept whole; `message` is nil when the server sent none.
public struct GraphQLError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// The error's `message`; nil when it has none or it is not a string.
    public var message: String?
    /// `extensions`, where servers put a `code` such as `UNAUTHENTICATED`.
    public var extensions: [String: JSONValue]
    /// The whole error object as the server sent it.
    public var raw: JSONValue

    public init(message: String?, extensions: [String: JSONValue] = [:]) {
        self.message = message
        self.extensions = extensions
        var object: [String: JSONValue] = [:]
        if let message { object["message"] = .string(message) }
        if !extensions.isEmpty { object["extensions"] = .object(extensions) }
        self.raw = .object(object)
    }

    /// Reads an error object; nil when `json` is not an object.
    public init?(json: JSONValue) {
        guard json.objectValue != nil else { return nil }
        self.message = json["message"]?.stringValue
        self.extensions = json["extensions"]?.objectValue ?? [:]
        self.raw = json
    }

    /// A member of the error object, as the server sent it.
    public subscript(key: String) -> JSONValue? { raw[key] }

    /// `extensions.code`, when present.
    public var code: String? { extensions["code"]?.stringValue }

    /// Whether the server says the request was not authenticated.
    public var isUnauthenticated: Bool { code == "UNAUTHENTICATED" }

    /// The message, or "GraphQL Error" when there is none, as upstream's.
    public var description: String { message ?? "GraphQL Error" }

    public var errorDescription: String? { description }

    /// The description with the code when there is one, as the timeline shows an error:
    /// `access token expired (UNAUTHENTICATED)`.
    package var summary: String {
        code.map { "\(description) (\($0))" } ?? description
    }
}

/// A result of a GraphQL operation, from the server or from the cache.
public struct ChainResponse: Sendable, Hashable {
    /// Where a result came from.
    public enum Source: String, Sendable, Hashable {
        case cache
        case server
    }

    /// The fields, in one immutable box shared by copies (``CopyOnWrite``): a result climbs
    /// every layer of the chain, and a copy then costs one reference. Changing a field
    /// replaces the box, without the body it was read from.
    @usableFromInline struct Fields: Sendable {
        @usableFromInline var source: Source
        var data: JSONValue?
        var errors: [GraphQLError]?
        var extensions: [String: JSONValue]?
        /// The body these fields were read from; nil when they were not read from a body.
        var body: Data?
        /// The cache records the parser made (``ChainResponse/cacheRecords``).
        var cacheRecords: RecordSet?
    }

    // Internal and usable from inlinable code: the identity check and `source`, which every
    // hop of the instrumentation reads, then cost no call.
    @usableFromInline var fields: CopyOnWrite<Fields>

    /// Changes a field; the result is no longer the body it was read from (its cache records
    /// stay: see ``cacheRecords``).
    private mutating func change(_ change: (inout Fields) -> Void) {
        fields.update {
            change(&$0)
            $0.body = nil
        }
    }

    public var source: Source {
        @inlinable get { fields.value.source }
        set { change { $0.source = newValue } }
    }

    public var data: JSONValue? {
        get { fields.value.data }
        set { change { $0.data = newValue } }
    }

    /// The `errors` array; nil when the response had no `errors` member (an empty array is
    /// kept as an empty array).
    public var errors: [GraphQLError]? {
        get { fields.value.errors }
        set { change { $0.errors = newValue } }
    }

    public var extensions: [String: JSONValue]? {
        get { fields.value.extensions }
        set { change { $0.extensions = newValue } }
    }

    /// The cache records the parser made of this result as the server sent it (Apollo's
    /// `ParsedResult.cacheRecords`); nil when none were made (a cached result, a request that
    /// does not write to the cache). The chain writes these at the top, so changing `data` in
    /// a post-flight keeps them: the caller gets the change, the cache does not.
    public var cacheRecords: RecordSet? {
        get { fields.value.cacheRecords }
        set { fields.update { $0.cacheRecords = newValue } }
    }

    public init(source: Source, data: JSONValue?, errors: [GraphQLError]? = nil, extensions: [String: JSONValue]? = nil, cacheRecords: RecordSet? = nil) {
        fields = CopyOnWrite(Fields(source: source, data: data, errors: errors, extensions: extensions, cacheRecords: cacheRecords))
    }

    /// Whether `other` is this very value (a copy of it, never changed since): true means
    /// equal, without comparing the JSON.
    @inlinable package func isIdentical(to other: ChainResponse) -> Bool { fields.isIdentical(to: other.fields) }

    /// The body this response was read from (``init(parsing:source:)``), as long as no field
    /// has changed since; nil for a response made or changed in code. A preview of the result
    /// can show these bytes as they came instead of encoding the JSON again.
    package var body: Data? { fields.value.body }

    @inlinable public static func == (lhs: ChainResponse, rhs: ChainResponse) -> Bool {
        lhs.isIdentical(to: rhs) || haveEqualFields(lhs, rhs)
    }

    @usableFromInline static func haveEqualFields(_ lhs: ChainResponse, _ rhs: ChainResponse) -> Bool {
        lhs.source == rhs.source && lhs.data == rhs.data && lhs.errors == rhs.errors && lhs.extensions == rhs.extensions
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(source)
        hasher.combine(data)
        hasher.combine(errors)
        hasher.combine(extensions)
    }

    /// Reads a GraphQL response body: a JSON object with `data`, `errors` and `extensions`.
    public init(parsing body: Data, source: Source) throws {
        let json: JSONValue
        do {
            json = try JSONValue(parsing: body)
        } catch {
            throw JSONResponseParsingError.couldNotParseToJSON(reason: error.description, bodyByteCount: body.count)
        }
        guard case .object(let members) = json else {
            throw JSONResponseParsingError.notAnObject(bodyByteCount: body.count)
        }
        self.init(payload: members, source: source, body: body)
    }

    /// A result read from a payload object (`data`, `errors`, `extensions`): a whole body,
    /// or one part of a multipart answer.
    init(payload members: [String: JSONValue], source: Source, body: Data? = nil) {
        fields = CopyOnWrite(Fields(
            // As upstream's `BaseResponseExecutionHandler`: `data` that is not an object is no
            // data, and `errors` with an entry that is not an object are no errors.
            source: source, data: members["data"]?.objectValue.map(JSONValue.object),
            errors: members["errors"]?.arrayValue.flatMap(Self.errors(in:)),
            extensions: members["extensions"]?.objectValue, body: body))
    }

    /// The errors of an `errors` list, or nil when one of its entries is not an object.
    private static func errors(in list: [JSONValue]) -> [GraphQLError]? {
        var errors: [GraphQLError] = []
        errors.reserveCapacity(list.count)
        for entry in list {
            guard let error = GraphQLError(json: entry) else { return nil }
            errors.append(error)
        }
        return errors
    }

    /// Whether ``json`` encodes to at most about `limit` bytes (see
    /// ``JSONValue/isSmall(limit:)``), without building it. A response read from a body
    /// answers from that body's size: compact JSON of the same values is about as long.
    package func isSmall(limit: Int) -> Bool {
        if let body = fields.value.body { return body.count <= limit }
        var budget = limit - 2
        if let data, !data.fits(&budget) { return false }
        for error in errors ?? [] where !error.raw.fits(&budget) { return false }
        if let extensions, !JSONValue.object(extensions).fits(&budget) { return false }
        return budget >= 0
    }

    /// The response as the JSON a server would send.
    public var json: JSONValue {
        var object: [String: JSONValue] = [:]
        if let data { object["data"] = data }
        if let errors { object["errors"] = .array(errors.map(\.raw)) }
        if let extensions { object["extensions"] = .object(extensions) }
        return .object(object)
    }
}

/// Why a response body could not be parsed into a GraphQL result.
public enum JSONResponseParsingError: Error, Equatable, CustomStringConvertible {
    case couldNotParseToJSON(reason: String, bodyByteCount: Int)
    case notAnObject(bodyByteCount: Int)
    /// A `multipart/mixed` answer whose `Content-Type` names no boundary.
    case missingMultipartBoundary
    /// A `multipart/mixed` answer whose `Content-Type` names no specification, or one this
    /// parser does not know (`deferSpec=20220824` and `subscriptionSpec=1.0` are known).
    case invalidMultipartProtocol

    public var description: String {
        switch self {
        case .couldNotParseToJSON(let reason, let count):
            "the \(count)-byte response body is not JSON: \(reason)"
        case .notAnObject(let count):
            "the \(count)-byte response body is JSON but not an object"
        case .missingMultipartBoundary:
            "the multipart response's Content-Type has no boundary"
        case .invalidMultipartProtocol:
            "the multipart response's Content-Type names no known specification (deferSpec=20220824 or subscriptionSpec=1.0)"
        }
    }
}
