public import Foundation

/// Sets the `Authorization` header on every request, either to a fixed value or to a bearer
/// token that is refreshed once when the server refuses it (a 401, unless told otherwise).
///
/// ```swift
/// let fixed = try AuthenticationMiddleware(authorization: "Basic dXNlcjpwYXNz")
/// let refreshing = AuthenticationMiddleware(
///     token: { await tokens.current },
///     refresh: { rejected in try await tokens.refresh(replacing: rejected) }
/// )
/// ```
///
/// The refreshing form makes one extra attempt, never more, so a server that keeps answering
/// 401 costs exactly one refresh per request. It does not buffer request bodies: a request
/// whose body is single-pass cannot be sent again, so its 401 is returned as it is (put a
/// ``RetryingMiddleware`` with ``RetryingMiddleware/bufferingSinglePassBodies`` in front of
/// it, or send replayable bodies).
public struct AuthenticationMiddleware: ClientMiddleware {
    private enum Mode: Sendable {
        case fixed(String)
        case refreshing(
            token: @Sendable () async throws -> String,
            refresh: @Sendable (_ rejectedToken: String) async throws -> String,
            rejectedStatuses: Set<Int>
        )
    }

    private let mode: Mode

    /// Sets `Authorization` to `value` on every request.
    ///
    /// - Throws: ``HeaderValidationError`` when `value` could not be sent as a header, so a
    ///   bad credential fails here rather than on every request.
    public init(authorization value: String) throws(HeaderValidationError) {
        try HTTPField.validate(value: value, forName: "Authorization")
        mode = .fixed(value)
    }

    /// Sets `Authorization: Bearer <token>` with the token `token` returns; when the answer's
    /// status is one of `rejectedStatuses` (401 by default; some servers refuse a token with
    /// 403), asks `refresh` for a new token, handing it the one that was rejected, and sends
    /// the request once more with the new token.
    public init(
        token: @escaping @Sendable () async throws -> String,
        refresh: @escaping @Sendable (_ rejectedToken: String) async throws -> String,
        rejectedStatuses: Set<Int> = [401]
    ) {
        mode = .refreshing(token: token, refresh: refresh, rejectedStatuses: rejectedStatuses)
    }

    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: MiddlewareNext
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        switch mode {
        case .fixed(let value):
            try request.headerFields.set("Authorization", value)
            return try await next(request, body, baseURL)
        case .refreshing(let token, let refresh, let rejectedStatuses):
            let current = try await token()
            try request.headerFields.set("Authorization", "Bearer \(current)")
            let (response, responseBody) = try await next(request, body, baseURL)
            guard rejectedStatuses.contains(response.status.code), body?.iterationBehavior != .single else {
                return (response, responseBody)
            }
            let renewed = try await refresh(current)
            try request.headerFields.set("Authorization", "Bearer \(renewed)")
            return try await next(request, body, baseURL)
        }
    }
}
