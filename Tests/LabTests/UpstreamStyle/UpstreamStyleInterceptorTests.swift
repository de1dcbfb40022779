import Backend
import ChainKit
import Foundation
import Lab
import Serve
import Testing
import UpstreamStyle

/// The interceptors of Examples/UpstreamStyle/Interceptors.swift, written as Apollo iOS 2.4's
/// documentation writes them, run unchanged through `ApolloClient` and
/// `RequestChainNetworkTransport` against `chainlab serve`. Upstream's shapes:
/// apollo-ios Sources/Apollo/RequestChain/Interceptors/GraphQLInterceptor.swift,
/// HTTPInterceptor.swift, InterceptorProvider.swift, Sources/Apollo/ApolloClient.swift.
@Suite("Interceptors in Apollo iOS's documented style", .timeLimit(.minutes(2)))
struct UpstreamStyleInterceptorTests {
    struct Served {
        let lab: ServedLab
        let tokens: AuthTokenManager
        let log = Log()
        let client: ApolloClient

        init(singleFlight: Bool = true) async throws {
            lab = try ServedLab()
            tokens = AuthTokenManager(tokenURL: lab.baseURL.appending(path: "oauth/token"), singleFlight: singleFlight)
            try await tokens.signIn(username: "demo", password: "demo")
            let store = ApolloStore()
            let transport = RequestChainNetworkTransport(
                urlSession: URLSessionChunkReader(), interceptorProvider: NetworkInterceptorProvider(tokenManager: tokens, log: log),
                store: store, endpointURL: lab.baseURL.appending(path: "graphql"))
            client = ApolloClient(networkTransport: transport, store: store)
        }
    }

    @Test("a query: the token by subscript, Apollo's defaults around the app's interceptors, the result decoded, then read from the cache")
    func query() async throws {
        let served = try await Served()
        defer { served.lab.service.stop() }

        let first = try await served.client.fetch(query: HeroQuery())
        #expect(first.source == .server)
        #expect(first.data?.hero == ["id": "2001", "name": "R2-D2"])
        #expect(first.errors == nil)

        let second = try await served.client.fetch(query: HeroQuery())
        #expect(second.source == .cache)
        #expect(second.data?.hero == ["id": "2001", "name": "R2-D2"])

        let third = try await served.client.fetch(query: HeroQuery(), cachePolicy: .cacheOnly)
        #expect(third?.data == first.data)

        let lines = await served.log.lines
        #expect(lines == [
            "request HeroQuery",
            "http 200 \(#"{"data":{"hero":{"id":"2001","name":"R2-D2"}}}"#.utf8.count) bytes",
            "response HeroQuery from server",
            "request HeroQuery",
            "response HeroQuery from cache",
            "request HeroQuery",
            "response HeroQuery from cache",
        ])
        #expect(served.lab.backend.counters["graphqlRequests"] == 1)
        #expect(await served.tokens.refreshes == 0)
    }

    @Test("an expired token: 401, ResponseCodeError up to the auth interceptor's mapErrors, one refresh, RequestChain.Retry, the mutation done")
    func refreshAndRetry() async throws {
        let served = try await Served()
        defer { served.lab.service.stop() }
        served.lab.backend.expireAllAccessTokens()

        let renamed = try await served.client.perform(mutation: RenameHeroMutation(name: "Artoo"))

        #expect(renamed.data?.renameHero == ["id": "2001", "name": "Artoo"])
        #expect(await served.tokens.refreshes == 1)
        let lines = await served.log.lines
        #expect(lines == [
            "request RenameHero",
            "error RenameHero: Received a 401 error.",
            "request RenameHero",
            "http 200 \(#"{"data":{"renameHero":{"id":"2001","name":"Artoo"}}}"#.utf8.count) bytes",
            "response RenameHero from server",
        ])
        #expect(served.lab.backend.counters["graphqlRequests"] == 2)
    }

    @Test("a server that keeps refusing: MaxRetryInterceptor, first in Apollo's defaults, ends the retries with its error")
    func retriesEnd() async throws {
        let served = try await Served()
        defer { served.lab.service.stop() }
        served.lab.backend.setAuthFailureMode(.status401)
        served.lab.backend.updateSettings { $0.tokenTTL = 0 }
        served.lab.backend.expireAllAccessTokens()

        let error = await #expect(throws: MaxRetryInterceptor.MaxRetriesError.self) {
            try await served.client.fetch(query: HeroQuery(), cachePolicy: .networkOnly)
        }
        #expect(error?.count == 3)
        #expect(error?.operationName == "HeroQuery")
        #expect(served.lab.backend.counters["graphqlRequests"] == 4)
    }
}
