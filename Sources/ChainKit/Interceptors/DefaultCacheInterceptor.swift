import Synchronization

/// An in-memory result cache keyed by operation name and variables, shared by the
/// operations of one client (the role of Apollo's `ApolloStore`).
public final class CacheStore: Sendable {
    private let entries = Mutex<[String: GraphQLResponse]>([:])

    public init() {}

    /// The cached result for `operation`, marked as coming from the cache.
    public func read(_ operation: GraphQLOperation) -> GraphQLResponse? {
        entries.withLock { $0[operation.cacheKey] }.map { cached in
            var response = cached
            response.source = .cache
            return response
        }
    }

    /// Stores `response` for `operation`.
    public func write(_ response: GraphQLResponse, for operation: GraphQLOperation) {
        entries.withLock { $0[operation.cacheKey] = response }
    }

    /// How many results are stored.
    public var count: Int { entries.withLock { $0.count } }

    /// Forgets everything.
    public func clear() {
        entries.withLock { $0.removeAll() }
    }
}

/// Reads and writes the ``CacheStore`` (Apollo's `DefaultCacheInterceptor`).
public struct DefaultCacheInterceptor: CacheInterceptor {
    public let store: CacheStore

    public init(store: CacheStore) {
        self.store = store
    }

    public func readCacheData(request: GraphQLRequest) async throws -> GraphQLResponse? {
        store.read(request.operation)
    }

    public func writeCacheData(request: GraphQLRequest, response: GraphQLResponse) async throws {
        store.write(response, for: request.operation)
    }
}
