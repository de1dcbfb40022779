// Opens the ChainLab inspector on an app's own interceptor chain.
// Build and run: swift run inspect-my-chain
import ChainKit
import Foundation
import Inspector
import Lab

/// The app's own interceptor: adds a header to every request.
struct TracingInterceptor: GraphQLInterceptor {
    func intercept(request: GraphQLRequest, next: GraphQLNext) async throws -> InterceptorResultStream {
        var request = request
        try request.additionalHeaders.set("X-Trace-ID", "demo-1")
        return await next(request)
    }
}

/// The app's provider: its interceptor first, then Apollo's defaults.
struct AppInterceptorProvider: InterceptorProvider {
    let store = CacheStore()

    func graphQLInterceptors(for operation: GraphQLOperation) -> [any GraphQLInterceptor] {
        [MaxRetryInterceptor(), TracingInterceptor(), AutomaticPersistedQueryInterceptor()]
    }

    func cacheInterceptor(for operation: GraphQLOperation) -> any CacheInterceptor {
        DefaultCacheInterceptor(store: store)
    }

    func httpInterceptors(for operation: GraphQLOperation) -> [any HTTPInterceptor] {
        [ResponseCodeInterceptor()]
    }

    func responseParser(for operation: GraphQLOperation) -> any ResponseParsingInterceptor {
        JSONResponseParsingInterceptor()
    }
}

// An in-memory server stands in for the app's real one; use URLSessionTransport() to talk
// to a real endpoint.
let server = InMemoryGraphQLTransport { request in
    NetworkResponse(status: 200, url: request.url, body: Data(#"{"data":{"hero":{"name":"R2-D2"}}}"#.utf8))
}
let hero = GraphQLRequest(
    operation: GraphQLOperation(name: "HeroQuery", kind: .query, document: "query HeroQuery { hero { name } }"),
    graphQLEndpoint: URL(string: "https://api.example.com/graphql")!)

do {
    try await InspectorApp.open(name: "my app", chain: .graphQL(provider: AppInterceptorProvider(), transport: server, requests: [hero]))
} catch {
    FileHandle.standardError.write(Data("inspect-my-chain: \(error)\n".utf8))
    exit(2)
}
