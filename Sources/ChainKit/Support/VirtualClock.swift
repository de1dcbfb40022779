import Synchronization

/// A clock whose time moves only when something sleeps on it or advances it.
///
/// Sleeping never waits: it moves the clock forward to the deadline and returns at once, so
/// backoff, latency and token expiry take no wall time and a run is the same every time.
/// It is the lab clock, and the clock tests inject into ``MaxRetryInterceptor`` and friends.
///
/// ```swift
/// let clock = VirtualClock()
/// try await clock.sleep(for: .seconds(2))
/// clock.now.offset // 2 seconds
/// ```
public final class VirtualClock: Clock, Sendable {
    /// A point on the virtual time line: the time since the clock started.
    public struct Instant: InstantProtocol, Sendable, Hashable, Comparable, CustomStringConvertible {
        public var offset: Duration
        public init(offset: Duration) { self.offset = offset }
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
        /// Seconds since the clock started.
        public var seconds: Double {
            let (whole, attoseconds) = offset.components
            return Double(whole) + Double(attoseconds) / 1e18
        }
        public var description: String { "t+\(seconds)s" }
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleeps: [Duration] = []
    }

    private let state: Mutex<State>
    /// `now.seconds` as the bits of a `Double`, written under the lock whenever time moves and
    /// read without it: every timeline event reads the time, and a lock (or turning a
    /// `Duration` into seconds) costs more than the rest of recording an event.
    private let secondsBits: Atomic<UInt64>

    /// A clock at `start` (zero by default).
    public init(start: Duration = .zero) {
        let now = Instant(offset: start)
        state = Mutex(State(now: now))
        secondsBits = Atomic(now.seconds.bitPattern)
    }

    public var now: Instant { state.withLock { $0.now } }

    /// Seconds since the clock started: `now.seconds`, cheaper.
    public var seconds: Double { Double(bitPattern: secondsBits.load(ordering: .acquiring)) }
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// Every duration that was slept, in order; tests read it to check backoff.
    public var sleeps: [Duration] { state.withLock { $0.sleeps } }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        state.withLock { state in
            state.sleeps.append(max(.zero, state.now.duration(to: deadline)))
            if deadline > state.now {
                state.now = deadline
                secondsBits.store(deadline.seconds.bitPattern, ordering: .releasing)
            }
        }
    }

    /// Moves time forward by `duration` (a person pressing `+`, or a test).
    public func advance(by duration: Duration) {
        state.withLock { state in
            state.now = state.now.advanced(by: duration)
            secondsBits.store(state.now.seconds.bitPattern, ordering: .releasing)
        }
    }
}
