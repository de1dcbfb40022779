// Opens the ChainLab inspector on an app's own interceptor chain.
// Build and run: swift run inspect-my-chain
import ChainKit
import Foundation
import Inspector
import Lab

/// The app's own interceptor: adds a header to every request.
struct TracingInterceptor: ChainInterceptor {
    func intercept(request: ChainRequest, next: ChainNext) async throws -> ChainResultStream {
        var request = request
        try request.additionalHeaders.set("X-Trace-ID", "demo-1")
        return await next(request)
    }
}

/// The app's provider: its interceptor first, then Apollo's defaults.
struct AppInterceptorProvider: ChainInterceptorProvider {
    let store = CacheStore()

    func graphQLInterceptors(for operation: ChainOperation) -> [any ChainInterceptor] {
        [MaxRetryInterceptor(), TracingInterceptor(), AutomaticPersistedQueryInterceptor()]
    }

    func cacheInterceptor(for operation: ChainOperation) -> any ChainCacheInterceptor {
        DefaultCacheInterceptor(store: store)
    }

    func httpInterceptors(for operation: ChainOperation) -> [any ChainHTTPInterceptor] {
        [ResponseCodeInterceptor()]
    }

    func responseParser(for operation: ChainOperation) -> any ChainResponseParser {
        JSONResponseParsingInterceptor()
    }
}

// An in-memory server stands in for the app's real one; use URLSessionTransport() to talk
// to a real endpoint.
let server = InMemoryGraphQLTransport { request in
    NetworkResponse(status: 200, url: request.url, body: Data(#"{"data":{"hero":{"name":"R2-D2"}}}"#.utf8))
}
let hero = ChainRequest(
    operation: ChainOperation(name: "HeroQuery", kind: .query, document: "query HeroQuery { hero { name } }"),
    graphQLEndpoint: URL(string: "https://api.example.com/graphql")!)

do {
    try await InspectorApp.open(name: "my app", chain: .graphQL(provider: AppInterceptorProvider(), transport: server, requests: [hero]))
} catch {
    FileHandle.standardError.write(Data("inspect-my-chain: \(error)\n".utf8))
    exit(2)
}
