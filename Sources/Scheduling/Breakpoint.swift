public import Stops

/// How an operation treats stops.
public enum RunMode: String, Sendable, Hashable {
    /// Hold only at breakpoints.
    case run
    /// Hold at every stop.
    case step
}

/// A stop at which every operation (or one request) is held.
public struct Breakpoint: Sendable, Hashable {
    public var hop: Int
    public var position: StopPosition
    /// nil: every request.
    public var request: Int?

    public init(hop: Int, position: StopPosition, request: Int? = nil) {
        self.hop = hop
        self.position = position
        self.request = request
    }
}
