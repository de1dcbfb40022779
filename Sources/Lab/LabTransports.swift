public import Backend
public import ChainKit
public import Foundation

/// The GraphQL transport to the in-process backend: no sockets, and the backend's latency
/// is spent on the lab clock.
public struct LabGraphQLTransport: GraphQLTransport {
    public let backend: LabBackend
    public let clock: VirtualClock

    public init(backend: LabBackend, clock: VirtualClock) {
        self.backend = backend
        self.clock = clock
    }

    public func send(_ request: NetworkRequest) async throws -> NetworkResponse {
        // A cancelled task sends nothing, as URLSession's async calls (Apollo's default
        // session) fail at once when their task is cancelled: a CacheAndNetwork fetch is
        // cancelled when its attempt is retried on the cached result. It fails as the lab
        // clock's waits do, with `CancellationError`.
        try Task.checkCancellation()
        let response = backend.handle(BackendRequest(request))
        if response.latency > 0 { try await clock.sleep(for: .seconds(response.latency)) }
        guard !response.pieces.isEmpty else {
            return NetworkResponse(status: response.status, headerFields: response.headers, url: request.url, body: response.body)
        }
        // A streamed answer: the head now, each piece after its delay on the lab clock, cut
        // into parts as a network transport cuts them.
        let clock = self.clock, pieces = response.pieces
        let chunks = ChunkStream {
            var remaining = pieces.makeIterator()
            return {
                guard let piece = remaining.next() else { return nil }
                if piece.delay > 0 { try await clock.sleep(for: .seconds(piece.delay)) }
                return piece.bytes
            }
        }
        return NetworkResponse(status: response.status, headerFields: response.headers, url: request.url, chunks: chunks).splittingBodyIntoParts()
    }
}

/// The middleware stack's transport to the in-process backend.
public struct LabClientTransport: ClientTransport {
    public let backend: LabBackend
    public let clock: VirtualClock

    public init(backend: LabBackend, clock: VirtualClock) {
        self.backend = backend
        self.clock = clock
    }

    public func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
        // As the GraphQL transport: a cancelled task sends nothing.
        try Task.checkCancellation()
        let data = try await body?.collect(upTo: 16 << 20) ?? Data()
        let response = backend.handle(BackendRequest(request, body: data))
        if response.latency > 0 { try await clock.sleep(for: .seconds(response.latency)) }
        return (HTTPResponse(status: .init(code: response.status), headerFields: response.headers), response.body.isEmpty ? nil : HTTPBody(response.body))
    }
}
