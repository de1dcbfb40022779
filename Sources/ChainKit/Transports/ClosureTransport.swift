public import Foundation

/// A transport that answers from a closure, in memory: for tests and for wiring a stack to
/// something other than a network.
///
/// ```swift
/// let transport = ClosureTransport { request, body, baseURL, operationID in
///     (HTTPResponse(status: request.path == "/pets" ? 200 : 404), HTTPBody("[]"))
/// }
/// let ok = ClosureTransport.status(200, body: "ok")
/// ```
public struct ClosureTransport: ClientTransport {
    /// Receives what the transport was asked to send and returns the response.
    public typealias Handler = @Sendable (
        _ request: HTTPRequest,
        _ body: HTTPBody?,
        _ baseURL: URL,
        _ operationID: String
    ) async throws -> (HTTPResponse, HTTPBody?)

    private let handler: Handler

    public init(_ handler: @escaping Handler) {
        self.handler = handler
    }

    public func send(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String
    ) async throws -> (HTTPResponse, HTTPBody?) {
        try await handler(request, body, baseURL, operationID)
    }

    /// Answers every request with `status`, these header fields and `body` (no body when nil).
    public static func status(_ status: HTTPResponse.Status, body: String? = nil, headerFields: HTTPFields = HTTPFields()) -> ClosureTransport {
        ClosureTransport { _, _, _, _ in
            (HTTPResponse(status: status, headerFields: headerFields), body.map { HTTPBody($0) })
        }
    }

    /// Throws `error` for every request, as a transport that cannot reach the server would.
    public static func failing(with error: any Error) -> ClosureTransport {
        ClosureTransport { _, _, _, _ in throw error }
    }

    /// Answers 200 with the request's own body, so a test can see the bytes that arrived.
    public static var echo: ClosureTransport {
        ClosureTransport { _, body, _, _ in (HTTPResponse(status: 200), body) }
    }
}
