/// Reads results from the ``CacheStore`` and writes the records the parser produced into it
/// (Apollo's `DefaultCacheInterceptor`).
///
/// The write takes ``ChainResponse/cacheRecords``, made by the parser from the result as
/// the server sent it, so a post-flight interceptor that changes a result's data changes what
/// the caller gets, not what the cache holds.
public struct DefaultCacheInterceptor: ChainCacheInterceptor {
    public let store: CacheStore

    public init(store: CacheStore) {
        self.store = store
    }

    public func readCacheData(request: ChainRequest) async throws -> ChainResponse? {
        store.load(request.operation)
    }

    public func writeCacheData(request: ChainRequest, response: ChainResponse) async throws {
        if let records = response.cacheRecords { store.publish(records: records) }
    }
}
