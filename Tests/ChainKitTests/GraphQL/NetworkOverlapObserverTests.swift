import ChainKit
import Foundation
import Synchronization
import Testing

/// What a lab that schedules every hop learns about CacheAndNetwork's overlapping network
/// fetch (upstream's `RequestChain.execute` goes on to the network in its own task after
/// yielding the cached result: apollo-ios Sources/Apollo/RequestChain/RequestChain.swift).
@Suite("Network overlap observer")
struct NetworkOverlapObserverTests {
    /// Records each report with the side that made it.
    final class Recorder: NetworkOverlapObserver {
        let reports = Mutex<[String]>([])

        func networkFetchStarts() { add("operation: starts") }
        func networkFetchHandsOn(isEnd: Bool) { add(isEnd ? "network: end" : "network: result") }
        func readerWaits() { add("operation: waits") }
        func readerResumes() async { add("operation: resumes") }
        func operationEnds() { add("operation: ends") }
        func attemptEndsInRetry() async { add("operation: retries") }

        func add(_ report: String) { reports.withLock { $0.append(report) } }

        /// One side's reports, in the order that side made them.
        func side(_ prefix: String) -> [String] { reports.withLock { $0 }.filter { $0.hasPrefix(prefix) } }
    }

    /// Throws `Retry` on the first cached result it sees on the way up.
    final class RetryOnFirstCachedResult: ChainInterceptor {
        let retried = Mutex(false)

        func intercept(request: ChainRequest, next: ChainNext) async throws -> ChainResultStream {
            await next(request).map { [self] response in
                let retry = response.source == .cache && retried.withLock { retried in
                    defer { retried = true }
                    return !retried
                }
                if retry { throw ChainRunner.Retry(request: request) }
                return response
            }
        }
    }

    static func chain(_ recorder: Recorder, transport: some GraphQLTransport, graphQL: [any ChainInterceptor] = []) throws -> ChainRunner {
        let store = CacheStore()
        try store.write(data: ["hero": ["id": "1", "name": "cached"]], for: heroQuery)
        return ChainRunner(
            interceptors: .init(graphQL: graphQL, cache: DefaultCacheInterceptor(store: store), http: [ResponseCodeInterceptor()], parser: JSONResponseParsingInterceptor()),
            transport: transport, overlapsNetworkFetch: true, overlapObserver: recorder)
    }

    @Test("a fetch that answers: the start first, each hand-over before the reader reads it, the end last", .timeLimit(.minutes(1)))
    func answered() async throws {
        let recorder = Recorder()
        let transport = InMemoryGraphQLTransport { NetworkResponse(status: 200, url: $0.url, body: Data(heroBody.utf8)) }
        let outcome = await run(try Self.chain(recorder, transport: transport).kickoff(request: request(fetchBehavior: .CacheAndNetwork)))
        #expect(outcome.error == nil)
        #expect(outcome.responses.map(\.source) == [.cache, .server])
        #expect(recorder.reports.withLock { $0.first } == "operation: starts")
        #expect(recorder.side("network") == ["network: result", "network: end"])
        #expect(recorder.side("operation") == ["operation: starts", "operation: waits", "operation: resumes", "operation: waits", "operation: resumes", "operation: ends"])
    }

    @Test("an operation without a cached result never forks, and still reports its end, once", .timeLimit(.minutes(1)))
    func neverForked() async throws {
        let recorder = Recorder()
        let transport = InMemoryGraphQLTransport { NetworkResponse(status: 200, url: $0.url, body: Data(heroBody.utf8)) }
        let outcome = await run(try Self.chain(recorder, transport: transport).kickoff(request: request(fetchBehavior: .NetworkOnly)))
        #expect(outcome.error == nil)
        #expect(outcome.responses.map(\.source) == [.server])
        #expect(recorder.reports.withLock { $0 } == ["operation: ends"])
    }

    @Test("a fetch that fails before the parser still reports its end, once", .timeLimit(.minutes(1)))
    func failed() async throws {
        struct Refused: Error {}
        let recorder = Recorder()
        let transport = InMemoryGraphQLTransport { _ in throw Refused() }
        let outcome = await run(try Self.chain(recorder, transport: transport).kickoff(request: request(fetchBehavior: .CacheAndNetwork)))
        #expect(outcome.responses.map(\.source) == [.cache])
        #expect(outcome.error is Refused)
        #expect(recorder.side("network") == ["network: end"])
        #expect(recorder.side("operation") == ["operation: starts", "operation: waits", "operation: resumes", "operation: ends"])
    }

    @Test("a Retry thrown on the cached result ends the attempt: reported once, before the next attempt forks again", .timeLimit(.minutes(1)))
    func retriedOnTheCachedResult() async throws {
        let recorder = Recorder()
        let transport = InMemoryGraphQLTransport { NetworkResponse(status: 200, url: $0.url, body: Data(heroBody.utf8)) }
        let chain = try Self.chain(recorder, transport: transport, graphQL: [RetryOnFirstCachedResult()])
        let outcome = await run(chain.kickoff(request: request(fetchBehavior: .CacheAndNetwork)))
        #expect(outcome.error == nil)
        #expect(outcome.responses.map(\.source) == [.cache, .server])
        #expect(recorder.side("operation") == [
            "operation: starts", "operation: retries",
            "operation: starts", "operation: waits", "operation: resumes", "operation: waits", "operation: resumes", "operation: ends",
        ])
    }
}
