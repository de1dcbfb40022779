import Backend
public import ChainKit
import Foundation
public import Timeline

/// A chain as lint rules see it: its hops in order, what each does, the operations it runs
/// and the refresh setup behind its auth layer.
///
/// Built from a scenario (``init(scenario:)``), an app's provider
/// (``init(provider:requests:refreshStrategy:rotatesRefreshTokens:)``) or a middleware list
/// (``init(middlewares:)``). Hop indexes are the timeline's: 0 is the top of the chain.
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

    /// A scenario's chain, operations and token setup.
    public init(scenario: Scenario) {
        var hops = HopList()
        var operations: [Operation] = []
        switch scenario.chain {
        case .graphQL(let graphQL, let http):
            for layer in graphQL { hops.add(layer.name, .graphql, LayerTraits.builtIn[layer.name] ?? []) }
            hops.add("cache", .cache, [])
            for layer in http { hops.add(layer.name, .http, LayerTraits.builtIn[layer.name] ?? []) }
            hops.add("transport", .transport, [])
            hops.add("JSONResponseParsingInterceptor", .parser, LayerTraits.builtIn["JSONResponseParsingInterceptor"])
            operations = scenario.operations.map { spec in
                Operation(LabSession.graphQLRequest(spec, endpoint: LabSession.baseURL.appendingPathComponent("graphql")))
            }
        case .middleware(let layers):
            for layer in layers { hops.add(layer.name, .middleware, Self.traits(of: layer)) }
            hops.add("transport", .transport, [])
        }
        self.init(
            hops: hops.hops, operations: operations, refreshStrategy: scenario.refreshStrategy,
            rotatesRefreshTokens: scenario.backend.rotateRefreshTokens)
    }

    /// The chain `provider` builds for the first of `requests`, with what every request asks.
    /// The refresh setup is not visible in a provider: pass it when you know it.
    public init(
        provider: any ChainInterceptorProvider, requests: [ChainRequest], refreshStrategy: RefreshStrategy? = nil,
        rotatesRefreshTokens: Bool? = nil
    ) {
        var hops = HopList()
        if let first = requests.first?.operation {
            for interceptor in provider.graphQLInterceptors(for: first) { hops.add(instance: interceptor, .graphql) }
            hops.add("cache", .cache, [])
            for interceptor in provider.httpInterceptors(for: first) { hops.add(instance: interceptor, .http) }
            hops.add("transport", .transport, [])
            hops.add(instance: provider.responseParser(for: first), .parser)
        }
        self.init(
            hops: hops.hops, operations: requests.map(Operation.init), refreshStrategy: refreshStrategy,
            rotatesRefreshTokens: rotatesRefreshTokens)
    }

    /// A middleware stack over one transport.
    public init(middlewares: [any ClientMiddleware]) {
        var hops = HopList()
        for middleware in middlewares {
            hops.add(middleware.layerName, .middleware, LayerTraits.of(middleware, name: middleware.layerName))
        }
        hops.add("transport", .transport, [])
        self.init(hops: hops.hops)
    }

    /// A scenario middleware's traits: `RetryingMiddleware` retries only with more than one
    /// attempt, and buffers single-pass bodies unless `bufferBodies` is false.
    private static func traits(of layer: Scenario.Layer) -> LayerTraits {
        guard layer.name == "RetryingMiddleware" else { return LayerTraits.builtIn[layer.name] ?? [] }
        var traits: LayerTraits = (layer.int("maxAttempts") ?? 3) > 1 ? [.retries] : []
        if layer.bool("bufferBodies") ?? true { traits.insert(.buffersSinglePassBodies) }
        return traits
    }

    /// The hops in order, numbered as they are added.
    private struct HopList {
        var hops: [Hop] = []

        mutating func add(_ name: String, _ kind: HopKind, _ traits: LayerTraits?) {
            hops.append(Hop(index: hops.count, name: name, kind: kind, traits: traits))
        }

        mutating func add(instance: Any, _ kind: HopKind) {
            let name = typeName(instance)
            let known = instance is any LintDescribed || LayerTraits.builtIn[name] != nil
            add(name, kind, known ? LayerTraits.of(instance, name: name) : nil)
        }
    }
}
