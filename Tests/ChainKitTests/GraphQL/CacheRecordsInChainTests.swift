import ChainKit
import Foundation
import Testing

/// What the chain reads from and writes to the normalized cache, against Apollo iOS 2.4's
/// `Sources/Apollo/RequestChain/RequestChain.swift` (`writeToCacheIfNecessary` writes the
/// parser's `cacheRecords`), `ChainRunner/Interceptors/ChainCacheInterceptor.swift` and the
/// cache-policy cases of apollo-ios-dev's `Tests/ApolloTests/FetchQueryTests.swift`.
@Suite("Cache records in the chain")
struct CacheRecordsInChainTests {
    static let heroWithFilms = ChainOperation(name: "HeroQuery", kind: .query, document: "query HeroQuery { hero { id name appearsIn } }")
    static let fullBody = #"{"data":{"hero":{"id":"1","name":"R2-D2","appearsIn":["NEWHOPE","EMPIRE","JEDI"]}}}"#

    // Mirrors FetchQueryTests.test__fetch__givenCachePolicy_cacheFirst_givenNotAllDataIsCached_hitsNetwork.
    @Test("CacheFirst with only part of the selection cached goes to the network")
    func cacheFirstPartialHitsNetwork() async throws {
        let log = EventLog()
        let store = CacheStore()
        try store.write(data: ["hero": ["id": "1", "name": "R2-D2"]], for: heroQuery)
        let chain = makeChain(cache: LoggingCache(store: store, log: log), transport: loggingTransport(log) { _, _ in (200, Self.fullBody) })
        let outcome = await run(chain.kickoff(request: request(Self.heroWithFilms, fetchBehavior: .CacheFirst)))
        #expect(outcome.error == nil)
        #expect(outcome.responses.map(\.source) == [.server])
        #expect(outcome.responses.first?.data?["hero"]?["appearsIn"] == ["NEWHOPE", "EMPIRE", "JEDI"])
        #expect(log.all == ["cache miss", "transport POST 1", "cache write"])
        #expect(store.load(Self.heroWithFilms)?.data == ["hero": ["id": "1", "name": "R2-D2", "appearsIn": ["NEWHOPE", "EMPIRE", "JEDI"]]])
    }

    // Mirrors FetchQueryTests.test__fetch__givenCachePolicy_cacheOnly_givenNotAllDataIsCached_returnsNil:
    // the cache step yields nothing, so the chain has no result.
    @Test("CacheOnly with only part of the selection cached yields nothing")
    func cacheOnlyPartial() async throws {
        let log = EventLog()
        let store = CacheStore()
        try store.write(data: ["hero": ["id": "1", "name": "R2-D2"]], for: heroQuery)
        let chain = makeChain(store: store, transport: loggingTransport(log) { _, _ in (200, Self.fullBody) })
        let outcome = await run(chain.kickoff(request: request(Self.heroWithFilms, fetchBehavior: .CacheOnly)))
        #expect(outcome.responses.isEmpty)
        #expect(outcome.error as? RequestChainError == .noResults)
        #expect(log.all.isEmpty)
    }

    @Test("a post-flight that redacts a field changes what the caller gets, not what the cache holds")
    func redactionDoesNotReachTheCache() async throws {
        struct RedactName: ChainInterceptor {
            func intercept(request: ChainRequest, next: ChainNext) async throws -> ChainResultStream {
                await next(request).map { response in
                    var redacted = response
                    redacted.data = ["hero": ["id": "1", "name": "[redacted]"]]
                    return redacted
                }
            }
        }
        let store = CacheStore()
        let chain = makeChain(graphQL: [RedactName()], store: store, transport: .respond(status: 200, body: heroBody))
        let outcome = await run(chain.kickoff(request: request(fetchBehavior: .CacheFirst)))
        #expect(outcome.responses.map(\.data) == [["hero": ["id": "1", "name": "[redacted]"]]])
        #expect(store.records["QUERY_ROOT.hero"]?["name"] == .scalar("R2-D2"))
        #expect(store.load(heroQuery)?.data == heroData)
    }

    @Test("the parser makes records only when the request writes to the cache")
    func recordsOnlyWhenWriting() async throws {
        for write in [true, false] {
            var sent = request()
            sent.writeResultsToCache = write
            let response = NetworkResponse(status: 200, url: endpoint, body: Data(heroBody.utf8))
            let parsed = try await JSONResponseParsingInterceptor().parse(response: response, for: sent).collect()
            #expect(parsed.map(\.cacheRecords?.sortedKeys) == [write ? ["QUERY_ROOT", "QUERY_ROOT.hero"] : nil])
        }
    }

    @Test("results from the cache are not written back")
    func cacheResultsAreNotWritten() async throws {
        let log = EventLog()
        let store = CacheStore()
        try store.write(data: heroData, for: heroQuery)
        let chain = makeChain(cache: LoggingCache(store: store, log: log), transport: .respond(status: 200, body: heroBody))
        _ = await run(chain.kickoff(request: request(fetchBehavior: .CacheFirst)))
        #expect(log.all == ["cache hit"])
    }
}
