import Synchronization

/// A `Mutex` in a class, so state can be shared by reference and captured by escaping
/// closures (a `Mutex` itself cannot be copied or captured).
public final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    public init(_ value: Value) {
        mutex = Mutex(value)
    }

    /// Runs `body` with exclusive access to the value.
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try mutex.withLock { try body(&$0) }
    }

    /// A copy of the value.
    public var value: Value { mutex.withLock { $0 } }
}
