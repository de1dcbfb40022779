/// Which of a request's two lanes an event or a stop belongs to, while it has two.
///
/// A request has one lane, its own task, until a CacheAndNetwork cache hit starts the network
/// fetch in a task of its own while the cached result climbs (as upstream's chain does): from
/// then on the request has two live lanes, each with its own stop, until the network lane ends.
/// Events and stops name their lane only while there are two.
public enum Lane: String, Sendable, Hashable, CaseIterable, Comparable {
    /// The request's own task: the GraphQL hops and the cache step; after a cache hit, the
    /// cached result on its way up (and later the network's results, once the fetch has ended).
    case cache
    /// The overlapping network fetch: the HTTP hops, the transport and the parser.
    case network

    public static func < (lhs: Lane, rhs: Lane) -> Bool {
        !lhs.isNetwork && rhs.isNetwork
    }

    // Compared and hashed by case, not by the raw value a String-backed enum otherwise uses:
    // the scheduler hashes a lane on every turn and the store compares them per event.
    public static func == (lhs: Lane, rhs: Lane) -> Bool {
        lhs.isNetwork == rhs.isNetwork
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(isNetwork)
    }

    private var isNetwork: Bool {
        switch self {
        case .cache: false
        case .network: true
        }
    }
}
