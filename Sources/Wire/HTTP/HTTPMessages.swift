public import Foundation
import Vocabulary

/// The GraphQL layer's name for a request method: the same type as the middleware stack's.
public typealias HTTPMethod = HTTPRequest.Method

/// A request as the middleware stack sees it (swift-http-types' `HTTPRequest`): the method,
/// the `:scheme`, `:authority` and `:path` pseudo-header values, and the header fields. The
/// base URL and the body travel beside it.
///
/// ```swift
/// var request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/pets")
/// request.headerFields[.authorization] = "Bearer \(token)"
/// ```
public struct HTTPRequest: Sendable, Hashable {
    /// A request method: any RFC 9110 token.
    public struct Method: Sendable, Hashable, RawRepresentable, LosslessStringConvertible {
        public let rawValue: String

        /// A method from `method`; nil when it is not a token.
        public init?(_ method: String) {
            guard HTTPSyntax.isToken(method.utf8) else { return nil }
            rawValue = method
        }

        public init?(rawValue: String) { self.init(rawValue) }

        init(unchecked method: String) { rawValue = method }

        public var description: String { rawValue }

        public static var get: Self { .init(unchecked: "GET") }
        public static var head: Self { .init(unchecked: "HEAD") }
        public static var post: Self { .init(unchecked: "POST") }
        public static var put: Self { .init(unchecked: "PUT") }
        public static var delete: Self { .init(unchecked: "DELETE") }
        public static var connect: Self { .init(unchecked: "CONNECT") }
        public static var options: Self { .init(unchecked: "OPTIONS") }
        public static var trace: Self { .init(unchecked: "TRACE") }
        public static var patch: Self { .init(unchecked: "PATCH") }
    }

    /// The pseudo-header values, in one shared box (``CopyOnWrite``): a request is copied at
    /// every layer it passes, and a copy then costs one reference for all four, which most
    /// layers never change.
    @usableFromInline struct Target: Sendable, Hashable {
        var method: Method
        var scheme: String?
        var authority: String?
        var path: String?
    }

    @usableFromInline var target: CopyOnWrite<Target>
    public var headerFields: HTTPFields

    public var method: Method { get { target.value.method } set { target.update { $0.method = newValue } } }
    /// The `:scheme`; nil leaves the base URL's.
    public var scheme: String? { get { target.value.scheme } set { target.update { $0.scheme = newValue } } }
    /// The `:authority` (host and port); nil leaves the base URL's.
    public var authority: String? { get { target.value.authority } set { target.update { $0.authority = newValue } } }
    /// Path and query, starting with "/", appended to the base URL.
    public var path: String? { get { target.value.path } set { target.update { $0.path = newValue } } }

    public init(method: Method, scheme: String?, authority: String?, path: String?, headerFields: HTTPFields = [:]) {
        self.target = CopyOnWrite(Target(method: method, scheme: scheme, authority: authority, path: path))
        self.headerFields = headerFields
    }

    /// A request for `path` relative to the base URL, as generated clients make them.
    public init(method: Method, path: String, headerFields: HTTPFields = [:]) {
        self.init(method: method, scheme: nil, authority: nil, path: path, headerFields: headerFields)
    }

    /// Whether the two requests have the same method, pseudo-header values and headers.
    /// Inlined where it is compared, so a request handed on unchanged is told equal without
    /// a call (see ``HTTPFields/==(_:_:)``).
    @inlinable public static func == (lhs: HTTPRequest, rhs: HTTPRequest) -> Bool {
        lhs.headerFields == rhs.headerFields && (lhs.target.isIdentical(to: rhs.target) || lhs.target.value == rhs.target.value)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(target.value)
        hasher.combine(headerFields)
    }

    /// The absolute URL this request goes to from `baseURL`: the base URL's path with this
    /// request's path after it, under this request's scheme and authority where it has them.
    public func url(relativeTo baseURL: URL) -> URL? {
        var base = baseURL.absoluteString
        if base.hasSuffix("/") { base.removeLast() }
        let target = self.target.value
        guard target.scheme != nil || target.authority != nil else { return URL(string: base + (target.path ?? "")) }
        guard var components = URLComponents(string: base + (target.path ?? "")) else { return nil }
        if let scheme = target.scheme { components.scheme = scheme }
        if let authority = target.authority {
            guard let parsed = URLComponents(string: "//" + authority) else { return nil }
            components.host = parsed.host
            components.port = parsed.port
        }
        return components.url
    }
}

/// A response head as the middleware stack sees it (swift-http-types' `HTTPResponse`); the
/// body travels beside it.
public struct HTTPResponse: Sendable, Hashable {
    /// A status code and its reason phrase. Statuses are equal when their codes are.
    ///
    /// ```swift
    /// if response.status == .unauthorized { … }
    /// switch response.status.kind { case .successful: … default: … }
    /// ```
    public struct Status: Sendable, Hashable, ExpressibleByIntegerLiteral, CustomStringConvertible {
        public let code: Int
        public let reasonPhrase: String

        /// A status from a code in 0...999 (a code outside traps, as upstream's does; a
        /// status read from a server is checked before it is made).
        public init(code: Int, reasonPhrase: String = "") {
            precondition((0...999).contains(code), "Invalid status code")
            self.code = code
            self.reasonPhrase = HTTPSyntax.legalizedFieldContent(reasonPhrase)
        }

        @inlinable public init(integerLiteral value: Int) {
            precondition((0...999).contains(value), "Invalid status code")
            code = value
            reasonPhrase = ""
        }

        /// The class of a status, from its first digit.
        public enum Kind: Sendable, Hashable {
            case invalid
            case informational
            case successful
            case redirection
            case clientError
            case serverError
        }

        public var kind: Kind {
            switch code {
            case 100...199: .informational
            case 200...299: .successful
            case 300...399: .redirection
            case 400...499: .clientError
            case 500...599: .serverError
            default: .invalid
            }
        }

        @inlinable public static func == (lhs: Status, rhs: Status) -> Bool { lhs.code == rhs.code }
        public func hash(into hasher: inout Hasher) { hasher.combine(code) }

        public var description: String { "\(code) \(reasonPhrase)" }

        static func named(_ code: Int) -> Self { .init(code: code, reasonPhrase: ReasonPhrase.of(code)) }

        public static var `continue`: Self { .named(100) }
        public static var switchingProtocols: Self { .named(101) }
        public static var ok: Self { .named(200) }
        public static var created: Self { .named(201) }
        public static var accepted: Self { .named(202) }
        public static var noContent: Self { .named(204) }
        public static var partialContent: Self { .named(206) }
        public static var movedPermanently: Self { .named(301) }
        public static var found: Self { .named(302) }
        public static var seeOther: Self { .named(303) }
        public static var notModified: Self { .named(304) }
        public static var temporaryRedirect: Self { .named(307) }
        public static var permanentRedirect: Self { .named(308) }
        public static var badRequest: Self { .named(400) }
        public static var unauthorized: Self { .named(401) }
        public static var forbidden: Self { .named(403) }
        public static var notFound: Self { .named(404) }
        public static var methodNotAllowed: Self { .named(405) }
        public static var notAcceptable: Self { .named(406) }
        public static var requestTimeout: Self { .named(408) }
        public static var conflict: Self { .named(409) }
        public static var gone: Self { .named(410) }
        public static var preconditionFailed: Self { .named(412) }
        public static var contentTooLarge: Self { .named(413) }
        public static var unsupportedMediaType: Self { .named(415) }
        public static var unprocessableContent: Self { .named(422) }
        public static var tooManyRequests: Self { .named(429) }
        public static var internalServerError: Self { .named(500) }
        public static var notImplemented: Self { .named(501) }
        public static var badGateway: Self { .named(502) }
        public static var serviceUnavailable: Self { .named(503) }
        public static var gatewayTimeout: Self { .named(504) }
    }

    public var status: Status
    public var headerFields: HTTPFields
    /// The URL and body chunks of a response in a GraphQL chain's HTTP layer (see
    /// `HTTPResponse+Chunks.swift` in ChainKit); nil for a middleware stack's response head.
    package let chunked: ChunkedBody?

    public init(status: Status, headerFields: HTTPFields = [:]) {
        self.status = status
        self.headerFields = headerFields
        self.chunked = nil
    }

    package init(status: Status, headerFields: HTTPFields, chunked: ChunkedBody) {
        self.status = status
        self.headerFields = headerFields
        self.chunked = chunked
    }

    /// Responses are equal when their statuses and header fields are.
    public static func == (lhs: HTTPResponse, rhs: HTTPResponse) -> Bool {
        lhs.status == rhs.status && lhs.headerFields == rhs.headerFields
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(status)
        hasher.combine(headerFields)
    }

    /// Whether the status is in 200...299.
    public var isSuccess: Bool { status.kind == .successful }
}

/// What a response in a GraphQL chain's HTTP layer carries beside its head.
package final class ChunkedBody: Sendable {
    package let url: URL
    package let chunks: AsyncThrowingStream<Data, any Error>

    package init(url: URL, chunks: AsyncThrowingStream<Data, any Error>) {
        self.url = url
        self.chunks = chunks
    }
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
