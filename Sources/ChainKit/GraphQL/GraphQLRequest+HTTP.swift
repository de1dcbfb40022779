import Foundation

/// Why a GraphQL request could not be turned into an HTTP request.
public enum GraphQLHTTPRequestError: Error, Equatable, CustomStringConvertible {
    /// The GET URL could not be built from the endpoint and the body's parameters.
    case serializedQueryParamsMessageError(endpoint: String)
    /// The body must carry the query text, but the operation is persisted-only and has none
    /// (upstream stops the app with a precondition failure here).
    case noQueryDocument(operationName: String)

    public var description: String {
        switch self {
        case .serializedQueryParamsMessageError(let endpoint):
            "could not build a GET URL for the GraphQL endpoint \(endpoint)"
        case .noQueryDocument(let name):
            "\(name) is a persisted-only operation: it has no query text to send (turn automatic persisted queries on)"
        }
    }
}

extension ChainRequest {
    /// The `Accept` value Apollo iOS 2.4 sends for queries and mutations: multipart results
    /// for `@defer` first, then single JSON responses.
    public static let deferAccept = "multipart/mixed;deferSpec=20220824,application/graphql-response+json,application/json"
    /// The `Accept` value for subscriptions over HTTP (multipart subscription events).
    public static let subscriptionAccept = "multipart/mixed;subscriptionSpec=1.0,application/graphql-response+json,application/json"

    /// Whether this attempt goes out as GET, following Apollo iOS 2.0.6 and later: mutations
    /// and subscriptions always POST; a persisted-query retry uses
    /// `useGETForPersistedQueryRetry`; any other query uses `useGETForQueries`.
    public var usesGET: Bool {
        guard operation.kind == .query else { return false }
        return isPersistedQueryRetry ? apqConfig.useGETForPersistedQueryRetry : useGETForQueries
    }

    /// Whether the body carries the query text: always, except on an APQ first attempt.
    public var sendsQueryDocument: Bool {
        switch operation.kind {
        case .subscription: true
        case .query, .mutation: !apqConfig.autoPersistQueries || isPersistedQueryRetry
        }
    }

    /// Whether the body carries `extensions.persistedQuery`: queries and mutations under
    /// APQ (the retry included); never subscriptions.
    public var sendsPersistedQueryHash: Bool {
        operation.kind != .subscription && apqConfig.autoPersistQueries
    }

    /// The GraphQL request body, as the request's ``requestBodyCreator`` makes it.
    public var body: [String: JSONValue] {
        requestBodyCreator.requestBody(
            for: operation, sendQueryDocument: sendsQueryDocument, autoPersistQuery: sendsPersistedQueryHash,
            clientAwareness: clientAwareness)
    }

    /// The headers Apollo iOS 2.4 sends: client awareness, `Content-Type` (POST only),
    /// `Accept`, then ``additionalHeaders`` (which replace defaults of the same name), and
    /// `Apollo-Require-Preflight: true` on a GET. Throws when a client-awareness value is not
    /// a valid header value.
    public func makeHeaderFields() throws(HeaderValidationError) -> HTTPFields {
        var headers = HTTPFields()
        for header in clientAwareness?.headers ?? [] {
            try headers.append(header.name, header.value)
        }
        let get = usesGET
        // GET requests carry no content, so no Content-Type.
        if !get { headers.append(unchecked: "Content-Type", "application/json") }
        headers.append(unchecked: "Accept", operation.kind == .subscription ? Self.subscriptionAccept : Self.deferAccept)
        for field in additionalHeaders { headers.remove(field.name) }
        for field in additionalHeaders { headers.append(field) }
        // Apollo Server's CSRF prevention accepts a GET that carries this header.
        if get { headers.append(unchecked: "Apollo-Require-Preflight", "true") }
        return headers
    }

    /// The HTTP request for this attempt (Apollo's `toURLRequest()`).
    public func makeNetworkRequest() throws -> NetworkRequest {
        if sendsQueryDocument && operation.isPersistedOnly {
            throw GraphQLHTTPRequestError.noQueryDocument(operationName: operation.name)
        }
        let headerFields = try makeHeaderFields()
        guard usesGET else {
            return NetworkRequest(
                method: .post, url: graphQLEndpoint, headerFields: headerFields,
                body: JSONValue.object(body).encoded(escaping: .foundation), timeoutInterval: requestTimeout)
        }
        guard let url = Self.getURL(endpoint: graphQLEndpoint, body: body) else {
            throw GraphQLHTTPRequestError.serializedQueryParamsMessageError(endpoint: graphQLEndpoint.absoluteString)
        }
        return NetworkRequest(method: .get, url: url, headerFields: headerFields, body: nil, timeoutInterval: requestTimeout)
    }

    /// The GET URL of `body`, as Apollo iOS's `URLQueryParameterTransformer` builds it, so a
    /// CDN keys it as it keys an app's: one query item per body member in key order, an
    /// object as its JSON (written as the POST body is), a string as itself; the endpoint's
    /// own items first; Foundation's query-item encoding, with `+` and `;` encoded too.
    static func getURL(endpoint: URL, body: [String: JSONValue]) -> URL? {
        guard var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false) else { return nil }
        var items = components.queryItems ?? []
        for key in body.keys.sorted() {
            switch body[key]! {
            case .object(let members):
                items.append(URLQueryItem(name: key, value: String(decoding: JSONValue.object(members).encoded(escaping: .foundation), as: UTF8.self)))
            case .string(let text):
                items.append(URLQueryItem(name: key, value: text))
            default:
                continue
            }
        }
        if !items.isEmpty { components.queryItems = items }
        components.percentEncodedQuery = components.percentEncodedQuery?.addingPercentEncoding(withAllowedCharacters: getQueryAllowed)
        return components.url
    }

    private static let getQueryAllowed = CharacterSet(charactersIn: "+;").inverted
}

/// Makes the JSON body of a GraphQL request (Apollo's `JSONRequestBodyCreator`). ChainKit
/// hands over the client awareness explicitly, where upstream reads it from the client's
/// context.
public protocol JSONRequestBodyCreator: Sendable {
    func requestBody(
        for operation: ChainOperation, sendQueryDocument: Bool, autoPersistQuery: Bool, clientAwareness: ClientAwarenessMetadata?
    ) -> [String: JSONValue]
}

/// Apollo's `DefaultRequestBodyCreator`: `operationName`, `variables` only when the operation
/// has variables, `query` when asked, `extensions.persistedQuery` under APQ, and
/// `extensions.clientLibrary` when the client reports its library.
public struct DefaultRequestBodyCreator: JSONRequestBodyCreator {
    public init() {}

    public func requestBody(
        for operation: ChainOperation, sendQueryDocument: Bool, autoPersistQuery: Bool, clientAwareness: ClientAwarenessMetadata?
    ) -> [String: JSONValue] {
        var body: [String: JSONValue] = ["operationName": .string(operation.name)]
        if let variables = operation.variables { body["variables"] = .object(variables) }
        if sendQueryDocument { body["query"] = .string(operation.document) }
        if autoPersistQuery {
            body["extensions"] = ["persistedQuery": ["sha256Hash": .string(operation.documentHash), "version": 1]]
        }
        clientAwareness?.applyExtension(to: &body)
        return body
    }
}

extension HTTPFields {
    /// Appends a field whose name and value are compile-time constants known to be valid.
    mutating func append(unchecked name: String, _ value: String) {
        // The callers pass literal names and values that are valid by construction.
        try! append(name, value)
    }
}
