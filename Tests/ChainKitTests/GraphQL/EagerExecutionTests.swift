import ChainKit
import Foundation
import Testing

/// What runs before anybody asks, as in Apollo iOS 2.4: `RequestChain.kickoff` and its
/// `execute` step return `AsyncThrowingStream.executingInAsyncTask` (Sources/Apollo/Internal
/// Utilities/AsyncThrowingStream+ExecutingInAsyncTask.swift, Sources/Apollo/RequestChain/
/// RequestChain.swift), whose task starts at once and is cancelled when the stream terminates.
@Suite("Eager execution")
struct EagerExecutionTests {
    /// Tells the test each request the transport receives.
    struct SignallingTransport: GraphQLTransport {
        let sent: AsyncStream<String>.Continuation

        func send(_ request: NetworkRequest) async throws -> NetworkResponse {
            sent.yield(request.method.rawValue)
            return NetworkResponse(status: 200, url: request.url, body: Data(heroBody.utf8))
        }
    }

    @Test("send starts the request before anybody reads the stream; the result waits for its reader", .timeLimit(.minutes(1)))
    func sendsWithoutAReader() async throws {
        let (sent, signal) = AsyncStream<String>.makeStream()
        let client = RequestChainNetworkTransport(interceptorProvider: DefaultInterceptorProvider(store: CacheStore()), transport: SignallingTransport(sent: signal))
        let results = client.send(request(fetchBehavior: .NetworkOnly))
        var seen = sent.makeAsyncIterator()
        // Nothing has read `results`: the request reached the transport on its own.
        #expect(await seen.next() == "POST")
        let collected = try await results.collect()
        #expect(collected.map(\.source) == [.server])
        #expect(collected.map(\.data) == [heroData])
    }

    // Mirrors FetchQueryTests.test__fetch__givenCachePolicy_cacheAndNetwork_hitsCacheFirstAndNetworkAfter,
    // with upstream's execute task going on to the network after yielding the cached result.
    @Test("CacheAndNetwork: the network fetch starts while the cached result is still on its way up", .timeLimit(.minutes(1)))
    func cacheAndNetworkOverlaps() async throws {
        /// Holds the cached result until the transport has been called.
        struct WaitForNetwork: GraphQLInterceptor {
            let sent: AsyncStream<String>

            func intercept(request: GraphQLRequest, next: GraphQLNext) async throws -> InterceptorResultStream {
                let sent = self.sent
                return await next(request).map { response in
                    if response.source == .cache {
                        var iterator = sent.makeAsyncIterator()
                        _ = await iterator.next()
                    }
                    return response
                }
            }
        }
        let (sent, signal) = AsyncStream<String>.makeStream()
        let store = CacheStore()
        try store.write(data: ["hero": ["id": "1", "name": "cached"]], for: heroQuery)
        let chain = makeChain(graphQL: [WaitForNetwork(sent: sent)], store: store, transport: SignallingTransport(sent: signal))
        let outcome = await run(chain.kickoff(request: request(fetchBehavior: .CacheAndNetwork)))
        #expect(outcome.error == nil)
        #expect(outcome.responses.map(\.source) == [.cache, .server])
        #expect(outcome.responses.map(\.data) == [["hero": ["id": "1", "name": "cached"]], heroData])
    }

    @Test("the chain's own kickoff still does its work in the task that reads it")
    func kickoffIsPulled() async throws {
        let log = EventLog()
        let chain = makeChain(transport: loggingTransport(log) { _, _ in (200, heroBody) })
        let results = chain.kickoff(request: request())
        #expect(log.all.isEmpty)
        #expect(try await results.collect().count == 1)
        #expect(log.all == ["transport POST 1"])
    }
}
