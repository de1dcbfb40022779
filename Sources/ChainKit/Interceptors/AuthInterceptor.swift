import Synchronization

/// Attaches `Authorization: Bearer <token>` and, when the server rejects it, renews the
/// token through a ``TokenManager`` and retries the operation from the top.
///
/// It is a GraphQL interceptor because only those can throw ``RequestChain/Retry``. A
/// rejection is either an HTTP 401 (a ``ResponseCodeError`` from below) or a server result
/// with an `UNAUTHENTICATED` GraphQL error (servers that answer auth failures with 200).
///
/// With ``RefreshStrategy/staleToken`` the interceptor keeps the token it read on the first
/// pass and sends it on every retry — the bug that strategy reproduces. A provider makes
/// one instance per operation, so that captured token belongs to one operation.
public final class AuthInterceptor: GraphQLInterceptor {
    public let manager: TokenManager
    private let capturedToken = Mutex<String?>(nil)

    public init(manager: TokenManager) {
        self.manager = manager
    }

    public func intercept(request: GraphQLRequest, next: GraphQLNext) async throws -> InterceptorResultStream {
        let token = try await tokenForThisPass()
        var authorized = request
        try authorized.additionalHeaders.set("Authorization", "Bearer \(token)")
        let manager = self.manager
        return await next(authorized)
            .map { response in
                guard response.source == .server, (response.errors ?? []).contains(where: \.isUnauthenticated) else { return response }
                try await manager.renew(afterRejectionOf: token)
                throw RequestChain.Retry(request: request)
            }
            .mapErrors { error in
                guard let rejection = error as? ResponseCodeError, rejection.status == 401 else { throw error }
                try await manager.renew(afterRejectionOf: token)
                throw RequestChain.Retry(request: request)
            }
    }

    private func tokenForThisPass() async throws -> String {
        let current = await manager.accessToken
        guard manager.strategy == .staleToken else { return current }
        return capturedToken.withLock { captured in
            if captured == nil { captured = current }
            return captured!
        }
    }
}
