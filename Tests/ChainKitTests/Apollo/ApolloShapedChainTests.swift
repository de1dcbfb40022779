import ChainKit
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import Testing

/// A session that answers from a closure and remembers what it was sent.
private final class ScriptedSession: ApolloURLSession {
    let answer: @Sendable (URLRequest) async throws -> (status: Int, headers: [String: String], chunks: [Data])
    let sent = Mutex<[URLRequest]>([])

    init(answer: @escaping @Sendable (URLRequest) async throws -> (status: Int, headers: [String: String], chunks: [Data])) {
        self.answer = answer
    }

    /// A session that answers every request with `body` as JSON.
    convenience init(json body: String) {
        self.init { _ in (200, ["Content-Type": "application/json"], [Data(body.utf8)]) }
    }

    func chunks(for request: URLRequest) async throws -> (any AsyncChunkSequence, URLResponse) {
        sent.withLock { $0.append(request) }
        let (status, headers, chunks) = try await answer(request)
        return (PullStream(chunks), HTTPURLResponse(url: request.url!, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)!)
    }

    var requests: [URLRequest] { sent.withLock { $0 } }
}

private struct HeroQuery: GraphQLQuery {
    static let operationName = "HeroQuery"
    static let operationDocument = OperationDocument(definition: OperationDefinition("query HeroQuery { hero { id name } }"))
}

private struct RenameHero: GraphQLMutation {
    static let operationName = "RenameHero"
    static let operationDocument = OperationDocument(
        definition: OperationDefinition("mutation RenameHero($name: String!) { renameHero(name: $name) { id name } }"))
    var name: String
    var __variables: Variables? { ["name": name] }
}

/// Provides only GraphQL interceptors; everything else is upstream's default.
private struct GraphQLOnlyProvider: InterceptorProvider {
    let make: @Sendable () -> [any GraphQLInterceptor]
    func graphQLInterceptors<Operation: GraphQLOperation>(for operation: Operation) -> [any GraphQLInterceptor] { make() }
}

private let heroJSON = #"{"data":{"hero":{"id":"2001","name":"R2-D2"}}}"#
private let apolloEndpoint = URL(string: "http://lab.invalid/graphql")!

private func client(_ session: ScriptedSession, provider: some InterceptorProvider = DefaultInterceptorProvider.shared, store: ApolloStore = ApolloStore()) -> ApolloClient {
    ApolloClient(
        networkTransport: RequestChainNetworkTransport(urlSession: session, interceptorProvider: provider, store: store, endpointURL: apolloEndpoint),
        store: store)
}

/// Upstream: apollo-ios Sources/Apollo/RequestChain/RequestChain.swift, GraphQLRequest.swift,
/// JSONRequest.swift, Interceptors/InterceptorProvider.swift, NonCopyableAsyncThrowingStream.swift.
@Suite("The Apollo-shaped chain")
struct ApolloShapedChainTests {
    @Test("a hand-written operation needs only its name and document; its Data is the JSON the server sent")
    func handWrittenOperation() async throws {
        let session = ScriptedSession(json: heroJSON)
        let response = try await client(session).fetch(query: HeroQuery())
        #expect(response.data?.hero == ["id": "2001", "name": "R2-D2"])
        #expect(response.data?.__data == ["hero": ["id": "2001", "name": "R2-D2"]])
        #expect(response.source == .server)
        #expect(HeroQuery.operationType == .query)
    }

    @Test("JSONRequest: upstream's default headers in additionalHeaders, the body as ChainKit builds it, variables from __variables")
    func jsonRequest() throws {
        let request = JSONRequest(
            operation: RenameHero(name: "Artoo"), graphQLEndpoint: apolloEndpoint, fetchBehavior: .NetworkOnly, writeResultsToCache: true,
            requestTimeout: 5)
        #expect(request.additionalHeaders == [
            "Content-Type": "application/json",
            "Accept": "multipart/mixed;deferSpec=20220824,application/graphql-response+json,application/json",
        ])
        let urlRequest = try request.toURLRequest()
        #expect(urlRequest.httpMethod == "POST")
        #expect(urlRequest.timeoutInterval == 5)
        #expect(urlRequest.value(forHTTPHeaderField: "Content-Type") == "application/json")
        let body = try JSONValue(parsing: try #require(urlRequest.httpBody))
        #expect(body == [
            "operationName": "RenameHero",
            "query": "mutation RenameHero($name: String!) { renameHero(name: $name) { id name } }",
            "variables": ["name": "Artoo"],
        ])
    }

    @Test("a query sent as GET carries Apollo-Require-Preflight and no Content-Type")
    func getRequest() throws {
        let request = JSONRequest(
            operation: HeroQuery(), graphQLEndpoint: apolloEndpoint, fetchBehavior: .NetworkOnly, writeResultsToCache: true, requestTimeout: nil,
            useGETForQueries: true)
        let urlRequest = try request.toURLRequest()
        #expect(urlRequest.httpMethod == "GET")
        #expect(urlRequest.value(forHTTPHeaderField: "Content-Type") == nil)
        #expect(urlRequest.value(forHTTPHeaderField: "Apollo-Require-Preflight") == "true")
        #expect(urlRequest.url?.absoluteString == "http://lab.invalid/graphql?operationName=HeroQuery&query=query%20HeroQuery%20%7B%20hero%20%7B%20id%20name%20%7D%20%7D")
    }

    @Test("a provider that overrides only graphQLInterceptors gets upstream's cache interceptor, ResponseCodeInterceptor and JSON parser")
    func providerDefaults() {
        let interceptors = GraphQLOnlyProvider { [] }.interceptors(for: HeroQuery())
        #expect(interceptors.graphQL.isEmpty)
        #expect(interceptors.cache is DefaultCacheInterceptor)
        #expect(interceptors.http.map { String(describing: type(of: $0)) } == ["ResponseCodeInterceptor"])
        #expect(interceptors.parser is JSONResponseParsingInterceptor)
        let defaults = DefaultInterceptorProvider.shared.graphQLInterceptors(for: HeroQuery())
        #expect(defaults.map { String(describing: type(of: $0)) } == ["MaxRetryInterceptor", "AutomaticPersistedQueryInterceptor"])
    }

    /// Waits, after calling `next`, until the session has been asked: the network step must
    /// have started when `next` was called, before anybody reads the stream.
    struct WaitsForTheNetwork: GraphQLInterceptor {
        fileprivate let session: ScriptedSession
        let sawRequestBeforeReturning: Locked<Bool>

        func intercept<Request: GraphQLRequest>(request: Request, next: NextInterceptorFunction<Request>) async throws -> InterceptorResultStream<Request> {
            let stream = await next(request)
            for _ in 0..<500 where session.requests.isEmpty { try await Task.sleep(for: .milliseconds(10)) }
            sawRequestBeforeReturning.withLock { $0 = !session.requests.isEmpty }
            return stream
        }
    }

    @Test("eager: the network step starts when next is called, so an interceptor's work after next overlaps the request")
    func eagerExecution() async throws {
        let session = ScriptedSession(json: heroJSON)
        let saw = WaitsForTheNetwork(session: session, sawRequestBeforeReturning: Locked(false))
        let response = try await client(session, provider: GraphQLOnlyProvider { [saw] }).fetch(query: HeroQuery(), cachePolicy: .networkOnly)
        #expect(saw.sawRequestBeforeReturning.withLock { $0 })
        #expect(response.data?.hero == ["id": "2001", "name": "R2-D2"])
    }

    @Test("a stream is read once: each map sees every element once, and only the last stream's reader gets them")
    func streamReadOnce() async throws {
        let seen = Mutex<[Int]>([])
        let source = NonCopyableAsyncThrowingStream<Int>(stream: AsyncThrowingStream { continuation in
            for value in 1...3 { continuation.yield(value) }
            continuation.finish()
        })
        let mapped = await source.map { value in
            seen.withLock { $0.append(value) }
            return value * 10
        }
        var read: [Int] = []
        for try await value in mapped.getStream() { read.append(value) }
        #expect(read == [10, 20, 30])
        #expect(seen.withLock { $0 } == [1, 2, 3])
    }

    /// Turns the first 401 into a retry of the original request, as Apollo's documented auth
    /// interceptor does.
    struct RetryOn401: GraphQLInterceptor {
        let passes: Locked<Int>

        func intercept<Request: GraphQLRequest>(request: Request, next: NextInterceptorFunction<Request>) async throws -> InterceptorResultStream<Request> {
            let originalRequest = request
            var request = request
            let pass = passes.withLock { $0 += 1; return $0 }
            request.additionalHeaders["Authorization"] = "Bearer token-\(pass)"
            return await next(request).mapErrors { error in
                guard let error = error as? ResponseCodeInterceptor.ResponseCodeError, error.response.statusCode == 401 else { throw error }
                throw RequestChain.Retry(request: originalRequest)
            }
        }
    }

    @Test("mapErrors + RequestChain.Retry: the chain runs again from the top with the original request")
    func retry() async throws {
        let session = ScriptedSession { request in
            request.value(forHTTPHeaderField: "Authorization") == "Bearer token-1"
                ? (401, ["Content-Type": "application/json"], [Data(#"{"errors":[{"message":"expired"}]}"#.utf8)])
                : (200, ["Content-Type": "application/json"], [Data(heroJSON.utf8)])
        }
        let retry = RetryOn401(passes: Locked(0))
        let response = try await client(session, provider: GraphQLOnlyProvider { [MaxRetryInterceptor(), retry] }).fetch(
            query: HeroQuery(), cachePolicy: .networkOnly)
        #expect(response.data?.hero?["name"] == "R2-D2")
        #expect(session.requests.map { $0.value(forHTTPHeaderField: "Authorization") } == ["Bearer token-1", "Bearer token-2"])
    }

    @Test("a server result with records is written at the top and read back under CacheOnly; an empty cache answers nil")
    func cache() async throws {
        let session = ScriptedSession(json: heroJSON)
        let apollo = client(session)
        #expect(try await apollo.fetch(query: HeroQuery(), cachePolicy: .cacheOnly) == nil)
        _ = try await apollo.fetch(query: HeroQuery(), cachePolicy: .networkOnly)
        let cached = try await apollo.fetch(query: HeroQuery(), cachePolicy: .cacheOnly)
        #expect(cached?.source == .cache)
        #expect(cached?.data?.hero == ["id": "2001", "name": "R2-D2"])
        #expect(session.requests.count == 1)
    }

    @Test("an answer with no body has no chunk and so no result: ApolloClient.Error.noResults")
    func noResults() async throws {
        let session = ScriptedSession { _ in (401, [:], []) }
        await #expect(throws: ApolloClient.Error.noResults) {
            try await client(session, provider: GraphQLOnlyProvider { [] }).fetch(query: HeroQuery(), cachePolicy: .networkOnly)
        }
    }

    /// Reads the operation's name the way an app's interceptor does.
    struct RecordsName: GraphQLInterceptor {
        let names: Locked<[String]>
        func intercept<Request: GraphQLRequest>(request: Request, next: NextInterceptorFunction<Request>) async throws -> InterceptorResultStream<Request> {
            names.withLock { $0.append(Request.Operation.operationName) }
            return await next(request)
        }
    }

    @Test("an operation loaded at run time answers Request.Operation.operationName with its own name")
    func loadedOperation() async throws {
        let loaded = LoadedOperation(ChainOperation(name: "HeroDetails", kind: .query, document: "query HeroDetails { hero { id } }"))
        let recorder = RecordsName(names: Locked([]))
        let session = ScriptedSession(json: #"{"data":{"hero":{"id":"2001"}}}"#)
        let request = JSONRequest(operation: loaded, graphQLEndpoint: apolloEndpoint, fetchBehavior: .NetworkOnly, writeResultsToCache: false, requestTimeout: nil)
        let chain = RequestChain<JSONRequest<LoadedOperation>>(
            urlSession: session, interceptors: GraphQLOnlyProvider { [recorder] }.interceptors(for: loaded), store: ApolloStore())
        let results = try await loaded.withCurrent {
            var results: [GraphQLResponse<LoadedOperation>] = []
            for try await result in chain.kickoff(request: request) { results.append(result) }
            return results
        }
        #expect(recorder.names.withLock { $0 } == ["HeroDetails"])
        #expect(results.map(\.data?.hero) == [["id": "2001"]])
        let body = try JSONValue(parsing: try #require(session.requests.first?.httpBody))
        #expect(body["operationName"] == "HeroDetails")
    }

    @Test("a URLSession sends through one reader for as long as it lives, so its connections are reused")
    func oneReaderPerSession() {
        let first = URLSession(configuration: .ephemeral)
        let second = URLSession(configuration: .ephemeral)
        #expect(SessionReaders.reader(for: first) === SessionReaders.reader(for: first))
        #expect(SessionReaders.reader(for: first) !== SessionReaders.reader(for: second))
    }

    /// Records what a generic interceptor learns of the request it is called with.
    struct RecordsRequestType: GraphQLInterceptor {
        let seen: Locked<[String]>

        func intercept<Request: GraphQLRequest>(request: Request, next: NextInterceptorFunction<Request>) async throws -> InterceptorResultStream<Request> {
            let name = (request.operation as? RenameHero)?.name ?? "-"
            seen.withLock { $0.append("\(Request.self) \(Request.Operation.operationName) name=\(name)") }
            return await next(request)
        }
    }

    @Test("RequestChain calls each interceptor with the app's own Request type and operation value, on every pass")
    func requestTypeReachesInterceptors() async throws {
        let session = ScriptedSession { request in
            request.value(forHTTPHeaderField: "Authorization") == "Bearer token-1"
                ? (401, ["Content-Type": "application/json"], [Data(#"{"errors":[{"message":"expired"}]}"#.utf8)])
                : (200, ["Content-Type": "application/json"], [Data(#"{"data":{"renameHero":{"id":"2001","name":"Artoo"}}}"#.utf8)])
        }
        let recorder = RecordsRequestType(seen: Locked([]))
        let retry = RetryOn401(passes: Locked(0))
        let response = try await client(session, provider: GraphQLOnlyProvider { [MaxRetryInterceptor(), retry, recorder] })
            .perform(mutation: RenameHero(name: "Artoo"))
        #expect(response.data?.renameHero == ["id": "2001", "name": "Artoo"])
        let pass = "JSONRequest<RenameHero> RenameHero name=Artoo"
        #expect(recorder.seen.withLock { $0 } == [pass, pass])
    }

    /// A request type of an app's own: a JSON POST with a header only its `toURLRequest` adds.
    struct SignedRequest<Operation: GraphQLOperation>: GraphQLRequest {
        var graphQLEndpoint: URL
        var operation: Operation
        var additionalHeaders: [String: String] = [:]
        var fetchBehavior: FetchBehavior = .NetworkOnly
        var writeResultsToCache = false
        var requestTimeout: TimeInterval?

        func toURLRequest() throws -> URLRequest {
            var request = JSONRequest(
                operation: operation, graphQLEndpoint: graphQLEndpoint, fetchBehavior: fetchBehavior, writeResultsToCache: writeResultsToCache,
                requestTimeout: requestTimeout)
            request.addHeaders(additionalHeaders)
            var urlRequest = try request.toURLRequest()
            urlRequest.setValue("app", forHTTPHeaderField: "X-Signed-By")
            return urlRequest
        }
    }

    /// Adds a header and remembers the request type it was called with.
    struct AddsHeader: GraphQLInterceptor {
        let seen: Locked<[String]>

        func intercept<Request: GraphQLRequest>(request: Request, next: NextInterceptorFunction<Request>) async throws -> InterceptorResultStream<Request> {
            seen.withLock { $0.append("\(Request.self)") }
            var request = request
            request.additionalHeaders["X-Trace"] = "t-1"
            return await next(request)
        }
    }

    @Test("a request type of the app's own reaches its interceptors as itself, and its own toURLRequest builds the HTTP request")
    func appRequestType() async throws {
        let session = ScriptedSession(json: heroJSON)
        let seen = AddsHeader(seen: Locked([]))
        let request = SignedRequest(graphQLEndpoint: apolloEndpoint, operation: HeroQuery())
        let chain = RequestChain<SignedRequest<HeroQuery>>(
            urlSession: session, interceptors: GraphQLOnlyProvider { [seen] }.interceptors(for: HeroQuery()), store: ApolloStore())
        var results: [GraphQLResponse<HeroQuery>] = []
        for try await result in chain.kickoff(request: request) { results.append(result) }
        #expect(results.map(\.data?.hero) == [["id": "2001", "name": "R2-D2"]])
        #expect(seen.seen.withLock { $0 } == ["SignedRequest<HeroQuery>"])
        let sent = try #require(session.requests.first)
        #expect(sent.value(forHTTPHeaderField: "X-Signed-By") == "app")
        #expect(sent.value(forHTTPHeaderField: "X-Trace") == "t-1")
    }

    /// A mutation with an `Upload` variable.
    struct UploadFile: GraphQLMutation {
        static let operationName = "UploadFile"
        static let operationDocument = OperationDocument(
            definition: OperationDefinition("mutation UploadFile($file: Upload!) { singleUpload(file: $file) { id } }"))
        var __variables: Variables? { ["file": "a.txt"] }
    }

    // Upstream: apollo-ios Sources/Apollo/RequestChain/UploadRequest.swift (the form after the
    // GraphQL multipart request spec), MultipartFormData.swift (each part's bytes).
    @Test("an upload is one multipart/form-data POST through the chain: operations with the file's variable null, the map, then the file")
    func upload() async throws {
        let session = ScriptedSession(json: #"{"data":{"singleUpload":{"id":"f1"}}}"#)
        let file = GraphQLFile(fieldName: "file", originalName: "a.txt", mimeType: "text/plain", data: Data("hello".utf8))
        let request = UploadRequest(
            operation: UploadFile(), graphQLEndpoint: apolloEndpoint, files: [file], multipartBoundary: "b-1", writeResultsToCache: false)
        let seen = AddsHeader(seen: Locked([]))
        let chain = RequestChain<UploadRequest<UploadFile>>(
            urlSession: session, interceptors: GraphQLOnlyProvider { [seen] }.interceptors(for: UploadFile()), store: ApolloStore())
        var results: [GraphQLResponse<UploadFile>] = []
        for try await result in chain.kickoff(request: request) { results.append(result) }
        #expect(results.map(\.data?.singleUpload) == [["id": "f1"]])
        #expect(seen.seen.withLock { $0 } == ["UploadRequest<UploadFile>"])
        let sent = try #require(session.requests.first)
        #expect(sent.httpMethod == "POST")
        #expect(sent.value(forHTTPHeaderField: "Content-Type") == "multipart/form-data; boundary=b-1")
        #expect(sent.value(forHTTPHeaderField: "X-Trace") == "t-1")
        let body = String(decoding: try #require(sent.httpBody), as: UTF8.self)
        #expect(body == [
            "--b-1",
            #"Content-Disposition: form-data; name="operations""#,
            "",
            #"{"operationName":"UploadFile","query":"mutation UploadFile($file: Upload!) { singleUpload(file: $file) { id } }","variables":{"file":null}}"#,
            "--b-1",
            #"Content-Disposition: form-data; name="map""#,
            "",
            #"{"0":["variables.file"]}"#,
            "--b-1",
            #"Content-Disposition: form-data; name="0"; filename="a.txt""#,
            "Content-Type: text/plain",
            "",
            "hello",
            "--b-1--",
        ].joined(separator: "\r\n"))
    }

    @Test("ApolloClient.upload sends through RequestChainNetworkTransport; several files for one variable go at its indices")
    func clientUpload() async throws {
        let session = ScriptedSession(json: #"{"data":{"singleUpload":{"id":"f1"}}}"#)
        let files = [
            GraphQLFile(fieldName: "file", originalName: "a.txt", data: Data("A".utf8)),
            GraphQLFile(fieldName: "file", originalName: "b.txt", data: Data("B".utf8)),
        ]
        let response = try await client(session).upload(operation: UploadFile(), files: files)
        #expect(response.data?.singleUpload == ["id": "f1"])
        let sent = try #require(session.requests.first)
        let contentType = try #require(sent.value(forHTTPHeaderField: "Content-Type"))
        #expect(contentType.hasPrefix("multipart/form-data; boundary=apollo-ios.boundary."))
        let body = String(decoding: try #require(sent.httpBody), as: UTF8.self)
        #expect(body.contains(#"{"0":["variables.file.0"],"1":["variables.file.1"]}"#))
        #expect(body.contains(#"name="1"; filename="b.txt"\#r\#nContent-Type: application/octet-stream\#r\#n\#r\#nB\#r\#n"#))
    }

    /// Counts how often each kind of interceptor is asked for.
    final class CountingProvider: InterceptorProvider {
        let asked = Locked<[String]>([])

        func graphQLInterceptors<Operation: GraphQLOperation>(for operation: Operation) -> [any GraphQLInterceptor] {
            asked.withLock { $0.append("graphQL") }
            return [MaxRetryInterceptor()]
        }

        func cacheInterceptor<Operation: GraphQLOperation>(for operation: Operation) -> any CacheInterceptor {
            asked.withLock { $0.append("cache") }
            return DefaultCacheInterceptor()
        }

        func httpInterceptors<Operation: GraphQLOperation>(for operation: Operation) -> [any HTTPInterceptor] {
            asked.withLock { $0.append("http") }
            return []
        }

        func responseParser<Operation: GraphQLOperation>(for operation: Operation) -> any ResponseParsingInterceptor {
            asked.withLock { $0.append("parser") }
            return JSONResponseParsingInterceptor()
        }
    }

    @Test("the lab asks an app's provider for each kind of interceptor once per operation")
    func providerAskedOnce() {
        let provider = CountingProvider()
        let operation = ChainOperation(name: "HeroQuery", kind: .query, document: "query HeroQuery { hero { id } }")
        let layers = ChainRunner.Interceptors(provider: ApolloProviderAdapter(provider, store: ApolloStore()), operation: operation)
        #expect(provider.asked.withLock { $0 } == ["graphQL", "cache", "http", "parser"])
        #expect(layers.graphQL.count == 1)
    }
}
