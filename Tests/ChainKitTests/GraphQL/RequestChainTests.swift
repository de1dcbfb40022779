import ChainKit
import Foundation
import Testing

@Suite("RequestChain")
struct RequestChainTests {
    @Test("interceptors are entered 0,1,2 and left 2,1,0; pre-flights run before the cache read")
    func onionOrder() async throws {
        let log = EventLog()
        let store = CacheStore()
        let chain = makeChain(
            graphQL: (0..<3).map { RecordingInterceptor(name: "\($0)", log: log) },
            cache: LoggingCache(store: store, log: log),
            transport: loggingTransport(log) { _, _ in (200, heroBody) })
        let outcome = await run(chain.kickoff(request: request(fetchBehavior: .CacheFirst)))
        #expect(outcome.error == nil)
        #expect(outcome.responses.map(\.source) == [.server])
        #expect(log.all == [
            "enter 0", "enter 1", "enter 2", "cache miss", "transport POST 1",
            "leave 2", "leave 1", "leave 0", "cache write",
        ])
    }

    @Test("200 with no body ends in noResults")
    func emptyBody200() async {
        let chain = makeChain(transport: .respond(status: 200, body: ""))
        let outcome = await run(chain.kickoff(request: request()))
        #expect(outcome.responses.isEmpty)
        #expect(outcome.error as? RequestChainError == .noResults)
    }

    @Test("401 with an empty body ends in noResults, not ResponseCodeError")
    func emptyBody401() async {
        let chain = makeChain(transport: .respond(status: 401, body: ""))
        let outcome = await run(chain.kickoff(request: request()))
        #expect(outcome.error as? RequestChainError == .noResults)
    }

    @Test("a retry carrying a new header reaches the server on the second pass")
    func retryWithHeader() async throws {
        struct AddHeaderAndRetryOnce: ChainInterceptor {
            func intercept(request: ChainRequest, next: ChainNext) async throws -> ChainResultStream {
                await next(request).map { response in
                    guard !request.additionalHeaders.contains("X-Retry-Token") else { return response }
                    var retry = request
                    try retry.additionalHeaders.set("X-Retry-Token", "second")
                    throw ChainRunner.Retry(request: retry)
                }
            }
        }
        let seen = Locked<[String?]>([])
        let chain = makeChain(
            graphQL: [AddHeaderAndRetryOnce()],
            transport: InMemoryGraphQLTransport { request in
                seen.withLock { $0.append(request.headerFields["X-Retry-Token"]) }
                return NetworkResponse(status: 200, url: request.url, body: Data(heroBody.utf8))
            })
        let outcome = await run(chain.kickoff(request: request()))
        #expect(outcome.error == nil)
        #expect(outcome.responses.count == 1)
        #expect(seen.value == [nil, "second"])
    }

    @Test("an HTTP interceptor throwing before next reaches the outer mapErrors and the caller")
    func httpInterceptorThrows() async {
        struct Boom: Error, Equatable {}
        struct ThrowingHTTP: ChainHTTPInterceptor {
            func intercept(request: NetworkRequest, next: ChainHTTPNext) async throws -> NetworkResponse { throw Boom() }
        }
        struct ErrorSpy: ChainInterceptor {
            let log: EventLog
            func intercept(request: ChainRequest, next: ChainNext) async throws -> ChainResultStream {
                let log = self.log
                return await next(request).mapErrors { error in
                    log.add("mapErrors saw \(type(of: error))")
                    throw error
                }
            }
        }
        let log = EventLog()
        let chain = makeChain(graphQL: [ErrorSpy(log: log)], http: [ThrowingHTTP()], transport: .respond(status: 200, body: heroBody))
        let outcome = await run(chain.kickoff(request: request()))
        #expect(log.all == ["mapErrors saw Boom"])
        #expect(outcome.error as? Boom == Boom())
    }

    @Test("a GraphQL interceptor throwing before next becomes a failing stream the outer mapErrors sees")
    func graphQLInterceptorThrows() async {
        struct Refused: Error, Equatable {}
        struct Thrower: ChainInterceptor {
            func intercept(request: ChainRequest, next: ChainNext) async throws -> ChainResultStream { throw Refused() }
        }
        let log = EventLog()
        struct Recover: ChainInterceptor {
            let log: EventLog
            func intercept(request: ChainRequest, next: ChainNext) async throws -> ChainResultStream {
                let log = self.log
                return await next(request).mapErrors { error in
                    log.add("recovered \(error is Refused)")
                    return ChainResponse(source: .server, data: ["recovered": true])
                }
            }
        }
        let chain = makeChain(graphQL: [Recover(log: log), Thrower()], transport: .respond(status: 200, body: heroBody))
        let outcome = await run(chain.kickoff(request: request()))
        #expect(log.all == ["recovered true"])
        #expect(outcome.responses.map(\.data) == [["recovered": true]])
        #expect(outcome.error == nil)
    }

    @Test("a 401 handled in mapErrors by switching to CacheOnly and retrying gives exactly one cache result")
    func unauthorizedFallsBackToCache() async throws {
        struct CacheOn401: ChainInterceptor {
            func intercept(request: ChainRequest, next: ChainNext) async throws -> ChainResultStream {
                await next(request).mapErrors { error in
                    guard let rejected = error as? ResponseCodeError, rejected.status == 401 else { throw error }
                    var retry = request
                    retry.fetchBehavior = .CacheOnly
                    throw ChainRunner.Retry(request: retry)
                }
            }
        }
        let store = CacheStore()
        try store.write(data: heroData, for: heroQuery)
        let chain = makeChain(
            graphQL: [CacheOn401()], store: store,
            transport: .respond(status: 401, body: #"{"errors":[{"message":"no"}]}"#))
        let outcome = await run(chain.kickoff(request: request()))
        #expect(outcome.error == nil)
        #expect(outcome.responses == [ChainResponse(source: .cache, data: heroData)])
    }

    @Test("a mapper that swallows errors swallows the retry too")
    func swallowingMapperSwallowsRetry() async {
        struct Swallow: ChainInterceptor {
            func intercept(request: ChainRequest, next: ChainNext) async throws -> ChainResultStream {
                await next(request).mapErrors { _ in nil }
            }
        }
        struct AlwaysRetry: ChainInterceptor {
            func intercept(request: ChainRequest, next: ChainNext) async throws -> ChainResultStream {
                throw ChainRunner.Retry(request: request)
            }
        }
        let log = EventLog()
        let chain = makeChain(graphQL: [Swallow(), AlwaysRetry()], transport: loggingTransport(log) { _, _ in (200, heroBody) })
        let outcome = await run(chain.kickoff(request: request()))
        #expect(outcome.error as? RequestChainError == .noResults)
        #expect(log.all.isEmpty)
    }

    @Test("CacheAndNetwork yields the cache result, then the server result")
    func cacheAndNetwork() async throws {
        let store = CacheStore()
        try store.write(data: ["hero": ["id": "1", "name": "cached"]], for: heroQuery)
        let chain = makeChain(store: store, transport: .respond(status: 200, body: heroBody))
        let outcome = await run(chain.kickoff(request: request(fetchBehavior: .CacheAndNetwork)))
        #expect(outcome.error == nil)
        #expect(outcome.responses.map(\.source) == [.cache, .server])
        #expect(outcome.responses.map(\.data) == [["hero": ["id": "1", "name": "cached"]], heroData])
    }

    @Test("CacheFirst with a hit does not touch the network")
    func cacheFirstHit() async throws {
        let log = EventLog()
        let store = CacheStore()
        try store.write(data: heroData, for: heroQuery)
        let chain = makeChain(store: store, transport: loggingTransport(log) { _, _ in (200, heroBody) })
        let outcome = await run(chain.kickoff(request: request(fetchBehavior: .CacheFirst)))
        #expect(outcome.responses == [ChainResponse(source: .cache, data: heroData)])
        #expect(log.all.isEmpty)
    }

    // Upstream's `execute` is an `AsyncThrowingStream.executingInAsyncTask` (Sources/Apollo/
    // RequestChain/RequestChain.swift): its task runs the steps once, and a stream's elements
    // go to one reading only.
    @Test("an interceptor that reads next's stream twice gets the results once: the steps ran once, when next was called")
    func streamReadTwiceRunsTheStepsOnce() async throws {
        /// Reads what `next` returns twice, concatenating both readings.
        struct ReadTwice: ChainInterceptor {
            func intercept(request: ChainRequest, next: ChainNext) async throws -> ChainResultStream {
                let results = await next(request)
                let first = try await results.collect(), second = try await results.collect()
                return ChainResultStream(first + second)
            }
        }
        let log = EventLog()
        let cache = LoggingCache(store: CacheStore(), log: log)
        let transport = loggingTransport(log) { _, call in (200, #"{"data":{"hero":{"id":"1","name":"call \#(call)"}}}"#) }
        let chain = makeChain(graphQL: [ReadTwice()], cache: cache, transport: transport)
        let outcome = await run(chain.kickoff(request: request(fetchBehavior: .CacheFirst)))
        #expect(outcome.error == nil)
        #expect(outcome.responses.map(\.data) == [["hero": ["id": "1", "name": "call 1"]]])
        // One cache read (a miss), one request; the result is written at the top of the chain.
        #expect(log.all == ["cache miss", "transport POST 1", "cache write"])
    }

    @Test("NetworkFirst with a failing network and an empty cache ends in noResults")
    func networkFirstFailingEmptyCache() async {
        struct Offline: Error {}
        let chain = makeChain(transport: .failing(Offline()))
        let outcome = await run(chain.kickoff(request: request(fetchBehavior: .NetworkFirst)))
        #expect(outcome.responses.isEmpty)
        #expect(outcome.error as? RequestChainError == .noResults)
    }

    @Test("NetworkFirst with a failing network answers from the cache")
    func networkFirstFallsBack() async throws {
        struct Offline: Error {}
        let store = CacheStore()
        try store.write(data: heroData, for: heroQuery)
        let chain = makeChain(store: store, transport: .failing(Offline()))
        let outcome = await run(chain.kickoff(request: request(fetchBehavior: .NetworkFirst)))
        #expect(outcome.responses == [ChainResponse(source: .cache, data: heroData)])
        #expect(outcome.error == nil)
    }

    @Test("NetworkOnly with a failing network fails with the network's error")
    func networkOnlyFails() async {
        struct Offline: Error, Equatable {}
        let chain = makeChain(transport: .failing(Offline()))
        let outcome = await run(chain.kickoff(request: request(fetchBehavior: .NetworkOnly)))
        #expect(outcome.error as? Offline == Offline())
    }

    @Test("CacheOnly with a miss yields nothing: noResults")
    func cacheOnlyMiss() async {
        let log = EventLog()
        let chain = makeChain(transport: loggingTransport(log) { _, _ in (200, heroBody) })
        let outcome = await run(chain.kickoff(request: request(fetchBehavior: .CacheOnly)))
        #expect(outcome.error as? RequestChainError == .noResults)
        #expect(log.all.isEmpty)
    }

    @Test("writeResultsToCache false leaves the cache empty; true fills it")
    func writeResultsToCache() async {
        for write in [false, true] {
            let store = CacheStore()
            var request = request()
            request.writeResultsToCache = write
            let outcome = await run(makeChain(store: store, transport: .respond(status: 200, body: heroBody)).kickoff(request: request))
            #expect(outcome.responses.count == 1)
            #expect(store.records.sortedKeys == (write ? ["QUERY_ROOT", "QUERY_ROOT.hero"] : []))
            #expect(store.load(heroQuery)?.data == (write ? heroData : nil))
        }
    }

    // Upstream: Sources/Apollo/RequestChain/RequestChain.swift keeps the request the innermost
    // `next` received (`finalRequest`) and writes to the cache for it, not for the request
    // kicked off.
    @Test("the cache write follows the request an interceptor handed down, not the one kicked off")
    func cacheWriteFollowsTheHandedDownRequest() async {
        /// Hands the request down with `writeResultsToCache` set to `write`.
        struct SetsCacheWrite: ChainInterceptor {
            let write: Bool
            func intercept(request: ChainRequest, next: ChainNext) async throws -> ChainResultStream {
                var handed = request
                handed.writeResultsToCache = write
                return await next(handed)
            }
        }
        for kickedOff in [false, true] {
            let store = CacheStore()
            var request = request()
            request.writeResultsToCache = kickedOff
            let chain = makeChain(graphQL: [SetsCacheWrite(write: !kickedOff)], store: store, transport: .respond(status: 200, body: heroBody))
            let outcome = await run(chain.kickoff(request: request))
            #expect(outcome.responses.count == 1)
            #expect(store.records.sortedKeys == (kickedOff ? [] : ["QUERY_ROOT", "QUERY_ROOT.hero"]))
        }
    }

    // Upstream: Sources/Apollo/RequestChain/RequestChain.swift runs kickoff in
    // `AsyncThrowingStream.executingInAsyncTask`, whose onTermination cancels its task.
    @Test("cancelling the reading task cancels the chain's task: interceptors see CancellationError", .timeLimit(.minutes(1)))
    func cancellation() async {
        let (seen, signal) = AsyncStream<String>.makeStream()
        /// Like upstream's CancellationTestingInterceptor (apollo-ios-dev
        /// Tests/ApolloTests/CancellationHandlingInterceptor.swift), on the way up.
        struct ErrorSpy: ChainInterceptor {
            let signal: AsyncStream<String>.Continuation
            func intercept(request: ChainRequest, next: ChainNext) async throws -> ChainResultStream {
                let signal = self.signal
                return await next(request).mapErrors { error in
                    signal.yield("saw \(type(of: error))")
                    throw error
                }
            }
        }
        let chain = makeChain(graphQL: [ErrorSpy(signal: signal)], transport: EagerExecutionTests.HangingTransport(events: signal))
        let task = Task { await run(chain.kickoff(request: request())) }
        var iterator = seen.makeAsyncIterator()
        #expect(await iterator.next() == "sent")
        task.cancel()
        // The chain's task is cancelled with its reader: the transport and every interceptor
        // above it see CancellationError. The reader's stream just ends, as an
        // AsyncThrowingStream does when its reader is cancelled (upstream's ApolloClient.fetch
        // then throws with Task.checkCancellation()).
        #expect(await iterator.next() == "cancelled")
        #expect(await iterator.next() == "saw CancellationError")
        let outcome = await task.value
        #expect(outcome.error == nil)
        #expect(outcome.responses.isEmpty)
    }

    @Test("ChainNetworkTransport hands each operation fresh interceptors from the provider")
    func networkTransportUsesProvider() async {
        let store = CacheStore()
        let transport = ChainNetworkTransport(
            interceptorProvider: DefaultChainInterceptorProvider(store: store),
            transport: InMemoryGraphQLTransport.respond(status: 200, body: heroBody))
        let first = await run(transport.send(request(fetchBehavior: .CacheFirst)))
        let second = await run(transport.send(request(fetchBehavior: .CacheFirst)))
        #expect(first.responses.map(\.source) == [.server])
        #expect(second.responses.map(\.source) == [.cache])
    }

    /// Upstream's `InterceptorProvider` protocol extension (Sources/Apollo/RequestChain/Interceptors/InterceptorProvider.swift):
    /// a provider that overrides only its HTTP interceptors keeps the default GraphQL
    /// interceptors and parser.
    @Test("a provider overriding only what it changes gets upstream's defaults for the rest")
    func providerDefaults() async throws {
        struct HeaderProvider: ChainInterceptorProvider {
            let store: CacheStore
            func cacheInterceptor(for operation: ChainOperation) -> any ChainCacheInterceptor { DefaultCacheInterceptor(store: store) }
            func httpInterceptors(for operation: ChainOperation) -> [any ChainHTTPInterceptor] { [] }
        }
        let provider = HeaderProvider(store: CacheStore())
        let interceptors = ChainRunner.Interceptors(provider: provider, operation: heroQuery)
        #expect(interceptors.graphQL.map { "\(type(of: $0))" } == ["MaxRetryInterceptor", "AutomaticPersistedQueryInterceptor"])
        #expect(interceptors.http.isEmpty)
        #expect(interceptors.parser is JSONResponseParsingInterceptor)
        #expect(DefaultChainInterceptorProvider(store: CacheStore()).httpInterceptors(for: heroQuery).map { "\(type(of: $0))" } == ["ResponseCodeInterceptor"])
        // Without ResponseCodeInterceptor a 401's body reaches the parser as a result.
        let transport = ChainNetworkTransport(
            interceptorProvider: provider, transport: InMemoryGraphQLTransport.respond(status: 401, body: heroBody))
        let outcome = await run(transport.send(request()))
        #expect(outcome.error == nil)
        #expect(outcome.responses.map(\.data) == [heroData])
    }
}
