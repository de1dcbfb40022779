public import Foundation

/// An HTTP method; any RFC 9110 token is allowed.
public struct HTTPMethod: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let get = HTTPMethod(rawValue: "GET")
    public static let post = HTTPMethod(rawValue: "POST")
    public static let put = HTTPMethod(rawValue: "PUT")
    public static let patch = HTTPMethod(rawValue: "PATCH")
    public static let delete = HTTPMethod(rawValue: "DELETE")
    public static let head = HTTPMethod(rawValue: "HEAD")
    public static let options = HTTPMethod(rawValue: "OPTIONS")

    public var description: String { rawValue }
}

/// A request as the middleware stack sees it (swift-openapi-runtime's shape): method, path
/// with query, and headers. The base URL and the body travel beside it.
public struct HTTPRequest: Sendable, Hashable {
    public var method: HTTPMethod
    /// Path and query, starting with "/".
    public var path: String
    public var headerFields: HTTPFields

    public init(method: HTTPMethod, path: String, headerFields: HTTPFields = HTTPFields()) {
        self.method = method
        self.path = path
        self.headerFields = headerFields
    }

    /// Whether the two requests have the same method, path and headers. Inlined where it is
    /// compared, so a request handed on unchanged is told equal without a call (see
    /// ``HTTPFields/==(_:_:)``).
    @inlinable public static func == (lhs: HTTPRequest, rhs: HTTPRequest) -> Bool {
        lhs.path == rhs.path && lhs.headerFields == rhs.headerFields && lhs.method == rhs.method
    }

    /// The absolute URL this request goes to from `baseURL`.
    public func url(relativeTo baseURL: URL) -> URL? {
        var base = baseURL.absoluteString
        if base.hasSuffix("/") { base.removeLast() }
        return URL(string: base + path)
    }
}

/// A response head as the middleware stack sees it; the body travels beside it.
public struct HTTPResponse: Sendable, Hashable {
    public var status: Int
    public var headerFields: HTTPFields

    public init(status: Int, headerFields: HTTPFields = HTTPFields()) {
        self.status = status
        self.headerFields = headerFields
    }

    /// Whether the status is in 200...299.
    public var isSuccess: Bool { (200..<300).contains(status) }
}

/// A byte chunk stream, as responses deliver their bodies in the GraphQL HTTP layer.
public typealias ChunkStream = PullStream<Data>

/// The HTTP request the GraphQL chain builds and its HTTP interceptors see (Apollo's
/// `URLRequest`): an absolute URL, headers and an optional body.
public struct NetworkRequest: Sendable, Hashable {
    public var method: HTTPMethod
    public var url: URL
    public var headerFields: HTTPFields
    public var body: Data?
    /// Seconds before the transport gives up; nil leaves the transport's default.
    public var timeoutInterval: Double?

    public init(method: HTTPMethod, url: URL, headerFields: HTTPFields = HTTPFields(), body: Data? = nil, timeoutInterval: Double? = nil) {
        self.method = method
        self.url = url
        self.headerFields = headerFields
        self.body = body
        self.timeoutInterval = timeoutInterval
    }
}

/// A response in the GraphQL HTTP layer (Apollo's `HTTPResponse`): a head plus a lazy
/// stream of body chunks. An empty body delivers no chunk at all.
public struct NetworkResponse: Sendable {
    public var status: Int
    public var headerFields: HTTPFields
    public var url: URL
    public var chunks: ChunkStream

    public init(status: Int, headerFields: HTTPFields = HTTPFields(), url: URL, chunks: ChunkStream) {
        self.status = status
        self.headerFields = headerFields
        self.url = url
        self.chunks = chunks
    }

    /// A response whose body is `body` as one chunk, or no chunk when `body` is empty.
    public init(status: Int, headerFields: HTTPFields = HTTPFields(), url: URL, body: Data) {
        self.init(status: status, headerFields: headerFields, url: url, chunks: PullStream(body.isEmpty ? [] : [body]))
    }

    /// Whether the status is in 200...299.
    public var isSuccess: Bool { (200..<300).contains(status) }

    /// The same response with every chunk passed through `transform` as it is read.
    public func mapChunks(_ transform: @escaping @Sendable (NetworkResponse, Data) async throws -> Data) -> NetworkResponse {
        var copy = self
        let head = self
        copy.chunks = chunks.map { try await transform(head, $0) }
        return copy
    }
}
