/// What a GraphQL interceptor calls to hand the request to the rest of the chain. It never
/// throws: an error below turns into a stream that fails when read.
public typealias ChainNext = @Sendable (ChainRequest) async -> ChainResultStream

/// The stream of results an interceptor returns: results flow back up through it.
public typealias ChainResultStream = PullStream<ChainResponse>

/// What an HTTP interceptor calls to hand the request on towards the transport.
public typealias ChainHTTPNext = @Sendable (NetworkRequest) async throws -> NetworkResponse

/// A layer of the GraphQL part of the chain (Apollo iOS 2.x's `GraphQLInterceptor`).
///
/// Interceptors wrap each other like an onion: element 0 of the provider's array is
/// outermost. Work before calling `next` is the pre-flight; work in the returned stream's
/// `map`/`mapErrors` is the post-flight.
///
/// ```swift
/// struct AddHeader: ChainInterceptor {
///     func intercept(request: ChainRequest, next: ChainNext) async throws -> ChainResultStream {
///         var request = request
///         try request.additionalHeaders.set("X-Trace", "1")
///         return await next(request).map { response in response }
///     }
/// }
/// ```
///
/// Throwing ``ChainRunner/Retry`` restarts the chain from the top with the given request.
public protocol ChainInterceptor: Sendable {
    func intercept(request: ChainRequest, next: ChainNext) async throws -> ChainResultStream
}

/// A layer of the HTTP part of the chain (Apollo iOS 2.x's `HTTPInterceptor`).
///
/// HTTP interceptors see only the HTTP request and response, never the GraphQL request, so
/// they cannot throw ``ChainRunner/Retry``: to retry on an HTTP condition, throw an error
/// and let a GraphQL interceptor's `mapErrors` turn it into a retry.
public protocol ChainHTTPInterceptor: Sendable {
    func intercept(request: NetworkRequest, next: ChainHTTPNext) async throws -> NetworkResponse
}

/// Reads and writes results for the chain's cache step (Apollo's `CacheInterceptor`).
public protocol ChainCacheInterceptor: Sendable {
    /// The cached result for the request, or nil on a miss.
    func readCacheData(request: ChainRequest) async throws -> ChainResponse?
    /// Stores a server result's ``ChainResponse/cacheRecords`` (the parser's, not the result
    /// as post-flights changed it); called at the top of the chain when the request asks for it
    /// and the parser made records.
    func writeCacheData(request: ChainRequest, response: ChainResponse) async throws
}

/// Turns the HTTP response into GraphQL results (Apollo's `ResponseParsingInterceptor`).
public protocol ChainResponseParser: Sendable {
    func parse(response: NetworkResponse, for request: ChainRequest) async throws -> ChainResultStream
}

/// Hands out the interceptors for one operation (Apollo's `InterceptorProvider`).
///
/// Each call gives fresh instances; a ``ChainRunner`` asks once per operation and reuses
/// them across that operation's retries, which is how ``MaxRetryInterceptor`` counts.
///
/// As upstream, every requirement but one has a default, so a provider overrides only what
/// it changes: GraphQL interceptors `[MaxRetryInterceptor(), AutomaticPersistedQueryInterceptor()]`,
/// HTTP interceptors `[ResponseCodeInterceptor()]`, and `JSONResponseParsingInterceptor`.
/// The cache interceptor has no default because ChainKit's cache store lives in it (upstream
/// hands its `ApolloStore` to the cache interceptor from the transport):
///
/// ```swift
/// struct TracingProvider: ChainInterceptorProvider {
///     let store: CacheStore
///     func cacheInterceptor(for operation: ChainOperation) -> any ChainCacheInterceptor { DefaultCacheInterceptor(store: store) }
///     func httpInterceptors(for operation: ChainOperation) -> [any ChainHTTPInterceptor] { [TraceHeader(), ResponseCodeInterceptor()] }
/// }
/// ```
public protocol ChainInterceptorProvider: Sendable {
    func graphQLInterceptors(for operation: ChainOperation) -> [any ChainInterceptor]
    func cacheInterceptor(for operation: ChainOperation) -> any ChainCacheInterceptor
    func httpInterceptors(for operation: ChainOperation) -> [any ChainHTTPInterceptor]
    func responseParser(for operation: ChainOperation) -> any ChainResponseParser
}

extension ChainInterceptorProvider {
    /// Upstream's default: `MaxRetryInterceptor` then `AutomaticPersistedQueryInterceptor`.
    public func graphQLInterceptors(for operation: ChainOperation) -> [any ChainInterceptor] {
        [MaxRetryInterceptor(), AutomaticPersistedQueryInterceptor()]
    }

    /// Upstream's default: `ResponseCodeInterceptor`.
    public func httpInterceptors(for operation: ChainOperation) -> [any ChainHTTPInterceptor] {
        [ResponseCodeInterceptor()]
    }

    /// Upstream's default: `JSONResponseParsingInterceptor`.
    public func responseParser(for operation: ChainOperation) -> any ChainResponseParser {
        JSONResponseParsingInterceptor()
    }
}

/// Apollo's default provider: the defaults above, over the default cache.
public struct DefaultChainInterceptorProvider: ChainInterceptorProvider {
    public let store: CacheStore

    public init(store: CacheStore) {
        self.store = store
    }

    public func cacheInterceptor(for operation: ChainOperation) -> any ChainCacheInterceptor {
        DefaultCacheInterceptor(store: store)
    }
}
