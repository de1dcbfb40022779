import ChainKit
import Foundation
import Synchronization
import Testing

/// What a lab that stops at and records every GraphQL interceptor learns from the chain
/// (`GraphQLHopObserver`), in the order the chain tells it.
@Suite("GraphQL hop observer")
struct GraphQLHopObserverTests {
    /// Records each call; stops at every pre-flight unless it passes straight through, and
    /// tags what each interceptor's `next` hands back so the tags show who read what.
    final class Recorder: GraphQLHopObserver {
        let calls = Mutex<[String]>([])
        let passesStraight: Bool
        let failAttempt: Bool

        init(passesStraight: Bool, failAttempt: Bool = false) {
            self.passesStraight = passesStraight
            self.failAttempt = failAttempt
        }

        struct Capped: Error {}

        func attemptStarts() throws {
            add("attempt")
            if failAttempt { throw Capped() }
        }

        func preflightStop(at index: Int, _ request: ChainRequest) async throws -> ChainRequest {
            add("pre-flight stop \(index)")
            var received = request
            try received.additionalHeaders.set("X-Stop-\(index)", "passed")
            return received
        }

        func handsOn(at index: Int, _ handed: ChainRequest, received: ChainRequest) {
            let headers = handed.additionalHeaders.map(\.name).joined(separator: ",")
            add("\(index) hands on [\(headers)]\(handed.isIdentical(to: received) ? " as received" : "")")
        }

        func arriving(at index: Int, _ results: ChainResultStream, handed: ChainRequest, received: ChainRequest) -> ChainResultStream {
            add("arriving at \(index)")
            return results.map { [self] response in
                add("\(index) reads \(response.source.rawValue)")
                return response
            }
        }

        func parsed(_ outcome: Result<ChainResponse, any Error>) {
            switch outcome {
            case .success(let result): add("parsed \(result.source.rawValue)")
            case .failure(let error): add("parse failed: \(error)")
            }
        }

        func add(_ call: String) { calls.withLock { $0.append(call) } }
    }

    /// Adds a header before handing the request on.
    struct Mark: ChainInterceptor {
        let name: String
        func intercept(request: ChainRequest, next: ChainNext) async throws -> ChainResultStream {
            var marked = request
            try marked.additionalHeaders.set("X-\(name)", "1")
            return await next(marked)
        }
    }

    static func chain(_ recorder: Recorder, graphQL: [any ChainInterceptor]) -> ChainRunner {
        ChainRunner(
            interceptors: .init(graphQL: graphQL, cache: DefaultCacheInterceptor(store: CacheStore()), http: [], parser: JSONResponseParsingInterceptor()),
            transport: InMemoryGraphQLTransport.respond(status: 200, body: heroBody), overlapsNetworkFetch: true, hopObserver: recorder)
    }

    // Upstream's innermost `next` starts the cache and network steps at once
    // (Sources/Apollo/RequestChain/RequestChain.swift, `executingInAsyncTask`): under an
    // observer they run in the operation's task before `next` returns, so the result has left
    // the parser before any interceptor's results are handed back up.
    @Test("passing straight: the attempt, each hand-on as it goes down, the parsed result when the innermost next is called, each arrival as it comes back, then the result read from the lowest hop up")
    func passingStraight() async throws {
        let recorder = Recorder(passesStraight: true)
        let outcome = await run(Self.chain(recorder, graphQL: [Mark(name: "A"), RecordingInterceptor(name: "B", log: EventLog())]).kickoff(request: request()))
        #expect(outcome.error == nil)
        #expect(outcome.responses.map(\.source) == [.server])
        #expect(recorder.calls.withLock { $0 } == [
            "attempt",
            "0 hands on [X-A]",
            "1 hands on [X-A] as received",
            "parsed server",
            "arriving at 1", "arriving at 0", "arriving at -1",
            "1 reads server", "0 reads server", "-1 reads server",
        ])
    }

    @Test("with stops: each interceptor receives what its pre-flight stop lets go")
    func stopping() async throws {
        let recorder = Recorder(passesStraight: false)
        let outcome = await run(Self.chain(recorder, graphQL: [Mark(name: "A"), Mark(name: "B")]).kickoff(request: request()))
        #expect(outcome.error == nil)
        #expect(recorder.calls.withLock { $0 }.prefix(5) == [
            "attempt",
            "pre-flight stop 0", "0 hands on [X-Stop-0,X-A]",
            "pre-flight stop 1", "1 hands on [X-Stop-0,X-A,X-Stop-1,X-B]",
        ])
    }

    @Test("a body the parser cannot read: the failure leaves the parser, then climbs")
    func parseFailure() async throws {
        let recorder = Recorder(passesStraight: true)
        let chain = ChainRunner(
            interceptors: .init(graphQL: [Mark(name: "A")], cache: DefaultCacheInterceptor(store: CacheStore()), http: [], parser: JSONResponseParsingInterceptor()),
            transport: InMemoryGraphQLTransport.respond(status: 200, body: "not json"), overlapsNetworkFetch: true, hopObserver: recorder)
        let outcome = await run(chain.kickoff(request: request()))
        #expect(outcome.error is JSONResponseParsingError)
        #expect(recorder.calls.withLock { $0 } == [
            "attempt", "0 hands on [X-A]",
            "parse failed: the 8-byte response body is not JSON: not valid JSON at line 1, column 1: invalid literal, expected null",
            "arriving at 0", "arriving at -1",
        ])
    }

    @Test("CacheAndNetwork: the overlapping fetch's parsed result is told from its own task, once")
    func overlappingFetch() async throws {
        let recorder = Recorder(passesStraight: true)
        let store = CacheStore()
        try store.write(data: ["hero": ["id": "1", "name": "cached"]], for: heroQuery)
        let chain = ChainRunner(
            interceptors: .init(graphQL: [Mark(name: "A")], cache: DefaultCacheInterceptor(store: store), http: [], parser: JSONResponseParsingInterceptor()),
            transport: InMemoryGraphQLTransport.respond(status: 200, body: heroBody), overlapsNetworkFetch: true, hopObserver: recorder)
        let outcome = await run(chain.kickoff(request: request(fetchBehavior: .CacheAndNetwork)))
        #expect(outcome.error == nil)
        #expect(outcome.responses.map(\.source) == [.cache, .server])
        #expect(recorder.calls.withLock { $0 }.filter { $0.hasPrefix("parse") } == ["parsed server"])
        #expect(recorder.calls.withLock { $0 }.filter { $0.hasPrefix("0 reads") } == ["0 reads cache", "0 reads server"])
    }

    @Test("an attempt the observer refuses fails with its error, which no arrival sees")
    func refusedAttempt() async throws {
        let recorder = Recorder(passesStraight: true, failAttempt: true)
        let outcome = await run(Self.chain(recorder, graphQL: [Mark(name: "A")]).kickoff(request: request()))
        #expect(outcome.error is Recorder.Capped)
        #expect(recorder.calls.withLock { $0 } == ["attempt"])
    }

    @Test("without GraphQL interceptors: the attempt, and the cache and network steps' results arriving at the top")
    func noInterceptors() async throws {
        let recorder = Recorder(passesStraight: true)
        let outcome = await run(Self.chain(recorder, graphQL: []).kickoff(request: request()))
        #expect(outcome.responses.map(\.source) == [.server])
        #expect(recorder.calls.withLock { $0 } == ["attempt", "parsed server", "arriving at -1", "-1 reads server"])
    }
}
