import ChainKit
import Foundation
import Testing

@Suite("Automatic persisted queries")
struct AutomaticPersistedQueriesTests {
    static let notFound = #"{"errors":[{"message":"PersistedQueryNotFound"}]}"#

    func apqRequest(_ operation: ChainOperation = heroQuery, useGETForQueries: Bool = false, useGETForRetry: Bool = false) -> ChainRequest {
        ChainRequest(
            operation: operation, graphQLEndpoint: endpoint, fetchBehavior: .NetworkOnly,
            apqConfig: AutoPersistedQueryConfiguration(autoPersistQueries: true, useGETForPersistedQueryRetry: useGETForRetry),
            useGETForQueries: useGETForQueries)
    }

    func provider() -> [any ChainInterceptor] {
        [MaxRetryInterceptor(), AutomaticPersistedQueryInterceptor()]
    }

    @Test("the hash is the SHA-256 hex of the query text")
    func hashVector() {
        #expect(SHA256Digest.hex(of: "abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256Digest.hex(of: "") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(heroQuery.documentHash == SHA256Digest.hex(of: "query HeroQuery { hero { id name } }"))
    }

    @Test("first body has the hash and no query; PersistedQueryNotFound leads to a second request with query and hash")
    func missThenRetryWithQuery() async throws {
        let bodies = Locked<[JSONValue]>([])
        let transport = InMemoryGraphQLTransport { request in
            let body = try bodyJSON(request)
            let count = bodies.withLock { $0.append(body); return $0.count }
            return NetworkResponse(status: 200, url: request.url, body: Data((count == 1 ? Self.notFound : heroBody).utf8))
        }
        let outcome = await run(makeChain(graphQL: provider(), transport: transport).kickoff(request: apqRequest()))
        #expect(outcome.error == nil)
        #expect(outcome.responses.map(\.data) == [heroData])
        let persisted: JSONValue = ["persistedQuery": ["version": 1, "sha256Hash": .string(heroQuery.documentHash)]]
        #expect(bodies.value == [
            ["operationName": "HeroQuery", "extensions": persisted],
            ["operationName": "HeroQuery", "extensions": persisted, "query": .string(heroQuery.document)],
        ])
    }

    @Test("a second PersistedQueryNotFound fails with persistedQueryRetryFailed")
    func secondMiss() async {
        let outcome = await run(makeChain(graphQL: provider(), transport: .respond(status: 200, body: Self.notFound)).kickoff(request: apqRequest()))
        #expect(outcome.error as? AutomaticPersistedQueryError == .persistedQueryRetryFailed(operationName: "HeroQuery"))
    }

    @Test("the retry switches the fetch behaviour to NetworkOnly")
    func retryIsNetworkOnly() async {
        let seen = Locked<[FetchBehavior]>([])
        struct Spy: ChainInterceptor {
            let seen: Locked<[FetchBehavior]>
            func intercept(request: ChainRequest, next: ChainNext) async throws -> ChainResultStream {
                seen.withLock { $0.append(request.fetchBehavior) }
                return await next(request)
            }
        }
        let calls = Locked(0)
        let transport = InMemoryGraphQLTransport { request in
            let call = calls.withLock { $0 += 1; return $0 }
            return NetworkResponse(status: 200, url: request.url, body: Data((call == 1 ? Self.notFound : heroBody).utf8))
        }
        var request = apqRequest()
        request.fetchBehavior = .CacheFirst
        _ = await run(makeChain(graphQL: [Spy(seen: seen)] + provider(), transport: transport).kickoff(request: request))
        #expect(seen.value == [.CacheFirst, .NetworkOnly])
    }

    /// Apollo iOS 2.0.6 and later (`JSONRequest.toURLRequest()`): the first attempt uses GET
    /// only when `useGETForQueries`; the persisted-query retry uses `useGETForPersistedQueryRetry`.
    /// Mirrors apollo-ios-dev `AutomaticPersistedQueriesTests.testAPQsRespectQueriesMethod_GetWhenTrue`,
    /// `testAPQsRespectQueriesMethod_PostWhenFalse`, `testUseGETForQueriesAPQsRequest` and
    /// `testNotUseGETForQueriesAPQsRequest`, extended to the retry.
    @Test("GET/POST matrix of useGETForQueries × useGETForPersistedQueryRetry for queries", arguments: [
        (false, false, "POST", "POST"),
        (true, false, "GET", "POST"),
        (false, true, "POST", "GET"),
        (true, true, "GET", "GET"),
    ])
    func methodMatrix(getForQueries: Bool, getForRetry: Bool, firstMethod: String, retryMethod: String) async throws {
        let requests = Locked<[NetworkRequest]>([])
        let transport = InMemoryGraphQLTransport { request in
            let count = requests.withLock { $0.append(request); return $0.count }
            return NetworkResponse(status: 200, url: request.url, body: Data((count == 1 ? Self.notFound : heroBody).utf8))
        }
        let outcome = await run(makeChain(graphQL: provider(), transport: transport)
            .kickoff(request: apqRequest(useGETForQueries: getForQueries, useGETForRetry: getForRetry)))
        #expect(outcome.error == nil)
        let sent = requests.value
        #expect(sent.map(\.method.rawValue) == [firstMethod, retryMethod])
        let persisted = #"{"persistedQuery":{"sha256Hash":"\#(heroQuery.documentHash)","version":1}}"#
        for (index, request) in sent.enumerated() {
            if request.method == .get {
                let query = try #require(URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems)
                let expected = index == 0 ? ["extensions", "operationName"] : ["extensions", "operationName", "query"]
                #expect(query.map(\.name) == expected)
                #expect(query.first { $0.name == "extensions" }?.value == persisted)
                #expect(query.first { $0.name == "query" }?.value == (index == 0 ? nil : heroQuery.document))
                #expect(request.body == nil)
                #expect(request.headerFields["Apollo-Require-Preflight"] == "true")
                #expect(request.headerFields["Content-Type"] == nil)
            } else {
                let body = try bodyJSON(request)
                #expect(body["extensions"]?.jsonString == persisted)
                #expect(body["query"] == (index == 0 ? nil : .string(heroQuery.document)))
                #expect(request.headerFields["Apollo-Require-Preflight"] == nil)
                #expect(request.headerFields["Content-Type"] == "application/json")
            }
        }
    }

    /// Mirrors apollo-ios-dev `AutomaticPersistedQueriesTests.testAPQsRespectQueriesMethod_GetWhenTrue_withVariable`.
    @Test("a GET with variables carries them as sorted JSON in the URL")
    func getWithVariables() throws {
        let operation = ChainOperation(name: "HeroName", kind: .query, document: "query HeroName($episode: Episode) { hero(episode: $episode) { name } }", variables: ["episode": "EMPIRE"])
        let sent = try apqRequest(operation, useGETForQueries: true, useGETForRetry: true).makeNetworkRequest()
        let query = try #require(URLComponents(url: sent.url, resolvingAgainstBaseURL: false)?.queryItems)
        #expect(sent.method == .get)
        #expect(query.map(\.name) == ["extensions", "operationName", "variables"])
        #expect(query.first { $0.name == "variables" }?.value == #"{"episode":"EMPIRE"}"#)
    }

    /// Mirrors apollo-ios-dev `AutomaticPersistedQueriesTests.testMutationRequestBodyForAPQs`.
    @Test("a mutation under APQ sends its hash and variables, no query text, as POST")
    func mutationBody() throws {
        let sent = try apqRequest(heroMutation, useGETForQueries: true, useGETForRetry: true).makeNetworkRequest()
        #expect(sent.method == .post)
        #expect(try bodyJSON(sent) == [
            "operationName": "RenameHero", "variables": ["name": "Luke"],
            "extensions": ["persistedQuery": ["sha256Hash": .string(heroMutation.documentHash), "version": 1]],
        ])
    }

    /// Upstream checks every error of the first server result, not only the first one
    /// (`AutomaticPersistedQueryInterceptor.intercept`: `errorMessages.contains`).
    @Test("PersistedQueryNotFound in any error of the first result triggers the retry")
    func notFoundAmongOtherErrors() async throws {
        let calls = Locked(0)
        let transport = InMemoryGraphQLTransport { request in
            let call = calls.withLock { $0 += 1; return $0 }
            let first = #"{"errors":[{"message":"deprecated field"},{"extensions":{"code":"X"}},{"message":"PersistedQueryNotFound"}]}"#
            return NetworkResponse(status: 200, url: request.url, body: Data((call == 1 ? first : heroBody).utf8))
        }
        let outcome = await run(makeChain(graphQL: provider(), transport: transport).kickoff(request: apqRequest()))
        #expect(outcome.error == nil)
        #expect(calls.value == 2)
        #expect(outcome.responses.map(\.data) == [heroData])
    }

    /// Upstream throws `APQError.persistedQueryNotFoundForPersistedOnlyQuery` when the
    /// operation has no definition to retry with.
    @Test("a persisted-only operation gets the dedicated error instead of a retry")
    func persistedOnly() async throws {
        let calls = Locked(0)
        let transport = InMemoryGraphQLTransport { request in
            calls.withLock { $0 += 1 }
            return NetworkResponse(status: 200, url: request.url, body: Data(Self.notFound.utf8))
        }
        let operation = ChainOperation(name: "HeroQuery", kind: .query, persistedOnlyIdentifier: "abc123")
        let outcome = await run(makeChain(graphQL: provider(), transport: transport).kickoff(request: apqRequest(operation)))
        let error = try #require(outcome.error as? AutomaticPersistedQueryError)
        #expect(error == .persistedQueryNotFoundForPersistedOnlyQuery(operationName: "HeroQuery"))
        #expect(error.description == #"The Persisted Query for operation "HeroQuery" was not found. The operation is a persisted-only operation and cannot be automatically persisted if it is not recognized by the server."#)
        #expect(calls.value == 1)
    }

    @Test("a persisted-only operation sends its identifier as the hash, and refuses to go out without APQ")
    func persistedOnlyBody() throws {
        let operation = ChainOperation(name: "HeroQuery", kind: .query, persistedOnlyIdentifier: "abc123")
        #expect(try bodyJSON(try apqRequest(operation).makeNetworkRequest())
            == ["operationName": "HeroQuery", "extensions": ["persistedQuery": ["sha256Hash": "abc123", "version": 1]]])
        #expect(throws: GraphQLHTTPRequestError.noQueryDocument(operationName: "HeroQuery")) {
            try request(operation).makeNetworkRequest()
        }
    }

    @Test("only the first server result is checked: a later one passes untouched")
    func laterResultsPass() async throws {
        let transport = InMemoryGraphQLTransport { request in
            NetworkResponse(status: 200, url: request.url, chunks: PullStream([Data(heroBody.utf8), Data(Self.notFound.utf8)]))
        }
        let outcome = await run(makeChain(graphQL: provider(), transport: transport).kickoff(request: apqRequest()))
        #expect(outcome.error == nil)
        #expect(outcome.responses.count == 2)
        #expect(outcome.responses.last?.errors?.map(\.message) == ["PersistedQueryNotFound"])
    }

    @Test("mutations always POST, even with every GET flag on")
    func mutationsPost() async throws {
        let methods = Locked<[String]>([])
        let calls = Locked(0)
        let transport = InMemoryGraphQLTransport { request in
            methods.withLock { $0.append(request.method.rawValue) }
            let call = calls.withLock { $0 += 1; return $0 }
            return NetworkResponse(status: 200, url: request.url, body: Data((call == 1 ? Self.notFound : #"{"data":{"renameHero":null}}"#).utf8))
        }
        let outcome = await run(makeChain(graphQL: provider(), transport: transport)
            .kickoff(request: apqRequest(heroMutation, useGETForQueries: true, useGETForRetry: true)))
        #expect(outcome.error == nil)
        #expect(methods.value == ["POST", "POST"])
    }

    @Test("without APQ the query text is sent and no extensions")
    func withoutAPQ() throws {
        let body = try bodyJSON(try request().makeNetworkRequest())
        #expect(body == ["operationName": "HeroQuery", "query": .string(heroQuery.document)])
    }
}
