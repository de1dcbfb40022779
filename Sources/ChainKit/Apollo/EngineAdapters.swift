import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// An Apollo-shaped provider run by the chain engine, so the lab's instrumentation shows an
// app's own interceptors hop by hop. Each engine layer holds one of the provider's
// interceptors and calls it with a `JSONRequest<LoadedOperation>`; the built-in interceptors,
// which are engine layers themselves, are used as they are.

/// The engine's provider for an Apollo-shaped one; its store is the lab's cache.
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
        base.graphQLInterceptors(for: LoadedOperation(operation)).map { interceptor in
            (interceptor as? any ChainInterceptor) ?? ApolloGraphQLLayer(base: interceptor, activity: activity)
        }
    }

    package func cacheInterceptor(for operation: ChainOperation) -> any ChainCacheInterceptor {
        let interceptor = base.cacheInterceptor(for: LoadedOperation(operation))
        if interceptor is DefaultCacheInterceptor { return DefaultCacheInterceptor(store: store.cacheStore) }
        return ApolloCacheLayer(base: interceptor, store: store)
    }

    package func httpInterceptors(for operation: ChainOperation) -> [any ChainHTTPInterceptor] {
        base.httpInterceptors(for: LoadedOperation(operation)).map { interceptor in
            (interceptor as? any ChainHTTPInterceptor) ?? ApolloHTTPLayer(base: interceptor)
        }
    }

    package func responseParser(for operation: ChainOperation) -> any ChainResponseParser {
        let parser = base.responseParser(for: LoadedOperation(operation))
        return (parser as? any ChainResponseParser) ?? ApolloParserLayer(base: parser)
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

    /// `base` with what this request says: headers a layer left alone keep their place, new
    /// ones follow in name order.
    package func applied(to base: ChainRequest) -> ChainRequest {
        var request = base
        request.operation = operation.operation
        request.graphQLEndpoint = graphQLEndpoint
        request.fetchBehavior = fetchBehavior
        request.writeResultsToCache = writeResultsToCache
        request.requestTimeout = requestTimeout
        request.apqConfig = apqConfig
        request.useGETForQueries = useGETForQueries
        request.isPersistedQueryRetry = isPersistedQueryRetry
        request.additionalHeaders = base.additionalHeaders.updated(from: base.additionalHeaders.dictionary, to: additionalHeaders)
        return request
    }
}

/// The engine's form of an error an Apollo-shaped layer threw: its retry becomes the engine's.
private func engineError(_ error: any Error, base: ChainRequest) -> any Error {
    if let retry = error as? RequestChain<JSONRequest<LoadedOperation>>.Retry {
        return ChainRunner.Retry(request: retry.request.applied(to: base))
    }
    return error
}

private struct ApolloGraphQLLayer: ChainInterceptor, ApolloLayer {
    let base: any GraphQLInterceptor
    let activity: (any AppCodeActivity)?
    var wrappedLayer: Any { base }

    func intercept(request: ChainRequest, next: ChainNext) async throws -> ChainResultStream {
        let typed = JSONRequest(engine: request)
        let errorHandling = Locked<[Int]>([])
        let activity = self.activity
        let preflight = activity?.enter(handlingError: false)
        let results: AsyncThrowingStream<ParsedResult<LoadedOperation>, any Error>
        do {
            results = try await typed.operation.withCurrent {
                try await base.intercept(request: typed) { inner in
                    let below = await next(inner.applied(to: request))
                    return InterceptorResultStream<JSONRequest<LoadedOperation>>(stream: .executingInAsyncTask { continuation in
                        do {
                            for try await response in below {
                                continuation.yield(ParsedResult(result: try GraphQLResponse(response), cacheRecords: response.cacheRecords, origin: response))
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
            throw engineError(error, base: request)
        }
        if let preflight { await activity?.leave(preflight) }
        return PullStream {
            var iterator = results.makeAsyncIterator()
            return {
                let answer: Result<ChainResponse?, any Error>
                do {
                    answer = .success(try await iterator.next()?.chainResponse)
                } catch {
                    answer = .failure(engineError(error, base: request))
                }
                for token in errorHandling.withLock({ tokens in defer { tokens = [] }; return tokens }) { await activity?.leave(token) }
                return try answer.get()
            }
        }
    }
}

private struct ApolloCacheLayer: ChainCacheInterceptor, ApolloLayer {
    let base: any CacheInterceptor
    let store: ApolloStore
    var wrappedLayer: Any { base }

    func readCacheData(request: ChainRequest) async throws -> ChainResponse? {
        let typed = JSONRequest(engine: request)
        return try await typed.operation.withCurrent { try await base.readCacheData(from: store, request: typed) }?.chainResponse
    }

    func writeCacheData(request: ChainRequest, response: ChainResponse) async throws {
        let typed = JSONRequest(engine: request)
        let parsed = ParsedResult(result: try GraphQLResponse<LoadedOperation>(response), cacheRecords: response.cacheRecords, origin: response)
        try await typed.operation.withCurrent { try await base.writeCacheData(to: store, request: typed, response: parsed) }
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

private struct ApolloParserLayer: ChainResponseParser, ApolloLayer {
    let base: any ResponseParsingInterceptor
    var wrappedLayer: Any { base }

    func parse(response: NetworkResponse, for request: ChainRequest) async throws -> ChainResultStream {
        let typed = JSONRequest(engine: request)
        let results = try await typed.operation.withCurrent {
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
