/// A value kept in one immutable box that its copies share: copying the owner costs one
/// reference however many fields the value has, and a change makes a new box, so no copy
/// ever sees another's change.
///
/// ``ChainRequest`` and ``ChainResponse`` keep their fields in one: every hop of a chain
/// (and of its instrumentation) passes and keeps copies of them. A field is a stored property
/// of the `Value` struct and one accessor on the owner:
///
/// ```swift
/// public var fetchBehavior: FetchBehavior { get { fields.value.fetchBehavior } set { fields.update { $0.fetchBehavior = newValue } } }
/// ```
///
/// ``isIdentical(to:)`` tells an unchanged copy from a changed one by the box alone.
@usableFromInline
package struct CopyOnWrite<Value: Sendable>: Sendable {
    @usableFromInline
    final class Box: Sendable {
        @usableFromInline let value: Value

        @usableFromInline init(_ value: Value) { self.value = value }
    }

    @usableFromInline var box: Box

    @inlinable package init(_ value: Value) { box = Box(value) }

    /// The value; reading one field through it reads only that field.
    @inlinable package var value: Value { box.value }

    /// Changes the value: `change` works on a copy, which goes into a new box.
    @inlinable package mutating func update(_ change: (inout Value) -> Void) {
        var value = box.value
        change(&value)
        box = Box(value)
    }

    /// Whether `other` shares this box: a copy of this value, neither changed since.
    @inlinable package func isIdentical(to other: CopyOnWrite) -> Bool { box === other.box }
}
