/// Answers from the cache when anything below fails; rethrows when the cache has nothing.
///
/// ``RequestChain/Retry`` passes through untouched: swallowing it would cancel the retry.
public struct FallbackToCacheOnFailureInterceptor: GraphQLInterceptor {
    public let store: CacheStore

    public init(store: CacheStore) {
        self.store = store
    }

    public func intercept(request: GraphQLRequest, next: GraphQLNext) async throws -> InterceptorResultStream {
        let store = self.store
        return await next(request).mapErrors { error in
            guard !(error is RequestChain.Retry), let cached = store.load(request.operation) else { throw error }
            return cached
        }
    }
}
