// Client middlewares written the way swift-openapi-runtime's documentation and
// swift-openapi-generator's examples write them (Examples/auth-client-middleware-example,
// logging-middleware-*-example, retrying-middleware-example). The only difference from such
// code is its imports: `import ChainKit` where the app imports `OpenAPIRuntime` and
// `HTTPTypes`. ChainLab's tests run them through `UniversalClient` against `chainlab serve`
// and hop by hop in the lab (Tests/LabTests/UpstreamStyle/).
import ChainKit
import Foundation

/// Adds an `Authorization` header to every request.
package struct AuthenticationMiddleware {
    private let value: String

    package init(authorizationHeaderFieldValue value: String) { self.value = value }
}

extension AuthenticationMiddleware: ClientMiddleware {
    package func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        request.headerFields[.authorization] = value
        return try await next(request, body, baseURL)
    }
}

/// Writes one line per request and per response into `lines`, with the body when its
/// length is known and small enough; a logged body is buffered and handed on as a new body.
package actor BodyLoggingMiddleware {
    package enum BodyLoggingPolicy: Sendable {
        case never
        case upTo(maxBytes: Int)
    }

    package let bodyLoggingPolicy: BodyLoggingPolicy
    package private(set) var lines: [String] = []

    package init(bodyLoggingPolicy: BodyLoggingPolicy = .never) { self.bodyLoggingPolicy = bodyLoggingPolicy }

    private func log(_ line: String) { lines.append(line) }

    /// What to log of `body`, and the body to hand on in its place.
    private func process(_ body: HTTPBody?) async throws -> (log: String, bodyForNext: HTTPBody?) {
        switch (body?.length, bodyLoggingPolicy) {
        case (.none, _): return ("<none>", body)
        case (_, .never): return ("<redacted>", body)
        case (.unknown, _): return ("<unknown length>", body)
        case (.known(let length), .upTo(let maxBytes)) where length > maxBytes: return ("<\(length) bytes>", body)
        case (.known, .upTo(let maxBytes)):
            let bodyData = try await Data(collecting: body!, upTo: maxBytes)
            return (String(decoding: bodyData, as: UTF8.self), HTTPBody(bodyData))
        }
    }
}

extension BodyLoggingMiddleware: ClientMiddleware {
    package func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let (requestBodyToLog, requestBodyForNext) = try await process(body)
        log("Request: \(request.method) \(request.path ?? "<nil>") body: \(requestBodyToLog)")
        do {
            let (response, responseBody) = try await next(request, requestBodyForNext, baseURL)
            let (responseBodyToLog, responseBodyForNext) = try await process(responseBody)
            log("Response: \(request.method) \(request.path ?? "<nil>") \(response.status.code) body: \(responseBodyToLog)")
            return (response, responseBodyForNext)
        } catch {
            log("Request failed. Error: \(error.localizedDescription)")
            throw error
        }
    }
}

/// Sends a request again when the response's status or a thrown error says to, up to a
/// number of attempts; a body that can be read only once is sent once.
package struct RetryingMiddleware {
    package enum RetryableSignal: Hashable, Sendable {
        case code(Int)
        case range(Range<Int>)
        case errorThrown
    }

    package enum RetryingPolicy: Hashable, Sendable {
        case never
        case upToAttempts(count: Int)
    }

    package var signals: Set<RetryableSignal>
    package var policy: RetryingPolicy

    package init(signals: Set<RetryableSignal> = [.code(429), .range(500..<600), .errorThrown], policy: RetryingPolicy = .upToAttempts(count: 3)) {
        self.signals = signals
        self.policy = policy
    }
}

extension RetryingMiddleware: ClientMiddleware {
    package func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        guard case .upToAttempts(count: let maxAttemptCount) = policy else {
            return try await next(request, body, baseURL)
        }
        if let body { guard body.iterationBehavior == .multiple else { return try await next(request, body, baseURL) } }
        for attempt in 1...maxAttemptCount {
            let (response, responseBody): (HTTPResponse, HTTPBody?)
            if signals.contains(.errorThrown) {
                do { (response, responseBody) = try await next(request, body, baseURL) } catch {
                    if attempt == maxAttemptCount { throw error }
                    continue
                }
            } else {
                (response, responseBody) = try await next(request, body, baseURL)
            }
            if signals.contains(response.status.code) && attempt < maxAttemptCount { continue }
            return (response, responseBody)
        }
        preconditionFailure("Unreachable")
    }
}

extension Set where Element == RetryingMiddleware.RetryableSignal {
    func contains(_ code: Int) -> Bool {
        for signal in self {
            switch signal {
            case .code(let int): if code == int { return true }
            case .range(let range): if range.contains(code) { return true }
            case .errorThrown: break
            }
        }
        return false
    }
}
