import Stops
import ChainKit
import Foundation

/// A stop's release applied to what waits at the stop: the one place where a person's header
/// and status edits, a forced 401, a forced retry and an injected failure change a request or
/// a response. Every instrumented hop asks here and reports what comes out; none of them
/// decides on its own what a disposition means.
///
/// | disposition | pre-flight stop | post-flight stop |
/// | --- | --- | --- |
/// | `proceed` | the request, headers edited | the outcome, status and headers edited |
/// | `force401` | transports answer 401 without sending | a 401 answer (HTTP layers); `ResponseCodeError` 401 (GraphQL results) |
/// | `forceRetry` | GraphQL hops throw `ChainRunner.Retry` | GraphQL results: `Retry`; middlewares: `next` again |
/// | `fail` | the fault is thrown | the fault is thrown |
///
/// Where a disposition is refused (``StopCapabilities``), the scheduler never hands it out;
/// the functions below treat it as `proceed` rather than guess.
extension Release {
    // MARK: - Pre-flight stops

    /// What a stop that can neither edit nor force anything lets through: nothing, or the
    /// injected fault (the cache step and the parser).
    func pass() throws {
        if case .fail(let fault) = disposition { throw fault }
    }

    /// The GraphQL request leaving a GraphQL hop's pre-flight stop, with the edited headers.
    /// - Throws: `ChainRunner.Retry` with that request for a forced retry; the fault for `fail`.
    func applied(to request: ChainRequest) throws -> ChainRequest {
        switch disposition {
        case .proceed, .force401: break
        case .forceRetry: throw ChainRunner.Retry(request: edited(request))
        case .fail(let fault): throw fault
        }
        return edited(request)
    }

    /// The request leaving an HTTP interceptor's or a middleware's pre-flight stop, with the
    /// edited headers.
    /// - Throws: the fault for `fail`.
    func applied<Request: EditableRequest>(to request: Request) throws -> Request {
        try pass()
        return edited(request)
    }

    /// The request a transport sends after its pre-flight stop, with the edited headers; nil
    /// when a person forced a 401 there, which the transport answers (``forced401(url:)``)
    /// without sending anything.
    /// - Throws: the fault for `fail`.
    func sending<Request: EditableRequest>(_ request: Request) throws -> Request? {
        if case .force401 = disposition { return nil }
        return try applied(to: request)
    }

    /// `request` with the headers a person set at the stop; the very same value (no copy)
    /// when nothing was edited.
    private func edited<Request: EditableRequest>(_ request: Request) -> Request {
        guard let requestHeaders else { return request }
        var edited = request
        edited.editableHeaders = requestHeaders
        return edited
    }

    // MARK: - Post-flight stops

    /// What an HTTP-level hop receives after its post-flight stop: the response (or the 401
    /// forced in its place) with the edited status and headers. A retry cannot be forced
    /// there.
    /// - Throws: the failure that arrived, or the fault for `fail`.
    func applied<Response: EditableResponse>(to outcome: Result<Response, any Error>, url: URL) throws -> Response {
        var response: Response
        switch disposition {
        case .proceed, .forceRetry: response = try outcome.get()
        case .force401: response = .forced401(url: url)
        case .fail(let fault): throw fault
        }
        if let responseStatus { response.statusCode = responseStatus }
        if let responseHeaders { response.headerFields = responseHeaders }
        return response
    }

    /// What a middleware receives after its post-flight stop, as ``applied(to:url:)``; nil
    /// when a person forced a retry there, which the middleware carries out by calling `next`
    /// again, as a retrying middleware would.
    func appliedOrRetried(to outcome: Result<MiddlewareAnswer, any Error>) throws -> MiddlewareAnswer? {
        if case .forceRetry = disposition { return nil }
        return try applied(to: outcome, url: Self.noURL)
    }

    /// The result a GraphQL hop receives after its post-flight stop. `handed` is what that
    /// hop handed down (a forced 401 names its endpoint), `received` what it had received (a
    /// forced retry starts the chain again with it).
    /// - Throws: the failure that arrived, a `ResponseCodeError` 401, `ChainRunner.Retry`, or
    ///   the fault for `fail`.
    func applied(to outcome: Result<ChainResponse, any Error>, handed: ChainRequest, received: ChainRequest) throws -> ChainResponse {
        switch disposition {
        case .proceed: return try outcome.get()
        case .force401:
            throw ResponseCodeError(status: 401, headerFields: Self.forced401Headers, url: handed.graphQLEndpoint, body: Self.forced401Body)
        case .forceRetry: throw ChainRunner.Retry(request: received)
        case .fail(let fault): throw fault
        }
    }

    // MARK: - The forced 401

    /// The body sent in place of a server's answer when a person forces a 401.
    static let forced401Body = Data(#"{"errors":[{"message":"Unauthorized (401 forced in ChainLab)","extensions":{"code":"UNAUTHENTICATED"}}]}"#.utf8)

    /// The headers of a forced 401.
    static let forced401Headers: HTTPFields = {
        var fields = HTTPFields()
        try? fields.append("Content-Type", "application/json")
        return fields
    }()

    /// Stands in for the URL of a forced 401 where the answer has none (a middleware's).
    private static let noURL = URL(string: "about:blank")!
}

extension Result {
    /// Whether this is a success (a response a person can edit at the stop).
    var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}

/// A request whose headers a person can edit at a stop.
protocol EditableRequest {
    /// The headers an edit replaces: the HTTP request's, or a GraphQL request's additional ones.
    var editableHeaders: HTTPFields { get set }
}

extension ChainRequest: EditableRequest {
    var editableHeaders: HTTPFields {
        get { additionalHeaders }
        set { additionalHeaders = newValue }
    }
}

extension NetworkRequest: EditableRequest {
    var editableHeaders: HTTPFields {
        get { headerFields }
        set { headerFields = newValue }
    }
}

extension HTTPRequest: EditableRequest {
    var editableHeaders: HTTPFields {
        get { headerFields }
        set { headerFields = newValue }
    }
}

/// A response whose status and headers a person can edit at a stop, and which a forced 401
/// can replace.
protocol EditableResponse {
    var statusCode: Int { get set }
    var headerFields: HTTPFields { get set }
    /// The 401 a person forces in place of a server's answer (with ``Release/forced401Body``
    /// as its body, where the response carries one).
    static func forced401(url: URL) -> Self
}

extension NetworkResponse: EditableResponse {
    var statusCode: Int {
        get { status }
        set { status = newValue }
    }

    static func forced401(url: URL) -> NetworkResponse {
        NetworkResponse(status: 401, headerFields: Release.forced401Headers, url: url, body: Release.forced401Body)
    }
}

extension HTTPResponse: EditableResponse {
    var statusCode: Int {
        get { status.code }
        set { status = .init(code: newValue) }
    }

    static func forced401(url: URL) -> HTTPResponse {
        HTTPResponse(status: 401, headerFields: Release.forced401Headers)
    }
}

/// An answer made of a response head and a body: its status and headers are the head's.
protocol AnswerWithHead: EditableResponse {
    associatedtype Head: EditableResponse
    var head: Head { get set }
}

extension AnswerWithHead {
    var statusCode: Int {
        get { head.statusCode }
        set { head.statusCode = newValue }
    }

    var headerFields: HTTPFields {
        get { head.headerFields }
        set { head.headerFields = newValue }
    }
}

/// What a transport received: the response head and the whole body, as its stops show it.
struct ReceivedAnswer<Head: EditableResponse>: AnswerWithHead {
    var head: Head
    var body: Data

    init(_ head: Head, body: Data) {
        self.head = head
        self.body = body
    }

    static func forced401(url: URL) -> ReceivedAnswer {
        ReceivedAnswer(.forced401(url: url), body: Release.forced401Body)
    }
}

/// A middleware's answer: the response head and its body stream.
struct MiddlewareAnswer: AnswerWithHead {
    var head: HTTPResponse
    var body: HTTPBody?

    init(_ head: HTTPResponse, _ body: HTTPBody?) {
        self.head = head
        self.body = body
    }

    init(_ answer: (HTTPResponse, HTTPBody?)) {
        self.init(answer.0, answer.1)
    }

    /// The head and body as a middleware returns them.
    var pair: (HTTPResponse, HTTPBody?) { (head, body) }

    static func forced401(url: URL) -> MiddlewareAnswer {
        MiddlewareAnswer(.forced401(url: url), HTTPBody(Release.forced401Body))
    }
}
