/// Errors of automatic persisted queries.
public enum AutomaticPersistedQueryError: Error, Equatable, CustomStringConvertible {
    /// The server still did not know the query after the retry that sent its text.
    case persistedQueryRetryFailed(operationName: String)

    public var description: String {
        switch self {
        case .persistedQueryRetryFailed(let name):
            "persisted query retry failed for \(name): the server answered PersistedQueryNotFound twice"
        }
    }
}

/// Automatic persisted queries (Apollo's `AutomaticPersistedQueryInterceptor`).
///
/// When APQ is on, the first attempt sends only the query's hash. If the first server
/// result's first error says `PersistedQueryNotFound`, it throws ``RequestChain/Retry`` with
/// `isPersistedQueryRetry` set (the body now carries the query text) and `NetworkOnly`; a
/// second miss is ``AutomaticPersistedQueryError/persistedQueryRetryFailed(operationName:)``.
public struct AutomaticPersistedQueryInterceptor: GraphQLInterceptor {
    public static let notFoundMessage = "PersistedQueryNotFound"

    public init() {}

    public func intercept(request: GraphQLRequest, next: GraphQLNext) async throws -> InterceptorResultStream {
        guard request.apqConfig.autoPersistQueries else { return await next(request) }
        return await next(request).map { response in
            guard response.source == .server,
                response.errors.first?.message == AutomaticPersistedQueryInterceptor.notFoundMessage
            else { return response }
            guard !request.isPersistedQueryRetry else {
                throw AutomaticPersistedQueryError.persistedQueryRetryFailed(operationName: request.operation.name)
            }
            var retry = request
            retry.isPersistedQueryRetry = true
            retry.fetchBehavior = .NetworkOnly
            throw RequestChain.Retry(request: retry)
        }
    }
}
