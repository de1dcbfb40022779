public import Foundation
import Synchronization

/// Breaks requests on purpose, from a queue of planned faults, so a stack's failure handling
/// can be watched: each call takes the next planned fault; with none planned the request
/// passes through untouched.
///
/// ```swift
/// let faults = FaultInjectionMiddleware(clock: labClock)
/// faults.enqueue(.status(503, body: "unavailable"), count: 2)
/// faults.enqueue(.error(FaultInjectionMiddleware.InjectedError.connectionReset))
/// // calls 1 and 2 answer 503, call 3 throws, call 4 and later reach the transport
/// ```
///
/// Placed below a ``RetryingMiddleware`` it fails single attempts; placed above it, whole
/// requests. Faults may be planned from any task while requests are running.
public final class FaultInjectionMiddleware: ClientMiddleware {
    /// One planned fault.
    public enum Fault: Sendable {
        /// Answer with this status and body without calling the layers below.
        case status(HTTPResponse.Status, body: String)
        /// Throw this error without calling the layers below.
        case error(any Error & Sendable)
        /// Wait this long on the clock, then pass the request through.
        case delay(Duration)
    }

    /// Errors that stand in for network failures.
    public enum InjectedError: Error, Hashable, CustomStringConvertible {
        case connectionReset
        case timeout
        case cannotConnect

        public var description: String {
            switch self {
            case .connectionReset: "the connection was reset by the peer (injected fault)"
            case .timeout: "the request timed out (injected fault)"
            case .cannotConnect: "could not connect to the server (injected fault)"
            }
        }
    }

    private let planned = Mutex<[Fault]>([])
    private let clock: any Clock<Duration>

    /// A middleware with no faults planned; `.delay` faults sleep on `clock`.
    public init(clock: any Clock<Duration> = ContinuousClock()) {
        self.clock = clock
    }

    /// Plans `fault` for the next `count` calls after those already planned.
    public func enqueue(_ fault: Fault, count: Int = 1) {
        precondition(count >= 0, "a fault cannot be planned \(count) times")
        planned.withLock { $0.append(contentsOf: repeatElement(fault, count: count)) }
    }

    /// How many faults are still planned.
    public var pendingCount: Int { planned.withLock { $0.count } }

    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: MiddlewareNext
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let fault = planned.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        switch fault {
        case nil:
            return try await next(request, body, baseURL)
        case .status(let status, let text):
            return (HTTPResponse(status: status), HTTPBody(text))
        case .error(let error):
            throw error
        case .delay(let duration):
            try await clock.sleep(for: duration)
            return try await next(request, body, baseURL)
        }
    }
}
