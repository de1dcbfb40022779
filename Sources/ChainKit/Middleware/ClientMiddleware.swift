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

/// A middleware that stands in for another one, such as an observer wrapping it. The stack
/// names the wrapped middleware in errors and layer names, so an error reads the same with
/// or without the wrapper.
public protocol WrappingMiddleware: ClientMiddleware {
    /// The type name of the middleware this one wraps.
    var wrappedMiddlewareName: String { get }
}

extension ClientMiddleware {
    /// The name errors and hop lists use: the wrapped middleware's for a wrapper, otherwise
    /// the type name.
    public var layerName: String {
        (self as? any WrappingMiddleware)?.wrappedMiddlewareName ?? String(describing: type(of: self))
    }
}
