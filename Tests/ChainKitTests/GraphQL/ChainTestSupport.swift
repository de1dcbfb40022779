import ChainKit
import Foundation

/// An append-only log shared by the pieces of one test.
final class EventLog: Sendable {
    private let entries = Locked<[String]>([])
    func add(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.value }
}

let endpoint = URL(string: "https://lab.example/graphql")!
let heroQuery = ChainOperation(name: "HeroQuery", kind: .query, document: "query HeroQuery { hero { id name } }")
let heroMutation = ChainOperation(name: "RenameHero", kind: .mutation, document: "mutation RenameHero($name: String!) { renameHero(name: $name) { id name } }", variables: ["name": "Luke"])
let heroBody = #"{"data":{"hero":{"id":"1","name":"R2-D2"}}}"#
let heroData: JSONValue = ["hero": ["id": "1", "name": "R2-D2"]]

func request(_ operation: ChainOperation = heroQuery, fetchBehavior: FetchBehavior = .NetworkOnly) -> ChainRequest {
    ChainRequest(operation: operation, graphQLEndpoint: endpoint, fetchBehavior: fetchBehavior)
}

/// Records entering (pre-flight) and leaving (post-flight) under its name.
struct RecordingInterceptor: ChainInterceptor {
    let name: String
    let log: EventLog

    func intercept(request: ChainRequest, next: ChainNext) async throws -> ChainResultStream {
        log.add("enter \(name)")
        let log = self.log, name = self.name
        return await next(request).map { response in
            log.add("leave \(name)")
            return response
        }
    }
}

/// A cache interceptor that logs reads and writes around a real store.
struct LoggingCache: ChainCacheInterceptor {
    let store: CacheStore
    let log: EventLog

    func readCacheData(request: ChainRequest) async throws -> ChainResponse? {
        let cached = store.load(request.operation)
        log.add(cached == nil ? "cache miss" : "cache hit")
        return cached
    }

    func writeCacheData(request: ChainRequest, response: ChainResponse) async throws {
        log.add("cache write")
        if let records = response.cacheRecords { store.publish(records: records) }
    }
}

/// Builds a chain with explicit interceptors.
func makeChain(
    graphQL: [any ChainInterceptor] = [],
    cache: (any ChainCacheInterceptor)? = nil,
    http: [any ChainHTTPInterceptor] = [ResponseCodeInterceptor()],
    store: CacheStore = CacheStore(),
    transport: some GraphQLTransport
) -> ChainRunner {
    ChainRunner(
        interceptors: .init(graphQL: graphQL, cache: cache ?? DefaultCacheInterceptor(store: store), http: http, parser: JSONResponseParsingInterceptor()),
        transport: transport)
}

/// A transport that logs each request and answers from a closure.
func loggingTransport(_ log: EventLog, _ answer: @escaping @Sendable (NetworkRequest, Int) throws -> (Int, String)) -> InMemoryGraphQLTransport {
    let calls = Locked(0)
    return InMemoryGraphQLTransport { request in
        let call = calls.withLock { $0 += 1; return $0 }
        log.add("transport \(request.method) \(call)")
        let (status, body) = try answer(request, call)
        return NetworkResponse(status: status, url: request.url, body: Data(body.utf8))
    }
}

/// What a stream produced: its results and the error it ended with.
struct Outcome {
    var responses: [ChainResponse] = []
    var error: (any Error)?
}

func run(_ stream: ChainResultStream) async -> Outcome {
    var outcome = Outcome()
    do {
        for try await response in stream { outcome.responses.append(response) }
    } catch {
        outcome.error = error
    }
    return outcome
}

func bodyJSON(_ request: NetworkRequest) throws -> JSONValue {
    try JSONValue(parsing: request.body ?? Data())
}
