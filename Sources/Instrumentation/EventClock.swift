public import ChainKit

/// Where an operation's events read the time: a lab's ``VirtualClock``, read in place, or a
/// closure (tests, a context without a clock of its own).
///
/// Every event reads it. The clock is read directly: through a closure that captures it, the
/// read cost a call into the closure's context as well as the clock's own load.
///
/// ```swift
/// let clock = VirtualClock()
/// let time = EventClock(clock)   // clock.seconds, on every event
/// let fixed = EventClock { 0 }   // always 0
/// ```
public struct EventClock: Sendable {
    // Constants rather than an enum: reading the clock out of an enum's payload retains it.
    /// Owns the clock; events read it through ``clockReference``.
    private let clock: VirtualClock?
    private let clockReference: UnretainedReference<VirtualClock>?
    private let read: (@Sendable () -> Double)?

    /// Events read `clock.seconds`.
    public init(_ clock: VirtualClock) {
        self.clock = clock
        self.clockReference = UnretainedReference(clock)
        self.read = nil
    }

    /// Events read what `read` returns.
    public init(_ read: @escaping @Sendable () -> Double) {
        self.clock = nil
        self.clockReference = nil
        self.read = read
    }

    /// Seconds since the lab's clock started.
    @inline(__always)
    var seconds: Double {
        if let clockReference { return clockReference.read { $0.seconds } }
        return read?() ?? 0
    }
}
