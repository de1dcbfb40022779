public import ChainKit
public import Timeline

/// A chain as lint rules see it: its hops in order, what each does, the operations it runs
/// and the refresh setup behind its auth layer.
///
/// A plain value, so ``ChainLint`` is a function of it alone. The lab builds one from a
/// scenario, an app's provider or a middleware list; a test can build one hop by hop:
///
/// ```swift
/// let chain = LintChain(hops: [
///     LintChain.Hop(index: 0, name: "RetryOnErrorInterceptor", kind: .graphql, traits: [.retries, .retriesOnAnyError]),
///     LintChain.Hop(index: 1, name: "MaxRetryInterceptor", kind: .graphql, traits: [.limitsRetries]),
/// ])
/// ```
///
/// Hop indexes are the timeline's: 0 is the top of the chain.
public struct LintChain: Sendable, Hashable {
    /// One hop of the flattened chain.
    public struct Hop: Sendable, Hashable {
        /// Position from the top, as in timeline events (shown as `hop index + 1`).
        public var index: Int
        public var name: String
        public var kind: HopKind
        /// What the layer does; nil when nothing is known about it (an app's type that does not
        /// conform to ``LintDescribed``).
        public var traits: LayerTraits?

        public init(index: Int, name: String, kind: HopKind, traits: LayerTraits?) {
            self.index = index
            self.name = name
            self.kind = kind
            self.traits = traits
        }

        /// Whether the layer is known to have `trait`.
        func has(_ trait: LayerTraits) -> Bool { traits?.contains(trait) ?? false }

        /// `Name (hop N)`, as messages name hops.
        var label: String { "\(name) (hop \(index + 1))" }
    }

    /// What an operation asks of the chain.
    public struct Operation: Sendable, Hashable {
        public var name: String
        public var fetchBehavior: FetchBehavior
        public var autoPersistQueries: Bool
        public var useGETForQueries: Bool
        public var useGETForPersistedQueryRetry: Bool

        public init(
            name: String, fetchBehavior: FetchBehavior, autoPersistQueries: Bool = false, useGETForQueries: Bool = false,
            useGETForPersistedQueryRetry: Bool = false
        ) {
            self.name = name
            self.fetchBehavior = fetchBehavior
            self.autoPersistQueries = autoPersistQueries
            self.useGETForQueries = useGETForQueries
            self.useGETForPersistedQueryRetry = useGETForPersistedQueryRetry
        }

        /// What `request` asks for.
        public init(_ request: ChainRequest) {
            self.init(
                name: request.operation.name, fetchBehavior: request.fetchBehavior, autoPersistQueries: request.apqConfig.autoPersistQueries,
                useGETForQueries: request.useGETForQueries, useGETForPersistedQueryRetry: request.apqConfig.useGETForPersistedQueryRetry)
        }
    }

    public var hops: [Hop]
    /// GraphQL operations (none for a middleware chain).
    public var operations: [Operation]
    /// The token manager's strategy behind the auth layer, when known.
    public var refreshStrategy: RefreshStrategy?
    /// Whether the token endpoint rotates refresh tokens, when known.
    public var rotatesRefreshTokens: Bool?

    public init(hops: [Hop], operations: [Operation] = [], refreshStrategy: RefreshStrategy? = nil, rotatesRefreshTokens: Bool? = nil) {
        self.hops = hops
        self.operations = operations
        self.refreshStrategy = refreshStrategy
        self.rotatesRefreshTokens = rotatesRefreshTokens
    }
}
