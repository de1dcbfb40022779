public import Foundation

/// Writes one line when a request goes down and one when its response (or error) comes
/// back, to a sink you choose: `print`, an `os.Logger`, or ChainLab's timeline.
///
/// ```swift
/// let logging = LoggingMiddleware { line in print(line) }
/// // → GET /heroes/2001
/// // ← 200 GET /heroes/2001
/// ```
public struct LoggingMiddleware: ClientMiddleware {
    public let log: @Sendable (String) -> Void

    public init(log: @escaping @Sendable (String) -> Void) {
        self.log = log
    }

    public func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String, next: MiddlewareNext
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let target = "\(request.method.rawValue) \(request.path ?? "")"
        log("→ \(target) (\(operationID))")
        do {
            let (response, responseBody) = try await next(request, body, baseURL)
            log("← \(response.status.code) \(target)")
            return (response, responseBody)
        } catch {
            log("✕ \(target): \(error)")
            throw error
        }
    }
}
