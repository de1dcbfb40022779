public import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How a client's fetch uses the cache (Apollo iOS 2.4's `CachePolicy`).
public enum CachePolicy: Sendable, Hashable {
    public enum Query: Sendable, Hashable {
        /// Policies that give one result.
        public enum SingleResponse: Sendable, Hashable {
            case cacheFirst
            case networkFirst
            case networkOnly

            public func toFetchBehavior() -> FetchBehavior {
                switch self {
                case .cacheFirst: .CacheFirst
                case .networkFirst: .NetworkFirst
                case .networkOnly: .NetworkOnly
                }
            }
        }

        /// The cache and nothing else: a result or nil.
        public enum CacheOnly: Sendable, Hashable {
            case cacheOnly

            public func toFetchBehavior() -> FetchBehavior { .CacheOnly }
        }

        /// The cached result, then the server's.
        public enum CacheAndNetwork: Sendable, Hashable {
            case cacheAndNetwork

            public func toFetchBehavior() -> FetchBehavior { .CacheAndNetwork }
        }
    }

    public enum Subscription: Sendable, Hashable {
        case cacheThenNetwork
        case networkOnly

        public func toFetchBehavior() -> FetchBehavior {
            switch self {
            case .cacheThenNetwork: .CacheAndNetwork
            case .networkOnly: .NetworkOnly
            }
        }
    }
}

/// Fetches queries, performs mutations and subscribes (Apollo iOS 2.4's `ApolloClient`).
public final class ApolloClient: Sendable {
    public enum Error: Swift.Error, LocalizedError, Hashable {
        case noResults
        case noUploadTransport
        case noSubscriptionTransport

        public var errorDescription: String? {
            switch self {
            case .noResults: "The operation completed without returning any results."
            case .noUploadTransport: "The client's network transport does not upload files."
            case .noSubscriptionTransport: "The client's network transport does not send subscriptions."
            }
        }
    }

    public let networkTransport: any NetworkTransport
    public let store: ApolloStore
    public let defaultRequestConfiguration: RequestConfiguration

    public init(networkTransport: any NetworkTransport, store: ApolloStore, defaultRequestConfiguration: RequestConfiguration = RequestConfiguration()) {
        self.networkTransport = networkTransport
        self.store = store
        self.defaultRequestConfiguration = defaultRequestConfiguration
    }

    /// A client over URLSession and the default interceptors.
    public convenience init(url: URL, defaultRequestConfiguration: RequestConfiguration = RequestConfiguration()) {
        let store = ApolloStore()
        let transport = RequestChainNetworkTransport(
            urlSession: URLSessionChunkReader(), interceptorProvider: DefaultInterceptorProvider.shared, store: store, endpointURL: url)
        self.init(networkTransport: transport, store: store, defaultRequestConfiguration: defaultRequestConfiguration)
    }

    /// Empties the store.
    public func clearCache() async throws {
        store.cacheStore.clear()
    }

    /// The first result under `cachePolicy`.
    public func fetch<Query: GraphQLQuery>(
        query: Query, cachePolicy: CachePolicy.Query.SingleResponse = .cacheFirst, requestConfiguration: RequestConfiguration? = nil
    ) async throws -> GraphQLResponse<Query> {
        for try await result in try fetch(query: query, fetchBehavior: cachePolicy.toFetchBehavior(), requestConfiguration: requestConfiguration) {
            return result
        }
        try Task.checkCancellation()
        throw Error.noResults
    }

    /// The cached result, then the server's.
    public func fetch<Query: GraphQLQuery>(
        query: Query, cachePolicy: CachePolicy.Query.CacheAndNetwork, requestConfiguration: RequestConfiguration? = nil
    ) throws -> AsyncThrowingStream<GraphQLResponse<Query>, any Swift.Error> {
        try fetch(query: query, fetchBehavior: cachePolicy.toFetchBehavior(), requestConfiguration: requestConfiguration)
    }

    /// The cached result, or nil on a miss.
    public func fetch<Query: GraphQLQuery>(
        query: Query, cachePolicy: CachePolicy.Query.CacheOnly, requestConfiguration: RequestConfiguration? = nil
    ) async throws -> GraphQLResponse<Query>? {
        do {
            for try await result in try fetch(query: query, fetchBehavior: cachePolicy.toFetchBehavior(), requestConfiguration: requestConfiguration) {
                return result
            }
            return nil
        } catch Error.noResults {
            return nil
        }
    }

    public func fetch<Query: GraphQLQuery>(
        query: Query, fetchBehavior: FetchBehavior, requestConfiguration: RequestConfiguration? = nil
    ) throws -> AsyncThrowingStream<GraphQLResponse<Query>, any Swift.Error> {
        try networkTransport.send(query: query, fetchBehavior: fetchBehavior, requestConfiguration: requestConfiguration ?? defaultRequestConfiguration)
    }

    /// Fetches `query` under `cachePolicy`, then delivers it again, read from the store, each
    /// time the store changes what the last result read, until the watcher is cancelled.
    /// The store holds the watcher until ``GraphQLQueryWatcher/cancel()``.
    public func watch<Query: GraphQLQuery>(
        query: Query, cachePolicy: CachePolicy.Query.SingleResponse = .cacheFirst, requestConfiguration: RequestConfiguration? = nil,
        refetchOnFailedUpdates: Bool = true, resultHandler: @escaping GraphQLQueryWatcher<Query>.ResultHandler
    ) async -> GraphQLQueryWatcher<Query> {
        await watch(
            query: query, fetchBehavior: cachePolicy.toFetchBehavior(), requestConfiguration: requestConfiguration,
            refetchOnFailedUpdates: refetchOnFailedUpdates, resultHandler: resultHandler)
    }

    /// ``watch(query:cachePolicy:requestConfiguration:refetchOnFailedUpdates:resultHandler:)``
    /// whose first fetch delivers the cached result, then the server's.
    public func watch<Query: GraphQLQuery>(
        query: Query, cachePolicy: CachePolicy.Query.CacheAndNetwork, requestConfiguration: RequestConfiguration? = nil,
        refetchOnFailedUpdates: Bool = true, resultHandler: @escaping GraphQLQueryWatcher<Query>.ResultHandler
    ) async -> GraphQLQueryWatcher<Query> {
        await watch(
            query: query, fetchBehavior: cachePolicy.toFetchBehavior(), requestConfiguration: requestConfiguration,
            refetchOnFailedUpdates: refetchOnFailedUpdates, resultHandler: resultHandler)
    }

    /// ``watch(query:cachePolicy:requestConfiguration:refetchOnFailedUpdates:resultHandler:)``
    /// whose first fetch reads the cache only.
    public func watch<Query: GraphQLQuery>(
        query: Query, cachePolicy: CachePolicy.Query.CacheOnly, requestConfiguration: RequestConfiguration? = nil,
        refetchOnFailedUpdates: Bool = true, resultHandler: @escaping GraphQLQueryWatcher<Query>.ResultHandler
    ) async -> GraphQLQueryWatcher<Query> {
        await watch(
            query: query, fetchBehavior: cachePolicy.toFetchBehavior(), requestConfiguration: requestConfiguration,
            refetchOnFailedUpdates: refetchOnFailedUpdates, resultHandler: resultHandler)
    }

    /// A watcher of `query` whose first fetch, under `fetchBehavior`, has started when it is
    /// returned.
    public func watch<Query: GraphQLQuery>(
        query: Query, fetchBehavior: FetchBehavior, requestConfiguration: RequestConfiguration? = nil,
        refetchOnFailedUpdates: Bool = true, resultHandler: @escaping GraphQLQueryWatcher<Query>.ResultHandler
    ) async -> GraphQLQueryWatcher<Query> {
        let watcher = await GraphQLQueryWatcher(
            client: self, query: query, refetchOnFailedUpdates: refetchOnFailedUpdates, resultHandler: resultHandler)
        await watcher.fetch(fetchBehavior: fetchBehavior, requestConfiguration: requestConfiguration)
        return watcher
    }

    /// The mutation's result.
    public func perform<Mutation: GraphQLMutation>(
        mutation: Mutation, requestConfiguration: RequestConfiguration? = nil
    ) async throws -> GraphQLResponse<Mutation> {
        for try await result in try networkTransport.send(mutation: mutation, requestConfiguration: requestConfiguration ?? defaultRequestConfiguration) {
            return result
        }
        try Task.checkCancellation()
        throw Error.noResults
    }

    /// The subscription's events, as they arrive, and its ``SubscriptionStream/state``. The
    /// stream ends when the server ends the subscription; cancelling the task that reads it
    /// ends the subscription from the client.
    public func subscribe<Subscription: GraphQLSubscription>(
        subscription: Subscription, cachePolicy: CachePolicy.Subscription = .cacheThenNetwork, requestConfiguration: RequestConfiguration? = nil
    ) throws -> SubscriptionStream<GraphQLResponse<Subscription>> {
        guard let transport = networkTransport as? any SubscriptionNetworkTransport else { throw Error.noSubscriptionTransport }
        return try transport.send(
            subscription: subscription, fetchBehavior: cachePolicy.toFetchBehavior(),
            requestConfiguration: requestConfiguration ?? defaultRequestConfiguration)
    }
}
