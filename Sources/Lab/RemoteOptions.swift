public import ChainKit
public import Foundation
import Timeline
import Exports
import Outbound

/// How a session reaches a real server: what `--endpoint` and its companions set.
///
/// ```swift
/// var options = RemoteOptions(endpoint: URL(string: "https://api.example.com/graphql")!)
/// options.token = ProcessInfo.processInfo.environment["API_TOKEN"]
/// let session = try await LabSession.connect(scenario: scenario, remote: options)
/// ```
public struct RemoteOptions: Sendable {
    /// The server: a lab's base URL, or a plain server's GraphQL endpoint (or REST base URL).
    public var endpoint: URL
    /// Headers added to every request (`--header`).
    public var headers: HTTPFields
    /// The access token the auth layers send (`--token`); nil: none on a plain server, the
    /// demo account's on a lab.
    public var token: String?
    /// The refresh token for the first refresh (`--refresh-token-env`).
    public var refreshToken: String?
    /// A real token endpoint to refresh at (`--oauth-token-url`); nil: the lab's.
    public var tokenEndpoint: OAuthTokenEndpoint?
    /// The most of a response body read (`--max-body`).
    public var maxBodyBytes: Int
    /// Seconds without an answer before an exchange fails (`--timeout`).
    public var timeout: Double
    /// Whether the caller keeps the tokens the run ends with (`--token-file`): a rotated
    /// refresh token is then saved, not spent behind the person's back.
    public var keepsTokens = false
    /// What tells that the server refused the token (`--auth-failure`).
    public var authFailure = AuthFailure()
    /// Whether to ask the server if it is a ChainLab lab (`GET /_lab/state`, `--lab`);
    /// otherwise it is a plain server and nothing but the operations is sent to it.
    public var asksForLab = false
    /// Whether each attempt and token refresh carries a W3C `traceparent` with the ids the
    /// session's OTLP export gives that attempt (`--no-traceparent` turns it off).
    public var sendsTraceparent = true

    public init(
        endpoint: URL, headers: HTTPFields = HTTPFields(), token: String? = nil, refreshToken: String? = nil,
        tokenEndpoint: OAuthTokenEndpoint? = nil, maxBodyBytes: Int = 1 << 20, timeout: Double = 30, asksForLab: Bool = false
    ) {
        self.asksForLab = asksForLab
        self.endpoint = endpoint
        self.headers = headers
        self.token = token
        self.refreshToken = refreshToken
        self.tokenEndpoint = tokenEndpoint
        self.maxBodyBytes = maxBodyBytes
        self.timeout = timeout
    }
}

/// Where the token manager renews tokens.
enum TokenSource: Sendable {
    /// The lab backend's `/oauth/token`, in process or over HTTP.
    case lab
    /// A real RFC 6749 token endpoint; `keepsTokens`: the caller saves the rotated pair.
    case oauth(OAuthTokenEndpoint, RemoteHTTPClient, keepsTokens: Bool)
}

/// What a session on a real server keeps beyond a lab session.
struct RemoteSetup: Sendable {
    var graphQLEndpoint: URL
    var headers: HTTPFields
    var tokenSource: TokenSource
    var transport: RemoteTransport
    var authFailure = AuthFailure()
    /// Where the session's trace and span ids come from (random per session).
    var otlpAnchor: OTLPExport.Anchor
    /// What stamps `traceparent` on operations and refreshes; nil with `--no-traceparent`.
    var traceparent: Traceparent?
}
