import ChainKit
import Foundation
import Lab
import Testing
import Timeline

/// A chain of named hops with the built-in traits of each name (or none).
func lintChain(
    _ layers: [(String, HopKind)], operations: [LintChain.Operation] = [], refresh: RefreshStrategy? = nil, rotates: Bool? = nil,
    traits: [String: LayerTraits] = [:]
) -> LintChain {
    LintChain(
        hops: layers.enumerated().map { index, layer in
            LintChain.Hop(index: index, name: layer.0, kind: layer.1, traits: traits[layer.0] ?? LayerTraits.builtIn[layer.0] ?? [])
        },
        operations: operations, refreshStrategy: refresh, rotatesRefreshTokens: rotates)
}

/// A GraphQL chain: these GraphQL interceptors, the cache, these HTTP interceptors, the transport, JSON parsing.
func graphQLChain(
    _ graphQL: [String], http: [String] = ["ResponseCodeInterceptor"], operations: [LintChain.Operation] = [],
    refresh: RefreshStrategy? = nil, rotates: Bool? = nil, traits: [String: LayerTraits] = [:]
) -> LintChain {
    lintChain(
        graphQL.map { ($0, .graphql) } + [("cache", .cache)] + http.map { ($0, .http) } + [("transport", .transport), ("JSONResponseParsingInterceptor", .parser)],
        operations: operations, refresh: refresh, rotates: rotates, traits: traits)
}

func middlewareChain(_ names: [String], traits: [String: LayerTraits] = [:]) -> LintChain {
    lintChain(names.map { ($0, .middleware) } + [("transport", .transport)], traits: traits)
}

/// `rule-id: message` for each finding.
func lines(_ findings: [LintFinding]) -> [String] {
    findings.map { "\($0.rule.id): \($0.message)" }
}

@Suite("Chain lint rules: each fires on its pattern and not on a close one")
struct ChainLintRuleTests {
    let heroQuery = LintChain.Operation(name: "HeroQuery", fetchBehavior: .CacheFirst)

    @Test func retryOutsideMaxRetry() {
        let findings = ChainLint.check(graphQLChain(["RetryOnErrorInterceptor", "MaxRetryInterceptor", "AuthInterceptor"]))
        #expect(lines(findings) == [
            "retry-outside-max-retry: RetryOnErrorInterceptor (hop 1) turns every error into a retry from above MaxRetryInterceptor (hop 2), so MaxRetriesError becomes another retry",
        ])
        #expect(findings[0].hops == [0, 1])
        #expect(findings[0].rule.severity == .error)
        #expect(findings[0].rule.scenario == "retry-order")
        // The fix: MaxRetryInterceptor first.
        #expect(ChainLint.check(graphQLChain(["MaxRetryInterceptor", "RetryOnErrorInterceptor", "AuthInterceptor"])).isEmpty)
    }

    @Test func maxRetryNotFirst() {
        #expect(lines(ChainLint.check(graphQLChain(["AuthInterceptor", "LoggingInterceptor", "MaxRetryInterceptor"]))) == [
            "max-retry-not-first: MaxRetryInterceptor (hop 3) is not first: AuthInterceptor (hop 1), LoggingInterceptor (hop 2) run outside its count",
        ])
        #expect(ChainLint.check(graphQLChain(["MaxRetryInterceptor", "AuthInterceptor", "LoggingInterceptor"])).isEmpty)
    }

    @Test func noMaxRetry() {
        #expect(lines(ChainLint.check(graphQLChain(["AuthInterceptor", "AutomaticPersistedQueryInterceptor"]))) == [
            "no-max-retry: AuthInterceptor (hop 1), AutomaticPersistedQueryInterceptor (hop 2) can retry, and no MaxRetryInterceptor limits the retries",
        ])
        // Nothing that retries: nothing to limit.
        #expect(ChainLint.check(graphQLChain(["StaticAuthInterceptor", "LoggingInterceptor"])).isEmpty)
    }

    @Test func noResponseParser() {
        let raw = lintChain(
            [("MaxRetryInterceptor", .graphql), ("cache", .cache), ("transport", .transport), ("RawDataParser", .parser)],
            traits: ["RawDataParser": []])
        #expect(lines(ChainLint.check(raw)) == [
            "no-response-parser: RawDataParser (hop 4) is the response parser but does not parse GraphQL responses, so no interceptor sees GraphQL errors",
        ])
        // A parser nothing is known about is not reported: lint does not guess.
        var unknown = raw
        unknown.hops[3].traits = nil
        #expect(ChainLint.check(unknown).isEmpty)
    }

    @Test func errorCheckBeforeParse() {
        let traits: [String: LayerTraits] = ["ErrorCheckInterceptor": [.readsGraphQLErrors]]
        #expect(lines(ChainLint.check(graphQLChain(["MaxRetryInterceptor"], http: ["ErrorCheckInterceptor"], traits: traits))) == [
            "error-check-before-parse: ErrorCheckInterceptor (hop 3) reads GraphQL errors as an HTTP interceptor, before JSONResponseParsingInterceptor (hop 5) has parsed them",
        ])
        // The same check as a GraphQL interceptor sees parsed results.
        #expect(ChainLint.check(graphQLChain(["MaxRetryInterceptor", "ErrorCheckInterceptor"], http: [], traits: traits)).isEmpty)
    }

    @Test func httpInterceptorRetry() {
        let traits: [String: LayerTraits] = ["RetryOn503": [.retries]]
        #expect(lines(ChainLint.check(graphQLChain(["MaxRetryInterceptor"], http: ["RetryOn503"], traits: traits))) == [
            "http-interceptor-retry: RetryOn503 (hop 3) is an HTTP interceptor meant to retry, and HTTP interceptors cannot throw RequestChain.Retry",
        ])
        #expect(ChainLint.check(graphQLChain(["MaxRetryInterceptor", "RetryOn503"], http: [], traits: traits)).isEmpty)
    }

    @Test func naiveRefreshRotation() {
        let chain = ["MaxRetryInterceptor", "AuthInterceptor"]
        let findings = ChainLint.check(graphQLChain(chain, refresh: .naive, rotates: true))
        #expect(lines(findings) == [
            "naive-refresh-rotation: AuthInterceptor (hop 2) refreshes on every 401 (naive) against a token endpoint that rotates refresh tokens",
        ])
        #expect(findings[0].rule.scenario == "refresh-storm")
        #expect(ChainLint.check(graphQLChain(chain, refresh: .naive, rotates: false)).isEmpty)
        #expect(ChainLint.check(graphQLChain(chain, refresh: .singleFlight, rotates: true)).isEmpty)
        // Not known whether the endpoint rotates: no finding.
        #expect(ChainLint.check(graphQLChain(chain, refresh: .naive)).isEmpty)
    }

    @Test func staleTokenRetry() {
        #expect(lines(ChainLint.check(graphQLChain(["MaxRetryInterceptor", "AuthInterceptor"], refresh: .staleToken))) == [
            "stale-token-retry: AuthInterceptor (hop 2) retries with the token captured before its refresh (staleToken)",
        ])
        // Without a layer that refreshes, the strategy is never used.
        #expect(ChainLint.check(graphQLChain(["MaxRetryInterceptor", "StaticAuthInterceptor"], refresh: .staleToken)).isEmpty)
    }

    @Test func settingNeverApplies() {
        let cacheOnly = LintChain.Operation(name: "HeroQuery", fetchBehavior: .CacheOnly, autoPersistQueries: true, useGETForQueries: true)
        let retryGET = LintChain.Operation(name: "HeroDetailsQuery", fetchBehavior: .NetworkOnly, useGETForPersistedQueryRetry: true)
        let findings = ChainLint.check(graphQLChain(["MaxRetryInterceptor"], operations: [cacheOnly, retryGET]))
        #expect(lines(findings) == [
            "setting-never-applies: HeroQuery sets autoPersistQueries, useGETForQueries with CacheOnly, which never reaches the network",
            "setting-never-applies: HeroDetailsQuery sets useGETForPersistedQueryRetry without autoPersistQueries, so there is no persisted-query retry",
        ])
        #expect(findings.map(\.hops) == [[], []])
        let fetching = LintChain.Operation(
            name: "HeroQuery", fetchBehavior: .CacheFirst, autoPersistQueries: true, useGETForQueries: true, useGETForPersistedQueryRetry: true)
        #expect(ChainLint.check(graphQLChain(["MaxRetryInterceptor"], operations: [fetching])).isEmpty)
    }

    @Test func cacheAndNetworkSingleResult() {
        let traits: [String: LayerTraits] = ["FirstResultOnly": [.assumesSingleResult]]
        let both = LintChain.Operation(name: "HeroQuery", fetchBehavior: .CacheAndNetwork)
        #expect(lines(ChainLint.check(graphQLChain(["MaxRetryInterceptor", "FirstResultOnly"], operations: [both], traits: traits))) == [
            "cache-and-network-single-result: FirstResultOnly (hop 2) handles one result, and HeroQuery uses CacheAndNetwork, which yields two (cache, then server)",
        ])
        #expect(ChainLint.check(graphQLChain(["MaxRetryInterceptor", "FirstResultOnly"], operations: [heroQuery], traits: traits)).isEmpty)
    }

    @Test func postflightChangesCachedData() {
        let traits: [String: LayerTraits] = ["Redactor": [.changesResultData]]
        #expect(lines(ChainLint.check(graphQLChain(["MaxRetryInterceptor", "Redactor"], operations: [heroQuery], traits: traits))) == [
            "postflight-changes-cached-data: Redactor (hop 2) changes result data in its post-flight, and HeroQuery later read the cache without that change",
        ])
        let networkOnly = LintChain.Operation(name: "HeroQuery", fetchBehavior: .NetworkOnly)
        #expect(ChainLint.check(graphQLChain(["MaxRetryInterceptor", "Redactor"], operations: [networkOnly], traits: traits)).isEmpty)
    }

    @Test func retryInsideAuth() {
        let findings = ChainLint.check(middlewareChain(["AuthenticationMiddleware", "RetryingMiddleware"]))
        #expect(lines(findings) == [
            "retry-inside-auth: RetryingMiddleware (hop 2) retries below AuthenticationMiddleware (hop 1): every retry re-sends the Authorization attached before the first attempt",
        ])
        #expect(findings[0].hops == [0, 1])
        #expect(ChainLint.check(middlewareChain(["RetryingMiddleware", "AuthenticationMiddleware"])).isEmpty)
    }

    @Test func retrySinglePassBody() {
        let unbuffered: [String: LayerTraits] = ["RetryingMiddleware": [.retries]]
        #expect(lines(ChainLint.check(middlewareChain(["RetryingMiddleware"], traits: unbuffered))) == [
            "retry-single-pass-body: RetryingMiddleware (hop 1) calls next again without buffering the request body, so a single-pass body fails on the second attempt",
        ])
        #expect(ChainLint.check(middlewareChain(["RetryingMiddleware"])).isEmpty)
    }

    @Test func loggingAroundRetries() {
        let outside = ChainLint.check(middlewareChain(["LoggingMiddleware", "RetryingMiddleware"]))
        #expect(lines(outside) == [
            "logging-outside-retry: LoggingMiddleware (hop 1) sits above RetryingMiddleware (hop 2): it writes one line for all attempts of a call",
        ])
        #expect(outside[0].rule.severity == .info)
        #expect(lines(ChainLint.check(middlewareChain(["RetryingMiddleware", "LoggingMiddleware"]))) == [
            "logging-inside-retry: LoggingMiddleware (hop 2) sits below RetryingMiddleware (hop 1): it writes one line per attempt",
        ])
        #expect(ChainLint.check(middlewareChain(["LoggingMiddleware", "FaultInjectionMiddleware"])).isEmpty)
    }

    @Test("every rule has an id, a why with an upstream reference, and a fix")
    func rulesAreComplete() {
        let rules = ChainLint.rules
        #expect(rules.count == 15)
        #expect(Set(rules.map(\.id)).count == rules.count)
        for rule in rules {
            #expect(rule.why.contains("(") && !rule.fix.isEmpty && !rule.title.isEmpty, "\(rule.id)")
            if let scenario = rule.scenario { #expect(Catalog.scenario(named: scenario) != nil, "\(rule.id)") }
        }
    }
}

@Suite("Chain lint of the built-in scenarios and of real chains")
struct ChainLintScenarioTests {
    static let expected: [String: [String]] = [
        "basics": [],
        "token-expiry": [],
        "refresh-storm": [
            "naive-refresh-rotation: AuthInterceptor (hop 2) refreshes on every 401 (naive) against a token endpoint that rotates refresh tokens",
        ],
        "refresh-storm-fixed": [],
        "stale-token": ["stale-token-retry: AuthInterceptor (hop 2) retries with the token captured before its refresh (staleToken)"],
        "retry-order": [
            "retry-outside-max-retry: RetryOnErrorInterceptor (hop 1) turns every error into a retry from above MaxRetryInterceptor (hop 2), so MaxRetriesError becomes another retry",
        ],
        "apq": [],
        "cache-fallback": [],
        "cache-and-network": [],
        "cache-records": [
            "postflight-changes-cached-data: RedactFieldInterceptor (hop 3) changes result data in its post-flight, and HeroQuery, HeroDetailsQuery later read the cache without that change",
        ],
        "graphql-errors-200": [],
        "empty-401": [],
        "openapi-middleware": [
            "retry-inside-auth: RetryingMiddleware (hop 3) retries below AuthenticationMiddleware (hop 1): every retry re-sends the Authorization attached before the first attempt",
            "logging-outside-retry: LoggingMiddleware (hop 2) sits above RetryingMiddleware (hop 3): it writes one line for all attempts of a call",
        ],
        "defer": [],
        "subscription": [],
        "hostile-server": [],
        "partial-data": [],
        "watcher": [],
    ]

    @Test("every built-in scenario's lint findings", arguments: Catalog.names)
    func builtIn(_ name: String) throws {
        let expected = try #require(Self.expected[name], "no expectation for \(name)")
        #expect(lines(ChainLint.check(scenario: Catalog.scenario(named: name)!)) == expected)
    }

    @Test("a scenario whose RetryingMiddleware does not buffer bodies")
    func unbufferedScenario() throws {
        var scenario = try #require(Catalog.scenario(named: "openapi-middleware"))
        scenario.chain = .middleware([Scenario.Layer("RetryingMiddleware", ["bufferBodies": false]), Scenario.Layer("AuthenticationMiddleware")])
        #expect(lines(ChainLint.check(scenario: scenario)) == [
            "retry-single-pass-body: RetryingMiddleware (hop 1) calls next again without buffering the request body, so a single-pass body fails on the second attempt",
        ])
        scenario.chain = .middleware([Scenario.Layer("RetryingMiddleware", ["bufferBodies": false, "maxAttempts": 1])])
        #expect(ChainLint.check(scenario: scenario).isEmpty)
    }

    struct RawDataParser: ChainResponseParser, LintDescribed {
        var lintTraits: LayerTraits { [] }
        func parse(response: NetworkResponse, for request: ChainRequest) async throws -> ChainResultStream { PullStream([]) }
    }

    struct RetryOn503: ChainHTTPInterceptor, LintDescribed {
        var lintTraits: LayerTraits { [.retries] }
        func intercept(request: NetworkRequest, next: ChainHTTPNext) async throws -> NetworkResponse { try await next(request) }
    }

    /// An app's interceptor that says nothing about itself.
    struct Mystery: ChainInterceptor {
        func intercept(request: ChainRequest, next: ChainNext) async throws -> ChainResultStream { await next(request) }
    }

    struct Provider: ChainInterceptorProvider {
        var graphQL: @Sendable () -> [any ChainInterceptor]
        var parser: any ChainResponseParser = JSONResponseParsingInterceptor()
        var http: [any ChainHTTPInterceptor] = [ResponseCodeInterceptor()]
        func graphQLInterceptors(for operation: ChainOperation) -> [any ChainInterceptor] { graphQL() }
        func cacheInterceptor(for operation: ChainOperation) -> any ChainCacheInterceptor { DefaultCacheInterceptor(store: CacheStore()) }
        func httpInterceptors(for operation: ChainOperation) -> [any ChainHTTPInterceptor] { http }
        func responseParser(for operation: ChainOperation) -> any ChainResponseParser { parser }
    }

    let request = ChainRequest(
        operation: ChainOperation(name: "HeroQuery", kind: .query, document: "query HeroQuery { hero { name } }"),
        graphQLEndpoint: URL(string: "https://example.com/graphql")!, fetchBehavior: .CacheOnly, useGETForQueries: true)

    @Test("ChainLint.check(provider:) reads the provider's instances and what they say of themselves")
    func provider() {
        let provider = Provider(
            graphQL: { [Mystery(), MaxRetryInterceptor(), AuthInterceptor(manager: TokenManager(tokens: TokenPair(accessToken: "a", refreshToken: "r"), strategy: .naive) { _ in TokenPair(accessToken: "b", refreshToken: "s") })] },
            parser: RawDataParser(), http: [RetryOn503()])
        let chain = LintChain(provider: provider, requests: [request], refreshStrategy: .naive, rotatesRefreshTokens: true)
        #expect(chain.hops.map(\.name) == ["Mystery", "MaxRetryInterceptor", "AuthInterceptor", "cache", "RetryOn503", "transport", "RawDataParser"])
        #expect(chain.hops[0].traits == nil)
        #expect(lines(ChainLint.check(chain)).map { String($0.prefix(while: { $0 != ":" })) } == [
            "max-retry-not-first", "no-response-parser", "http-interceptor-retry", "naive-refresh-rotation", "setting-never-applies",
        ])
        // Apollo's default provider with a fetching request: nothing to report.
        var fetching = request
        fetching.fetchBehavior = .CacheFirst
        #expect(ChainLint.check(provider: DefaultChainInterceptorProvider(store: CacheStore()), requests: [fetching]).isEmpty)
    }

    @Test("ChainLint.check(middlewares:) reads RetryingMiddleware's buffering from the instance")
    func middlewares() {
        let unbuffered = RetryingMiddleware(maxAttempts: 3)
        #expect(lines(ChainLint.check(middlewares: [unbuffered, LoggingMiddleware { _ in }])) == [
            "retry-single-pass-body: RetryingMiddleware (hop 1) calls next again without buffering the request body, so a single-pass body fails on the second attempt",
            "logging-inside-retry: LoggingMiddleware (hop 2) sits below RetryingMiddleware (hop 1): it writes one line per attempt",
        ])
        #expect(ChainLint.check(middlewares: [RetryingMiddleware(maxAttempts: 3, bufferingSinglePassBodies: 1024)]).isEmpty)
    }
}
