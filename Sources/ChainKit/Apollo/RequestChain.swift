import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Runs one request through a provider's interceptors as Apollo iOS 2.4's `RequestChain`
/// does (`Sources/Apollo/RequestChain/RequestChain.swift`).
///
/// GraphQL interceptors wrap each other, element 0 outermost; below the innermost one the
/// cache is read as the request's ``FetchBehavior`` says, then the HTTP interceptors, the
/// session and the parser run. Every layer runs eagerly in a task of its own: the step below
/// the innermost `next` starts the moment `next` is called, so what an interceptor does after
/// calling `next` happens while the request is in flight. Throwing ``Retry`` restarts the
/// chain from the top; results the parser gave records for are written to the store at the
/// top when the request asks for it.
public struct RequestChain<Request: GraphQLRequest>: Sendable {
    /// Thrown by a GraphQL interceptor to run the chain again from the top with `request`.
    public struct Retry: Swift.Error {
        public let request: Request

        public init(request: Request) {
            self.request = request
        }
    }

    public typealias ResultStream = AsyncThrowingStream<GraphQLResponse<Request.Operation>, any Error>

    private let urlSession: any ApolloURLSession
    private let interceptors: Interceptors
    private let store: ApolloStore

    public init(urlSession: any ApolloURLSession, interceptors: Interceptors, store: ApolloStore) {
        self.urlSession = urlSession
        self.interceptors = interceptors
        self.store = store
    }

    /// The request's results; the request starts now, whether or not the stream is read.
    public func kickoff(request: Request) -> ResultStream {
        .executingInAsyncTask { continuation in
            var request = request
            while true {
                do {
                    try await run(request, into: continuation)
                    return
                } catch let retry as Retry {
                    request = retry.request
                }
            }
        }
    }

    private func run(_ initial: Request, into continuation: ResultStream.Continuation) async throws {
        let finalRequest = Locked<Request?>(nil)
        var next: @Sendable (Request) async -> InterceptorResultStream<Request> = { request in
            finalRequest.withLock { $0 = request }
            return execute(request)
        }
        for interceptor in interceptors.graphQL.reversed() {
            let inner = next
            next = { request in
                do {
                    return try await interceptor.intercept(request: request, next: inner)
                } catch {
                    return InterceptorResultStream<Request>(stream: AsyncThrowingStream { throw error })
                }
            }
        }
        var yielded = false
        for try await parsed in await next(initial).getStream() {
            try Task.checkCancellation()
            if let request = finalRequest.withLock({ $0 }), request.writeResultsToCache, parsed.result.source == .server,
                parsed.cacheRecords != nil {
                try await interceptors.cache.writeCacheData(to: store, request: request, response: parsed)
            }
            continuation.yield(parsed.result)
            yielded = true
        }
        guard yielded else { throw ApolloClient.Error.noResults }
    }

    /// The cache and network steps below the innermost GraphQL interceptor, started now.
    private func execute(_ request: Request) -> InterceptorResultStream<Request> {
        InterceptorResultStream<Request>(stream: .executingInAsyncTask { continuation in
            let behavior = request.fetchBehavior
            var readFromCache = false
            if behavior.shouldReadFromCache(hadFailedNetworkFetch: false) {
                do {
                    if let cached = try await interceptors.cache.readCacheData(from: store, request: request) {
                        readFromCache = true
                        continuation.yield(ParsedResult(result: cached, cacheRecords: nil))
                    }
                } catch {
                    if !behavior.shouldFetchFromNetwork(hadSuccessfulCacheRead: false) { throw error }
                }
            }
            guard behavior.shouldFetchFromNetwork(hadSuccessfulCacheRead: readFromCache) else {
                return
            }
            do {
                for try await parsed in try await fetch(request).getStream() {
                    continuation.yield(parsed)
                }
            } catch {
                guard behavior.shouldReadFromCache(hadFailedNetworkFetch: true),
                    let cached = try await interceptors.cache.readCacheData(from: store, request: request)
                else { throw error }
                continuation.yield(ParsedResult(result: cached, cacheRecords: nil))
            }
        })
    }

    /// The HTTP interceptors, the session and the parser.
    private func fetch(_ request: Request) async throws -> InterceptorResultStream<Request> {
        let session = urlSession
        var next: @Sendable (URLRequest) async throws -> HTTPResponse = { urlRequest in
            let (chunks, response) = try await session.chunks(for: urlRequest)
            guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
            return HTTPResponse(response: http, chunks: NonCopyableAsyncThrowingStream(stream: chunkStream(chunks)))
        }
        for interceptor in interceptors.http.reversed() {
            let inner = next
            next = { urlRequest in try await interceptor.intercept(request: urlRequest, next: inner) }
        }
        let response = try await next(try request.toURLRequest())
        return try await interceptors.parser.parse(response: response, for: request, includeCacheRecords: request.writeResultsToCache)
    }
}

/// The chunks of `sequence`, read in a task of their own.
private func chunkStream<S: AsyncChunkSequence>(_ sequence: S) -> AsyncThrowingStream<Data, any Error> {
    .executingInAsyncTask { continuation in
        for try await chunk in sequence { continuation.yield(chunk) }
    }
}
