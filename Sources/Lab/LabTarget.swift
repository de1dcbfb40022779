public import Backend
public import ChainKit
import Vocabulary
public import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
public import Outbound

/// Where a session's requests go: the in-process lab backend, or a real server reached over
/// HTTP (`--endpoint`) — a ChainLab lab such as `chainlab serve`, or any other server.
public enum LabTarget: Sendable {
    case inProcess(LabBackend)
    case remote(RemoteLab)

    /// Sends a request that is not an operation (the lab's token endpoint, `/_lab/` control).
    func exchange(_ request: BackendRequest, clock: VirtualClock) async throws -> BackendResponse {
        switch self {
        case .inProcess(let backend):
            let response = backend.handle(request)
            if response.latency > 0 { try await clock.sleep(for: .seconds(response.latency)) }
            return response
        case .remote(let remote):
            return try await clock.advancing { try await remote.send(request) }
        }
    }

    var isRemote: Bool {
        if case .remote = self { return true }
        return false
    }

    /// Whether `/_lab/` controls (expire tokens, counters) exist: in process, or on a remote
    /// server that answered `GET /_lab/state` as a lab does.
    public var hasLabControls: Bool {
        switch self {
        case .inProcess: true
        case .remote(let remote): remote.isLab
        }
    }
}

/// A real server at `endpoint`. When it is a ChainLab lab (it answers `GET /_lab/state` with
/// counters) it has `/graphql`, `/oauth/token` and `/_lab/` under ``baseURL``; otherwise it is
/// a plain server: operations go to the URL as given and nothing else is called.
public struct RemoteLab: Sendable {
    /// Where `/_lab/` and `/oauth/token` are looked for: the endpoint without a trailing
    /// `/graphql`.
    public let baseURL: URL
    /// Where GraphQL operations are sent: `baseURL/graphql` on a lab, the endpoint itself
    /// on a plain server.
    public let graphQLEndpoint: URL
    /// Where REST operations' paths start: `baseURL` on a lab, the endpoint on a plain server.
    public let restBaseURL: URL
    /// Whether the server answered as a ChainLab lab.
    public let isLab: Bool
    let client: RemoteHTTPClient

    /// The most read of an answer to a lab control or a sign-in: 64 KiB. They are small; a
    /// server that sends more is not a lab.
    public static let controlAnswerLimit = 64 << 10

    /// Why the server's answer could not be used.
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        public let reason: String
        public var description: String { reason }
    }

    /// A lab at `baseURL`, without asking it (what `chainlab serve` is known to be).
    public init(baseURL: URL, client: RemoteHTTPClient = RemoteHTTPClient()) {
        self.baseURL = baseURL
        graphQLEndpoint = baseURL.appendingPathComponent("graphql")
        restBaseURL = baseURL
        isLab = true
        self.client = client
    }

    private init(endpoint: URL, base: URL, isLab: Bool, client: RemoteHTTPClient) {
        baseURL = base
        graphQLEndpoint = isLab ? base.appendingPathComponent("graphql") : endpoint
        restBaseURL = isLab ? base : endpoint
        self.isLab = isLab
        self.client = client
    }

    /// A plain server at `endpoint`, without asking it anything: operations go to the URL as
    /// given, and nothing else is called.
    public static func plain(endpoint: URL, client: RemoteHTTPClient) -> RemoteLab {
        RemoteLab(endpoint: endpoint, base: labBase(of: endpoint), isLab: false, client: client)
    }

    /// Asks the server at `endpoint` whether it is a ChainLab lab (`GET /_lab/state`).
    /// - Throws: ``RemoteFailure`` naming `endpoint` (the URL the person gave, not the
    ///   probe's) when the server cannot be reached at all.
    public static func detect(endpoint: URL, client: RemoteHTTPClient) async throws -> RemoteLab {
        let base = labBase(of: endpoint)
        let probe = RemoteLab(endpoint: endpoint, base: base, isLab: false, client: client)
        let isLab: Bool
        do {
            let response = try await probe.send(BackendRequest(method: "GET", target: "/_lab/state"))
            isLab = response.status == 200 && (try? JSONValue(parsing: response.body))?["counters"]?.objectValue != nil
        } catch let failure as RemoteFailure {
            guard case .tooLarge = failure.cause else { throw RemoteFailure(url: RemoteFailure.displayURL(endpoint), cause: failure.cause) }
            isLab = false
        }
        return RemoteLab(endpoint: endpoint, base: base, isLab: isLab, client: client)
    }

    /// `endpoint` without its query, fragment, trailing slashes and a trailing `/graphql`.
    public static func labBase(of endpoint: URL) -> URL {
        guard var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false) else { return endpoint }
        components.query = nil
        components.fragment = nil
        while components.path.hasSuffix("/") { components.path.removeLast() }
        if components.path.hasSuffix("/graphql") { components.path.removeLast("/graphql".count) }
        while components.path.hasSuffix("/") { components.path.removeLast() }
        return components.url ?? endpoint
    }

    func send(_ request: BackendRequest, limit: Int = RemoteLab.controlAnswerLimit) async throws -> BackendResponse {
        var base = baseURL.absoluteString
        if base.hasSuffix("/") { base.removeLast() }
        guard let url = URL(string: base + request.target) else {
            throw Failure(reason: "cannot build a URL from \(RemoteFailure.displayURL(baseURL)) and \(VisibleEscapes.escape(request.target))")
        }
        return try await client.exchange(url: url, method: request.method, headers: request.headers, body: request.body, limit: limit)
    }

    /// Signs in with the lab's demo account (`grant_type=password`, demo/demo).
    public func signIn() async throws -> TokenPair {
        var headers = HTTPFields()
        try headers.append("Content-Type", "application/x-www-form-urlencoded")
        let response = try await send(BackendRequest(method: "POST", target: "/oauth/token", headers: headers, body: Data("grant_type=password&username=demo&password=demo".utf8)))
        let json = try? JSONValue(parsing: response.body)
        let place = "\(RemoteFailure.displayURL(baseURL))/oauth/token"
        guard response.status == 200 else {
            let code = json?["error"]?.stringValue.map { ": \(VisibleEscapes.escape($0))" } ?? ""
            throw Failure(reason: "signing in at \(place) failed: HTTP \(response.status)\(code)")
        }
        guard let access = json?["access_token"]?.stringValue else {
            throw Failure(reason: "signing in at \(place) failed: HTTP 200 but the answer (\(response.body.count) bytes) has no access_token")
        }
        return TokenPair(accessToken: access, refreshToken: json?["refresh_token"]?.stringValue)
    }

    /// Expires every access token (`POST /_lab/expire-tokens`); nothing on a plain server.
    public func expireTokens() async throws {
        guard isLab else { return }
        _ = try await send(BackendRequest(method: "POST", target: "/_lab/expire-tokens"))
    }

    /// The server's counters (`GET /_lab/state`); nil on a plain server, empty when a lab
    /// does not answer.
    public func counters() async -> [String: Int]? {
        guard isLab else { return nil }
        guard let response = try? await send(BackendRequest(method: "GET", target: "/_lab/state")),
            let counters = (try? JSONValue(parsing: response.body))?["counters"]?.objectValue
        else { return [:] }
        // The numbers come from a server: converted without trapping, whatever they are.
        return counters.compactMapValues { $0.numberValue.map { Int(saturating: $0) } }
    }
}
