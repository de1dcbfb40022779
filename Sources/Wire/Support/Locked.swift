public import Synchronization

/// A `Mutex` in a class, so state can be shared by reference and captured by escaping
/// closures (a `Mutex` itself cannot be copied or captured).
///
/// The members are inlinable so other modules specialize them for their `Value`: called
/// generically, every lock would look up `Mutex<Value>`'s metadata at run time, which cost
/// more than the lock itself on the instrumentation's hot path.
public final class Locked<Value: Sendable>: Sendable {
    @usableFromInline let mutex: Mutex<Value>

    @inlinable public init(_ value: consuming Value) {
        mutex = Mutex(value)
    }

    /// Runs `body` with exclusive access to the value.
    @inlinable public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try mutex.withLock { try body(&$0) }
    }

    /// A copy of the value.
    @inlinable public var value: Value { mutex.withLock { $0 } }
}
