public import Foundation

/// Sends a request again, by calling `next` again, when the response status or a thrown
/// error asks for it.
///
/// ```swift
/// let retrying = RetryingMiddleware(
///     signals: [.code(429), .range(500..<600), .errorThrown],
///     maxAttempts: 3,
///     delay: .exponential(initial: .milliseconds(100)),  // 100 ms, then 200 ms
///     clock: labClock
/// )
/// ```
///
/// After the last attempt the last response is returned (or the last error rethrown) as it
/// is. A task that was cancelled is not retried.
///
/// A request body that can be read only once (``HTTPBody/IterationBehavior/single``) cannot be
/// sent twice. Set ``bufferingSinglePassBodies`` to read such a body into memory before the
/// first attempt; without it, a retry of such a body throws ``SinglePassBodyError`` instead.
public struct RetryingMiddleware: ClientMiddleware {
    /// What makes an attempt worth repeating.
    public enum Signal: Sendable, Hashable {
        /// The response has exactly this status.
        case code(Int)
        /// The response status is in this range.
        case range(Range<Int>)
        /// A layer below threw. Errors from the transport arrive as ``ClientError``.
        case errorThrown
    }

    /// How long to wait before each retry, on ``clock``.
    public enum Delay: Sendable, Hashable {
        /// Retry at once.
        case none
        /// Wait the same time before every retry.
        case constant(Duration)
        /// Wait `initial` before the first retry, then `multiplier` times longer before each
        /// next one, never more than `maximum`.
        case exponential(initial: Duration, multiplier: Double = 2, maximum: Duration = .seconds(60))
    }

    /// Thrown when a retry is needed but the request body was single-pass and not buffered.
    public struct SinglePassBodyError: Error, CustomStringConvertible {
        /// What asked for the retry.
        public enum Trigger: Sendable {
            case status(Int)
            case error(any Error)
        }

        public let trigger: Trigger

        public var description: String {
            let reason = switch trigger {
            case .status(let status): "status \(status)"
            case .error(let error): "an error (\(error))"
            }
            return "RetryingMiddleware cannot retry after \(reason): the request body can be read only once. "
                + "Set bufferingSinglePassBodies to a byte limit to buffer such bodies before the first attempt."
        }
    }

    public let signals: Set<Signal>
    /// Attempts in all, the first one included; 1 never retries.
    public let maxAttempts: Int
    public let delay: Delay
    /// The most bytes of a single-pass request body to buffer so it can be retried; nil
    /// leaves such bodies unbuffered, so they cannot be retried.
    public let bufferingSinglePassBodies: Int?
    public let clock: any Clock<Duration>

    public init(
        signals: Set<Signal> = [.code(429), .range(500..<600), .errorThrown],
        maxAttempts: Int = 3,
        delay: Delay = .exponential(initial: .seconds(1)),
        bufferingSinglePassBodies: Int? = nil,
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        precondition(maxAttempts >= 1, "RetryingMiddleware needs at least one attempt, got \(maxAttempts)")
        self.signals = signals
        self.maxAttempts = maxAttempts
        self.delay = delay
        self.bufferingSinglePassBodies = bufferingSinglePassBodies
        self.clock = clock
    }

    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: MiddlewareNext
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var body = body
        if let limit = bufferingSinglePassBodies, maxAttempts > 1, let original = body, original.iterationBehavior == .single {
            body = try await original.buffered(upTo: limit)
        }
        var attempt = 1
        while true {
            let trigger: SinglePassBodyError.Trigger
            do {
                let (response, responseBody) = try await next(request, body, baseURL)
                guard attempt < maxAttempts, !Task.isCancelled, shouldRetry(status: response.status.code) else {
                    return (response, responseBody)
                }
                trigger = .status(response.status.code)
            } catch {
                guard attempt < maxAttempts, !Task.isCancelled, signals.contains(.errorThrown) else { throw error }
                trigger = .error(error)
            }
            if body?.iterationBehavior == .single { throw SinglePassBodyError(trigger: trigger) }
            if let wait = waitBefore(retry: attempt) { try await clock.sleep(for: wait) }
            attempt += 1
        }
    }

    private func shouldRetry(status: Int) -> Bool {
        signals.contains { signal in
            switch signal {
            case .code(let code): code == status
            case .range(let range): range.contains(status)
            case .errorThrown: false
            }
        }
    }

    /// The wait before retry number `retry` (1 for the second attempt), or nil for none.
    private func waitBefore(retry: Int) -> Duration? {
        switch delay {
        case .none:
            return nil
        case .constant(let duration):
            return duration
        case .exponential(let initial, let multiplier, let maximum):
            // Growing in seconds as a Double keeps a long run of retries from overflowing
            // Duration before the cap applies.
            let factor = pow(multiplier, Double(retry - 1))
            return Self.seconds(initial) * factor < Self.seconds(maximum) ? initial * factor : maximum
        }
    }

    private static func seconds(_ duration: Duration) -> Double {
        let (whole, attoseconds) = duration.components
        return Double(whole) + Double(attoseconds) / 1e18
    }
}
