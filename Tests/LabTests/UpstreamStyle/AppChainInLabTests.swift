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
    static func trace(_ name: String, singleFlight: Bool) async throws -> (text: String, result: LabSession.RunResult) {
        let scenario = try #require(Catalog.scenario(named: name))
        let log = Log()
        let session = LabSession(scenario: scenario) { lab in
            NetworkInterceptorProvider(
                tokenManager: AuthTokenManager(
                    tokenURL: lab.tokenURL, session: lab.urlSession, singleFlight: singleFlight, accessToken: lab.accessToken,
                    refreshToken: lab.refreshToken),
                log: log)
        }
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

    @Test("refresh-storm: the app's refresh has no stop, so in a headless run #1 refreshes and retries before the others start, and they are answered from the cache")
    func storm() async throws {
        for singleFlight in [false, true] {
            let (_, result) = try await Self.trace("refresh-storm", singleFlight: singleFlight)
            let refreshes = result.events.filter { $0.name == "TokenManager" && $0.phase == .refresh }
            #expect(refreshes.map(\.request) == [1])
            #expect(result.requests.map(\.results) == [["server"], ["cache"], ["cache"], ["cache"], ["cache"]])
        }
    }
}
