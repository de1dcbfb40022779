public import ChainKit
public import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where a session's requests go: the in-process lab backend, or a real server reached with
/// `URLSessionTransport` (`--endpoint`), such as `chainlab serve`.
public enum LabTarget: Sendable {
    case inProcess(LabBackend)
    case remote(RemoteLab)

    /// Sends a request that is not an operation (the token endpoint, `/_lab/` control).
    func exchange(_ request: BackendRequest, clock: VirtualClock) async throws -> BackendResponse {
        switch self {
        case .inProcess(let backend):
            let response = backend.handle(request)
            if response.latency > 0 { try await clock.sleep(for: .seconds(response.latency)) }
            return response
        case .remote(let remote):
            return try await remote.send(request)
        }
    }
}

/// A ChainLab-compatible server at `baseURL`: `/graphql`, `/oauth/token` and `/_lab/`.
public struct RemoteLab: Sendable {
    public let baseURL: URL

    /// Why the server's answer could not be used.
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        public let reason: String
        public var description: String { reason }
    }

    public init(baseURL: URL) {
        self.baseURL = baseURL
    }

    func send(_ request: BackendRequest) async throws -> BackendResponse {
        var base = baseURL.absoluteString
        if base.hasSuffix("/") { base.removeLast() }
        guard let url = URL(string: base + request.target) else { throw Failure(reason: "cannot build a URL from \(base) and \(request.target)") }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.method
        for field in request.headers { urlRequest.addValue(field.value, forHTTPHeaderField: field.name) }
        if !request.body.isEmpty { urlRequest.httpBody = request.body }
        let (data, response) = try await URLSession.shared.data(for: urlRequest)
        guard let http = response as? HTTPURLResponse else { throw Failure(reason: "\(url.absoluteString) did not answer with HTTP") }
        // The headers come as a dictionary, whose order changes from run to run; sorted by
        // name as URLSessionTransport lists them, a trace of the same run is the same text.
        let pairs = http.allHeaderFields.compactMap { name, value -> (String, String)? in
            guard let name = name as? String, let value = value as? String else { return nil }
            return (name, value)
        }
        var headers = HTTPFields()
        for (name, value) in pairs.sorted(by: { ($0.0.lowercased(), $0.0) < ($1.0.lowercased(), $1.0) }) {
            try? headers.append(name, value)
        }
        return BackendResponse(status: http.statusCode, headers: headers, body: data)
    }

    /// Signs in with the lab's demo account (`grant_type=password`, demo/demo).
    public func signIn() async throws -> TokenPair {
        var headers = HTTPFields()
        try headers.append("Content-Type", "application/x-www-form-urlencoded")
        let response = try await send(BackendRequest(method: "POST", target: "/oauth/token", headers: headers, body: Data("grant_type=password&username=demo&password=demo".utf8)))
        let json = try? JSONValue(parsing: response.body)
        guard response.status == 200, let access = json?["access_token"]?.stringValue else {
            throw Failure(reason: "signing in at \(baseURL.absoluteString)/oauth/token failed with HTTP \(response.status)")
        }
        return TokenPair(accessToken: access, refreshToken: json?["refresh_token"]?.stringValue)
    }

    /// Expires every access token (`POST /_lab/expire-tokens`).
    public func expireTokens() async throws {
        _ = try await send(BackendRequest(method: "POST", target: "/_lab/expire-tokens"))
    }

    /// The server's counters (`GET /_lab/state`); empty when it has none.
    public func counters() async -> [String: Int] {
        guard let response = try? await send(BackendRequest(method: "GET", target: "/_lab/state")),
            let counters = (try? JSONValue(parsing: response.body))?["counters"]?.objectValue
        else { return [:] }
        return counters.compactMapValues { $0.numberValue.map { Int($0) } }
    }
}

extension LabTarget {
    var isRemote: Bool {
        if case .remote = self { return true }
        return false
    }
}
