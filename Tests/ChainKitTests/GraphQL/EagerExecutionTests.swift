import ChainKit
import Foundation
import Testing

/// What runs before anybody asks, as in Apollo iOS 2.4: `RequestChain.kickoff` and its
/// `execute` step return `AsyncThrowingStream.executingInAsyncTask` (Sources/Apollo/Internal
/// Utilities/AsyncThrowingStream+ExecutingInAsyncTask.swift, Sources/Apollo/RequestChain/
/// ChainRunner.swift), whose task starts at once and is cancelled when the stream terminates.
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
        let client = ChainNetworkTransport(interceptorProvider: DefaultChainInterceptorProvider(store: CacheStore()), transport: SignallingTransport(sent: signal))
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
        struct WaitForNetwork: ChainInterceptor {
            let sent: AsyncStream<String>

            func intercept(request: ChainRequest, next: ChainNext) async throws -> ChainResultStream {
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

    @Test("kickoff starts the request before anybody reads the stream; the result waits for its reader", .timeLimit(.minutes(1)))
    func kickoffStartsWithoutAReader() async throws {
        let (sent, signal) = AsyncStream<String>.makeStream()
        let chain = makeChain(transport: SignallingTransport(sent: signal))
        let results = chain.kickoff(request: request(fetchBehavior: .NetworkOnly))
        var seen = sent.makeAsyncIterator()
        // Nothing has read `results`: kickoff's own task took the request to the transport.
        #expect(await seen.next() == "POST")
        let collected = try await results.collect()
        #expect(collected.map(\.source) == [.server])
        #expect(collected.map(\.data) == [heroData])
    }

    /// Tells the test when a request reached it and when its task was cancelled; never answers.
    struct HangingTransport: GraphQLTransport {
        let events: AsyncStream<String>.Continuation

        func send(_ request: NetworkRequest) async throws -> NetworkResponse {
            events.yield("sent")
            do {
                try await Task.sleep(for: .seconds(3600))
            } catch {
                events.yield("cancelled")
                throw error
            }
            throw CancellationError()
        }
    }

    // As upstream's `executingInAsyncTask` (onTermination cancels the task): a stream nobody
    // will read any more takes its operation down with it.
    @Test("dropping the stream cancels the operation's task", .timeLimit(.minutes(1)))
    func droppingTheStreamCancels() async {
        let (events, signal) = AsyncStream<String>.makeStream()
        var seen = events.makeAsyncIterator()
        do {
            let results = makeChain(transport: HangingTransport(events: signal)).kickoff(request: request(fetchBehavior: .NetworkOnly))
            #expect(await seen.next() == "sent")
            _ = results
        }
        #expect(await seen.next() == "cancelled")
    }
}
