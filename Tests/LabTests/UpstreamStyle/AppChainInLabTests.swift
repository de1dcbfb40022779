import ChainKit
import Foundation
import Lab
import Testing
import Timeline
import UpstreamStyle

/// The interceptors of Examples/UpstreamStyle/Interceptors.swift, in Apollo's documented
/// style, run hop by hop in lab scenarios: the scenario's launches, backend and tokens, the
/// app's provider in place of its chain, and the app's token manager refreshing through the
/// lab's `URLSession` (``AppBackend``).
@Suite("An app's own interceptors in a lab scenario", .timeLimit(.minutes(2)))
struct AppChainInLabTests {
    /// The app's provider, its token manager refreshing through the lab's `URLSession`.
    static func provider(singleFlight: Bool) -> (AppBackend) -> any InterceptorProvider {
        { lab in
            NetworkInterceptorProvider(
                tokenManager: AuthTokenManager(
                    tokenURL: lab.tokenURL, session: lab.urlSession, singleFlight: singleFlight, accessToken: lab.accessToken,
                    refreshToken: lab.refreshToken),
                log: Log())
        }
    }

    static func trace(_ name: String, singleFlight: Bool) async throws -> (text: String, result: LabSession.RunResult) {
        let scenario = try #require(Catalog.scenario(named: name))
        let session = LabSession(scenario: scenario, provider: provider(singleFlight: singleFlight))
        let result = await session.runHeadless()
        await session.shutDown()
        return (result.export(.text, scenario: scenario.name, anchor: session.otlpAnchor, masking: .masked), result)
    }

    @Test("token-expiry: each of the app's interceptors a hop; its 401 reaches the auth interceptor's mapErrors, its token manager's refresh through the lab's URLSession is recorded, RequestChain.Retry runs attempt 2")
    func tokenExpiry() async throws {
        let (text, result) = try await Self.trace("token-expiry", singleFlight: true)
        #expect(text == """
            scenario token-expiry
              0.000s #1.1 ↓ MaxRetryInterceptor preflight
              0.000s #1.1   ↓ AutomaticPersistedQueryInterceptor preflight
              0.000s #1.1     ↓ AuthorizationInterceptor preflight +Authorization
              0.000s #1.1       ↓ LoggingInterceptor preflight
              0.000s #1.1         • cache cacheMiss (CacheFirst)
              0.000s #1.1           ↓ UserAgentInterceptor preflight +User-Agent
              0.000s #1.1             ↓ ResponseCodeInterceptor preflight
              0.000s #1.1               ↓ transport send POST /graphql
              0.012s #1.1               ↑ transport receive 401
              0.012s #1.1             ↑ ResponseCodeInterceptor postflight 401
              0.012s #1.1           ↑ UserAgentInterceptor postflight 401
              0.012s #1.1                 ↓ JSONResponseParsingInterceptor preflight 401
              0.012s #1.1                 ✕ JSONResponseParsingInterceptor error ResponseCodeError: Received a 401 error.
              0.012s #1.1       ✕ LoggingInterceptor error ResponseCodeError: Received a 401 error.
              0.012s #1.1 ↓ TokenManager send POST /oauth/token (refresh_token grant, refresh token 1)
              0.024s #1.1 • TokenManager refresh 200 (refresh_token grant, refresh token 1)
              0.024s #1.1     ↻ AuthorizationInterceptor retry Retry: retry HeroQuery from the top of the chain
              0.024s #1.1   ↻ AutomaticPersistedQueryInterceptor retry Retry: retry HeroQuery from the top of the chain
              0.024s #1.1 ↻ MaxRetryInterceptor retry Retry: retry HeroQuery from the top of the chain
              0.024s #1.2 ↓ MaxRetryInterceptor preflight
              0.024s #1.2   ↓ AutomaticPersistedQueryInterceptor preflight
              0.024s #1.2     ↓ AuthorizationInterceptor preflight +Authorization
              0.024s #1.2       ↓ LoggingInterceptor preflight
              0.024s #1.2         • cache cacheMiss (CacheFirst)
              0.024s #1.2           ↓ UserAgentInterceptor preflight +User-Agent
              0.024s #1.2             ↓ ResponseCodeInterceptor preflight
              0.024s #1.2               ↓ transport send POST /graphql
              0.036s #1.2               ↑ transport receive 200
              0.036s #1.2             ↑ ResponseCodeInterceptor postflight 200
              0.036s #1.2           ↑ UserAgentInterceptor postflight 200
              0.036s #1.2                 ↓ JSONResponseParsingInterceptor preflight 200
              0.036s #1.2                 ↑ JSONResponseParsingInterceptor postflight
              0.036s #1.2       ↑ LoggingInterceptor postflight (server)
              0.036s #1.2     ↑ AuthorizationInterceptor postflight (server)
              0.036s #1.2   ↑ AutomaticPersistedQueryInterceptor postflight (server)
              0.036s #1.2 ↑ MaxRetryInterceptor postflight (server)
              0.036s #1.2         ↑ cache postflight (cache write)
            findings: none
            #1 HeroQuery: success after 2 attempts, results from server
            backend apqMisses=0 apqRegistered=0 familiesRevoked=0 graphqlRequests=2 injectedFailures=0 passwordGrants=0 refreshRejected=0 restRequests=0 tokenRefreshes=1 unauthorized=1

            """)
        #expect(result.requests.map(\.outcome) == [.success])
    }

    /// Each refresh event: its request, its status, and the refresh token it presented.
    static func refreshes(_ result: LabSession.RunResult) -> [String] {
        result.events.filter { $0.name == "TokenManager" && $0.phase == .refresh }.map { "#\($0.request) \($0.status ?? 0) \($0.detail ?? "")" }
    }

    @Test("refresh-storm with the app's naive token manager: all five 401s send their own refresh with refresh token 1; #1's wins, the reuse revokes the family")
    func naiveStorm() async throws {
        let (_, result) = try await Self.trace("refresh-storm", singleFlight: false)
        #expect(Self.refreshes(result) == [
            "#1 200 refresh_token grant, refresh token 1",
            "#2 400 refresh_token grant, refresh token 1",
            "#3 400 refresh_token grant, refresh token 1",
            "#4 400 refresh_token grant, refresh token 1",
            "#5 400 refresh_token grant, refresh token 1",
            // #1's retry is refused: its new token went with the family.
            "#1 400 refresh_token grant, refresh token 2",
        ])
        #expect(result.events.filter { $0.name == "TokenManager" && $0.phase == .resumed }.isEmpty)
        #expect(result.findings.map(\.id) == ["refresh-storm"])
        #expect(result.requests.map(\.attempts) == [2, 1, 1, 1, 1])
        #expect(result.requests.map(\.outcome) == Array(repeating: .failure, count: 5))
        #expect(result.backend["tokenRefreshes"] == 6)
        #expect(result.backend["familiesRevoked"] == 1)
    }

    @Test("refresh-storm with the app's single-flight token manager: one refresh; #2 to #5 wait for it in the app's own code, are blocked, then resume and retry")
    func singleFlightStorm() async throws {
        let (text, result) = try await Self.trace("refresh-storm", singleFlight: true)
        #expect(Self.refreshes(result) == ["#1 200 refresh_token grant, refresh token 1"])
        // Which requests wait is seen by their quiet, yet the run is the same every time.
        #expect(try await Self.trace("refresh-storm", singleFlight: true).text == text)
        let resumed = result.events.filter { $0.name == "TokenManager" && $0.phase == .resumed }
        #expect(resumed.map(\.request) == [2, 3, 4, 5])
        #expect(resumed.allSatisfy { $0.detail == "woke after the shared refresh" })
        #expect(result.findings.map(\.id) == ["shared-refresh"])
        #expect(result.requests.map(\.outcome) == Array(repeating: .success, count: 5))
        #expect(result.requests.map(\.attempts) == [2, 2, 2, 2, 2])
        #expect(result.backend["tokenRefreshes"] == 1)
    }

    /// A stepping session on refresh-storm through the app's provider, its first two
    /// requests launched and each stepped to where it refreshes or waits.
    static func steppedStorm(singleFlight: Bool) async throws -> LabSession {
        let scenario = try #require(Catalog.scenario(named: "refresh-storm"))
        let session = LabSession(scenario: scenario, provider: provider(singleFlight: singleFlight), defaultMode: .step)
        session.launch()
        session.launch()
        await session.waitUntilSettled()
        await session.step(1, until: .refresh)
        await session.step(2, until: .refresh)
        return session
    }

    @Test("Stepped by hand, the naive manager's two refreshes are held at their stops and released in the other order: #2's wins, #1's reuse is refused")
    func naiveStormStepped() async throws {
        let session = try await Self.steppedStorm(singleFlight: false)
        #expect(session.control.parked.map { "#\($0.request) \($0.place)" } == ["#1 refresh", "#2 refresh"])
        await session.perform(.resume(request: 2))
        await session.perform(.resume(request: 1))
        let result = session.result()
        await session.shutDown()
        #expect(Self.refreshes(result).prefix(2) == [
            "#2 200 refresh_token grant, refresh token 1",
            "#1 400 refresh_token grant, refresh token 1",
        ])
    }

    @Test("Stepped by hand, the single-flight manager's second request is shown blocked while #1's refresh is held, and resumes when it is released")
    func singleFlightStormStepped() async throws {
        let session = try await Self.steppedStorm(singleFlight: true)
        #expect(session.control.parked.map { "#\($0.request) \($0.place)" } == ["#1 refresh"])
        #expect(session.control.blocked == [2])
        await session.perform(.resume(request: 1))
        // #2 woke at its turn and is held again at its next stop.
        #expect(session.control.blocked.isEmpty)
        #expect(session.control.parked.map(\.request) == [2])
        await session.perform(.resume(request: 2))
        let result = session.result()
        await session.shutDown()
        #expect(Self.refreshes(result) == ["#1 200 refresh_token grant, refresh token 1"])
        // Released from a held stop, #1 has a `resumed` event of its own ("step"…).
        #expect(result.events.filter { $0.phase == .resumed && $0.detail == "woke after the shared refresh" }.map(\.request) == [2])
        #expect(result.requests.map(\.outcome) == [.success, .success])
    }

    @Test("An app's interceptor that takes longer than the quiet period while no refresh is under way is not taken to be waiting: nothing blocks, nothing resumes")
    func slowCodeWithoutARefresh() async throws {
        let scenario = try #require(Catalog.scenario(named: "basics"))
        let session = LabSession(scenario: scenario) { lab in SlowProvider(token: lab.accessToken) }
        let result = await session.runHeadless()
        await session.shutDown()
        #expect(result.requests.map(\.outcome) == [.success])
        #expect(result.events.filter { $0.phase == .resumed }.isEmpty)
        #expect(result.events.filter { $0.name == "SlowInterceptor" }.map(\.phase) == [.preflight, .postflight])
    }
}

/// Takes its time before it hands the request on with the bearer token, as code that
/// computes would.
struct SlowInterceptor: GraphQLInterceptor {
    let token: String

    func intercept<Request: GraphQLRequest>(
        request: Request, next: NextInterceptorFunction<Request>
    ) async throws -> InterceptorResultStream<Request> {
        try await Task.sleep(for: .milliseconds(400))
        var request = request
        request.additionalHeaders["Authorization"] = "Bearer \(token)"
        return await next(request)
    }
}

/// Apollo's default interceptors, then ``SlowInterceptor``.
struct SlowProvider: InterceptorProvider {
    let token: String

    func graphQLInterceptors<Operation: GraphQLOperation>(for operation: Operation) -> [any GraphQLInterceptor] {
        DefaultInterceptorProvider.shared.graphQLInterceptors(for: operation) + [SlowInterceptor(token: token)]
    }
}
