public import Wire

/// What layer of the flattened chain published an event.
public enum HopKind: String, Sendable, Hashable, CaseIterable {
    /// A GraphQL interceptor (Apollo `GraphQLInterceptor`).
    case graphql
    /// The cache step that runs after every GraphQL pre-flight.
    case cache
    /// An HTTP interceptor in the GraphQL chain's network step.
    case http
    /// The transport at the bottom of either chain.
    case transport
    /// The GraphQL response parser.
    case parser
    /// A swift-openapi-runtime style client middleware.
    case middleware
    /// The token manager behind the Auth interceptor (refreshes are not tied to one hop).
    case auth
}

/// What happened at a hop.
public enum Phase: String, Sendable, Hashable, CaseIterable {
    /// The hop handed the request on; the snapshot is that request.
    case preflight
    /// The result left the hop upward; the snapshot is that result.
    case postflight
    /// The hop failed or passed an error upward.
    case error
    /// The hop started another attempt.
    case retry
    case cacheHit
    case cacheMiss
    /// The transport sent a request.
    case send
    /// The transport received a response.
    case receive
    /// The token manager refreshed (or failed to refresh) the access token.
    case refresh
    /// The scheduler held the operation at this hop.
    case paused
    /// The scheduler released the operation.
    case resumed
    /// A person or script changed the request or response at a stop.
    case edited
    /// A fault was injected (forced 401, forced retry, timeout…).
    case injected
    /// A logging interceptor or middleware wrote a line (the line is the event's detail).
    case log
}

/// One thing that happened at one hop, with what the hop saw.
///
/// Events are small: the request or response a hop saw lives in a shared, immutable
/// ``HopSnapshot``, so consecutive hops that saw the same message share one allocation and an
/// event costs little more than its own fields. The store assigns ``seq`` on append.
///
/// ```swift
/// let seen = HopSnapshot(method: "POST", url: "https://lab.local/graphql", headers: headers)
/// let seq = store.append(TimelineEvent(
///     time: 0.004, request: 1, attempt: 1, hop: 1, name: "AuthInterceptor",
///     kind: .graphql, phase: .preflight, snapshot: seen,
///     diff: HeaderDiff(from: received.headerFields, to: headers)))
/// ```
public struct TimelineEvent: Sendable, Hashable {
    /// The hop index of events that belong to no hop, such as the token manager's refreshes.
    public static let noHop = -1

    /// Position in the timeline, contiguous from 1; 0 until a ``TimelineStore`` assigns it.
    public package(set) var seq: Int {
        get { storedSeq }
        set { storedSeq = newValue }
    }
    var storedSeq: Int
    /// Seconds on the lab clock.
    public var time: Double
    /// The hop's name: the interceptor type name, `transport`, `cache`, `TokenManager`…
    public var name: String
    /// What the hop saw; ``HopSnapshot/empty`` when the event carries no message.
    public var snapshot: HopSnapshot
    /// Header changes against what the hop received (``HeaderDiff/none`` when unchanged).
    public var diff: HeaderDiff
    /// A short note such as "force 401" or "breakpoint".
    public var detail: String?

    // Ids and positions are stored in 32 bits: the timeline holds millions of events, and
    // no run reaches two billion requests, attempts or hops.
    var request32: Int32
    var attempt32: Int32
    var hop32: Int32
    // The one-byte fields come last so they fill the tail after the 32-bit ids instead of
    // padding the middle of the event: 80 bytes in a chunk instead of 88.
    public var kind: HopKind
    public var phase: Phase
    /// The lane the event belongs to while its request has two (``Lane``); nil otherwise.
    public var lane: Lane? = nil

    /// The request id (#1, #2…).
    public var request: Int {
        get { Int(request32) }
        set { request32 = Int32(truncatingIfNeeded: newValue) }
    }

    /// The attempt of that request, from 1.
    public var attempt: Int {
        get { Int(attempt32) }
        set { attempt32 = Int32(truncatingIfNeeded: newValue) }
    }

    /// Position in the flattened chain, 0 being the top; ``noHop`` when not tied to a hop.
    public var hop: Int {
        get { Int(hop32) }
        set { hop32 = Int32(truncatingIfNeeded: newValue) }
    }

    public var method: String? { snapshot.method }
    public var url: String? { snapshot.url }
    public var headers: HTTPFields? { snapshot.headers }
    public var status: Int? { snapshot.status }
    public var error: String? { snapshot.error }
    public var body: BodyPreview? { snapshot.body }
}

extension TimelineEvent {
    // Declared in an extension so the struct keeps its memberwise initializer, which builds an
    // event as one value: an initializer that assigns field by field builds it in a stack slot
    // and copies it out, retaining every reference it holds (on the store's append path, once
    // per event).
    public init(
        time: Double, request: Int, attempt: Int, hop: Int, name: String, kind: HopKind, phase: Phase,
        snapshot: HopSnapshot = .empty, diff: HeaderDiff = .none, detail: String? = nil, lane: Lane? = nil
    ) {
        self.init(
            storedSeq: 0, time: time, name: name, snapshot: snapshot, diff: diff, detail: detail,
            request32: Int32(truncatingIfNeeded: request), attempt32: Int32(truncatingIfNeeded: attempt),
            hop32: Int32(truncatingIfNeeded: hop), kind: kind, phase: phase, lane: lane)
    }
}
