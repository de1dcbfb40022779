import ChainKit
import Foundation
import Synchronization
import Testing

/// A watched query delivered again when the store changes what it read, as apollo-ios 2.4's
/// `GraphQLQueryWatcher` (Sources/Apollo/GraphQLQueryWatcher.swift) does over
/// `ApolloStore.subscribe` and `publish(records:)` (Sources/Apollo/Caching/ApolloStore.swift):
/// dependent keys from the last result, a reload from the store on a change that touches them,
/// a NetworkOnly fetch when that reload fails, and nothing for changes the watcher's own
/// fetch wrote.
@Suite("Query watchers", .timeLimit(.minutes(1)))
struct QueryWatcherTests {
    static let schema = CacheSchema(keyFields: ["Hero": ["id"]], fieldTypes: ["Query.hero": "Hero", "Mutation.renameHero": "Hero"])
    static let heroQuery = ChainOperation(name: "HeroQuery", kind: .query, document: "query HeroQuery { hero { id name } }")
    static let endpoint = URL(string: "https://lab.chainlab.local/graphql")!

    /// A server whose hero is named by `names`, one answer to each HeroQuery in turn (the last
    /// repeated), counting the HeroQuery requests it receives.
    final class Server: Sendable {
        let names: [String]
        let queries = Mutex(0)

        init(names: [String]) { self.names = names }

        var transport: InMemoryGraphQLTransport {
            InMemoryGraphQLTransport { request in
                let index = self.queries.withLock { count in
                    defer { count += 1 }
                    return count
                }
                let name = self.names[min(index, self.names.count - 1)]
                return NetworkResponse(status: 200, url: request.url, body: Data(#"{"data":{"hero":{"id":"2001","name":"\#(name)"}}}"#.utf8))
            }
        }
    }

    /// Upstream's defaults, with a parser that normalizes as the store does.
    struct Provider: ChainInterceptorProvider {
        let store: CacheStore
        func cacheInterceptor(for operation: ChainOperation) -> any ChainCacheInterceptor { DefaultCacheInterceptor(store: store) }
        func responseParser(for operation: ChainOperation) -> any ChainResponseParser { JSONResponseParsingInterceptor(cacheSchema: store.schema) }
    }

    /// What a watcher delivered: the hero's name and where the result came from.
    struct Delivered: Equatable, CustomStringConvertible {
        let name: String
        let source: ChainResponse.Source
        var description: String { "\(name) (\(source))" }
    }

    /// A watcher of HeroQuery over `store`, and the stream of what it delivers.
    static func watch(
        _ store: CacheStore, server: Server, refetchOnFailedUpdates: Bool = true
    ) -> (GraphQLQueryWatcher, AsyncStream<Result<Delivered, any Error>>.Iterator) {
        let (results, delivered) = AsyncStream<Result<Delivered, any Error>>.makeStream()
        let transport = ChainNetworkTransport(interceptorProvider: Provider(store: store), transport: server.transport)
        let watcher = GraphQLQueryWatcher(
            transport: transport, store: store, request: ChainRequest(operation: heroQuery, graphQLEndpoint: endpoint),
            refetchOnFailedUpdates: refetchOnFailedUpdates
        ) { result in
            delivered.yield(result.map { Delivered(name: $0.data?["hero"]?["name"]?.stringValue ?? "none", source: $0.source) })
        }
        return (watcher, results.makeAsyncIterator())
    }

    /// The next delivery, as `name (source)`.
    static func next(_ results: inout AsyncStream<Result<Delivered, any Error>>.Iterator) async throws -> String? {
        try await results.next()?.get().description
    }

    /// Writes `name` as the hero's, as a mutation's result would.
    static func rename(_ store: CacheStore, to name: String) throws {
        let mutation = ChainOperation(name: "RenameHero", kind: .mutation, document: "mutation RenameHero { renameHero { id name } }")
        try store.write(data: ["renameHero": ["id": "2001", "name": .string(name)]], for: mutation)
    }

    /// Renames the hero and returns the delivery that follows.
    static func rename(
        _ store: CacheStore, to name: String, delivered results: inout AsyncStream<Result<Delivered, any Error>>.Iterator
    ) async throws -> String? {
        try rename(store, to: name)
        return try await next(&results)
    }

    @Test("a change to the hero it read delivers the query again from the store; its own fetch's write does not")
    func redeliversOnChange() async throws {
        let store = CacheStore(schema: Self.schema)
        let server = Server(names: ["R2-D2"])
        let (watcher, delivered) = Self.watch(store, server: server)
        var results = delivered
        await watcher.fetch(fetchBehavior: .CacheFirst)
        let fetched = try await Self.next(&results)
        #expect(fetched == "R2-D2 (server)")
        #expect(await watcher.dependentKeys == ["QUERY_ROOT.hero", "Hero:2001.id", "Hero:2001.name"])
        let renamed = try await Self.rename(store, to: "Artoo", delivered: &results)
        #expect(renamed == "Artoo (cache)")
        let renamedAgain = try await Self.rename(store, to: "Threepio", delivered: &results)
        #expect(renamedAgain == "Threepio (cache)")
        #expect(server.queries.withLock { $0 } == 1)
        await watcher.cancel()
    }

    @Test("a change to a record the query did not read delivers nothing")
    func ignoresUnrelatedChanges() async throws {
        let store = CacheStore(schema: Self.schema)
        let (watcher, delivered) = Self.watch(store, server: Server(names: ["R2-D2"]))
        var results = delivered
        await watcher.fetch(fetchBehavior: .NetworkOnly)
        let fetched = try await Self.next(&results)
        #expect(fetched == "R2-D2 (server)")
        let other = ChainOperation(name: "Luke", kind: .query, document: "query Luke { human { id name } }")
        try store.write(data: ["human": ["id": "1000", "name": "Luke"]], for: other)
        // Had the unrelated change delivered, its reload would come before this one.
        let renamed = try await Self.rename(store, to: "Artoo", delivered: &results)
        #expect(renamed == "Artoo (cache)")
        let renamedAgain = try await Self.rename(store, to: "Threepio", delivered: &results)
        #expect(renamedAgain == "Threepio (cache)")
        await watcher.cancel()
    }

    @Test("a change whose reload from the store fails fetches NetworkOnly; the refetch's own write is not delivered twice")
    func refetchesWhenTheReloadFails() async throws {
        let store = CacheStore(schema: Self.schema)
        let server = Server(names: ["R2-D2", "R2-D2 (refetched)"])
        let (watcher, delivered) = Self.watch(store, server: server)
        var results = delivered
        await watcher.fetch(fetchBehavior: .CacheFirst)
        let fetched = try await Self.next(&results)
        #expect(fetched == "R2-D2 (server)")
        // The root now points at a hero the store has no record of: the reload misses.
        store.publish(records: RecordSet(records: [Record(key: "QUERY_ROOT", ["hero": .reference(CacheReference("Hero:9999"))])]))
        let refetched = try await Self.next(&results)
        #expect(refetched == "R2-D2 (refetched) (server)")
        #expect(server.queries.withLock { $0 } == 2)
        let renamed = try await Self.rename(store, to: "Artoo", delivered: &results)
        #expect(renamed == "Artoo (cache)")
        await watcher.cancel()
    }

    @Test("a cancelled watcher leaves the store: a change reaches the watcher still watching, not it")
    func cancelLeavesTheStore() async throws {
        let store = CacheStore(schema: Self.schema)
        let server = Server(names: ["R2-D2"])
        let (cancelled, cancelledDelivered) = Self.watch(store, server: server)
        let (watching, watchingDelivered) = Self.watch(store, server: server)
        var cancelledResults = cancelledDelivered, watchingResults = watchingDelivered
        await cancelled.fetch(fetchBehavior: .NetworkOnly)
        let fetched = try await Self.next(&cancelledResults)
        #expect(fetched == "R2-D2 (server)")
        await watching.fetch(fetchBehavior: .CacheOnly)
        let watched = try await Self.next(&watchingResults)
        #expect(watched == "R2-D2 (cache)")
        await cancelled.cancel()
        #expect(await cancelled.cancelled)
        let renamed = try await Self.rename(store, to: "Artoo", delivered: &watchingResults)
        #expect(renamed == "Artoo (cache)")
        // A fetch after cancel does nothing either.
        await cancelled.fetch(fetchBehavior: .NetworkOnly)
        #expect(server.queries.withLock { $0 } == 1)
        await watching.cancel()
    }
}
