import ChainKit
import Foundation

extension BackendState {
    /// `POST /oauth/token`: the password and refresh-token grants of RFC 6749 (§4.3, §6),
    /// answered per §5.1 and §5.2.
    mutating func serveToken(_ request: BackendRequest, now: Double) -> BackendResponse {
        guard mediaType(request.headers["Content-Type"]) == "application/x-www-form-urlencoded" else {
            return oauthError("invalid_request", "the body must be application/x-www-form-urlencoded")
        }
        let parameters: [String: String]
        switch FormURLEncoding.parameters(Substring(String(decoding: request.body, as: UTF8.self))) {
        case .success(let decoded): parameters = decoded
        case .failure(.badPercentEscape(let offset)):
            return oauthError("invalid_request", "bad percent escape in the body at offset \(offset)")
        case .failure(.repeatedParameter(let name)):
            return oauthError("invalid_request", "parameter \"\(name)\" appears more than once")
        }
        guard let grantType = parameters["grant_type"], !grantType.isEmpty else {
            return oauthError("invalid_request", "grant_type is missing")
        }
        switch grantType {
        case "password":
            count(.passwordGrants)
            guard let username = parameters["username"], let password = parameters["password"] else {
                return oauthError("invalid_request", "username and password are required")
            }
            guard username == "demo", password == "demo" else {
                return oauthError("invalid_grant", "the username or password is wrong")
            }
            return tokenResponse(tokens.signIn(now: now, ttl: settings.tokenTTL))
        case "refresh_token":
            count(.tokenRefreshes)
            guard let refreshToken = parameters["refresh_token"], !refreshToken.isEmpty else {
                count(.refreshRejected)
                return oauthError("invalid_request", "refresh_token is missing")
            }
            let result = tokens.refresh(
                refreshToken, now: now, ttl: settings.tokenTTL,
                rotate: settings.rotateRefreshTokens, detectReuse: settings.reuseDetection)
            switch result {
            case .success(let pair):
                return tokenResponse(pair)
            case .failure(let denial):
                count(.refreshRejected)
                if denial == .reused(revokedFamily: true) { count(.familiesRevoked) }
                return oauthError("invalid_grant", denial.description)
            }
        default:
            return oauthError("unsupported_grant_type", "grant_type \"\(grantType)\" is not supported; use password or refresh_token")
        }
    }

    /// §5.1: the tokens as JSON, never to be cached.
    private func tokenResponse(_ pair: TokenPair) -> BackendResponse {
        var body: [String: JSONValue] = [
            "access_token": .string(pair.accessToken),
            "token_type": "Bearer",
            "expires_in": .number(settings.tokenTTL),
        ]
        if let refresh = pair.refreshToken { body["refresh_token"] = .string(refresh) }
        return .json(200, .object(body), extraHeaders: BackendState.noStore)
    }

    /// §5.2: 400 with an `error` code and a description.
    private func oauthError(_ code: String, _ description: String) -> BackendResponse {
        .json(400, ["error": .string(code), "error_description": .string(description)], extraHeaders: BackendState.noStore)
    }

    private static let noStore = [("Cache-Control", "no-store"), ("Pragma", "no-cache")]
}
