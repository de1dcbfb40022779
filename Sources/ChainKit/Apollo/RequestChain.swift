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
///
/// The chain is ``ChainRunner``, the one engine the lab instruments too: each of the
/// provider's interceptors becomes one of its layers, called with this chain's own `Request`
/// type, and the HTTP request is the one `Request.toURLRequest()` builds.
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
        let requests = TypedRequests(startingFrom: request)
        var layers = ChainRunner.Interceptors(interceptors, store: store, requests: requests)
        layers.networkRequest = { engine in try engine.makeNetworkRequest().applying(requests.typed(engine).toURLRequest()) }
        let engine = ChainRunner(interceptors: layers, transport: SessionTransport(session: urlSession), overlapsNetworkFetch: true, executesInTask: true)
        let results = engine.kickoff(request: request.engineRequest)
        return .executingInAsyncTask { continuation in
            do {
                for try await response in results { continuation.yield(try GraphQLResponse(response)) }
            } catch RequestChainError.noResults {
                throw ApolloClient.Error.noResults
            }
        }
    }
}

/// The engine's transport for an ``ApolloURLSession``: the body's chunks are read in a task of
/// their own as they arrive.
private struct SessionTransport: GraphQLTransport {
    let session: any ApolloURLSession

    func send(_ request: NetworkRequest) async throws -> NetworkResponse {
        let (chunks, response) = try await session.chunks(for: request.urlRequest)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        return HTTPResponse(response: http, chunks: NonCopyableAsyncThrowingStream(stream: chunkStream(chunks))).networkResponse(for: request.url)
    }
}

/// The chunks of `sequence`, read in a task of their own.
private func chunkStream<S: AsyncChunkSequence>(_ sequence: S) -> AsyncThrowingStream<Data, any Error> {
    .executingInAsyncTask { continuation in
        for try await chunk in sequence { continuation.yield(chunk) }
    }
}
