// Opens the ChainLab inspector on an app's own interceptors, written as Apollo iOS 2.4's
// documentation writes them, in the lab's token-expiry scenario (or the one named).
// Build and run: swift run inspect-my-chain [refresh-storm]
import ChainKit
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Inspector
import Lab

/// The app's tokens, refreshed with the OAuth `refresh_token` grant.
actor TokenStore {
    let tokenURL: URL
    let session: URLSession
    var accessToken: String?
    var refreshToken: String?

    init(tokenURL: URL, session: URLSession, accessToken: String?, refreshToken: String?) {
        self.tokenURL = tokenURL
        self.session = session
        self.accessToken = accessToken
        self.refreshToken = refreshToken
    }

    func refresh() async throws {
        var request = URLRequest(url: tokenURL)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data("grant_type=refresh_token&refresh_token=\(refreshToken ?? "")".utf8)
        let (data, _) = try await session.data(for: request)
        let tokens = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        accessToken = tokens?["access_token"] as? String
        refreshToken = tokens?["refresh_token"] as? String ?? refreshToken
    }
}

/// Adds the bearer token; on a 401, refreshes it and runs the chain again.
struct AuthorizationInterceptor: GraphQLInterceptor {
    let tokens: TokenStore

    func intercept<Request: GraphQLRequest>(
        request: Request,
        next: NextInterceptorFunction<Request>
    ) async throws -> InterceptorResultStream<Request> {
        let originalRequest = request
        var request = request
        if let token = await tokens.accessToken {
            request.additionalHeaders["Authorization"] = "Bearer \(token)"
        }
        return await next(request).mapErrors { error in
            guard let error = error as? ResponseCodeInterceptor.ResponseCodeError, error.response.statusCode == 401 else {
                throw error
            }
            try await tokens.refresh()
            throw RequestChain.Retry(request: originalRequest)
        }
    }
}

/// Apollo's default interceptors, then the app's.
struct NetworkInterceptorProvider: InterceptorProvider {
    let tokens: TokenStore

    func graphQLInterceptors<Operation: GraphQLOperation>(for operation: Operation) -> [any GraphQLInterceptor] {
        DefaultInterceptorProvider.shared.graphQLInterceptors(for: operation) + [AuthorizationInterceptor(tokens: tokens)]
    }
}

// The scenario drives the launches and the lab backend (its access token has expired);
// `lab` gives its token URL and a URLSession that reaches it.
let scenario = CommandLine.arguments.dropFirst().first ?? "token-expiry"
do {
    try await ChainLab.inspect(scenario: scenario) { lab in
        NetworkInterceptorProvider(tokens: TokenStore(
            tokenURL: lab.tokenURL, session: lab.urlSession, accessToken: lab.accessToken, refreshToken: lab.refreshToken))
    }
} catch {
    FileHandle.standardError.write(Data("inspect-my-chain: \(error)\n".utf8))
    exit(2)
}
