import ChainKit
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import Testing

/// A watched query delivered again when the store changes what it read, as apollo-ios 2.4's
/// `GraphQLQueryWatcher` (Sources/Apollo/GraphQLQueryWatcher.swift) does over
/// `ApolloStore.subscribe` and `publish(records:)` (Sources/Apollo/Caching/ApolloStore.swift),
/// made by `ApolloClient.watch` (Sources/Apollo/ApolloClient.swift): dependent keys from the
/// last result, a reload from the store on a change that touches them, a NetworkOnly fetch
/// when that reload fails, and nothing for changes the watcher's own fetch wrote.
@Suite("Query watchers", .timeLimit(.minutes(1)))
struct QueryWatcherTests {
    static let schema = CacheSchema(keyFields: ["Hero": ["id"]], fieldTypes: ["Query.hero": "Hero", "Mutation.renameHero": "Hero"])
    static let endpoint = URL(string: "https://lab.chainlab.local/graphql")!

    struct HeroQuery: GraphQLQuery {
        static let operationName = "HeroQuery"
        static let operationDocument = OperationDocument(definition: OperationDefinition("query HeroQuery { hero { id name } }"))
    }

    struct RenameHero: GraphQLMutation {
        static let operationName = "RenameHero"
        static let operationDocument = OperationDocument(definition: OperationDefinition("mutation RenameHero { renameHero { id name } }"))
    }

    /// A server whose hero is named by `names`, one answer to each HeroQuery in turn (the last
    /// repeated), counting the HeroQuery requests it receives.
    final class Server: ApolloURLSession {
        let names: [String]
        let queries = Mutex(0)

        init(names: [String]) { self.names = names }

        func chunks(for request: URLRequest) async throws -> (any AsyncChunkSequence, URLResponse) {
            let index = queries.withLock { count in
                defer { count += 1 }
                return count
            }
            let name = names[min(index, names.count - 1)]
            let body = Data(#"{"data":{"hero":{"id":"2001","name":"\#(name)"}}}"#.utf8)
            return (PullStream([body]), HTTPURLResponse(url: request.url!, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: [:])!)
        }

        var queryCount: Int { queries.withLock { $0 } }
    }

    /// Upstream's defaults, with a parser that keys heroes by id, as the store does.
    struct Provider: InterceptorProvider {
        func responseParser<Operation: GraphQLOperation>(for operation: Operation) -> any ResponseParsingInterceptor {
            JSONResponseParsingInterceptor(cacheSchema: QueryWatcherTests.schema)
        }
    }

    /// A client of `server` over a store keyed by `schema`.
    static func client(_ server: Server) -> ApolloClient {
        let store = ApolloStore(cacheStore: CacheStore(schema: schema))
        return ApolloClient(
            networkTransport: RequestChainNetworkTransport(urlSession: server, interceptorProvider: Provider(), store: store, endpointURL: endpoint),
            store: store)
    }

    typealias Deliveries = AsyncStream<String>.Iterator

    /// A handler that reports each delivery as `name (source)`, or `error: …`; finishing the
    /// continuation ends the deliveries.
    static func handler() -> (GraphQLQueryWatcher<HeroQuery>.ResultHandler, Deliveries, AsyncStream<String>.Continuation) {
        let (results, delivered) = AsyncStream<String>.makeStream()
        let handler: GraphQLQueryWatcher<HeroQuery>.ResultHandler = { result in
            switch result {
            case .success(let response):
                delivered.yield("\(response.data?.hero?["name"]?.stringValue ?? "none") (\(response.source))")
            case .failure(let error):
                delivered.yield("error: \(error)")
            }
        }
        return (handler, results.makeAsyncIterator(), delivered)
    }

    /// Writes `name` as the hero's, as a mutation's result would.
    static func rename(_ client: ApolloClient, to name: String) throws {
        try client.store.cacheStore.write(data: ["renameHero": ["id": "2001", "name": .string(name)]], for: RenameHero().chainOperation)
    }

    @Test("watch: the first fetch, then each change to the hero it read, from the store; its own fetch's write is not delivered again")
    func redeliversOnChange() async throws {
        let server = Server(names: ["R2-D2"])
        let client = Self.client(server)
        let (handler, deliveries, _) = Self.handler()
        var delivered = deliveries
        let watcher = await client.watch(query: HeroQuery(), resultHandler: handler)
        #expect(await delivered.next() == "R2-D2 (server)")
        #expect(await watcher.dependentKeys == ["QUERY_ROOT.hero", "Hero:2001.id", "Hero:2001.name"])
        try Self.rename(client, to: "Artoo")
        #expect(await delivered.next() == "Artoo (cache)")
        try Self.rename(client, to: "Threepio")
        #expect(await delivered.next() == "Threepio (cache)")
        #expect(server.queryCount == 1)
        watcher.cancel()
    }

    @Test("a change to a record the query did not read delivers nothing")
    func ignoresUnrelatedChanges() async throws {
        let client = Self.client(Server(names: ["R2-D2"]))
        let (handler, deliveries, _) = Self.handler()
        var delivered = deliveries
        let watcher = await client.watch(query: HeroQuery(), fetchBehavior: .NetworkOnly, resultHandler: handler)
        #expect(await delivered.next() == "R2-D2 (server)")
        let other = ChainOperation(name: "Luke", kind: .query, document: "query Luke { human { id name } }")
        try client.store.cacheStore.write(data: ["human": ["id": "1000", "name": "Luke"]], for: other)
        // Had the unrelated change delivered, its reload would come before this one.
        try Self.rename(client, to: "Artoo")
        #expect(await delivered.next() == "Artoo (cache)")
        watcher.cancel()
    }

    @Test("a change whose reload from the store fails fetches NetworkOnly; the refetch's own write is not delivered twice")
    func refetchesWhenTheReloadFails() async throws {
        let server = Server(names: ["R2-D2", "R2-D2 (refetched)"])
        let client = Self.client(server)
        let (handler, deliveries, _) = Self.handler()
        var delivered = deliveries
        let watcher = await client.watch(query: HeroQuery(), resultHandler: handler)
        #expect(await delivered.next() == "R2-D2 (server)")
        // The root now points at a hero the store has no record of: the reload misses.
        try await client.store.publish(records: RecordSet(records: [Record(key: "QUERY_ROOT", ["hero": .reference(CacheReference("Hero:9999"))])]))
        #expect(await delivered.next() == "R2-D2 (refetched) (server)")
        #expect(server.queryCount == 2)
        try Self.rename(client, to: "Artoo")
        #expect(await delivered.next() == "Artoo (cache)")
        watcher.cancel()
    }

    @Test("a cancelled watcher leaves the store: a change reaches the watcher still watching, not it")
    func cancelLeavesTheStore() async throws {
        let server = Server(names: ["R2-D2"])
        let client = Self.client(server)
        let (cancelledHandler, cancelledDeliveries, cancelledEnd) = Self.handler()
        let (watchingHandler, watchingDeliveries, _) = Self.handler()
        var cancelledDelivered = cancelledDeliveries, watchingDelivered = watchingDeliveries
        let cancelled = await client.watch(query: HeroQuery(), cachePolicy: .networkOnly, resultHandler: cancelledHandler)
        #expect(await cancelledDelivered.next() == "R2-D2 (server)")
        let watching = await client.watch(query: HeroQuery(), cachePolicy: .cacheOnly, resultHandler: watchingHandler)
        #expect(await watchingDelivered.next() == "R2-D2 (cache)")
        cancelled.cancel()
        #expect(await cancelled.cancelled)
        try Self.rename(client, to: "Artoo")
        #expect(await watchingDelivered.next() == "Artoo (cache)")
        // The store told the cancelled watcher nothing: once its handler's stream ends, it holds nothing.
        cancelledEnd.finish()
        #expect(await cancelledDelivered.next() == nil)
        #expect(server.queryCount == 1)
        watching.cancel()
    }

    @Test("CacheAndNetwork: the watcher delivers the cached result, then the server's")
    func cacheAndNetwork() async throws {
        let server = Server(names: ["R2-D2", "Artoo"])
        let client = Self.client(server)
        _ = try await client.fetch(query: HeroQuery())
        let (handler, deliveries, _) = Self.handler()
        var delivered = deliveries
        let watcher = await client.watch(query: HeroQuery(), cachePolicy: .cacheAndNetwork, resultHandler: handler)
        #expect(await delivered.next() == "R2-D2 (cache)")
        #expect(await delivered.next() == "Artoo (server)")
        #expect(server.queryCount == 2)
        watcher.cancel()
    }
}
