/// Answers from the cache when anything below fails; rethrows when the cache has nothing.
///
/// ``ChainRunner/Retry`` passes through untouched: swallowing it would cancel the retry.
public struct FallbackToCacheOnFailureInterceptor: ChainInterceptor {
    public let store: CacheStore

    public init(store: CacheStore) {
        self.store = store
    }

    public func intercept(request: ChainRequest, next: ChainNext) async throws -> ChainResultStream {
        let store = self.store
        return await next(request).mapErrors { error in
            guard !(error is ChainRunner.Retry), let cached = store.load(request.operation) else { throw error }
            return cached
        }
    }
}
