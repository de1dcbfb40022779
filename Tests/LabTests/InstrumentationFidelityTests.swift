import ChainKit
import Foundation
import Lab
import Testing
import Timeline

/// An instrumented chain must behave exactly like the bare one: same results, same errors.
@Suite("Instrumentation changes nothing")
struct InstrumentationFidelityTests {
    static let endpoint = URL(string: "https://lab.example/graphql")!
    static let hero = ChainOperation(name: "HeroQuery", kind: .query, document: "query HeroQuery { hero { id name } }")
    static let heroBody = #"{"data":{"hero":{"id":"1","name":"R2-D2"}}}"#
    static let notFound = #"{"errors":[{"message":"PersistedQueryNotFound"}]}"#

    struct AlwaysRetry: ChainInterceptor {
        func intercept(request: ChainRequest, next: ChainNext) async throws -> ChainResultStream {
            throw ChainRunner.Retry(request: request)
        }
    }

    struct SwallowErrors: ChainInterceptor {
        func intercept(request: ChainRequest, next: ChainNext) async throws -> ChainResultStream {
            await next(request).mapErrors { _ in nil }
        }
    }

    struct Offline: Error, CustomStringConvertible {
        var description: String { "offline" }
    }

    /// A chain configuration: interceptors, a fresh transport and the request to send.
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let graphQL: @Sendable () -> [any ChainInterceptor]
        let transport: @Sendable () -> any GraphQLTransport
        let fetchBehavior: FetchBehavior
        var apq = false
        var prefill = false
        var testDescription: String { name }
    }

    static func answering(_ answers: [(Int, String)]) -> @Sendable () -> any GraphQLTransport {
        {
            let calls = Locked(0)
            return InMemoryGraphQLTransport { request in
                let call = calls.withLock { $0 += 1; return $0 }
                let (status, body) = answers[min(call, answers.count) - 1]
                return NetworkResponse(status: status, url: request.url, body: Data(body.utf8))
            }
        }
    }

    static let cases: [Case] = [
        Case(name: "success", graphQL: { [MaxRetryInterceptor()] }, transport: answering([(200, heroBody)]), fetchBehavior: .NetworkOnly),
        Case(name: "200 with no body", graphQL: { [] }, transport: answering([(200, "")]), fetchBehavior: .NetworkOnly),
        Case(name: "401 with an empty body", graphQL: { [] }, transport: answering([(401, "")]), fetchBehavior: .NetworkOnly),
        Case(name: "401 with JSON", graphQL: { [] }, transport: answering([(401, #"{"errors":[{"message":"no"}]}"#)]), fetchBehavior: .NetworkOnly),
        Case(name: "MaxRetry with an always-retrying interceptor", graphQL: { [MaxRetryInterceptor(maxRetries: 4), AlwaysRetry()] }, transport: answering([(200, heroBody)]), fetchBehavior: .NetworkOnly),
        Case(name: "mapErrors swallowing a retry", graphQL: { [SwallowErrors(), AlwaysRetry()] }, transport: answering([(200, heroBody)]), fetchBehavior: .NetworkOnly),
        Case(name: "APQ miss then retry", graphQL: { [MaxRetryInterceptor(), AutomaticPersistedQueryInterceptor()] }, transport: answering([(200, notFound), (200, heroBody)]), fetchBehavior: .NetworkOnly, apq: true),
        Case(name: "APQ miss twice", graphQL: { [MaxRetryInterceptor(), AutomaticPersistedQueryInterceptor()] }, transport: answering([(200, notFound)]), fetchBehavior: .NetworkOnly, apq: true),
        Case(name: "CacheAndNetwork", graphQL: { [] }, transport: answering([(200, heroBody)]), fetchBehavior: .CacheAndNetwork, prefill: true),
        Case(name: "CacheFirst hit", graphQL: { [] }, transport: answering([(200, heroBody)]), fetchBehavior: .CacheFirst, prefill: true),
        Case(name: "NetworkFirst failing with an empty cache", graphQL: { [] }, transport: { InMemoryGraphQLTransport.failing(Offline()) }, fetchBehavior: .NetworkFirst),
        Case(name: "NetworkFirst failing with a cached result", graphQL: { [] }, transport: { InMemoryGraphQLTransport.failing(Offline()) }, fetchBehavior: .NetworkFirst, prefill: true),
        Case(name: "NetworkOnly failing", graphQL: { [MaxRetryInterceptor()] }, transport: { InMemoryGraphQLTransport.failing(Offline()) }, fetchBehavior: .NetworkOnly),
        Case(name: "CacheOnly miss", graphQL: { [] }, transport: answering([(200, heroBody)]), fetchBehavior: .CacheOnly),
    ]

    /// Results and the error, in a form that compares across runs.
    static func outcome(_ stream: ChainResultStream) async -> [String] {
        var lines: [String] = []
        do {
            for try await response in stream { lines.append("\(response.source.rawValue) \(response.json.jsonString)") }
        } catch {
            lines.append("error \(type(of: error)): \(error)")
        }
        return lines
    }

    func interceptors(_ testCase: Case) -> (ChainRunner.Interceptors, ChainRequest) {
        let store = CacheStore()
        if testCase.prefill { _ = try? store.write(data: ["hero": "cached"], for: Self.hero) }
        let request = ChainRequest(
            operation: Self.hero, graphQLEndpoint: Self.endpoint, fetchBehavior: testCase.fetchBehavior,
            apqConfig: AutoPersistedQueryConfiguration(autoPersistQueries: testCase.apq))
        return (ChainRunner.Interceptors(graphQL: testCase.graphQL(), cache: DefaultCacheInterceptor(store: store), http: [ResponseCodeInterceptor()], parser: JSONResponseParsingInterceptor()), request)
    }

    /// A store, and the context of an operation that records into it on a scheduler of its
    /// own (no breakpoints, no command log).
    static func recording() -> (store: TimelineStore, context: OperationContext) {
        let store = TimelineStore()
        let scheduler = Scheduler(environment: Scheduler.Environment(record: { _ in }, now: { 0 }, launch: { _, _ in }, advanceClock: { _ in }, expireTokens: {}))
        return (store, OperationContext(request: 1, scheduler: scheduler, safetyCap: 10, store: store, clock: EventClock { 0 }))
    }

    @Test("same results and errors as the bare chain", arguments: cases)
    func sameOutcome(_ testCase: Case) async {
        let (bareInterceptors, request) = interceptors(testCase)
        let bare = await Self.outcome(ChainRunner(interceptors: bareInterceptors, transport: testCase.transport()).kickoff(request: request))

        let store = TimelineStore()
        let scheduler = Scheduler(environment: Scheduler.Environment(
            record: { store.append($0) }, now: { 0 }, launch: { _, _ in }, advanceClock: { _ in }, expireTokens: {}))
        let context = OperationContext(request: 1, scheduler: scheduler, safetyCap: 1000, record: { store.append($0) }, clock: EventClock { 0 })
        let (instrumentedInterceptors, _) = interceptors(testCase)
        let chain = InstrumentedGraphQLChain(interceptors: instrumentedInterceptors, transport: testCase.transport(), context: context)
        let instrumented = await Self.outcome(chain.chain.kickoff(request: request))

        #expect(instrumented == bare)
        #expect(!store.events().isEmpty)
    }

    @Test("an operation alone in a free run passes its stops without taking turns and records the same timeline", arguments: cases)
    func fastLaneRecordsTheSameTimeline(_ testCase: Case) async {
        /// Runs the case instrumented; `solo` launches it through a scheduler without a command
        /// log, so its stops pass in the fast lane, instead of letting it take turns.
        func run(solo: Bool) async -> ([String], [TimelineEvent]) {
            let store = TimelineStore()
            let scheduler = Scheduler(
                environment: Scheduler.Environment(
                    record: { store.append($0) }, now: { 0 }, launch: { _, _ in }, advanceClock: { _ in }, expireTokens: {}),
                recordsLog: !solo)
            if solo { scheduler.submit(.launch(operation: 0)) }
            #expect(scheduler.passesStraight(request: 1) == solo)
            let context = OperationContext(request: 1, scheduler: scheduler, safetyCap: 1000, store: store, clock: EventClock { 0 })
            let (interceptors, request) = interceptors(testCase)
            let chain = InstrumentedGraphQLChain(interceptors: interceptors, transport: testCase.transport(), context: context)
            let outcome = await Self.outcome(chain.chain.kickoff(request: request))
            return (outcome, store.events())
        }
        let (laneOutcome, laneEvents) = await run(solo: true)
        let (turnOutcome, turnEvents) = await run(solo: false)
        #expect(laneOutcome == turnOutcome)
        #expect(laneEvents == turnEvents)
        #expect(!laneEvents.isEmpty)
    }

    /// Notes, once `next` has returned, how many requests the transport has been sent.
    struct NotesSendsAfterNext: ChainInterceptor {
        let sent: Locked<Int>
        let seen: Locked<[Int]>

        func intercept(request: ChainRequest, next: ChainNext) async throws -> ChainResultStream {
            let results = await next(request)
            seen.withLock { $0.append(sent.value) }
            return results
        }
    }

    // Upstream's innermost `next` starts the cache and network steps at once, in a task of
    // their own (Sources/Apollo/RequestChain/RequestChain.swift, `executingInAsyncTask`);
    // the engine, bare or instrumented, runs them in the operation's task before `next` returns.
    @Test("instrumented as bare, the request is sent by the time the innermost next returns: work after next comes after the send")
    func eagerUnderInstrumentation() async throws {
        for instrumented in [false, true] {
            let sent = Locked(0), seen = Locked<[Int]>([])
            let transport = InMemoryGraphQLTransport { request in
                sent.withLock { $0 += 1 }
                return NetworkResponse(status: 200, url: request.url, body: Data(Self.heroBody.utf8))
            }
            let interceptors = ChainRunner.Interceptors(
                graphQL: [NotesSendsAfterNext(sent: sent, seen: seen)], cache: DefaultCacheInterceptor(store: CacheStore()), http: [],
                parser: JSONResponseParsingInterceptor())
            let request = ChainRequest(operation: Self.hero, graphQLEndpoint: Self.endpoint, fetchBehavior: .NetworkOnly)
            let results: [String]
            if instrumented {
                let (store, context) = Self.recording()
                let chain = InstrumentedGraphQLChain(interceptors: interceptors, transport: transport, context: context)
                results = await Self.outcome(chain.chain.kickoff(request: request))
                let phases = store.events().map { "\($0.hop) \($0.phase)" }
                // The interceptor's pre-flight, the transport, the parser; its post-flight; the
                // cache write at the top.
                #expect(phases == ["0 preflight", "2 send", "2 receive", "3 preflight", "3 postflight", "0 postflight", "1 postflight"])
            } else {
                let chain = ChainRunner(interceptors: interceptors, transport: transport)
                results = await Self.outcome(chain.kickoff(request: request))
            }
            #expect(results == [#"server {"data":{"hero":{"id":"1","name":"R2-D2"}}}"#])
            #expect(sent.value == 1)
            #expect(seen.value == [1])
        }
    }

    /// Adds `X-Stamped` to the response that comes up from below.
    struct StampsResponse: ChainHTTPInterceptor {
        func intercept(request: NetworkRequest, next: ChainHTTPNext) async throws -> NetworkResponse {
            var response = try await next(request)
            try response.headerFields.set("X-Stamped", "1")
            return response
        }
    }

    struct PassesHTTP: ChainHTTPInterceptor {
        func intercept(request: NetworkRequest, next: ChainHTTPNext) async throws -> NetworkResponse { try await next(request) }
    }

    /// Answers without calling `next`: nothing comes up from below.
    struct AnswersItself: ChainHTTPInterceptor {
        func intercept(request: NetworkRequest, next: ChainHTTPNext) async throws -> NetworkResponse {
            NetworkResponse(status: 200, headerFields: try HTTPFields(["Content-Type": "application/json", "X-Own": "1"]), url: request.url, body: Data(heroBody.utf8))
        }
    }

    @Test("an HTTP interceptor's post-flight diff is what it changed in the response from below, and nothing when it answered itself")
    func httpPostflightDiffs() async throws {
        let headers = try HTTPFields(["Content-Type": "application/json"])
        let sent = Locked(0)
        let transport = InMemoryGraphQLTransport { request in
            sent.withLock { $0 += 1 }
            return NetworkResponse(status: 200, headerFields: headers, url: request.url, body: Data(Self.heroBody.utf8))
        }
        func httpPostflights(_ http: [any ChainHTTPInterceptor]) async -> (results: [String], diffs: [Int: HeaderDiff]) {
            let (store, context) = Self.recording()
            let interceptors = ChainRunner.Interceptors(
                graphQL: [PassThrough()], cache: DefaultCacheInterceptor(store: CacheStore()), http: http, parser: JSONResponseParsingInterceptor())
            let chain = InstrumentedGraphQLChain(interceptors: interceptors, transport: transport, context: context)
            let results = await Self.outcome(chain.chain.kickoff(request: ChainRequest(operation: Self.hero, graphQLEndpoint: Self.endpoint, fetchBehavior: .NetworkOnly)))
            let postflights = store.events().filter { $0.kind == .http && $0.phase == .postflight }
            return (results, Dictionary(uniqueKeysWithValues: postflights.map { ($0.hop, $0.diff) }))
        }
        // Hops 0 (GraphQL), 1 (cache), then the HTTP interceptors from 2.
        let stamped = await httpPostflights([StampsResponse(), PassesHTTP()])
        #expect(stamped.results == [#"server {"data":{"hero":{"id":"1","name":"R2-D2"}}}"#])
        #expect(stamped.diffs == [2: HeaderDiff(added: ["X-Stamped"]), 3: .none])
        #expect(sent.value == 1)
        let answered = await httpPostflights([AnswersItself()])
        #expect(answered.results == [#"server {"data":{"hero":{"id":"1","name":"R2-D2"}}}"#])
        #expect(answered.diffs == [2: .none])
        #expect(sent.value == 1)
    }

    /// Runs `request` through `chain` (request 1 of `scheduler`), resuming it at each stop held
    /// until `count` were held; returns what it gave and the places held, in order.
    static func stepping(_ chain: InstrumentedGraphQLChain, _ request: ChainRequest, on scheduler: Scheduler, holding count: Int) async -> (outcome: [String], held: [StopPlace]) {
        let run = Task { await outcome(chain.chain.kickoff(request: request)) }
        var held: [StopPlace] = []
        for _ in 0..<10_000 where held.count < count {
            await scheduler.waitUntilSettled()
            if let stop = scheduler.snapshot.parked.first(where: \.held) {
                held.append(stop.place)
                scheduler.submit(.resume(request: 1))
            } else {
                await Task.yield()
            }
        }
        return (await run.value, held)
    }

    /// Calls `next` twice, the second time with `X-Again` added, and returns what the second
    /// call brought up.
    struct CallsNextTwice: ChainHTTPInterceptor {
        func intercept(request: NetworkRequest, next: ChainHTTPNext) async throws -> NetworkResponse {
            _ = try await next(request)
            var again = request
            try again.headerFields.set("X-Again", "1")
            return try await next(again)
        }
    }

    @Test("two HTTP interceptors stepped through stops on both sides of each: stops and events in the order they run, a second call of next recorded as the first")
    func httpStopsInOrder() async throws {
        let store = TimelineStore()
        let scheduler = Scheduler(environment: Scheduler.Environment(
            record: { store.append($0) }, now: { 0 }, launch: { _, _ in }, advanceClock: { _ in }, expireTokens: {}))
        // Hops 0 (GraphQL), 1 (cache), 2 and 3 (HTTP), 4 (transport), 5 (parser).
        for hop in [2, 3] {
            for position in [StopPosition.pre, .post] { scheduler.setBreakpoint(Scheduler.Breakpoint(hop: hop, position: position), enabled: true) }
        }
        let context = OperationContext(request: 1, scheduler: scheduler, safetyCap: 10, store: store, clock: EventClock { 0 })
        let headers = try HTTPFields(["Content-Type": "application/json"])
        let transport = InMemoryGraphQLTransport { request in
            NetworkResponse(status: 200, headerFields: headers, url: request.url, body: Data(Self.heroBody.utf8))
        }
        let interceptors = ChainRunner.Interceptors(
            graphQL: [PassThrough()], cache: DefaultCacheInterceptor(store: CacheStore()), http: [CallsNextTwice(), StampsResponse()],
            parser: JSONResponseParsingInterceptor())
        let chain = InstrumentedGraphQLChain(interceptors: interceptors, transport: transport, context: context)
        let request = ChainRequest(operation: Self.hero, graphQLEndpoint: Self.endpoint, fetchBehavior: .NetworkOnly)
        let (outcome, held) = await Self.stepping(chain, request, on: scheduler, holding: 7)
        #expect(outcome == [#"server {"data":{"hero":{"id":"1","name":"R2-D2"}}}"#])
        #expect(held == [.hop(2, .pre), .hop(3, .pre), .hop(3, .post), .hop(2, .post), .hop(3, .pre), .hop(3, .post), .hop(2, .post)])
        let network = store.events().filter { [.http, .transport].contains($0.kind) }
        #expect(network.map { "\($0.hop) \($0.phase)" } == [
            "2 paused", "2 resumed", "2 preflight", "3 paused", "3 resumed", "3 preflight", "4 send", "4 receive",
            "3 paused", "3 resumed", "3 postflight", "2 paused", "2 resumed",
            "2 preflight", "3 paused", "3 resumed", "3 preflight", "4 send", "4 receive",
            "3 paused", "3 resumed", "3 postflight", "2 paused", "2 resumed", "2 postflight",
        ])
        // Each call's pre-flight shows what the interceptor changed of what it received; the
        // post-flight what each changed of what came up to it last.
        #expect(network.filter { $0.hop == 2 && $0.phase == .preflight }.map(\.diff) == [.none, HeaderDiff(added: ["X-Again"])])
        #expect(network.filter { $0.phase == .postflight }.map { "\($0.hop) \($0.diff)" } == [
            "3 \(HeaderDiff(added: ["X-Stamped"]))", "3 \(HeaderDiff(added: ["X-Stamped"]))", "2 \(HeaderDiff.none)",
        ])
    }

    @Test("an HTTP interceptor's failure is recorded at it and at each HTTP hop above it that it passes through, as the bare chain fails")
    func httpFailureClimbs() async throws {
        let (store, context) = Self.recording()
        let headers = try HTTPFields(["Content-Type": "application/json"])
        let transport = InMemoryGraphQLTransport { request in
            NetworkResponse(status: 200, headerFields: headers, url: request.url, body: Data(Self.heroBody.utf8))
        }
        /// Throws once what it sent came back.
        struct FailsOnTheWayUp: ChainHTTPInterceptor {
            func intercept(request: NetworkRequest, next: ChainHTTPNext) async throws -> NetworkResponse {
                _ = try await next(request)
                throw Offline()
            }
        }
        func interceptors() -> ChainRunner.Interceptors {
            ChainRunner.Interceptors(
                graphQL: [PassThrough()], cache: DefaultCacheInterceptor(store: CacheStore()),
                http: [PassesHTTP(), FailsOnTheWayUp(), StampsResponse()], parser: JSONResponseParsingInterceptor())
        }
        let request = ChainRequest(operation: Self.hero, graphQLEndpoint: Self.endpoint, fetchBehavior: .NetworkOnly)
        let bare = await Self.outcome(ChainRunner(interceptors: interceptors(), transport: transport).kickoff(request: request))
        let chain = InstrumentedGraphQLChain(interceptors: interceptors(), transport: transport, context: context)
        #expect(await Self.outcome(chain.chain.kickoff(request: request)) == bare)
        // Hops 2, 3 and 4 are the HTTP interceptors, 5 the transport.
        let network = store.events().filter { [.http, .transport].contains($0.kind) }
        #expect(network.map { "\($0.hop) \($0.phase)" } == [
            "2 preflight", "3 preflight", "4 preflight", "5 send", "5 receive", "4 postflight", "3 error", "2 error",
        ])
    }

    struct PassThrough: ChainInterceptor {
        func intercept(request: ChainRequest, next: ChainNext) async throws -> ChainResultStream {
            await next(request)
        }
    }

    struct MapResults: ChainInterceptor {
        func intercept(request: ChainRequest, next: ChainNext) async throws -> ChainResultStream {
            await next(request).map { $0 }
        }
    }

    /// Starts an iteration of its results, leaves it unread, and hands the results up as they
    /// came: the junction above cannot join the one below, whose list an iteration has fixed.
    struct StartReadingThenPassThrough: ChainInterceptor {
        func intercept(request: ChainRequest, next: ChainNext) async throws -> ChainResultStream {
            let results = await next(request)
            _ = results.makeAsyncIterator()
            return results
        }
    }

    @Test(
        "a result climbing hops that pass it through stops at each post-flight stop, lowest first, between the hops' post-flights",
        arguments: [
            [PassThrough(), PassThrough(), PassThrough()], [PassThrough(), MapResults(), PassThrough()],
            [PassThrough(), StartReadingThenPassThrough(), PassThrough()],
        ] as [[any ChainInterceptor]])
    func postFlightStopsInOrder(_ graphQL: [any ChainInterceptor]) async throws {
        let store = TimelineStore()
        let scheduler = Scheduler(environment: Scheduler.Environment(
            record: { store.append($0) }, now: { 0 }, launch: { _, _ in }, advanceClock: { _ in }, expireTokens: {}))
        for hop in 0..<3 { scheduler.setBreakpoint(Scheduler.Breakpoint(hop: hop, position: .post), enabled: true) }
        let context = OperationContext(request: 1, scheduler: scheduler, safetyCap: 10, store: store, clock: EventClock { 0 })
        let headers = try HTTPFields(["Content-Type": "application/json"])
        let transport = InMemoryGraphQLTransport { request in
            NetworkResponse(status: 200, headerFields: headers, url: request.url, body: Data(Self.heroBody.utf8))
        }
        let interceptors = ChainRunner.Interceptors(
            graphQL: graphQL, cache: DefaultCacheInterceptor(store: CacheStore()), http: [], parser: JSONResponseParsingInterceptor())
        let chain = InstrumentedGraphQLChain(interceptors: interceptors, transport: transport, context: context)
        let request = ChainRequest(operation: Self.hero, graphQLEndpoint: Self.endpoint, fetchBehavior: .NetworkOnly)
        let (outcome, held) = await Self.stepping(chain, request, on: scheduler, holding: 3)
        #expect(outcome == [#"server {"data":{"hero":{"id":"1","name":"R2-D2"}}}"#])
        #expect(held == [.hop(2, .post), .hop(1, .post), .hop(0, .post)])
        let climb = store.events().filter { $0.kind == .graphql && ($0.phase == .postflight || $0.phase == .paused) }
        #expect(climb.map { "\($0.hop) \($0.phase)" } == [
            "2 paused", "2 postflight", "1 paused", "1 postflight", "0 paused", "0 postflight",
        ])
    }

    @Test(
        "a chain of 20,000 GraphQL hops is built, run and torn down without recursion per hop: every hop reports the result once",
        arguments: [true, false])
    func longChain(solo: Bool) async throws {
        let hops = 20_000
        let store = TimelineStore()
        let scheduler = Scheduler(
            environment: Scheduler.Environment(
                record: { store.append($0) }, now: { 0 }, launch: { _, _ in }, advanceClock: { _ in }, expireTokens: {}),
            recordsLog: !solo)
        if solo { scheduler.submit(.launch(operation: 0)) }
        let headers = try HTTPFields(["Content-Type": "application/json"])
        let transport = InMemoryGraphQLTransport { request in
            NetworkResponse(status: 200, headerFields: headers, url: request.url, body: Data(Self.heroBody.utf8))
        }
        var outcome: [String] = []
        do {
            let context = OperationContext(request: 1, scheduler: scheduler, safetyCap: 10, store: store, clock: EventClock { 0 })
            let interceptors = ChainRunner.Interceptors(
                graphQL: Array(repeating: PassThrough(), count: hops), cache: DefaultCacheInterceptor(store: CacheStore()), http: [],
                parser: JSONResponseParsingInterceptor())
            let chain = InstrumentedGraphQLChain(interceptors: interceptors, transport: transport, context: context)
            let request = ChainRequest(operation: Self.hero, graphQLEndpoint: Self.endpoint, fetchBehavior: .NetworkOnly)
            outcome = await Self.outcome(chain.chain.kickoff(request: request))
        }
        #expect(outcome == [#"server {"data":{"hero":{"id":"1","name":"R2-D2"}}}"#])
        let postflights = store.events().filter { $0.kind == .graphql && $0.phase == .postflight }
        #expect(postflights.count == hops)
        #expect(postflights.first?.hop == hops - 1 && postflights.last?.hop == 0)
    }

    @Test("the middleware stack gives the same response and the same ClientError when instrumented")
    func middlewareSameOutcome() async throws {
        struct Failing: ClientMiddleware {
            func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String, next: MiddlewareNext) async throws -> (HTTPResponse, HTTPBody?) {
                throw Offline()
            }
        }
        let scheduler = Scheduler(environment: Scheduler.Environment(record: { _ in }, now: { 0 }, launch: { _, _ in }, advanceClock: { _ in }, expireTokens: {}))
        let context = OperationContext(request: 1, scheduler: scheduler, safetyCap: 10, record: { _ in }, clock: EventClock { 0 })
        let request = HTTPRequest(method: .get, path: "/heroes/1")
        let base = URL(string: "https://lab.example")!
        struct Pass: ClientMiddleware {
            func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String, next: MiddlewareNext) async throws -> (HTTPResponse, HTTPBody?) {
                try await next(request, body, baseURL)
            }
        }
        let failingTransport = ClosureTransport { _, _, _, _ in throw Offline() }
        let cases: [([any ClientMiddleware], ClosureTransport)] = [
            ([], ClosureTransport.status(200, body: "ok")), ([Failing()], ClosureTransport.status(200, body: "ok")),
            ([Pass(), Pass()], failingTransport), ([Pass(), Failing()], ClosureTransport.status(200, body: "ok")),
        ]
        for (middlewares, transport) in cases {
            let bare = MiddlewareStack(middlewares: middlewares, transport: transport)
            let instrumented = InstrumentedMiddlewareStack(middlewares: middlewares, transport: transport, context: context)
            var outcomes: [String] = []
            for send in [bare.send, instrumented.send] {
                do {
                    let (response, body) = try await send(request, nil, base, "getHero")
                    outcomes.append("\(response.status.code) \(String(decoding: try await body?.collect(upTo: 100) ?? Data(), as: UTF8.self))")
                } catch let error as ClientError {
                    // The whole error: cause, underlying error, operation, input, request and base URL.
                    outcomes.append(error.description)
                }
            }
            #expect(outcomes[0] == outcomes[1])
        }
        #expect(try await {
            do { _ = try await InstrumentedMiddlewareStack(middlewares: [Pass(), Failing()], transport: failingTransport, context: context).send(request, body: nil, baseURL: base, operationID: "getHero") } catch let error as ClientError { return error.causeDescription }
            return "no error"
        }() == "Middleware of type 'Failing' threw an error.")
    }

    @Test("chains built one after another are named by their own interceptors, in order")
    func hopNamesFollowEachChainsInterceptors() {
        let scheduler = Scheduler(environment: Scheduler.Environment(record: { _ in }, now: { 0 }, launch: { _, _ in }, advanceClock: { _ in }, expireTokens: {}))
        let context = OperationContext(request: 1, scheduler: scheduler, safetyCap: 10, record: { _ in }, clock: EventClock { 0 })
        func names(_ graphQL: [any ChainInterceptor], http: [any ChainHTTPInterceptor] = []) -> [String] {
            let interceptors = ChainRunner.Interceptors(
                graphQL: graphQL, cache: DefaultCacheInterceptor(store: CacheStore()), http: http, parser: JSONResponseParsingInterceptor())
            let chain = InstrumentedGraphQLChain(interceptors: interceptors, transport: InMemoryGraphQLTransport.respond(status: 200, body: "{}"), context: context)
            #expect(chain.hops.map(\.index) == Array(0..<chain.hops.count))
            return chain.hops.map(\.name)
        }
        let parser = "JSONResponseParsingInterceptor"
        #expect(names([PassThrough(), MapResults()]) == ["PassThrough", "MapResults", "cache", "transport", parser])
        #expect(names([PassThrough(), MapResults()]) == ["PassThrough", "MapResults", "cache", "transport", parser])
        #expect(names([MapResults(), PassThrough()]) == ["MapResults", "PassThrough", "cache", "transport", parser])
        #expect(names([MapResults()], http: [ResponseCodeInterceptor()]) == ["MapResults", "cache", "ResponseCodeInterceptor", "transport", parser])
        #expect(names([]) == ["cache", "transport", parser])
    }

    /// Sets `X-Trace` on the request it hands down.
    struct SetTrace: ChainInterceptor {
        let value: String
        func intercept(request: ChainRequest, next: ChainNext) async throws -> ChainResultStream {
            var changed = request
            try changed.additionalHeaders.set("X-Trace", value)
            return await next(changed)
        }
    }

    @Test("each hop's events carry its own place and name, and what it handed down as it was then, whatever the hops below change")
    func eventsOfEveryHop() async throws {
        let (store, context) = Self.recording()
        let interceptors = ChainRunner.Interceptors(
            graphQL: [SetTrace(value: "1"), SetTrace(value: "2"), PassThrough()], cache: DefaultCacheInterceptor(store: CacheStore()),
            http: [ResponseCodeInterceptor()], parser: JSONResponseParsingInterceptor())
        let chain = InstrumentedGraphQLChain(
            interceptors: interceptors, transport: InMemoryGraphQLTransport.respond(status: 200, body: Self.heroBody), context: context)
        let request = ChainRequest(operation: Self.hero, graphQLEndpoint: Self.endpoint, fetchBehavior: .NetworkOnly)
        _ = try await chain.chain.kickoff(request: request).collect()
        let events = store.events().map { event in
            let trace = event.snapshot.headers?["X-Trace"].map { " X-Trace=\($0)" } ?? ""
            let diff = event.diff.isEmpty ? "" : " +\(event.diff.added) ~\(event.diff.changed)"
            return "\(event.hop) \(event.name) \(event.phase)\(trace)\(diff)"
        }
        #expect(events == [
            #"0 SetTrace preflight X-Trace=1 +["X-Trace"] ~[]"#,
            #"1 SetTrace preflight X-Trace=2 +[] ~["X-Trace"]"#,
            "2 PassThrough preflight X-Trace=2",
            "4 ResponseCodeInterceptor preflight X-Trace=2",
            "5 transport send X-Trace=2",
            "5 transport receive",
            "4 ResponseCodeInterceptor postflight",
            "6 JSONResponseParsingInterceptor preflight",
            "6 JSONResponseParsingInterceptor postflight",
            "2 PassThrough postflight",
            "1 SetTrace postflight",
            "0 SetTrace postflight",
            // The result written to the cache at the top of the chain.
            "3 cache postflight",
        ])
    }


    @Test("a chain without GraphQL interceptors still counts its attempt and records every other hop")
    func eventsWithoutGraphQLInterceptors() async throws {
        let (store, context) = Self.recording()
        let interceptors = ChainRunner.Interceptors(
            graphQL: [], cache: DefaultCacheInterceptor(store: CacheStore()), http: [ResponseCodeInterceptor()], parser: JSONResponseParsingInterceptor())
        let chain = InstrumentedGraphQLChain(
            interceptors: interceptors, transport: InMemoryGraphQLTransport.respond(status: 200, body: Self.heroBody), context: context)
        let request = ChainRequest(operation: Self.hero, graphQLEndpoint: Self.endpoint, fetchBehavior: .NetworkOnly)
        let results = try await chain.chain.kickoff(request: request).collect()
        #expect(results.map(\.json.jsonString) == [Self.heroBody])
        #expect(context.attempt == 1)
        #expect(store.events().map { "\($0.attempt) \($0.hop) \($0.name) \($0.phase)" } == [
            "1 1 ResponseCodeInterceptor preflight",
            "1 2 transport send",
            "1 2 transport receive",
            "1 1 ResponseCodeInterceptor postflight",
            "1 3 JSONResponseParsingInterceptor preflight",
            "1 3 JSONResponseParsingInterceptor postflight",
            "1 0 cache postflight",
        ])
    }

    @Test("a body held in memory and the same body streamed are recorded alike at the transport, and reach the parser in the chunks they came in")
    func transportBodyInMemoryAndStreamedAlike() async throws {
        let whole = [Data(Self.heroBody.utf8)]
        let pieces = [Data(Self.heroBody.prefix(10).utf8), Data(Self.heroBody.dropFirst(10).utf8)]
        /// The outcome and the transport's events, instrumented, and the bare chain's outcome.
        func run(_ chunks: @escaping @Sendable () -> ChunkStream) async -> (outcome: [String], bare: [String], received: [String]) {
            let transport = InMemoryGraphQLTransport { request in NetworkResponse(status: 200, url: request.url, chunks: chunks()) }
            func interceptors() -> ChainRunner.Interceptors {
                ChainRunner.Interceptors(graphQL: [PassThrough()], cache: DefaultCacheInterceptor(store: CacheStore()), http: [], parser: JSONResponseParsingInterceptor())
            }
            let request = ChainRequest(operation: Self.hero, graphQLEndpoint: Self.endpoint, fetchBehavior: .NetworkOnly)
            let bare = await Self.outcome(ChainRunner(interceptors: interceptors(), transport: transport).kickoff(request: request))
            let (store, context) = Self.recording()
            let chain = InstrumentedGraphQLChain(interceptors: interceptors(), transport: transport, context: context)
            let outcome = await Self.outcome(chain.chain.kickoff(request: request))
            let received = store.events().filter { $0.phase == .receive }.map { "\($0.body?.text ?? "-") \($0.body?.byteCount ?? -1)" }
            return (outcome, bare, received)
        }
        let shown = ["\(Self.heroBody) \(Self.heroBody.utf8.count)"]
        for chunks in [whole, pieces] {
            let inMemory = await run { PullStream(chunks) }
            let streamed = await run { PullStream(chunks).map { $0 } }
            #expect(inMemory.outcome == inMemory.bare)
            #expect(streamed.outcome == streamed.bare)
            #expect(inMemory.outcome == streamed.outcome)
            #expect(inMemory.received == shown)
            #expect(streamed.received == shown)
        }
        // One chunk is one result; two chunks of one document are two bodies that are not JSON.
        #expect(await run { PullStream(whole) }.outcome == ["server \(Self.heroBody)"])
        #expect(await run { PullStream(pieces) }.outcome == [
            "error JSONResponseParsingError: the 10-byte response body is not JSON: not valid JSON at line 1, column 10: unterminated string",
        ])
    }

    struct MarkSource: ChainInterceptor {
        func intercept(request: ChainRequest, next: ChainNext) async throws -> ChainResultStream {
            await next(request).map { response in
                var changed = response
                changed.source = .cache
                return changed
            }
        }
    }

    @Test("a result's post-flight preview is the body it was read from until a hop changes it, then its JSON")
    func resultPreviewsShowTheBodyAsReceived() async throws {
        let (store, context) = Self.recording()
        // Spaces and key order as a server might send them; the encoded JSON has neither.
        let body = #"{ "data": { "hero": { "name": "R2-D2", "id": "1" } } }"#
        let interceptors = ChainRunner.Interceptors(
            graphQL: [MarkSource(), PassThrough()], cache: DefaultCacheInterceptor(store: CacheStore()), http: [],
            parser: JSONResponseParsingInterceptor())
        let chain = InstrumentedGraphQLChain(
            interceptors: interceptors, transport: InMemoryGraphQLTransport.respond(status: 200, body: body), context: context)
        let request = ChainRequest(operation: Self.hero, graphQLEndpoint: Self.endpoint, fetchBehavior: .NetworkOnly)
        _ = try await chain.chain.kickoff(request: request).collect()
        let previews = store.events().filter { $0.phase == .postflight }.map { "\($0.name) \($0.body?.text ?? "-")" }
        #expect(previews == [
            "JSONResponseParsingInterceptor \(body)",
            "PassThrough \(body)",
            #"MarkSource {"data":{"hero":{"id":"1","name":"R2-D2"}}}"#,
        ])
    }


    @Test("operations sharing a snapshot cache keep one snapshot of what they saw alike")
    func operationsShareSnapshots() async throws {
        let scheduler = Scheduler(environment: Scheduler.Environment(record: { _ in }, now: { 0 }, launch: { _, _ in }, advanceClock: { _ in }, expireTokens: {}))
        let request = ChainRequest(operation: Self.hero, graphQLEndpoint: Self.endpoint, fetchBehavior: .NetworkOnly)
        func run(_ id: Int, _ snapshots: SnapshotCache, into store: TimelineStore) async throws {
            let context = OperationContext(request: id, scheduler: scheduler, safetyCap: 10, store: store, snapshots: snapshots, clock: EventClock { 0 })
            let interceptors = ChainRunner.Interceptors(
                graphQL: [PassThrough()], cache: DefaultCacheInterceptor(store: CacheStore()), http: [],
                parser: JSONResponseParsingInterceptor())
            let chain = InstrumentedGraphQLChain(
                interceptors: interceptors, transport: InMemoryGraphQLTransport.respond(status: 200, body: Self.heroBody), context: context)
            _ = try await chain.chain.kickoff(request: request).collect()
            // Done: the next operation gets its turns.
            scheduler.finish(request: id)
        }
        let shared = SnapshotCache(), sharedStore = TimelineStore()
        try await run(1, shared, into: sharedStore)
        try await run(2, shared, into: sharedStore)
        let separateStore = TimelineStore()
        try await run(1, SnapshotCache(), into: separateStore)
        try await run(2, SnapshotCache(), into: separateStore)

        for store in [sharedStore, separateStore] {
            // The last post-flight is the cache write at the top.
            #expect(store.events(request: 1).map(\.phase) == [.preflight, .send, .receive, .preflight, .postflight, .postflight, .postflight])
            #expect(store.events(request: 1).map(\.snapshot) == store.events(request: 2).map(\.snapshot))
        }
        let identical = zip(sharedStore.events(request: 1), sharedStore.events(request: 2)).map { $0.snapshot === $1.snapshot }
        #expect(identical == Array(repeating: true, count: 7))
        let separate = zip(separateStore.events(request: 1), separateStore.events(request: 2)).map { $0.snapshot === $1.snapshot }
        #expect(separate == Array(repeating: false, count: 7))
    }

}
