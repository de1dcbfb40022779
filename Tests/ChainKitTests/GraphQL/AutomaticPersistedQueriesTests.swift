import ChainKit
import Foundation
import Testing

@Suite("Automatic persisted queries")
struct AutomaticPersistedQueriesTests {
    static let notFound = #"{"errors":[{"message":"PersistedQueryNotFound"}]}"#

    func apqRequest(_ operation: GraphQLOperation = heroQuery, useGETForQueries: Bool = false, useGETForRetry: Bool = false) -> GraphQLRequest {
        GraphQLRequest(
            operation: operation, graphQLEndpoint: endpoint, fetchBehavior: .NetworkOnly,
            apqConfig: AutoPersistQueryConfiguration(autoPersistQueries: true, useGETForPersistedQueryRetry: useGETForRetry),
            useGETForQueries: useGETForQueries)
    }

    func provider() -> [any GraphQLInterceptor] {
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
            ["operationName": "HeroQuery", "variables": [:], "extensions": persisted],
            ["operationName": "HeroQuery", "variables": [:], "extensions": persisted, "query": .string(heroQuery.document)],
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
        struct Spy: GraphQLInterceptor {
            let seen: Locked<[FetchBehavior]>
            func intercept(request: GraphQLRequest, next: GraphQLNext) async throws -> InterceptorResultStream {
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

    /// Upstream's rule: the first attempt uses GET when `useGETForQueries`, or when APQ is on
    /// and `useGETForPersistedQueryRetry` is set; the retry uses `useGETForPersistedQueryRetry`.
    @Test("GET/POST matrix of useGETForQueries × useGETForPersistedQueryRetry for queries", arguments: [
        (false, false, "POST", "POST"),
        (true, false, "GET", "POST"),
        (false, true, "GET", "GET"),
        (true, true, "GET", "GET"),
    ])
    func methodMatrix(getForQueries: Bool, getForRetry: Bool, firstMethod: String, retryMethod: String) async throws {
        let methods = Locked<[String]>([])
        let urls = Locked<[URL]>([])
        let transport = InMemoryGraphQLTransport { request in
            let count = methods.withLock { $0.append(request.method.rawValue); return $0.count }
            urls.withLock { $0.append(request.url) }
            return NetworkResponse(status: 200, url: request.url, body: Data((count == 1 ? Self.notFound : heroBody).utf8))
        }
        let outcome = await run(makeChain(graphQL: provider(), transport: transport)
            .kickoff(request: apqRequest(useGETForQueries: getForQueries, useGETForRetry: getForRetry)))
        #expect(outcome.error == nil)
        #expect(methods.value == [firstMethod, retryMethod])
        if firstMethod == "GET" {
            let query = try #require(URLComponents(url: urls.value[0], resolvingAgainstBaseURL: false)?.queryItems)
            #expect(query.map(\.name) == ["extensions", "operationName", "variables"])
            #expect(query.first { $0.name == "extensions" }?.value == #"{"persistedQuery":{"sha256Hash":"\#(heroQuery.documentHash)","version":1}}"#)
        }
        if retryMethod == "GET" {
            let query = try #require(URLComponents(url: urls.value[1], resolvingAgainstBaseURL: false)?.queryItems)
            #expect(query.first { $0.name == "query" }?.value == heroQuery.document)
        }
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
        #expect(body == ["operationName": "HeroQuery", "variables": [:], "query": .string(heroQuery.document)])
    }

    @Test("GET requests carry no Content-Type; POST requests do; additional headers replace defaults")
    func defaultHeaders() throws {
        var post = request()
        try post.additionalHeaders.set("accept", "application/json")
        let postRequest = try post.makeNetworkRequest()
        #expect(postRequest.headerFields.map(\.name) == ["X-APOLLO-OPERATION-NAME", "X-APOLLO-OPERATION-TYPE", "Content-Type", "accept"])
        var get = request()
        get.useGETForQueries = true
        #expect(try get.makeNetworkRequest().headerFields.contains("Content-Type") == false)
    }
}
