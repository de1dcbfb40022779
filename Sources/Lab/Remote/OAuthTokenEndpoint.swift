public import ChainKit
public import Foundation

/// A real OAuth 2.0 token endpoint (RFC 6749) the token manager renews tokens at:
/// `--oauth-token-url` with the client's id and secret.
///
/// ```swift
/// let endpoint = OAuthTokenEndpoint(url: tokenURL, clientID: "app", clientSecret: secret, clientAuthentication: .basic)
/// endpoint.form(refreshToken: "r1")  // grant_type=refresh_token&refresh_token=r1
/// endpoint.form(refreshToken: nil)   // grant_type=client_credentials
/// ```
public struct OAuthTokenEndpoint: Sendable, Hashable {
    /// How the client proves who it is (RFC 6749 §2.3.1).
    public enum ClientAuthentication: String, Sendable, Hashable, CaseIterable {
        /// `Authorization: Basic` with the form-encoded id and secret (the method servers
        /// must support).
        case basic
        /// `client_id` and `client_secret` in the request body.
        case body
    }

    public var url: URL
    public var clientID: String?
    public var clientSecret: String?
    public var clientAuthentication: ClientAuthentication

    public init(url: URL, clientID: String? = nil, clientSecret: String? = nil, clientAuthentication: ClientAuthentication = .basic) {
        self.url = url
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.clientAuthentication = clientAuthentication
    }

    /// The grant's name, for events: `refresh_token` with a refresh token, otherwise
    /// `client_credentials`.
    public static func grantName(refreshToken: String?) -> String {
        refreshToken == nil ? "client_credentials" : "refresh_token"
    }

    /// The form body of the grant (RFC 6749 §6 or §4.4.2).
    public func form(refreshToken: String?) -> String {
        var pairs = [("grant_type", Self.grantName(refreshToken: refreshToken))]
        if let refreshToken { pairs.append(("refresh_token", refreshToken)) }
        if let clientID {
            // A public client (no secret) names itself in the body; so does body authentication.
            if clientSecret == nil || clientAuthentication == .body { pairs.append(("client_id", clientID)) }
            if let clientSecret, clientAuthentication == .body { pairs.append(("client_secret", clientSecret)) }
        }
        return pairs.map { "\($0.0)=\(Self.formEncode($0.1))" }.joined(separator: "&")
    }

    /// The request headers: the form's content type and, for Basic authentication, the
    /// client's credentials.
    public func headers() throws -> HTTPFields {
        var headers = HTTPFields()
        try headers.append("Content-Type", "application/x-www-form-urlencoded")
        try headers.append("Accept", "application/json")
        if clientAuthentication == .basic, let clientID, let clientSecret {
            // RFC 6749 §2.3.1: both are form-encoded before they are joined and base64-encoded.
            let credentials = Data("\(Self.formEncode(clientID)):\(Self.formEncode(clientSecret))".utf8).base64EncodedString()
            try headers.append("Authorization", "Basic \(credentials)")
        }
        return headers
    }

    /// `application/x-www-form-urlencoded` encoding of one value (RFC 6749 Appendix B).
    static func formEncode(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)...Unicode.Scalar(127)))
        allowed.insert(charactersIn: "-._*")
        return (value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value).replacingOccurrences(of: "%20", with: "+")
    }
}
