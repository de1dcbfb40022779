public import Foundation

/// The next layer of a middleware stack: the middleware below, or the transport.
public typealias MiddlewareNext = @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)

/// A layer of the HTTP middleware stack (swift-openapi-runtime's `ClientMiddleware`).
///
/// Middlewares run in array order on the way out and in reverse on the way back:
///
/// ```
/// request ─▶ A ─▶ B ─▶ C ─▶ transport
/// response ◀─ A ◀─ B ◀─ C ◀─┘
/// ```
///
/// A middleware may rewrite the request, body and base URL, call `next` more than once (that
/// is how a retry works) or not at all (a cache or a fault). The operation ID is fixed for
/// the whole call.
public protocol ClientMiddleware: Sendable {
    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: MiddlewareNext
    ) async throws -> (HTTPResponse, HTTPBody?)
}

/// The bottom of a middleware stack: sends a request and returns the response.
public protocol ClientTransport: Sendable {
    func send(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String
    ) async throws -> (HTTPResponse, HTTPBody?)
}
