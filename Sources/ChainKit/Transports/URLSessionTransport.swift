public import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// Sends requests over the network with `URLSession`: the transport for real endpoints
/// and for `chainlab serve`. It is the bottom of both chains — a ``GraphQLTransport``
/// under the GraphQL chain's HTTP interceptors and a ``ClientTransport`` under a
/// middleware stack.
///
/// ```swift
/// let transport = URLSessionTransport()
/// let response = try await transport.send(NetworkRequest(method: .get, url: URL(string: "http://127.0.0.1:4000/graphql")!))
/// ```
///
/// What `URLSession` changes on the way, so a trace is read correctly:
/// - Request headers travel in a `URLRequest`, which holds one value per name: repeated
///   fields are sent joined with ", " (RFC 9110 §5.3), URLSession picks the order on the
///   wire, and it adds headers of its own (User-Agent, Accept-Encoding, Content-Length…).
///   On Linux it also rewrites names to Title-Case (`apollographql-client-name` goes out as
///   `Apollographql-Client-Name`); names are case-insensitive, so servers see the same field.
/// - Response headers come back as a dictionary, so repeated fields arrive joined and the
///   original order is lost; the transport lists them sorted by name so the order is at
///   least stable from run to run.
/// - A response header that ``HTTPFields`` refuses (a name that is not a token, a value
///   with CR, LF or NUL) is skipped rather than failing the whole exchange: the status
///   and body are still what the server sent, and a header the chain cannot represent
///   could not be shown or edited anyway.
public struct URLSessionTransport: GraphQLTransport, ClientTransport {
    /// The session requests go through (its delegate streams bodies as they arrive).
    public var session: URLSession { reader.session }
    /// The largest ``HTTPBody`` a middleware request may carry; bodies are read whole
    /// before sending, because `URLRequest` needs the bytes up front.
    public let maxRequestBodyBytes: Int
    private let reader: URLSessionChunkReader

    /// A transport over a session made from `configuration`.
    public init(configuration: URLSessionConfiguration = .default, maxRequestBodyBytes: Int = 16 * 1024 * 1024) {
        self.reader = URLSessionChunkReader(configuration: configuration)
        self.maxRequestBodyBytes = maxRequestBodyBytes
    }

    /// Sends a GraphQL-layer request and returns as soon as the response head arrives. The
    /// body follows as upstream's `URLSession.chunks(for:)` delivers it: a `multipart/mixed`
    /// answer one part per chunk, each as soon as it is complete (a @defer increment, a
    /// subscription event); any other answer as one chunk, or no chunk when it is empty.
    public func send(_ request: NetworkRequest) async throws -> NetworkResponse {
        let (response, chunks) = try await reader.start(request.urlRequest)
        return NetworkResponse(
            status: response.statusCode,
            headerFields: Self.headerFields(of: response),
            url: response.url ?? request.url,
            chunks: chunks
        ).splittingBodyIntoParts()
    }

    /// Sends a middleware-stack request to `request.path` under `baseURL`. An empty
    /// response body comes back as nil.
    public func send(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String
    ) async throws -> (HTTPResponse, HTTPBody?) {
        guard let url = request.url(relativeTo: baseURL) else {
            throw URLSessionTransportError.invalidURL(baseURL: baseURL, path: request.path ?? "")
        }
        let bytes = try await body?.collect(upTo: maxRequestBodyBytes)
        let urlRequest = Self.urlRequest(url: url, method: request.method, headerFields: request.headerFields, body: bytes)
        let (response, chunks) = try await reader.start(urlRequest)
        var data = Data()
        for try await piece in chunks { data.append(piece) }
        return (
            HTTPResponse(status: .init(code: response.statusCode), headerFields: Self.headerFields(of: response)),
            data.isEmpty ? nil : HTTPBody(data)
        )
    }

    static func urlRequest(url: URL, method: HTTPMethod, headerFields: HTTPFields, body: Data?) -> URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = method.rawValue
        for field in headerFields {
            let joined = request.value(forHTTPHeaderField: field.name).map { $0 + ", " + field.value } ?? field.value
            request.setValue(joined, forHTTPHeaderField: field.name)
        }
        request.httpBody = body
        return request
    }

    /// The response's header fields, in name order.
    static func headerFields(of response: HTTPURLResponse) -> HTTPFields {
        let pairs = response.allHeaderFields.compactMap { key, value -> (String, String)? in
            guard let name = key as? String, let value = value as? String else { return nil }
            return (name, value)
        }
        let sorted = pairs.sorted { ($0.0.lowercased(), $0.0) < ($1.0.lowercased(), $1.0) }
        return HTTPFields(sorted.compactMap { try? HTTPField(name: $0.0, value: $0.1) })
    }
}

/// Why ``URLSessionTransport`` could not send a request or use its response.
public enum URLSessionTransportError: Error, Equatable, CustomStringConvertible {
    /// The base URL and path do not make a URL.
    case invalidURL(baseURL: URL, path: String)
    /// The session answered with something other than an HTTP response.
    case notHTTP(url: URL?)

    public var description: String {
        switch self {
        case .invalidURL(let baseURL, let path):
            "\"\(baseURL.absoluteString)\" and path \"\(path)\" do not form a valid URL"
        case .notHTTP(let url):
            "the response for \(url?.absoluteString ?? "the request") is not an HTTP response"
        }
    }
}
