// GraphQL interceptors written the way Apollo iOS 2.4's documentation writes them ("Request
// chain customization", "Authenticate your operations"): generic `intercept<Request>`, headers
// assigned by subscript, `mapErrors` and `RequestChain.Retry`, a provider that overrides only
// `graphQLInterceptors` and `httpInterceptors`, and hand-written operations. The only
// difference from such code is its imports: `import ChainKit` where the app imports `Apollo`
// and `ApolloAPI`. ChainLab's tests run them through `ApolloClient` against `chainlab serve`
// (Tests/LabTests/UpstreamStyle/).
import ChainKit
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

package struct HeroQuery: GraphQLQuery {
    package static let operationName: String = "HeroQuery"
    package static let operationDocument: OperationDocument = OperationDocument(
        definition: OperationDefinition("query HeroQuery { hero { id name } }"))

    package init() {}
}

package struct RenameHeroMutation: GraphQLMutation {
    package static let operationName: String = "RenameHero"
    package static let operationDocument: OperationDocument = OperationDocument(
        definition: OperationDefinition("mutation RenameHero($name: String!) { renameHero(name: $name) { id name } }"))

    package var name: String

    package init(name: String) { self.name = name }

    package var __variables: Variables? { ["name": name] }
}

/// Keeps the tokens and refreshes them with the OAuth server's `refresh_token` grant.
///
/// With `singleFlight` off, every caller that finds the token stale starts a refresh of its
/// own (the naive manager whose storm ChainLab reproduces); with it on, callers share the
/// refresh in flight.
package actor AuthTokenManager {
    package let tokenURL: URL
    package let session: URLSession
    package let singleFlight: Bool
    package private(set) var currentAuthToken: String?
    private var refreshToken: String?
    private var refreshInFlight: Task<String, any Error>?
    package private(set) var refreshes = 0

    package init(
        tokenURL: URL, session: URLSession = .shared, singleFlight: Bool, accessToken: String? = nil, refreshToken: String? = nil
    ) {
        self.tokenURL = tokenURL
        self.session = session
        self.singleFlight = singleFlight
        self.currentAuthToken = accessToken
        self.refreshToken = refreshToken
    }

    package func signIn(username: String, password: String) async throws {
        try await grant("grant_type=password&username=\(username)&password=\(password)")
    }

    /// A fresh access token, in place of `staleToken`, the one the server refused. A
    /// single-flight manager that already holds another token hands that one out.
    package func refresh(replacing staleToken: String?) async throws -> String {
        if singleFlight, let refreshInFlight { return try await refreshInFlight.value }
        if singleFlight, let currentAuthToken, currentAuthToken != staleToken { return currentAuthToken }
        let task = Task { try await grant("grant_type=refresh_token&refresh_token=\(refreshToken ?? "")") }
        refreshInFlight = task
        defer { refreshInFlight = nil }
        refreshes += 1
        return try await task.value
    }

    @discardableResult
    private func grant(_ form: String) async throws -> String {
        var request = URLRequest(url: tokenURL)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(form.utf8)
        let (data, _) = try await session.data(for: request)
        guard let tokens = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let access = tokens["access_token"] as? String
        else { throw TokenError.noAccessToken(String(decoding: data, as: UTF8.self)) }
        currentAuthToken = access
        refreshToken = tokens["refresh_token"] as? String ?? refreshToken
        return access
    }

    package enum TokenError: Error {
        case noAccessToken(String)
    }
}

/// Adds the bearer token; on a 401, refreshes it and runs the chain again.
package struct AuthorizationInterceptor: GraphQLInterceptor {
    package let tokenManager: AuthTokenManager

    package init(tokenManager: AuthTokenManager) { self.tokenManager = tokenManager }

    package func intercept<Request: GraphQLRequest>(
        request: Request,
        next: NextInterceptorFunction<Request>
    ) async throws -> InterceptorResultStream<Request> {
        let originalRequest = request
        var request = request
        let token = await tokenManager.currentAuthToken
        if let token {
            request.additionalHeaders["Authorization"] = "Bearer \(token)"
        }
        return await next(request).mapErrors { error in
            guard let error = error as? ResponseCodeInterceptor.ResponseCodeError,
                error.response.statusCode == 401
            else { throw error }
            _ = try await tokenManager.refresh(replacing: token)
            throw RequestChain.Retry(request: originalRequest)
        }
    }
}

/// Writes a line per request, result and error.
package struct LoggingInterceptor: GraphQLInterceptor {
    package let log: Log

    package init(log: Log) { self.log = log }

    package func intercept<Request: GraphQLRequest>(
        request: Request,
        next: NextInterceptorFunction<Request>
    ) async throws -> InterceptorResultStream<Request> {
        await log.write("request \(Request.Operation.operationName)")
        return await next(request)
            .map { response in
                await log.write("response \(Request.Operation.operationName) from \(response.result.source)")
                return response
            }
            .mapErrors { error in
                await log.write("error \(Request.Operation.operationName): \(error)")
                throw error
            }
    }
}

/// Names the client on every HTTP request and counts the body bytes that come back.
package struct UserAgentInterceptor: HTTPInterceptor {
    package let log: Log

    package init(log: Log) { self.log = log }

    package func intercept(
        request: URLRequest,
        next: NextHTTPInterceptorFunction
    ) async throws -> HTTPResponse {
        var request = request
        request.setValue("ChainLab-UpstreamStyle/1.0", forHTTPHeaderField: "User-Agent")
        return try await next(request).mapChunks { response, chunk in
            await log.write("http \(response.statusCode) \(chunk.count) bytes")
            return chunk
        }
    }
}

/// Lines written by the interceptors above, in order.
package actor Log {
    package private(set) var lines: [String] = []

    package init() {}

    package func write(_ line: String) { lines.append(line) }
}

/// Apollo's defaults, with the auth and logging interceptors after them.
package struct NetworkInterceptorProvider: InterceptorProvider {
    package let tokenManager: AuthTokenManager
    package let log: Log

    package init(tokenManager: AuthTokenManager, log: Log) {
        self.tokenManager = tokenManager
        self.log = log
    }

    package func graphQLInterceptors<Operation: GraphQLOperation>(for operation: Operation) -> [any GraphQLInterceptor] {
        DefaultInterceptorProvider.shared.graphQLInterceptors(for: operation)
            + [AuthorizationInterceptor(tokenManager: tokenManager), LoggingInterceptor(log: log)]
    }

    package func httpInterceptors<Operation: GraphQLOperation>(for operation: Operation) -> [any HTTPInterceptor] {
        [UserAgentInterceptor(log: log)] + DefaultInterceptorProvider.shared.httpInterceptors(for: operation)
    }
}
