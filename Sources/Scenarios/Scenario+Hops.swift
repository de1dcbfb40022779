public import Instrumentation

extension Scenario.Chain {
    /// The hops of this chain from the top, its parser named `parser` (a GraphQL chain's).
    public func hops(parser: String = HopLayout.labParser) -> [HopInfo] {
        switch self {
        case .graphQL(let graphQL, let http): HopLayout.graphQL(graphQL: graphQL.map(\.name), http: http.map(\.name), parser: parser).hops
        case .middleware(let layers): HopLayout.middleware(layers.map(\.name)).hops
        }
    }

    /// How many hops the chain flattens to: the GraphQL interceptors, the cache step, the HTTP
    /// interceptors, the transport and the parser; or the middlewares and the transport.
    package var hopCount: Int { hops().count }
}
