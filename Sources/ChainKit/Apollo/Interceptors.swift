#if canImport(FoundationNetworking)
import Foundation
public import FoundationNetworking
#else
public import Foundation
#endif

// The interceptor protocols of Apollo iOS 2.4 (`Sources/Apollo/RequestChain/Interceptors/`),
// with their signatures, so an interceptor written for Apollo compiles against ChainKit.

/// The results an interceptor hands up: a stream that can be read once.
public typealias InterceptorResultStream<Request: GraphQLRequest> = NonCopyableAsyncThrowingStream<ParsedResult<Request.Operation>>

/// A layer of the GraphQL part of the chain (Apollo iOS 2.4's `GraphQLInterceptor`): work
/// before `next` is the pre-flight, work in the returned stream's `map`/`mapErrors` the
/// post-flight. Throwing ``RequestChain/Retry`` restarts the chain from the top.
public protocol GraphQLInterceptor: Sendable {
    typealias NextInterceptorFunction<Request: GraphQLRequest> = @Sendable (Request) async -> InterceptorResultStream<Request>

    func intercept<Request: GraphQLRequest>(
        request: Request,
        next: NextInterceptorFunction<Request>
    ) async throws -> InterceptorResultStream<Request>
}

/// A layer of the HTTP part of the chain (Apollo iOS 2.4's `HTTPInterceptor`): it sees the
/// `URLRequest`, and the response's head and body chunks (``HTTPResponse/response``,
/// ``HTTPResponse/chunks``, ``HTTPResponse/mapChunks(_:)``).
public protocol HTTPInterceptor: Sendable {
    typealias NextHTTPInterceptorFunction = @Sendable (URLRequest) async throws -> HTTPResponse

    func intercept(request: URLRequest, next: NextHTTPInterceptorFunction) async throws -> HTTPResponse
}

/// Reads and writes results for the chain's cache step (Apollo iOS 2.4's `CacheInterceptor`).
public protocol CacheInterceptor: Sendable {
    func readCacheData<Request: GraphQLRequest>(from store: ApolloStore, request: Request) async throws -> GraphQLResponse<Request.Operation>?
    func writeCacheData<Request: GraphQLRequest>(to store: ApolloStore, request: Request, response: ParsedResult<Request.Operation>) async throws
}

/// Turns the HTTP response into results (Apollo iOS 2.4's `ResponseParsingInterceptor`).
public protocol ResponseParsingInterceptor: Sendable {
    func parse<Request: GraphQLRequest>(
        response: consuming HTTPResponse,
        for request: Request,
        includeCacheRecords: Bool
    ) async throws -> InterceptorResultStream<Request>
}

/// Hands out the interceptors for one operation (Apollo iOS 2.4's `InterceptorProvider`);
/// every requirement has upstream's default, so a provider overrides only what it changes.
public protocol InterceptorProvider: Sendable {
    func graphQLInterceptors<Operation: GraphQLOperation>(for operation: Operation) -> [any GraphQLInterceptor]
    func cacheInterceptor<Operation: GraphQLOperation>(for operation: Operation) -> any CacheInterceptor
    func httpInterceptors<Operation: GraphQLOperation>(for operation: Operation) -> [any HTTPInterceptor]
    func responseParser<Operation: GraphQLOperation>(for operation: Operation) -> any ResponseParsingInterceptor
}

extension InterceptorProvider {
    /// The four kinds of interceptor for `operation`.
    public func interceptors<Operation: GraphQLOperation>(for operation: Operation) -> Interceptors {
        Interceptors(provider: self, operation: operation)
    }

    public func graphQLInterceptors<Operation: GraphQLOperation>(for operation: Operation) -> [any GraphQLInterceptor] {
        [MaxRetryInterceptor(), AutomaticPersistedQueryInterceptor()]
    }

    public func cacheInterceptor<Operation: GraphQLOperation>(for operation: Operation) -> any CacheInterceptor {
        DefaultCacheInterceptor()
    }

    public func httpInterceptors<Operation: GraphQLOperation>(for operation: Operation) -> [any HTTPInterceptor] {
        [ResponseCodeInterceptor()]
    }

    public func responseParser<Operation: GraphQLOperation>(for operation: Operation) -> any ResponseParsingInterceptor {
        JSONResponseParsingInterceptor()
    }
}

/// The interceptors of one operation, as a provider hands them out (upstream's `Interceptors`).
public struct Interceptors: Sendable {
    public let graphQL: [any GraphQLInterceptor]
    public let cache: any CacheInterceptor
    public let http: [any HTTPInterceptor]
    public let parser: any ResponseParsingInterceptor

    public init(provider: some InterceptorProvider, operation: some GraphQLOperation) {
        graphQL = provider.graphQLInterceptors(for: operation)
        cache = provider.cacheInterceptor(for: operation)
        http = provider.httpInterceptors(for: operation)
        parser = provider.responseParser(for: operation)
    }
}

/// Upstream's default provider: every default above.
public final class DefaultInterceptorProvider: InterceptorProvider {
    public static let shared = DefaultInterceptorProvider()

    public init() {}
}
