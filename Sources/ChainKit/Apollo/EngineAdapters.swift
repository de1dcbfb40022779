import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Apollo-shaped interceptors run by the chain engine: ``RequestChain`` runs an app's provider
// this way, and so does the lab, whose instrumentation then shows the app's own interceptors
// hop by hop. Each engine layer holds one of the provider's interceptors and calls it with the
// app's own request type (``TypedRequests``); the built-in interceptors, which are engine
// layers themselves, are used as they are.

/// How the engine's requests of one operation become the app's own request type: the
/// request an app's layer receives is the last one an app's layer handed down (or retried
/// with), with what the engine's layers changed since.
package final class TypedRequests<Request: GraphQLRequest>: Sendable {
    private let latest: Locked<Request?>
    private let make: @Sendable (ChainRequest) -> Request

    /// Requests rebuilt from the engine's alone, for an operation known only at run time.
    package init() where Request == JSONRequest<LoadedOperation> {
        latest = Locked(nil)
        make = { JSONRequest(engine: $0) }
    }

    /// Requests that start from `request`, the one the app kicked off.
    package init(startingFrom request: Request) {
        latest = Locked(request)
        make = { _ in request }
    }

    /// The app's request for what the engine holds now.
    func typed(_ request: ChainRequest) -> Request {
        (latest.withLock { $0 } ?? make(request)).applying(engine: request)
    }

    /// An app's layer handed `request` down, or retried with it.
    func handed(_ request: Request) {
        latest.withLock { latest in
            if latest != nil { latest = request }
        }
    }

    /// The engine's form of an error an app's layer threw: its retry becomes the engine's.
    func engineError(_ error: any Error, base: ChainRequest) -> any Error {
        guard let retry = error as? RequestChain<Request>.Retry else { return error }
        handed(retry.request)
        return ChainRunner.Retry(request: retry.request.applied(to: base))
    }
}

extension ChainRunner.Interceptors {
    /// Engine layers for a provider's interceptors of one operation, its requests typed by
    /// `requests`; `store` is what the provider's cache interceptor reads and writes.
    package init<Request>(
        _ interceptors: Interceptors, store: ApolloStore, requests: TypedRequests<Request>, activity: (any AppCodeActivity)? = nil
    ) {
        self.init(
            graphQL: Self.layers(graphQL: interceptors.graphQL, requests: requests, activity: activity),
            cache: Self.layer(cache: interceptors.cache, store: store, requests: requests),
            http: Self.layers(http: interceptors.http),
            parser: Self.layer(parser: interceptors.parser, requests: requests))
    }

    /// The built-in interceptors are engine layers already; each of an app's is wrapped.
    static func layers<Request>(
        graphQL: [any GraphQLInterceptor], requests: TypedRequests<Request>, activity: (any AppCodeActivity)?
    ) -> [any ChainInterceptor] {
        graphQL.map { interceptor in
            (interceptor as? any ChainInterceptor) ?? ApolloGraphQLLayer(base: interceptor, requests: requests, activity: activity)
        }
    }

    static func layer<Request>(cache: any CacheInterceptor, store: ApolloStore, requests: TypedRequests<Request>) -> any ChainCacheInterceptor {
        cache is DefaultCacheInterceptor ? DefaultCacheInterceptor(store: store.cacheStore) : ApolloCacheLayer(base: cache, store: store, requests: requests)
    }

    static func layers(http: [any HTTPInterceptor]) -> [any ChainHTTPInterceptor] {
        http.map { interceptor in (interceptor as? any ChainHTTPInterceptor) ?? ApolloHTTPLayer(base: interceptor) }
    }

    static func layer<Request>(parser: any ResponseParsingInterceptor, requests: TypedRequests<Request>) -> any ChainResponseParser {
        (parser as? any ChainResponseParser) ?? ApolloParserLayer(base: parser, requests: requests)
    }
}

/// The engine's provider for an Apollo-shaped one; its store is the lab's cache. Each of its
/// methods asks the provider's own for one kind of interceptor, once.
package struct ApolloProviderAdapter: ChainInterceptorProvider {
    package let base: any InterceptorProvider
    package let store: ApolloStore
    package let activity: (any AppCodeActivity)?

    package init(_ base: any InterceptorProvider, store: ApolloStore, activity: (any AppCodeActivity)? = nil) {
        self.base = base
        self.store = store
        self.activity = activity
    }

    package func graphQLInterceptors(for operation: ChainOperation) -> [any ChainInterceptor] {
        ChainRunner.Interceptors.layers(graphQL: base.graphQLInterceptors(for: LoadedOperation(operation)), requests: TypedRequests(), activity: activity)
    }

    package func cacheInterceptor(for operation: ChainOperation) -> any ChainCacheInterceptor {
        ChainRunner.Interceptors.layer(cache: base.cacheInterceptor(for: LoadedOperation(operation)), store: store, requests: TypedRequests())
    }

    package func httpInterceptors(for operation: ChainOperation) -> [any ChainHTTPInterceptor] {
        ChainRunner.Interceptors.layers(http: base.httpInterceptors(for: LoadedOperation(operation)))
    }

    package func responseParser(for operation: ChainOperation) -> any ChainResponseParser {
        ChainRunner.Interceptors.layer(parser: base.responseParser(for: LoadedOperation(operation)), requests: TypedRequests())
    }
}

/// Told when a request starts and stops running an app's own interceptor code: its
/// pre-flight, and its error mapper from the moment an error reaches it until its stream
/// answers. A lab attributes what the app's code sends meanwhile to that request.
package protocol AppCodeActivity: Sendable {
    /// A token for ``leave(_:)``, or nil when no request is running. `handlingError`: the
    /// request's error has reached the app's error mapper, which runs until its stream
    /// answers.
    func enter(handlingError: Bool) -> Int?
    func leave(_ token: Int) async
}

/// A layer that stands for an app's own interceptor: hop lists and events use its name.
package protocol ApolloLayer {
    var wrappedLayer: Any { get }
}

extension ApolloLayer {
    /// The type name of the app's interceptor.
    package var wrappedLayerName: String { String(describing: type(of: wrappedLayer)) }
}

extension JSONRequest where Operation == LoadedOperation {
    /// The engine's request as an Apollo-shaped one, headers as the engine holds them.
    package init(engine request: ChainRequest) {
        self.init(
            operation: LoadedOperation(request.operation), graphQLEndpoint: request.graphQLEndpoint, fetchBehavior: request.fetchBehavior,
            writeResultsToCache: request.writeResultsToCache, requestTimeout: request.requestTimeout, apqConfig: request.apqConfig,
            useGETForQueries: request.useGETForQueries, requestBodyCreator: request.requestBodyCreator)
        isPersistedQueryRetry = request.isPersistedQueryRetry
        additionalHeaders = request.additionalHeaders.dictionary
    }
}

/// What a ``JSONRequest`` holds beyond every request's members, for the conversions below.
private protocol JSONRequestFields {
    var useGETForQueries: Bool { get set }
    var requestBodyCreator: any JSONRequestBodyCreator { get }
}

extension JSONRequest: JSONRequestFields {}

extension GraphQLRequest {
    /// This request with what the engine's `request` says; the operation stays this one's
    /// unless it is known only at run time.
    func applying(engine request: ChainRequest) -> Self {
        var typed = self
        if let loaded = LoadedOperation(request.operation) as? Operation { typed.operation = loaded }
        typed.graphQLEndpoint = request.graphQLEndpoint
        typed.additionalHeaders = request.additionalHeaders.dictionary
        typed.fetchBehavior = request.fetchBehavior
        typed.writeResultsToCache = request.writeResultsToCache
        typed.requestTimeout = request.requestTimeout
        if var apq = typed as? any AutoPersistedQueryCompatibleRequest {
            apq.apqConfig = request.apqConfig
            apq.isPersistedQueryRetry = request.isPersistedQueryRetry
            typed = apq as! Self
        }
        if var json = typed as? any JSONRequestFields {
            json.useGETForQueries = request.useGETForQueries
            typed = json as! Self
        }
        return typed
    }

    /// `base` with what this request says: headers a layer left alone keep their place, new
    /// ones follow in name order.
    package func applied(to base: ChainRequest) -> ChainRequest {
        var request = base
        request.operation = operation.chainOperation
        request.graphQLEndpoint = graphQLEndpoint
        request.fetchBehavior = fetchBehavior
        request.writeResultsToCache = writeResultsToCache
        request.requestTimeout = requestTimeout
        if let apq = self as? any AutoPersistedQueryCompatibleRequest {
            request.apqConfig = apq.apqConfig
            request.isPersistedQueryRetry = apq.isPersistedQueryRetry
        }
        if let json = self as? any JSONRequestFields {
            request.useGETForQueries = json.useGETForQueries
            request.requestBodyCreator = json.requestBodyCreator
        }
        request.additionalHeaders = base.additionalHeaders.updated(from: base.additionalHeaders.dictionary, to: additionalHeaders)
        return request
    }
}

/// Runs `body` with `operation` as the one a loaded operation's static members answer for.
private func withCurrent<Operation: GraphQLOperation, T: Sendable>(_ operation: Operation, _ body: () async throws -> T) async rethrows -> T {
    guard let loaded = operation as? LoadedOperation else { return try await body() }
    return try await loaded.withCurrent(body)
}

private struct ApolloGraphQLLayer<Request: GraphQLRequest>: ChainInterceptor, ApolloLayer {
    let base: any GraphQLInterceptor
    let requests: TypedRequests<Request>
    let activity: (any AppCodeActivity)?
    var wrappedLayer: Any { base }

    func intercept(request: ChainRequest, next: ChainNext) async throws -> ChainResultStream {
        let typed = requests.typed(request)
        let errorHandling = Locked<[Int]>([])
        let activity = self.activity, requests = self.requests
        let preflight = activity?.enter(handlingError: false)
        let results: AsyncThrowingStream<ParsedResult<Request.Operation>, any Error>
        do {
            results = try await withCurrent(typed.operation) {
                try await base.intercept(request: typed) { inner in
                    requests.handed(inner)
                    let below = await next(inner.applied(to: request))
                    return InterceptorResultStream<Request>(stream: .executingInAsyncTask { continuation in
                        do {
                            for try await response in below {
                                continuation.yield(
                                    ParsedResult(result: try GraphQLResponse(response), cacheRecords: response.cacheRecords, origin: response))
                            }
                        } catch {
                            // The app's error mapper runs now.
                            if let token = activity?.enter(handlingError: true) { errorHandling.withLock { $0.append(token) } }
                            throw error
                        }
                    })
                }.getStream()
            }
        } catch {
            if let preflight { await activity?.leave(preflight) }
            throw requests.engineError(error, base: request)
        }
        if let preflight { await activity?.leave(preflight) }
        return PullStream {
            var iterator = results.makeAsyncIterator()
            return {
                let answer: Result<ChainResponse?, any Error>
                do {
                    answer = .success(try await iterator.next()?.chainResponse)
                } catch {
                    answer = .failure(requests.engineError(error, base: request))
                }
                for token in errorHandling.withLock({ tokens in defer { tokens = [] }; return tokens }) { await activity?.leave(token) }
                return try answer.get()
            }
        }
    }
}

private struct ApolloCacheLayer<Request: GraphQLRequest>: ChainCacheInterceptor, ApolloLayer {
    let base: any CacheInterceptor
    let store: ApolloStore
    let requests: TypedRequests<Request>
    var wrappedLayer: Any { base }

    func readCacheData(request: ChainRequest) async throws -> ChainResponse? {
        let typed = requests.typed(request)
        return try await withCurrent(typed.operation) { try await base.readCacheData(from: store, request: typed) }?.chainResponse
    }

    func writeCacheData(request: ChainRequest, response: ChainResponse) async throws {
        let typed = requests.typed(request)
        let parsed = ParsedResult(result: try GraphQLResponse<Request.Operation>(response), cacheRecords: response.cacheRecords, origin: response)
        try await withCurrent(typed.operation) { try await base.writeCacheData(to: store, request: typed, response: parsed) }
    }
}

private struct ApolloHTTPLayer: ChainHTTPInterceptor, ApolloLayer {
    let base: any HTTPInterceptor
    var wrappedLayer: Any { base }

    func intercept(request: NetworkRequest, next: ChainHTTPNext) async throws -> NetworkResponse {
        let response = try await base.intercept(request: request.urlRequest) { inner in
            HTTPResponse(engine: try await next(request.applying(inner)))
        }
        return response.networkResponse(for: request.url)
    }
}

private struct ApolloParserLayer<Request: GraphQLRequest>: ChainResponseParser, ApolloLayer {
    let base: any ResponseParsingInterceptor
    let requests: TypedRequests<Request>
    var wrappedLayer: Any { base }

    func parse(response: NetworkResponse, for request: ChainRequest) async throws -> ChainResultStream {
        let typed = requests.typed(request)
        let results = try await withCurrent(typed.operation) {
            try await base.parse(response: HTTPResponse(engine: response), for: typed, includeCacheRecords: request.writeResultsToCache).getStream()
        }
        return PullStream(results).map(\.chainResponse)
    }
}

extension HTTPResponse {
    /// The engine's response, its chunks read as they are asked for.
    init(engine response: NetworkResponse) {
        let chunks = response.chunks
        let status = (0...999).contains(response.status) ? Status(code: response.status) : Status(code: 0)
        self.init(
            status: status, headerFields: response.headerFields,
            chunked: ChunkedBody(url: response.url, chunks: .executingInAsyncTask { continuation in
                for try await chunk in chunks { continuation.yield(chunk) }
            }))
    }
}

extension NetworkRequest {
    /// This request with what `urlRequest` says: method, URL, body, timeout, and headers; a
    /// header left alone keeps its place, a new one follows in name order.
    func applying(_ urlRequest: URLRequest) -> NetworkRequest {
        var request = self
        if let name = urlRequest.httpMethod, let method = HTTPMethod(name) { request.method = method }
        if let url = urlRequest.url { request.url = url }
        request.body = urlRequest.httpBody
        let sent = self.urlRequest
        if urlRequest.timeoutInterval != sent.timeoutInterval { request.timeoutInterval = urlRequest.timeoutInterval }
        request.headerFields = headerFields.updated(from: sent.allHTTPHeaderFields ?? [:], to: urlRequest.allHTTPHeaderFields ?? [:])
        return request
    }
}
