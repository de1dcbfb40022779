package import Stops
package import Timeline

/// What the instrumentation asks at a stop, and tells about an operation's lanes: the gate an
/// operation passes through at every hop boundary. The lab's `Scheduler` is the gate (Lab
/// makes it conform); this module knows it only as this protocol and never imports the
/// scheduler, and the scheduler knows nothing of the instrumentation.
///
/// At a stop a hop first reads ``soloLane``, inline and without a call: an operation that runs
/// alone in a free run passes straight through, and only the others ``arrive(request:lane:place:_:)``.
package protocol StopGate: AnyObject, Sendable {
    /// The request that passes every stop straight through, published on every change.
    var soloLane: SoloLane { get }

    /// Called at a stop; returns when `request` may go on, and how. `makeStop` describes the
    /// stop and is called only when the operation does not pass straight through.
    func arrive(request: Int, lane: Lane, place: StopPlace, _ makeStop: () -> ParkedStop) async -> Release

    /// `request`'s network fetch starts overlapping the cached result's way up: a second lane.
    func fork(request: Int)
    /// `request`'s network lane hands a result, or its end, to the cache lane.
    func handOn(request: Int, isEnd: Bool)
    /// `request`'s cache lane reads the network lane's next result.
    func readNetworkResult(request: Int)
    /// `request`'s cache lane has read its last result while its network lane still runs.
    func endCacheLane(request: Int)
}
