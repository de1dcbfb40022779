public import Stops

/// One entry of a scheduling script: which request moves next, and optionally the stop it
/// keeps moving to.
public struct ScriptStep: Sendable, Hashable {
    public var request: Int
    /// nil: one step; otherwise the request keeps its turn until it waits at this stop.
    public var until: StopPlace?

    public init(request: Int, until: StopPlace? = nil) {
        self.request = request
        self.until = until
    }
}
