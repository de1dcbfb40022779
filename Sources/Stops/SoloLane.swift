public import Synchronization

/// The request that runs alone in a free run, if one does: it passes every stop straight
/// through. The scheduler publishes it on every change; the instrumentation reads it at every
/// stop without a lock or a call, one atomic load inlined into the hop, so a hop builds nothing
/// for a stop it will not wait at (docs/performance.md, `middleware.instrumented.*`).
@usableFromInline
package final class SoloLane: Sendable {
    /// The request, or 0 (requests count from 1) when none runs alone.
    @usableFromInline let request = Atomic<Int>(0)

    package init() {}

    /// Whether `request` would pass its next stop straight through.
    @inlinable @inline(__always)
    package func passesStraight(request: Int) -> Bool {
        self.request.load(ordering: .acquiring) == request
    }

    /// `request` now runs alone (0: none does).
    package func publish(_ request: Int) {
        self.request.store(request, ordering: .releasing)
    }
}
