/// Errors of automatic persisted queries (Apollo's `AutomaticPersistedQueryInterceptor.APQError`).
public enum AutomaticPersistedQueryError: Error, Equatable, CustomStringConvertible {
    /// The server answered `PersistedQueryNotFound` for an operation that has no document to
    /// send instead (``ChainOperation/isPersistedOnly``), so there is nothing to retry with.
    case persistedQueryNotFoundForPersistedOnlyQuery(operationName: String)
    /// The server still did not know the query after the retry that sent its text.
    case persistedQueryRetryFailed(operationName: String)

    public var description: String {
        switch self {
        case .persistedQueryNotFoundForPersistedOnlyQuery(let name):
            "The Persisted Query for operation \"\(name)\" was not found. The operation is a persisted-only operation and cannot be automatically persisted if it is not recognized by the server."
        case .persistedQueryRetryFailed(let name):
            "Persisted query retry failed for operation \"\(name)\"."
        }
    }
}

/// Automatic persisted queries (Apollo's `AutomaticPersistedQueryInterceptor`).
///
/// When APQ is on, the first attempt sends only the query's hash. If any error of the first
/// server result says `PersistedQueryNotFound`, it throws ``ChainRunner/Retry`` with
/// `isPersistedQueryRetry` set (the body now carries the query text) and `NetworkOnly`; a
/// miss on that retry is ``AutomaticPersistedQueryError/persistedQueryRetryFailed(operationName:)``,
/// and a miss for a persisted-only operation, which has no text to send, is
/// ``AutomaticPersistedQueryError/persistedQueryNotFoundForPersistedOnlyQuery(operationName:)``.
/// Later results of the same attempt (incremental parts, subscription events) pass untouched.
public struct AutomaticPersistedQueryInterceptor: ChainInterceptor {
    public static let notFoundMessage = "PersistedQueryNotFound"

    public init() {}

    public func intercept(request: ChainRequest, next: ChainNext) async throws -> ChainResultStream {
        guard request.apqConfig.autoPersistQueries else { return await next(request) }
        let check = PersistedQueryCheck(request: request)
        return await next(request).map { response in
            if let retry = try check.retry(after: response) { throw ChainRunner.Retry(request: retry) }
            return response
        }
    }
}

/// What ``AutomaticPersistedQueryInterceptor`` decides on one attempt's results: the first
/// server result that says `PersistedQueryNotFound` asks for the retry with the query text.
struct PersistedQueryCheck: Sendable {
    let request: ChainRequest
    private let isInitialServerResult = Locked(true)

    init(request: ChainRequest) {
        self.request = request
    }

    /// The request to retry with after `response`, nil to pass it on; throws when there is
    /// nothing to retry with.
    func retry(after response: ChainResponse) throws -> ChainRequest? {
        guard response.source == .server,
            isInitialServerResult.withLock({ first in defer { first = false }; return first }),
            let errors = response.errors,
            errors.contains(where: { $0.message == AutomaticPersistedQueryInterceptor.notFoundMessage })
        else { return nil }
        let name = request.operation.name
        guard !request.isPersistedQueryRetry else {
            throw AutomaticPersistedQueryError.persistedQueryRetryFailed(operationName: name)
        }
        guard !request.operation.isPersistedOnly else {
            throw AutomaticPersistedQueryError.persistedQueryNotFoundForPersistedOnlyQuery(operationName: name)
        }
        var retry = request
        retry.isPersistedQueryRetry = true
        retry.fetchBehavior = .NetworkOnly
        return retry
    }
}
