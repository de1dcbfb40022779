import Foundation
import Synchronization

/// What tells an auth failure: HTTP statuses, and GraphQL error codes (`extensions.code`) at
/// any status. By default a 401, or `UNAUTHENTICATED` in a result or a non-2xx body (servers
/// answer 200 or 400 with it); a server that answers 403 needs its own.
public struct AuthFailure: Sendable, Hashable {
    public var statuses: Set<Int>
    public var errorCodes: Set<String>

    public init(statuses: Set<Int> = [401], errorCodes: Set<String> = ["UNAUTHENTICATED"]) {
        self.statuses = statuses
        self.errorCodes = errorCodes
    }

    /// Whether a result's GraphQL errors say the token was refused.
    public func rejects(_ errors: [GraphQLError]?) -> Bool {
        (errors ?? []).contains { $0.code.map(errorCodes.contains) ?? false }
    }

    /// Whether a non-2xx answer says the token was refused: by its status, or by a GraphQL
    /// error code in its body.
    public func rejects(_ error: ResponseCodeError) -> Bool {
        if statuses.contains(error.status) { return true }
        guard !errorCodes.isEmpty, let errors = (try? JSONValue(parsing: error.body))?["errors"]?.arrayValue else { return false }
        return rejects(errors.compactMap(GraphQLError.init(json:)))
    }
}

/// Attaches `Authorization: Bearer <token>` and, when the server rejects it, renews the
/// token through a ``TokenManager`` and retries the operation from the top.
///
/// It is a GraphQL interceptor because only those can throw ``ChainRunner/Retry``. A
/// rejection is what ``AuthFailure`` says: by default an HTTP 401 (a ``ResponseCodeError``
/// from below) or a server result with an `UNAUTHENTICATED` GraphQL error (servers that
/// answer auth failures with 200).
///
/// With ``RefreshStrategy/staleToken`` the interceptor keeps the token it read on the first
/// pass and sends it on every retry — the bug that strategy reproduces. A provider makes
/// one instance per operation, so that captured token belongs to one operation.
///
/// With no access token at all (an empty one) it attaches nothing, says so through
/// `note`, and still renews when the server rejects the request.
public final class AuthInterceptor: ChainInterceptor {
    public let manager: TokenManager
    private let capturedToken = Mutex<String?>(nil)
    private let note: @Sendable (String) -> Void
    public let failure: AuthFailure

    /// - Parameters:
    ///   - failure: what tells that the server refused the token.
    ///   - note: told, in words, when there is no token to attach.
    public init(manager: TokenManager, failure: AuthFailure = AuthFailure(), note: @escaping @Sendable (String) -> Void = { _ in }) {
        self.manager = manager
        self.failure = failure
        self.note = note
    }

    public func intercept(request: ChainRequest, next: ChainNext) async throws -> ChainResultStream {
        let token = try await tokenForThisPass()
        var authorized = request
        if token.isEmpty {
            note("no access token: Authorization not attached")
        } else {
            try authorized.additionalHeaders.set("Authorization", "Bearer \(token)")
        }
        let (manager, failure) = (self.manager, self.failure)
        return await next(authorized)
            .map { response in
                guard response.source == .server, failure.rejects(response.errors) else { return response }
                try await manager.renew(afterRejectionOf: token)
                throw ChainRunner.Retry(request: request)
            }
            .mapErrors { error in
                guard let rejection = error as? ResponseCodeError, failure.rejects(rejection) else { throw error }
                try await manager.renew(afterRejectionOf: token)
                throw ChainRunner.Retry(request: request)
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
