import Synchronization

/// Which drawing of the panes a state stands for: a new number whenever a property of
/// ``InspectorState`` the panes may read changes. Two states with the same revision were
/// copied from one value with no such change since, so their panes draw alike.
package struct PanesRevision: Hashable, Sendable {
    private let number: UInt64

    private static let last = Atomic<UInt64>(0)

    /// A revision no state has had.
    static func next() -> PanesRevision {
        PanesRevision(number: last.wrappingAdd(1, ordering: .relaxed).newValue)
    }
}
