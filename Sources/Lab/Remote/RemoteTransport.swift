public import ChainKit
public import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
public import Outbound

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

    /// Returns as soon as the response head arrives; the body follows as the server sends
    /// it, cut into parts when it is `multipart/mixed`, so each @defer increment and each
    /// subscription event reaches the chain (and the timeline) when it arrives. No answer
    /// may be longer than ``maxBodyBytes`` (counted after decompression), each part of a
    /// multipart one and all of it, so an endless subscription ends too.
    public func send(_ request: NetworkRequest) async throws -> NetworkResponse {
        var urlRequest = RemoteHTTPClient.request(url: request.url, method: request.method.rawValue, headers: request.headerFields, body: request.body)
        if let timeout = request.timeoutInterval { urlRequest.timeoutInterval = min(timeout, client.timeout) }
        let url = request.url, limit = maxBodyBytes, failureLog = self.failureLog
        let (head, chunks) = try await timed { try await recordingFailures { try await client.stream(urlRequest, limit: limit) } }
        var streamed = NetworkResponse(
            status: head.status.code, headerFields: head.headerFields, url: url,
            chunks: timedReads(of: chunks)
        ).splittingBodyIntoParts(limit: limit)
        streamed.chunks = Self.bounded(streamed.chunks, limit: limit)
        streamed.chunks = streamed.chunks.mapErrors { error in
            let failure = (error as? BodyLimitExceeded).map {
                RemoteFailure(url: RemoteFailure.displayURL(url), cause: $0.isPart ? .partTooLarge(limit: $0.limit) : .tooLarge(limit: $0.limit, announced: nil))
            } ?? error
            if let failure = failure as? RemoteFailure { failureLog.withLock { $0.append(failure) } }
            throw failure
        }
        return streamed
    }

    public func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
        guard let url = request.url(relativeTo: baseURL) else {
            throw URLSessionTransportError.invalidURL(baseURL: baseURL, path: request.path ?? "")
        }
        let bytes = try await body?.collect(upTo: maxBodyBytes)
        let (head, data) = try await fetch(RemoteHTTPClient.request(url: url, method: request.method.rawValue, headers: request.headerFields, body: bytes))
        return (head, data.isEmpty ? nil : HTTPBody(data))
    }

    private func fetch(_ request: URLRequest) async throws -> (HTTPResponse, Data) {
        try await timed { try await recordingFailures { try await client.fetch(request, limit: maxBodyBytes) } }
    }

    /// Runs `work`, advancing the clock by the wall time it took.
    private func timed<T>(_ work: () async throws -> T) async rethrows -> T {
        guard let clock else { return try await work() }
        return try await clock.advancing(byWallTimeOf: work)
    }

    /// Runs `work`, keeping a ``RemoteFailure`` it throws in ``failures``.
    private func recordingFailures<T>(_ work: () async throws -> T) async throws -> T {
        do {
            return try await work()
        } catch let failure as RemoteFailure {
            failureLog.withLock { $0.append(failure) }
            throw failure
        }
    }

    /// `parts`, failing with ``BodyLimitExceeded`` once they add up to more than `limit` bytes
    /// (a part larger than it on its own fails as a part before).
    private static func bounded(_ parts: ChunkStream, limit: Int) -> ChunkStream {
        PullStream {
            let iterator = parts.makeAsyncIterator()
            var total = 0
            return {
                guard let chunk = try await iterator.next() else { return nil }
                total += chunk.count
                if total > limit { throw BodyLimitExceeded(limit: limit, isPart: false) }
                return chunk
            }
        }
    }

    /// `chunks`, advancing the clock by the time each read waited for the server: a part
    /// that arrived while the chain was held at a stop is stamped when it is read, without
    /// the hold (the lab clock does not run while a person looks).
    private func timedReads(of chunks: ChunkStream) -> ChunkStream {
        guard let clock else { return chunks }
        return PullStream {
            let iterator = chunks.makeAsyncIterator()
            return {
                let started = ContinuousClock.now
                defer { clock.advance(by: ContinuousClock.now - started) }
                return try await iterator.next()
            }
        }
    }
}

extension VirtualClock {
    /// Runs `work`, an exchange with a real server, advancing the lab clock by the wall time it
    /// took: on the timeline it lasts as long as it did on the wire.
    func advancing<T>(byWallTimeOf work: () async throws -> T) async rethrows -> T {
        let started = ContinuousClock.now
        defer { advance(by: ContinuousClock.now - started) }
        return try await work()
    }
}
