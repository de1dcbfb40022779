public import Foundation
import Synchronization

/// Thrown by ``MaxRetryInterceptor`` when an operation has used up its retries; its text is
/// Apollo's (`RequestChain/Interceptors/MaxRetryInterceptor.swift`).
public struct MaxRetriesError: Error, Equatable, CustomStringConvertible, LocalizedError {
    /// The configured maximum number of retries.
    public let count: Int
    public let operationName: String

    public init(count: Int, operationName: String) {
        self.count = count
        self.operationName = operationName
    }

    public var description: String {
        "The maximum number of retries (\(count)) was hit without success for operation \"\(operationName)\"."
    }

    public var errorDescription: String? { description }
}

/// Limits how often an operation goes through the chain: 1 + `maxRetries` passes through
/// this interceptor, then ``MaxRetriesError``.
///
/// It counts passes through itself, so it only limits retries that restart above it: put it
/// first. A retrying interceptor placed before it retries without bound.
///
/// With backoff configured, pass `n` after the first waits on the injected clock for
/// `baseDelay × multiplier^(n-1)`, capped at `maxDelay` (0.6, 1.2, 2.4 s before passes 2, 3
/// and 4 with the defaults, as Apollo counts them), scaled by a jitter factor in `[0.5, 1.0]`
/// when jitter is on (equal jitter).
public final class MaxRetryInterceptor: ChainInterceptor {
    /// Backoff between passes.
    public struct Backoff: Sendable {
        public var baseDelay: Duration
        public var multiplier: Double
        public var maxDelay: Duration
        public var jitter: Bool

        public init(baseDelay: Duration = .milliseconds(300), multiplier: Double = 2, maxDelay: Duration = .seconds(20), jitter: Bool = true) {
            self.baseDelay = baseDelay
            self.multiplier = multiplier
            self.maxDelay = maxDelay
            self.jitter = jitter
        }

        /// The wait before retry number `retry` (1-based, the second pass is retry 1), before
        /// jitter: Apollo raises the multiplier to the pass count less one, so the first retry
        /// already waits `baseDelay × multiplier`.
        public func delay(forRetry retry: Int) -> Duration {
            let factor = pow(multiplier, Double(retry))
            let seconds = min(baseDelay.seconds * factor, maxDelay.seconds)
            return .nanoseconds(Int64(saturating: seconds * 1e9))
        }
    }

    public static let defaultMaxRetries = 3

    public let maxRetries: Int
    public let backoff: Backoff?
    private let clock: any Clock<Duration>
    private let jitterSource: @Sendable () -> Double
    private let hitCount = Mutex(0)

    /// - Parameters:
    ///   - maxRetries: retries allowed after the first pass.
    ///   - backoff: waits between passes; nil retries at once.
    ///   - clock: the clock backoff waits on.
    ///   - jitterSource: a value in `[0, 1)` per wait; injected so runs can be repeated.
    public init(
        maxRetries: Int = MaxRetryInterceptor.defaultMaxRetries,
        backoff: Backoff? = nil,
        clock: any Clock<Duration> = ContinuousClock(),
        jitterSource: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.maxRetries = maxRetries
        self.backoff = backoff
        self.clock = clock
        self.jitterSource = jitterSource
    }

    /// Passes made through this interceptor so far.
    public var passes: Int { hitCount.withLock { $0 } }

    public func intercept(request: ChainRequest, next: ChainNext) async throws -> ChainResultStream {
        try await pass(operationName: request.operation.name)
        return await next(request)
    }

    /// Counts a pass; throws ``MaxRetriesError`` past the limit, and waits out the backoff
    /// before a retry.
    func pass(operationName: String) async throws {
        let pass = hitCount.withLock { count -> Int in
            count += 1
            return count
        }
        guard pass <= maxRetries + 1 else {
            throw MaxRetriesError(count: maxRetries, operationName: operationName)
        }
        if pass > 1, let backoff {
            var delay = backoff.delay(forRetry: pass - 1)
            if backoff.jitter { delay = delay * (0.5 + jitterSource() / 2) }
            try await clock.sleep(for: delay)
        }
    }
}

extension Duration {
    /// The duration in seconds as a Double.
    public var seconds: Double {
        let (whole, attoseconds) = components
        return Double(whole) + Double(attoseconds) / 1e18
    }
}
