import Foundation

/// Watches the cache for a query's data (upstream's `GraphQLQueryWatcher`): after a fetch,
/// every change a publish makes to the records the result read (its dependent keys) delivers
/// the query again, read from the store; when that read fails (a record it needs is gone),
/// the query is fetched from the network instead, unless `refetchOnFailedUpdates` is off or
/// the last fetch never used the network.
///
/// Changes the watcher's own fetch writes are delivered by that fetch, not a second time by
/// the store. The store holds a watcher until ``cancel()``.
///
/// ```swift
/// let watcher = GraphQLQueryWatcher(transport: transport, store: store, request: heroQuery) { result in
///     print(try? result.get().data)
/// }
/// await watcher.fetch(fetchBehavior: .CacheFirst)
/// ```
public actor GraphQLQueryWatcher: CacheStoreSubscriber {
    public typealias ResultHandler = @Sendable (Result<ChainResponse, any Error>) -> Void

    /// The watched query; each fetch sends it with the fetch's behaviour.
    public let request: ChainRequest
    /// Whether a change whose cache read fails fetches from the network. Defaults to true.
    public let refetchOnFailedUpdates: Bool
    public private(set) var cancelled = false
    /// The `key.field` pairs the last result read; nil before any result with data.
    public private(set) var dependentKeys: Set<String>?

    private let transport: ChainNetworkTransport
    private let store: CacheStore
    private let resultHandler: ResultHandler
    private let identifier = UUID()
    private var lastFetch: (task: Task<Void, Never>, fetchBehavior: FetchBehavior)?
    private var token: CacheStore.SubscriptionToken?

    /// The watcher watches nothing until a fetch has delivered a result.
    public init(
        transport: ChainNetworkTransport, store: CacheStore, request: ChainRequest, refetchOnFailedUpdates: Bool = true,
        resultHandler: @escaping ResultHandler
    ) {
        self.transport = transport
        self.store = store
        self.request = request
        self.refetchOnFailedUpdates = refetchOnFailedUpdates
        self.resultHandler = resultHandler
    }

    /// Fetches the query with `fetchBehavior`, cancelling a fetch under way, and delivers each
    /// result; the first one starts the watching.
    public func fetch(fetchBehavior: FetchBehavior) {
        guard !cancelled else { return }
        if token == nil { token = store.subscribe(self) }
        lastFetch?.task.cancel()
        var request = self.request
        request.fetchBehavior = fetchBehavior
        let task = WatcherContext.$identifier.withValue(identifier) {
            Task {
                do {
                    for try await result in transport.send(request) {
                        try Task.checkCancellation()
                        self.received(result)
                    }
                } catch is CancellationError {
                    // A newer fetch or a cancel took over.
                } catch {
                    self.failed(error)
                }
            }
        }
        lastFetch = (task, fetchBehavior)
    }

    /// Stops delivering and leaves the store; a fetch under way is cancelled.
    public func cancel() {
        cancelled = true
        lastFetch?.task.cancel()
        if let token { store.unsubscribe(token) }
        token = nil
    }

    private func received(_ result: ChainResponse) {
        guard !cancelled else { return }
        if let keys = store.dependentKeys(of: result, for: request.operation) { dependentKeys = keys }
        resultHandler(.success(result))
    }

    private func failed(_ error: any Error) {
        guard !cancelled else { return }
        resultHandler(.failure(error))
    }

    public nonisolated func store(_ store: CacheStore, didChangeKeys changedKeys: Set<String>) {
        // What the watcher's own fetch wrote, that fetch delivers.
        if WatcherContext.identifier == identifier { return }
        Task { await self.storeChanged(changedKeys) }
    }

    private func storeChanged(_ changedKeys: Set<String>) {
        guard !cancelled, let dependentKeys, !dependentKeys.isDisjoint(with: changedKeys) else { return }
        guard let reloaded = store.load(request.operation) else {
            if refetchOnFailedUpdates, lastFetch?.fetchBehavior.networkFetch != .never { fetch(fetchBehavior: .NetworkOnly) }
            return
        }
        received(reloaded)
    }
}

private enum WatcherContext {
    /// The watcher whose fetch is running in this task, if any.
    @TaskLocal static var identifier: UUID?
}
