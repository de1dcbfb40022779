public import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// The body of a response as it arrives (Apollo iOS 2.4's `AsyncChunkSequence`).
public protocol AsyncChunkSequence: AsyncSequence, Sendable where Element == Data {}

extension PullStream: AsyncChunkSequence where Element == Data {}

/// What sends a chain's HTTP requests (Apollo iOS 2.4's `ApolloURLSession`).
public protocol ApolloURLSession: Sendable {
    func chunks(for request: URLRequest) async throws -> (any AsyncChunkSequence, URLResponse)
}

extension URLSessionChunkReader: ApolloURLSession {
    /// A `multipart/mixed` body one part per chunk; any other body as one chunk.
    public func chunks(for request: URLRequest) async throws -> (any AsyncChunkSequence, URLResponse) {
        try Task.checkCancellation()
        let (head, body) = try await start(request)
        let url = head.url ?? request.url ?? URL(string: "about:blank")!
        let split = NetworkResponse(status: head.statusCode, headerFields: NetworkResponse(httpURLResponse: head, fallbackURL: url).headerFields, url: url, chunks: body)
            .splittingBodyIntoParts()
        return (KeepingAlive(chunks: split.chunks, owner: self), head)
    }
}

extension URLSession: ApolloURLSession {
    /// Sent through a ``URLSessionChunkReader`` with this session's configuration, which
    /// delivers the body as it arrives on every platform; one reader (and its connections)
    /// for as long as this session lives.
    public func chunks(for request: URLRequest) async throws -> (any AsyncChunkSequence, URLResponse) {
        try await SessionReaders.reader(for: self).chunks(for: request)
    }
}

/// The reader each `URLSession` sends through, kept while the session lives.
package enum SessionReaders {
    struct Entry: Sendable {
        weak var session: URLSession?
        let reader: URLSessionChunkReader
    }

    static let entries = Locked<[ObjectIdentifier: Entry]>([:])

    package static func reader(for session: URLSession) -> URLSessionChunkReader {
        entries.withLock { entries in
            if let entry = entries[ObjectIdentifier(session)], entry.session === session { return entry.reader }
            entries = entries.filter { $0.value.session != nil }
            let reader = URLSessionChunkReader(configuration: session.configuration)
            entries[ObjectIdentifier(session)] = Entry(session: session, reader: reader)
            return reader
        }
    }
}

/// Chunks that keep their reader (and its session) alive until they are read.
private struct KeepingAlive: AsyncChunkSequence {
    let chunks: PullStream<Data>
    let owner: URLSessionChunkReader

    func makeAsyncIterator() -> PullStream<Data>.AsyncIterator {
        withExtendedLifetime(owner) { chunks.makeAsyncIterator() }
    }
}

/// Per-request settings (Apollo iOS 2.4's `RequestConfiguration`).
public struct RequestConfiguration: Sendable {
    public var requestTimeout: TimeInterval?
    public var writeResultsToCache: Bool

    public init(requestTimeout: TimeInterval? = nil, writeResultsToCache: Bool = true) {
        self.requestTimeout = requestTimeout
        self.writeResultsToCache = writeResultsToCache
    }
}

/// What sends operations for a client (Apollo iOS 2.4's `NetworkTransport`).
public protocol NetworkTransport: AnyObject, Sendable {
    func send<Query: GraphQLQuery>(
        query: Query, fetchBehavior: FetchBehavior, requestConfiguration: RequestConfiguration
    ) throws -> AsyncThrowingStream<GraphQLResponse<Query>, any Error>

    func send<Mutation: GraphQLMutation>(
        mutation: Mutation, requestConfiguration: RequestConfiguration
    ) throws -> AsyncThrowingStream<GraphQLResponse<Mutation>, any Error>
}

/// A transport that also sends subscriptions (Apollo iOS 2.4's `SubscriptionNetworkTransport`).
public protocol SubscriptionNetworkTransport {
    func send<Subscription: GraphQLSubscription>(
        subscription: Subscription, fetchBehavior: FetchBehavior, requestConfiguration: RequestConfiguration
    ) throws -> SubscriptionStream<GraphQLResponse<Subscription>>
}

/// Sends each operation through a fresh ``RequestChain`` of the provider's interceptors
/// (Apollo iOS 2.4's `RequestChainNetworkTransport`).
public final class RequestChainNetworkTransport: NetworkTransport, SubscriptionNetworkTransport, Sendable {
    public let urlSession: any ApolloURLSession
    public let interceptorProvider: any InterceptorProvider
    public let store: ApolloStore
    public let endpointURL: URL
    public let additionalHeaders: [String: String]
    public let apqConfig: AutoPersistedQueryConfiguration
    public let useGETForQueries: Bool
    public let requestBodyCreator: any JSONRequestBodyCreator

    public init(
        urlSession: any ApolloURLSession,
        interceptorProvider: any InterceptorProvider,
        store: ApolloStore,
        endpointURL: URL,
        additionalHeaders: [String: String] = [:],
        apqConfig: AutoPersistedQueryConfiguration = .init(),
        requestBodyCreator: any JSONRequestBodyCreator = DefaultRequestBodyCreator(),
        useGETForQueries: Bool = false
    ) {
        self.urlSession = urlSession
        self.interceptorProvider = interceptorProvider
        self.store = store
        self.endpointURL = endpointURL
        self.additionalHeaders = additionalHeaders
        self.apqConfig = apqConfig
        self.requestBodyCreator = requestBodyCreator
        self.useGETForQueries = useGETForQueries
    }

    /// The request the transport sends for `operation`.
    public func constructRequest<Operation: GraphQLOperation>(
        for operation: Operation, fetchBehavior: FetchBehavior, requestConfiguration: RequestConfiguration
    ) -> JSONRequest<Operation> {
        var request = JSONRequest(
            operation: operation, graphQLEndpoint: endpointURL, fetchBehavior: fetchBehavior,
            writeResultsToCache: requestConfiguration.writeResultsToCache, requestTimeout: requestConfiguration.requestTimeout,
            apqConfig: apqConfig, useGETForQueries: useGETForQueries, requestBodyCreator: requestBodyCreator)
        request.addHeaders(additionalHeaders)
        return request
    }

    public func send<Query: GraphQLQuery>(
        query: Query, fetchBehavior: FetchBehavior, requestConfiguration: RequestConfiguration
    ) throws -> AsyncThrowingStream<GraphQLResponse<Query>, any Error> {
        kickoff(constructRequest(for: query, fetchBehavior: fetchBehavior, requestConfiguration: requestConfiguration))
    }

    public func send<Mutation: GraphQLMutation>(
        mutation: Mutation, requestConfiguration: RequestConfiguration
    ) throws -> AsyncThrowingStream<GraphQLResponse<Mutation>, any Error> {
        kickoff(constructRequest(for: mutation, fetchBehavior: .NetworkOnly, requestConfiguration: requestConfiguration))
    }

    /// The subscription's results as the chain yields them; the stream's state is pending until
    /// the first, active after it, and finished when the chain ends.
    public func send<Subscription: GraphQLSubscription>(
        subscription: Subscription, fetchBehavior: FetchBehavior, requestConfiguration: RequestConfiguration
    ) throws -> SubscriptionStream<GraphQLResponse<Subscription>> {
        .following(kickoff(constructRequest(for: subscription, fetchBehavior: fetchBehavior, requestConfiguration: requestConfiguration)))
    }

    private func kickoff<Operation: GraphQLOperation>(
        _ request: JSONRequest<Operation>
    ) -> AsyncThrowingStream<GraphQLResponse<Operation>, any Error> {
        let chain = RequestChain<JSONRequest<Operation>>(
            urlSession: urlSession, interceptors: Interceptors(provider: interceptorProvider, operation: request.operation), store: store)
        return chain.kickoff(request: request)
    }
}
