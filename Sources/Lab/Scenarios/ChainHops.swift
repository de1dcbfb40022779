import ChainKit
import Timeline

extension Scenario.Chain {
    /// The hops this chain has, from the top, before any request runs: the same numbering
    /// and names the instrumentation gives the hops of each request (GraphQL interceptors,
    /// the cache step, HTTP interceptors, the transport and the parser; or the middlewares
    /// and the transport).
    var hops: [HopInfo] {
        var hops: [HopInfo] = []
        func next(_ name: String, _ kind: HopKind) {
            hops.append(HopInfo(index: hops.count, name: name, kind: kind))
        }
        switch self {
        case .graphQL(let graphQL, let http):
            for layer in graphQL { next(layer.name, .graphql) }
            next("cache", .cache)
            for layer in http { next(layer.name, .http) }
            next("transport", .transport)
            next(typeName(JSONResponseParsingInterceptor()), .parser)
        case .middleware(let layers):
            for layer in layers { next(layer.name, .middleware) }
            next("transport", .transport)
        }
        return hops
    }
}
