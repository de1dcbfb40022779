import Foundation
import Synchronization

/// Watches the store for a query's data (Apollo iOS 2.4's `GraphQLQueryWatcher`): after a
/// fetch delivers, every change to the records that result read (its dependent keys) delivers
/// the query again, read from the store. When that read fails (a record it needs is gone),
/// the watcher fetches NetworkOnly instead, unless `refetchOnFailedUpdates` is off or its last
/// fetch never used the network.
///
/// What the watcher's own fetch writes, that fetch delivers, not a second time the store.
/// The store holds a watcher until ``cancel()``: a watcher dropped without it is never freed.
///
/// ```swift
/// let watcher = await client.watch(query: HeroQuery()) { result in
///     print(try? result.get().data?.hero)
/// }
/// // Later: no more results.
/// watcher.cancel()
/// ```
public actor GraphQLQueryWatcher<Query: GraphQLQuery>: ApolloStoreSubscriber {
    public typealias ResultHandler = @Sendable (Result<GraphQLResponse<Query>, any Swift.Error>) -> Void

    /// The watched query; each fetch sends it.
    public let query: Query
    /// Whether a change whose read from the store fails fetches from the network.
    public let refetchOnFailedUpdates: Bool
    /// Whether ``cancel()`` was called; a cancelled watcher delivers nothing more.
    public var cancelled: Bool { isCancelled.load(ordering: .acquiring) }
    /// The `key.field` pairs the last result read; nil before any result with data.
    package private(set) var dependentKeys: Set<CacheKey>?

    /// Weak as upstream: a watcher does not keep its client alive, and one whose client is
    /// gone cancels itself at its next fetch.
    private weak var client: ApolloClient?
    private let store: ApolloStore
    private let resultHandler: ResultHandler
    private let identifier = UUID()
    /// Set by the nonisolated ``cancel()`` at once, so no delivery queued on the actor slips
    /// through after it returns.
    private let isCancelled = Atomic(false)
    private var lastFetch: (task: Task<Void, Never>, fetchBehavior: FetchBehavior, requestConfiguration: RequestConfiguration?)?

    /// A watcher subscribed to `client`'s store. It watches nothing until a fetch (one of the
    /// `fetch` methods) has delivered a result.
    public init(client: ApolloClient, query: Query, refetchOnFailedUpdates: Bool = true, resultHandler: @escaping ResultHandler) async {
        self.client = client
        self.store = client.store
        self.query = query
        self.refetchOnFailedUpdates = refetchOnFailedUpdates
        self.resultHandler = resultHandler
        _ = await store.subscribe(self)
    }

    /// Fetches the query with `fetchBehavior`, cancelling a fetch under way, and delivers each
    /// result. A nil `requestConfiguration` is the client's default one.
    public func fetch(fetchBehavior: FetchBehavior, requestConfiguration: RequestConfiguration? = nil) {
        lastFetch?.task.cancel()
        let task = WatcherContext.$identifier.withValue(identifier) {
            Task {
                do {
                    guard let client else {
                        stop()
                        return
                    }
                    for try await result in try client.fetch(query: query, fetchBehavior: fetchBehavior, requestConfiguration: requestConfiguration) {
                        try Task.checkCancellation()
                        received(result)
                    }
                } catch is CancellationError {
                    // A newer fetch or a cancel took over.
                } catch {
                    failed(error)
                }
            }
        }
        lastFetch = (task, fetchBehavior, requestConfiguration)
    }

    public func fetch(cachePolicy: CachePolicy.Query.SingleResponse, requestConfiguration: RequestConfiguration? = nil) {
        fetch(fetchBehavior: cachePolicy.toFetchBehavior(), requestConfiguration: requestConfiguration)
    }

    public func fetch(cachePolicy: CachePolicy.Query.CacheOnly, requestConfiguration: RequestConfiguration? = nil) {
        fetch(fetchBehavior: cachePolicy.toFetchBehavior(), requestConfiguration: requestConfiguration)
    }

    public func fetch(cachePolicy: CachePolicy.Query.CacheAndNetwork, requestConfiguration: RequestConfiguration? = nil) {
        fetch(fetchBehavior: cachePolicy.toFetchBehavior(), requestConfiguration: requestConfiguration)
    }

    /// Leaves the store and cancels the fetch under way; nothing is delivered after this returns.
    public nonisolated consuming func cancel() {
        stop()
    }

    // Apart from `cancel()`: Swift 6.3 crashes compiling a task that captures `self` in a
    // `consuming` method.
    private nonisolated func stop() {
        guard !isCancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        store.unsubscribe(ApolloStore.SubscriptionToken(id: ObjectIdentifier(self)))
        Task { await self.cancelFetch() }
    }

    private func cancelFetch() {
        lastFetch?.task.cancel()
    }

    private func received(_ result: GraphQLResponse<Query>) {
        guard !cancelled else { return }
        if let data = result.data, let keys = store.cacheStore.dependentKeys(of: query.chainOperation, data: .object(data.__data)) {
            dependentKeys = keys
        }
        resultHandler(.success(result))
    }

    private func failed(_ error: any Swift.Error) {
        guard !cancelled else { return }
        resultHandler(.failure(error))
    }

    public nonisolated func store(_ store: ApolloStore, didChangeKeys changedKeys: Set<CacheKey>) {
        // What the watcher's own fetch wrote, that fetch delivers.
        if WatcherContext.identifier == identifier { return }
        Task { await self.storeChanged(changedKeys) }
    }

    private func storeChanged(_ changedKeys: Set<CacheKey>) async {
        guard !cancelled, let dependentKeys, !dependentKeys.isDisjoint(with: changedKeys) else { return }
        // A read from the store, so a server fetch under way goes on undisturbed.
        if let reloaded = try? await store.load(query) {
            received(reloaded)
        } else if refetchOnFailedUpdates, let lastFetch, lastFetch.fetchBehavior.networkFetch != .never {
            fetch(fetchBehavior: .NetworkOnly, requestConfiguration: lastFetch.requestConfiguration)
        }
    }
}

private enum WatcherContext {
    /// The watcher whose fetch is running in this task, if any.
    @TaskLocal static var identifier: UUID?
}
