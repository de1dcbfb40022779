import Stops
import ChainKit

/// The ``Arrival`` a stream of results was made from, if it was, told without a retain or a
/// dynamic cast. Buys `instrument.per_event.graphql` 4% (about 1,130 against 1,180;
/// docs/performance.md).
///
/// `Arrival` is final, so comparing the source's type is the whole of the cast; the source is
/// lent by the stream, which keeps it alive. Built with `CHAINLAB_SAFE_PATHS`, an `as?` cast.
enum ArrivalBelow {
    /// Whether `stream` was made from an ``Arrival`` that took the junction into hop `into`
    /// (``Arrival/join(into:of:handed:received:)``).
    @inline(__always)
    static func join(
        _ stream: borrowing ChainResultStream, into: Int, of instrumentation: GraphQLInstrumentation, handed: ChainRequest, received: ChainRequest
    ) -> Bool {
        guard let lent = stream.lentAnnotation else { return false }
        #if CHAINLAB_SAFE_PATHS
        guard let below = lent.takeUnretainedValue() as? Arrival else { return false }
        return below.join(into: into, of: instrumentation, handed: handed, received: received)
        #else
        return lent._withUnsafeGuaranteedRef { below in
            Swift.type(of: below) == Arrival.self
                && unsafeDowncast(below, to: Arrival.self).join(into: into, of: instrumentation, handed: handed, received: received)
        }
        #endif
    }
}
