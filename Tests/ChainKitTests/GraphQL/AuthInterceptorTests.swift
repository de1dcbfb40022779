import ChainKit
import Foundation
import Testing

@Suite("AuthInterceptor and TokenManager")
struct AuthInterceptorTests {
    /// A server that accepts only `Bearer fresh` and answers everything else with 401.
    static func server(seen: Locked<[String]>) -> InMemoryGraphQLTransport {
        InMemoryGraphQLTransport { request in
            let authorization = request.headerFields["Authorization"] ?? "none"
            seen.withLock { $0.append(authorization) }
            let ok = authorization == "Bearer fresh"
            return NetworkResponse(
                status: ok ? 200 : 401, url: request.url,
                body: Data((ok ? heroBody : #"{"errors":[{"message":"expired","extensions":{"code":"UNAUTHENTICATED"}}]}"#).utf8))
        }
    }

    static func manager(_ strategy: RefreshStrategy, refreshes: Locked<[String]>) -> TokenManager {
        TokenManager(tokens: TokenPair(accessToken: "expired", refreshToken: "r0"), strategy: strategy) { refreshToken in
            refreshes.withLock { $0.append(refreshToken) }
            // Let the other operations reach the server with the old token before this refresh lands.
            for _ in 0..<20 { await Task.yield() }
            return TokenPair(accessToken: "fresh", refreshToken: "r1")
        }
    }

    static func runConcurrently(_ count: Int, manager: TokenManager, transport: InMemoryGraphQLTransport) async -> [Outcome] {
        await withTaskGroup(of: Outcome.self) { group in
            for _ in 0..<count {
                group.addTask {
                    let chain = makeChain(graphQL: [MaxRetryInterceptor(maxRetries: 3), AuthInterceptor(manager: manager)], transport: transport)
                    return await run(chain.kickoff(request: request()))
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
    }

    @Test("one expired token: Auth refreshes once and the retry carries the new token")
    func singleRefresh() async {
        let seen = Locked<[String]>([]), refreshes = Locked<[String]>([])
        let manager = Self.manager(.naive, refreshes: refreshes)
        let outcomes = await Self.runConcurrently(1, manager: manager, transport: Self.server(seen: seen))
        #expect(outcomes.map { $0.error == nil } == [true])
        #expect(seen.value == ["Bearer expired", "Bearer fresh"])
        #expect(refreshes.value == ["r0"])
    }

    @Test("naive with 5 concurrent operations on an expired token makes 5 refresh calls")
    func naiveStorm() async {
        let seen = Locked<[String]>([]), refreshes = Locked<[String]>([])
        let manager = Self.manager(.naive, refreshes: refreshes)
        let outcomes = await Self.runConcurrently(5, manager: manager, transport: Self.server(seen: seen))
        #expect(outcomes.allSatisfy { $0.error == nil })
        #expect(refreshes.value.count == 5)
        #expect(await manager.refreshCount == 5)
    }

    @Test("singleFlight with 5 concurrent operations on an expired token makes exactly one refresh call")
    func singleFlight() async {
        let seen = Locked<[String]>([]), refreshes = Locked<[String]>([])
        let manager = Self.manager(.singleFlight, refreshes: refreshes)
        let outcomes = await Self.runConcurrently(5, manager: manager, transport: Self.server(seen: seen))
        #expect(outcomes.allSatisfy { $0.error == nil })
        #expect(refreshes.value == ["r0"])
        #expect(seen.value.filter { $0 == "Bearer fresh" }.count == 5)
    }

    @Test("staleToken retries with the old token and ends in MaxRetriesError")
    func staleToken() async {
        let seen = Locked<[String]>([]), refreshes = Locked<[String]>([])
        let manager = Self.manager(.staleToken, refreshes: refreshes)
        let outcomes = await Self.runConcurrently(1, manager: manager, transport: Self.server(seen: seen))
        #expect(outcomes[0].error as? MaxRetriesError == MaxRetriesError(count: 3, operationName: "HeroQuery"))
        #expect(seen.value == Array(repeating: "Bearer expired", count: 4))
        #expect(refreshes.value.count == 4)
    }

    @Test("200 with an UNAUTHENTICATED GraphQL error also triggers a refresh and retry")
    func graphQLErrorAuthFailure() async {
        let seen = Locked<[String]>([]), refreshes = Locked<[String]>([])
        let transport = InMemoryGraphQLTransport { request in
            let authorization = request.headerFields["Authorization"] ?? "none"
            seen.withLock { $0.append(authorization) }
            let body = authorization == "Bearer fresh" ? heroBody : #"{"errors":[{"message":"expired","extensions":{"code":"UNAUTHENTICATED"}}]}"#
            return NetworkResponse(status: 200, url: request.url, body: Data(body.utf8))
        }
        let outcomes = await Self.runConcurrently(1, manager: Self.manager(.singleFlight, refreshes: refreshes), transport: transport)
        #expect(outcomes[0].responses.map(\.data) == [heroData])
        #expect(seen.value == ["Bearer expired", "Bearer fresh"])
        #expect(refreshes.value == ["r0"])
    }

    @Test("a failed refresh fails the operation with the refresh error")
    func refreshFails() async {
        struct InvalidGrant: Error, Equatable {}
        let manager = TokenManager(tokens: TokenPair(accessToken: "expired", refreshToken: "r0"), strategy: .singleFlight) { _ in throw InvalidGrant() }
        let outcomes = await Self.runConcurrently(1, manager: manager, transport: Self.server(seen: Locked([])))
        #expect(outcomes[0].error as? InvalidGrant == InvalidGrant())
    }

    @Test("StaticAuthInterceptor sets Authorization and refuses a value with CR/LF")
    func staticAuth() async throws {
        let seen = Locked<[String]>([])
        let outcome = await run(makeChain(graphQL: [try StaticAuthInterceptor(authorization: "Bearer fresh")], transport: Self.server(seen: seen)).kickoff(request: request()))
        #expect(outcome.error == nil)
        #expect(seen.value == ["Bearer fresh"])
        #expect(throws: HeaderValidationError.invalidValue(name: "Authorization", character: "\r", offset: 6)) {
            try StaticAuthInterceptor(authorization: "Bearer\r\nX-Evil: 1")
        }
    }

    @Test("FallbackToCacheOnFailure answers from the cache when the network fails, and lets retries through")
    func fallbackToCache() async throws {
        struct Offline: Error {}
        let store = CacheStore()
        try store.write(data: heroData, for: heroQuery)
        let outcome = await run(makeChain(graphQL: [FallbackToCacheOnFailureInterceptor(store: store)], store: store, transport: .failing(Offline())).kickoff(request: request()))
        #expect(outcome.responses == [ChainResponse(source: .cache, data: heroData)])
        let empty = await run(makeChain(graphQL: [FallbackToCacheOnFailureInterceptor(store: CacheStore())], transport: .failing(Offline())).kickoff(request: request()))
        #expect(empty.error is Offline)
    }
}
