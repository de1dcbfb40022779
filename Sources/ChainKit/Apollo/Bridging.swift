public import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

// Between the Apollo-shaped API and the chain engine: the built-in interceptors are written
// once, against the engine, and these conversions give them Apollo's signatures too.

/// A request that can say exactly how the engine describes it (``JSONRequest`` can).
protocol ChainRequestConvertible {
    var chainRequest: ChainRequest { get }
}

extension JSONRequest: ChainRequestConvertible {}

extension GraphQLRequest {
    /// This request as the engine describes one: exact for a ``JSONRequest``; for another
    /// request type, made from the members every request has.
    public var engineRequest: ChainRequest {
        if let convertible = self as? any ChainRequestConvertible { return convertible.chainRequest }
        return ChainRequest(
            operation: operation.chainOperation, graphQLEndpoint: graphQLEndpoint, additionalHeaders: HTTPFields(dictionary: additionalHeaders),
            fetchBehavior: fetchBehavior, writeResultsToCache: writeResultsToCache, requestTimeout: requestTimeout)
    }
}

extension PullStream {
    /// The elements of an `AsyncThrowingStream`, read on demand.
    init(_ stream: AsyncThrowingStream<Element, any Error>) {
        self.init {
            var iterator = stream.makeAsyncIterator()
            return { try await iterator.next() }
        }
    }
}

extension NonCopyableAsyncThrowingStream {
    /// The engine's results for `Request`, decoded into its operation's `Data`.
    static func results<Request: GraphQLRequest>(
        of stream: ChainResultStream, for request: Request.Type
    ) -> InterceptorResultStream<Request> where Element == ParsedResult<Request.Operation> {
        InterceptorResultStream<Request>(stream: stream.map { response in
            ParsedResult(result: try GraphQLResponse<Request.Operation>(response), cacheRecords: response.cacheRecords, origin: response)
        })
    }
}

// MARK: - The built-in interceptors, with Apollo's signatures

extension MaxRetryInterceptor: GraphQLInterceptor {
    /// Upstream's: `maxRetriesAllowed` retries after the first pass, no backoff.
    public convenience init(maxRetriesAllowed: Int = MaxRetryInterceptor.defaultMaxRetries) {
        self.init(maxRetries: maxRetriesAllowed)
    }

    /// Upstream's configuration; backoff only when `enableExponentialBackoff` is set.
    public struct Configuration: Sendable {
        public let maxRetries: Int
        public let baseDelay: TimeInterval
        public let multiplier: Double
        public let maxDelay: TimeInterval
        public let enableExponentialBackoff: Bool
        public let enableJitter: Bool

        public init(
            maxRetries: Int = 3, baseDelay: TimeInterval = 0.3, multiplier: Double = 2.0, maxDelay: TimeInterval = 20.0,
            enableExponentialBackoff: Bool = false, enableJitter: Bool = true
        ) {
            self.maxRetries = maxRetries
            self.baseDelay = baseDelay
            self.multiplier = multiplier
            self.maxDelay = maxDelay
            self.enableExponentialBackoff = enableExponentialBackoff
            self.enableJitter = enableJitter
        }
    }

    public convenience init(configuration: Configuration) {
        let backoff = configuration.enableExponentialBackoff
            ? Backoff(
                baseDelay: .nanoseconds(Int64(configuration.baseDelay * 1e9)), multiplier: configuration.multiplier,
                maxDelay: .nanoseconds(Int64(configuration.maxDelay * 1e9)), jitter: configuration.enableJitter)
            : nil
        self.init(maxRetries: configuration.maxRetries, backoff: backoff)
    }

    public typealias MaxRetriesError = ChainKit.MaxRetriesError

    public func intercept<Request: GraphQLRequest>(
        request: Request, next: NextInterceptorFunction<Request>
    ) async throws -> InterceptorResultStream<Request> {
        try await pass(operationName: Request.Operation.operationName)
        return await next(request)
    }
}

extension AutomaticPersistedQueryInterceptor: GraphQLInterceptor {
    public func intercept<Request: GraphQLRequest>(
        request: Request, next: NextInterceptorFunction<Request>
    ) async throws -> InterceptorResultStream<Request> {
        guard let apqRequest = request as? any AutoPersistedQueryCompatibleRequest, apqRequest.apqConfig.autoPersistQueries else {
            return await next(request)
        }
        let check = PersistedQueryCheck(request: request.engineRequest)
        return await next(request).map { parsed in
            guard let retry = try check.retry(after: parsed.result.chainResponse) else { return parsed }
            var again = request as! any AutoPersistedQueryCompatibleRequest
            again.isPersistedQueryRetry = retry.isPersistedQueryRetry
            again.fetchBehavior = retry.fetchBehavior
            throw RequestChain<Request>.Retry(request: again as! Request)
        }
    }
}

extension ResponseCodeInterceptor: HTTPInterceptor {
    public typealias ResponseCodeError = ChainKit.ResponseCodeError

    public func intercept(request: URLRequest, next: NextHTTPInterceptorFunction) async throws -> HTTPResponse {
        let url = request.url
        return try await next(request).mapChunks { response, chunk in
            guard response.isSuccessful else {
                throw ResponseCodeError(response: NetworkResponse(httpURLResponse: response, fallbackURL: url), chunk: chunk)
            }
            return chunk
        }
    }
}

extension NetworkResponse {
    /// A response head with no body, from Foundation's.
    init(httpURLResponse response: HTTPURLResponse, fallbackURL: URL?) {
        self.init(
            status: response.statusCode, headerFields: URLSessionTransport.headerFields(of: response), url: response.url ?? fallbackURL ?? URL(string: "about:blank")!, chunks: .empty)
    }

    /// The status code, as Foundation's `HTTPURLResponse` names it.
    public var statusCode: Int { status }
}

extension DefaultCacheInterceptor: CacheInterceptor {
    /// Upstream's: the store comes from the chain, with each call.
    public init() {
        self.init(store: CacheStore())
    }

    public func readCacheData<Request: GraphQLRequest>(from store: ApolloStore, request: Request) async throws -> GraphQLResponse<Request.Operation>? {
        try await store.load(request.operation)
    }

    public func writeCacheData<Request: GraphQLRequest>(to store: ApolloStore, request: Request, response: ParsedResult<Request.Operation>) async throws {
        if let records = response.cacheRecords { try await store.publish(records: records) }
    }
}

extension JSONResponseParsingInterceptor: ResponseParsingInterceptor {
    public func parse<Request: GraphQLRequest>(
        response: consuming HTTPResponse, for request: Request, includeCacheRecords: Bool
    ) async throws -> InterceptorResultStream<Request> {
        var engineRequest = request.engineRequest
        engineRequest.writeResultsToCache = includeCacheRecords
        let stream = try await parse(response: response.networkResponse(for: request.graphQLEndpoint), for: engineRequest)
        return .results(of: stream, for: Request.self)
    }
}
