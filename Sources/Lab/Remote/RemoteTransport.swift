public import ChainKit
public import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// The transport to a real server (`--endpoint`) under both chains: like
/// ``URLSessionTransport``, but every answer is read through a ``RemoteHTTPClient``, so a
/// body larger than ``maxBodyBytes`` stops the read and fails the exchange with its size,
/// and an unreachable server fails with one line naming the URL and the cause.
///
/// Failures are also kept in ``failures``, so a headless run can say, after exporting the
/// timeline up to them, why the server failed.
///
/// Given a `clock`, each exchange advances it by the wall time the exchange took, so events
/// against a real server are stamped with real durations (the waterfall and OTLP spans show
/// how long the server took) while the lab clock stays the one time every event uses.
public struct RemoteTransport: GraphQLTransport, ClientTransport {
    public let client: RemoteHTTPClient
    /// The most of a response body read: `--max-body`, 1 MiB by default.
    public let maxBodyBytes: Int
    private let failureLog: Locked<[RemoteFailure]>
    private let clock: VirtualClock?

    public init(client: RemoteHTTPClient, maxBodyBytes: Int = 1 << 20, clock: VirtualClock? = nil) {
        self.client = client
        self.maxBodyBytes = maxBodyBytes
        self.clock = clock
        failureLog = Locked([])
    }

    /// The network failures so far, in order.
    public var failures: [RemoteFailure] { failureLog.value }

    public func send(_ request: NetworkRequest) async throws -> NetworkResponse {
        var urlRequest = RemoteHTTPClient.request(url: request.url, method: request.method.rawValue, headers: request.headerFields, body: request.body)
        if let timeout = request.timeoutInterval { urlRequest.timeoutInterval = min(timeout, client.timeout) }
        let (response, data) = try await fetch(urlRequest)
        // Read whole within --max-body, then cut into parts as a streaming transport would,
        // so a multipart answer (@defer, a subscription) still yields one result per part.
        return NetworkResponse(status: response.statusCode, headerFields: RemoteHTTPClient.headerFields(of: response), url: response.url ?? request.url, body: data)
            .splittingBodyIntoParts()
    }

    public func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
        guard let url = request.url(relativeTo: baseURL) else {
            throw URLSessionTransportError.invalidURL(baseURL: baseURL, path: request.path)
        }
        let bytes = try await body?.collect(upTo: maxBodyBytes)
        let (response, data) = try await fetch(RemoteHTTPClient.request(url: url, method: request.method.rawValue, headers: request.headerFields, body: bytes))
        return (HTTPResponse(status: response.statusCode, headerFields: RemoteHTTPClient.headerFields(of: response)), data.isEmpty ? nil : HTTPBody(data))
    }

    private func fetch(_ request: URLRequest) async throws -> (HTTPURLResponse, Data) {
        let started = ContinuousClock.now
        defer { clock?.advance(by: ContinuousClock.now - started) }
        do {
            return try await client.fetch(request, limit: maxBodyBytes)
        } catch let failure as RemoteFailure {
            failureLog.withLock { $0.append(failure) }
            throw failure
        }
    }
}
