import Foundation

/// Why a GraphQL request could not be turned into an HTTP request.
public enum GraphQLHTTPRequestError: Error, Equatable, CustomStringConvertible {
    /// The GET URL could not be built from the endpoint and the body's parameters.
    case serializedQueryParamsMessageError(endpoint: String)

    public var description: String {
        switch self {
        case .serializedQueryParamsMessageError(let endpoint):
            "could not build a GET URL for the GraphQL endpoint \(endpoint)"
        }
    }
}

extension GraphQLRequest {
    /// Whether this attempt goes out as GET, following Apollo iOS exactly: mutations and
    /// subscriptions always POST; a persisted-query retry uses `useGETForPersistedQueryRetry`;
    /// any other query uses GET when `useGETForQueries` is set, or when APQ is on and
    /// `useGETForPersistedQueryRetry` is set.
    public var usesGET: Bool {
        guard operation.kind == .query else { return false }
        if isPersistedQueryRetry { return apqConfig.useGETForPersistedQueryRetry }
        return useGETForQueries || (apqConfig.autoPersistQueries && apqConfig.useGETForPersistedQueryRetry)
    }

    /// Whether the body carries the query text: always, except on an APQ first attempt.
    public var sendsQueryDocument: Bool {
        switch operation.kind {
        case .subscription: true
        case .query, .mutation: !apqConfig.autoPersistQueries || isPersistedQueryRetry
        }
    }

    /// The GraphQL request body: `operationName`, `variables`, `query` (unless APQ leaves it
    /// out) and `extensions.persistedQuery` when APQ is on.
    public var body: [String: JSONValue] {
        var body: [String: JSONValue] = ["operationName": .string(operation.name)]
        body["variables"] = .object(operation.variables ?? [:])
        if sendsQueryDocument { body["query"] = .string(operation.document) }
        if apqConfig.autoPersistQueries && operation.kind != .subscription {
            body["extensions"] = ["persistedQuery": ["version": 1, "sha256Hash": .string(operation.documentHash)]]
        }
        return body
    }

    /// The HTTP request for this attempt (Apollo's `toURLRequest()`).
    public func makeNetworkRequest() throws -> NetworkRequest {
        let get = usesGET
        var headers = HTTPFields()
        headers.append(unchecked: "X-APOLLO-OPERATION-NAME", operation.name)
        headers.append(unchecked: "X-APOLLO-OPERATION-TYPE", operation.kind.rawValue)
        headers.append(unchecked: "Accept", "application/graphql-response+json,application/json")
        // GET requests carry no content, so no Content-Type.
        if !get { headers.append(unchecked: "Content-Type", "application/json") }
        // Additional headers replace defaults of the same name and keep their own order.
        for field in additionalHeaders { headers.remove(field.name) }
        for field in additionalHeaders { headers.append(field) }

        guard get else {
            return NetworkRequest(
                method: .post, url: graphQLEndpoint, headerFields: headers,
                body: JSONValue.object(body).encoded, timeoutInterval: requestTimeout)
        }
        guard var components = URLComponents(url: graphQLEndpoint, resolvingAgainstBaseURL: false) else {
            throw GraphQLHTTPRequestError.serializedQueryParamsMessageError(endpoint: graphQLEndpoint.absoluteString)
        }
        let body = self.body
        let parameters = body.keys.sorted().map { key in
            let value = body[key]!
            return "\(Self.queryEncode(key))=\(Self.queryEncode(value.stringValue ?? value.jsonString))"
        }
        components.percentEncodedQuery = ([components.percentEncodedQuery].compactMap { $0 } + parameters).joined(separator: "&")
        guard let url = components.url else {
            throw GraphQLHTTPRequestError.serializedQueryParamsMessageError(endpoint: graphQLEndpoint.absoluteString)
        }
        return NetworkRequest(method: .get, url: url, headerFields: headers, body: nil, timeoutInterval: requestTimeout)
    }

    private static let queryAllowed: Set<UInt8> = Set(
        Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8))

    /// Percent-encodes everything outside RFC 3986's unreserved set, so JSON in a query
    /// parameter survives any server's parser.
    static func queryEncode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            if queryAllowed.contains(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        return out
    }
}

extension HTTPFields {
    /// Appends a field whose name and value are compile-time constants known to be valid.
    mutating func append(unchecked name: String, _ value: String) {
        // The callers pass literal names and values that are valid by construction.
        try! append(name, value)
    }
}
