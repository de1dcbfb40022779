public import ChainKit
public import Foundation

/// A request as the lab backend receives it: what an HTTP/1.1 request line, its header
/// fields and its body carry.
public struct BackendRequest: Sendable, Hashable {
    /// The method exactly as sent; methods are case-sensitive, so `get` is not `GET`.
    public var method: String
    /// The origin-form target: a path starting with "/", optionally followed by `?query`
    /// (still percent-encoded).
    public var target: String
    /// The request's header fields, in order.
    public var headers: HTTPFields
    /// The request's content; empty when there is none.
    public var body: Data

    public init(method: String, target: String, headers: HTTPFields = HTTPFields(), body: Data = Data()) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
    }

    /// The request a GraphQL transport sends, addressed by its URL's path and query.
    public init(_ request: NetworkRequest) {
        self.init(
            method: request.method.rawValue, target: BackendRequest.target(of: request.url),
            headers: request.headerFields, body: request.body ?? Data())
    }

    /// The request a middleware-stack transport sends; its path already holds the query.
    public init(_ request: HTTPRequest, body: Data) {
        self.init(method: request.method.rawValue, target: request.path ?? "/", headers: request.headerFields, body: body)
    }

    /// The URL's path and query as they appear in an HTTP request line.
    static func target(of url: URL) -> String {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return "/" }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        return components.percentEncodedQuery.map { path + "?" + $0 } ?? path
    }
}

/// The lab backend's answer.
public struct BackendResponse: Sendable, Hashable {
    /// The HTTP status code.
    public var status: Int
    /// Always holds a `Content-Type` naming the body's media type.
    public var headers: HTTPFields
    public var body: Data
    /// Seconds the response takes to arrive, from ``LabBackend/Settings/latency``. The
    /// backend never sleeps: an in-process transport advances the lab clock by this much
    /// before delivering the response, and `serve` waits this long on the wall clock. It is
    /// not sent as a header, so traces show only what a real server would send.
    public var latency: Double
    /// The body in the pieces a streaming server sends it in (a multipart answer: @defer
    /// increments, subscription events), each after a delay; empty when the body goes out
    /// at once. When not empty, ``body`` is the pieces joined.
    public var pieces: [Piece]

    /// Part of a body sent `delay` seconds after the piece before it (after the head for
    /// the first): the in-process transport spends the delay on the lab clock, `serve` on
    /// the wall clock between two chunks of a chunked response.
    public struct Piece: Sendable, Hashable {
        public var delay: Double
        public var bytes: Data

        public init(delay: Double, bytes: Data) {
            self.delay = delay
            self.bytes = bytes
        }
    }

    public init(status: Int, headers: HTTPFields = HTTPFields(), body: Data = Data(), latency: Double = 0) {
        self.status = status
        self.headers = headers
        self.body = body
        self.latency = latency
        self.pieces = []
    }

    /// A response whose body is `pieces`, sent one after another.
    public init(status: Int, headers: HTTPFields, pieces: [Piece], latency: Double = 0) {
        self.init(status: status, headers: headers, body: pieces.reduce(into: Data()) { $0.append($1.bytes) }, latency: latency)
        self.pieces = pieces
    }
}
