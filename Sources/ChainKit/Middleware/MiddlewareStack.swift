public import Foundation

/// Runs a request through an array of ``ClientMiddleware`` down to one ``ClientTransport``
/// (swift-openapi-runtime's `UniversalClient.send`).
///
/// ```
///            send                                   ▲ (response, body)
///              │                                     │
///   ┌──────────▼──── middlewares[0] ─────────────────┴──┐
///   │   ┌──────▼──── middlewares[1] ──────────────┴──┐  │
///   │   │   ┌──▼──── transport ───────────────┴──┐   │  │
///   │   │   └────────────────────────────────────┘   │  │
///   │   └────────────────────────────────────────────┘  │
///   └───────────────────────────────────────────────────┘
/// ```
///
/// With `middlewares: [A, B, C]` the request passes A, B, C, the transport, and the response
/// comes back through C, B, A. Each layer may change the request, body and base URL it hands
/// to `next`; the operation ID stays fixed. A layer may call `next` several times (a retry)
/// or not at all (a cached or injected response).
///
/// Every error is thrown as a ``ClientError`` that names the layer where it started, with
/// the request, body and base URL exactly as they were given to ``send(_:body:baseURL:operationID:)``:
///
/// ```swift
/// let stack = MiddlewareStack(middlewares: [RetryingMiddleware()], transport: transport)
/// do {
///     let (response, body) = try await stack.send(request, body: nil, baseURL: url, operationID: "listPets")
/// } catch let error as ClientError {
///     print(error.causeDescription) // "Transport threw an error."
/// }
/// ```
public struct MiddlewareStack: Sendable {
    public let middlewares: [any ClientMiddleware]
    public let transport: any ClientTransport

    public init(middlewares: [any ClientMiddleware], transport: any ClientTransport) {
        self.middlewares = middlewares
        self.transport = transport
    }

    /// The hop names from the top: each middleware's type name, then the transport's.
    public var layerNames: [String] {
        middlewares.map(\.layerName) + [String(describing: type(of: transport))]
    }

    /// Sends `request` through every middleware and the transport and returns the response
    /// as the outermost middleware returned it.
    ///
    /// - Throws: ``ClientError``, always; its `underlyingError` is what the failing layer threw.
    public func send(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String
    ) async throws -> (HTTPResponse, HTTPBody?) {
        // The context is captured once, here, so an error reports what the caller sent rather
        // than what some middleware had turned it into by the time it failed.
        @Sendable func wrap(_ error: any Error, cause: String) -> any Error {
            if error is ClientError { return error }
            return ClientError(
                operationID: operationID,
                request: request,
                requestBody: body,
                baseURL: baseURL,
                causeDescription: cause,
                underlyingError: error
            )
        }

        let transport = self.transport
        var next: MiddlewareNext = { request, body, baseURL in
            do {
                return try await transport.send(request, body: body, baseURL: baseURL, operationID: operationID)
            } catch {
                throw wrap(error, cause: "Transport threw an error.")
            }
        }
        // Folding from the bottom up makes middlewares[0] the outermost closure.
        for middleware in middlewares.reversed() {
            let inner = next
            next = { request, body, baseURL in
                do {
                    return try await middleware.intercept(
                        request, body: body, baseURL: baseURL, operationID: operationID, next: inner
                    )
                } catch {
                    throw wrap(error, cause: "Middleware of type '\(middleware.layerName)' threw an error.")
                }
            }
        }
        return try await next(request, body, baseURL)
    }
}
