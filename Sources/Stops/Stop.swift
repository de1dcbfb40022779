public import Wire
public import Timeline

/// Which side of a hop a stop is on.
public enum StopPosition: String, Sendable, Hashable, CaseIterable {
    /// Before the hop receives the request (an edit here is what the hop sees).
    case pre
    /// Before the hop receives the result or error on the way back up.
    case post
}

/// A place in an operation's life where the scheduler may hold it.
public enum StopPlace: Sendable, Hashable, CustomStringConvertible {
    /// Before the operation's first hop; never held, it orders operation starts.
    case launch
    /// A hop boundary: `hop` counts from 0 at the top of the flattened chain.
    case hop(Int, StopPosition)
    /// Before the token manager sends a refresh request.
    case refresh
    /// After waiting for a refresh another operation started, or for the network lane's next
    /// result; in the network lane, before reading the next part of a multipart answer. Never held.
    case wake

    public var description: String {
        switch self {
        case .launch: "launch"
        // Hops are numbered from 1 on screen and in messages, as the Chain pane shows them.
        case .hop(let index, let position): "hop \(index + 1) \(position.rawValue)"
        case .refresh: "refresh"
        case .wake: "wake"
        }
    }

    /// Whether a person or a breakpoint can hold an operation here.
    public var isHoldable: Bool {
        switch self {
        case .hop, .refresh: true
        case .launch, .wake: false
        }
    }
}

/// A failure a person can inject at a stop.
public enum LabFault: String, Error, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case timeout
    case cancellation
    case transportError
    /// The session ended (the person quit) while the request was still going.
    case sessionEnded

    public var description: String {
        switch self {
        case .timeout: "the request timed out (injected)"
        case .cancellation: "the request was cancelled (injected)"
        case .transportError: "the connection was reset (injected transport error)"
        case .sessionEnded: "the request was cancelled because the session ended"
        }
    }
}

/// What an operation does when it leaves a stop.
public enum Disposition: Sendable, Hashable {
    /// Carry on (with any edits made while held).
    case proceed
    /// Answer or fail with HTTP 401 here.
    case force401
    /// Start another attempt from this hop.
    case forceRetry
    /// Fail here.
    case fail(LabFault)
}

/// What the scheduler hands back to the hop when it lets the operation go.
public struct Release: Sendable, Hashable {
    public var disposition: Disposition
    /// Replacement request headers (edited at a pre-flight stop).
    public var requestHeaders: HTTPFields?
    /// Replacement response status (edited at an HTTP or transport post stop).
    public var responseStatus: Int?
    /// Replacement response headers.
    public var responseHeaders: HTTPFields?

    public init(disposition: Disposition = .proceed, requestHeaders: HTTPFields? = nil, responseStatus: Int? = nil, responseHeaders: HTTPFields? = nil) {
        self.disposition = disposition
        self.requestHeaders = requestHeaders
        self.responseStatus = responseStatus
        self.responseHeaders = responseHeaders
    }

    public static let proceed = Release()
}

/// What can be done at a stop, and why not when it cannot.
public struct StopCapabilities: Sendable, Hashable {
    public var canEditRequest: Bool
    public var canEditResponse: Bool
    public var canForce401: Bool
    /// nil when a retry can be forced here; otherwise why not.
    public var retryRefusal: Refusal?

    public init(canEditRequest: Bool = false, canEditResponse: Bool = false, canForce401: Bool = false, retryRefusal: Refusal? = nil) {
        self.canEditRequest = canEditRequest
        self.canEditResponse = canEditResponse
        self.canForce401 = canForce401
        self.retryRefusal = retryRefusal
    }

    package static let none = StopCapabilities(retryRefusal: .nothingToRetry)
}

/// One lane of one request: what holds a stop and takes turns (see ``Lane``).
public struct LaneKey: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var request: Int
    public var lane: Lane

    public init(_ request: Int, _ lane: Lane) {
        self.request = request
        self.lane = lane
    }

    /// One word to hash, not two: a request's lane is looked up at its launch and its finish.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(request &* 2 &+ (lane == .cache ? 0 : 1))
    }

    /// By request, then the cache lane first: the order in which lanes that arrived together
    /// take their turns.
    public static func < (lhs: LaneKey, rhs: LaneKey) -> Bool {
        (lhs.request, lhs.lane == .cache ? 0 : 1) < (rhs.request, rhs.lane == .cache ? 0 : 1)
    }

    public var description: String { "#\(request) \(lane.rawValue)" }
}

/// An operation waiting at a stop, as a controller sees it.
public struct ParkedStop: Sendable, Hashable {
    public var request: Int
    /// The lane the stop is in while the request has two; nil while it has one.
    public var lane: Lane?
    public var attempt: Int
    public var place: StopPlace
    /// The hop's name and kind (empty name for launch and wake).
    public var hopName: String
    public var hopKind: HopKind
    /// What is at the stop: the request (pre) or the response or result (post).
    public var snapshot: HopSnapshot
    public var capabilities: StopCapabilities
    /// Whether the policy holds it for a person (otherwise it is only waiting its turn).
    public var held: Bool
    /// Edits made while held, applied when it is released.
    public var pending: Release

    /// The lane that holds this stop: the cache lane of a request with one.
    public var laneKey: LaneKey { LaneKey(request, lane ?? .cache) }

    /// Headers at the stop after pending edits: the request's at a pre stop, the response's at a post stop.
    public var currentHeaders: HTTPFields {
        if case .hop(_, .post) = place { return pending.responseHeaders ?? snapshot.headers ?? HTTPFields() }
        return pending.requestHeaders ?? snapshot.headers ?? HTTPFields()
    }
}

extension ParkedStop {
    /// A stop with nothing pending, as a hop describes it to the scheduler.
    package init(
        request: Int, lane: Lane? = nil, attempt: Int = 1, place: StopPlace, hopName: String = "", hopKind: HopKind = .graphql,
        snapshot: HopSnapshot = .empty, capabilities: StopCapabilities = .none, held: Bool = false
    ) {
        self.request = request
        self.lane = lane
        self.attempt = attempt
        self.place = place
        self.hopName = hopName
        self.hopKind = hopKind
        self.snapshot = snapshot
        self.capabilities = capabilities
        self.held = held
        self.pending = Release()
    }
}
