public import Backend
import Foundation
import ChainKit
import HTTPServer

/// The lab backend over HTTP/1.1: what `chainlab serve` runs, so real clients (curl, an
/// app in a simulator, ``URLSessionTransport``) can talk to the same backend the in-process
/// chains use.
///
/// ```swift
/// let service = LabHTTPService(backend: .onWallClock(), host: "127.0.0.1", port: 0)
/// let port = try service.start()   // GraphQL at http://127.0.0.1:\(port)/graphql
/// defer { service.stop() }
/// ```
///
/// The HTTP side (keep-alive, Content-Length bodies, chunked streamed answers, 400 for
/// malformed requests, 431 for oversized heads, 413 for oversized bodies, the idle timeout)
/// is ``HTTPServer``'s; this type translates each request for ``LabBackend/handle(_:)`` and
/// its answer back, holds the answer for the backend's ``BackendResponse/latency`` on the
/// wall clock, and sends a multipart answer (@defer, subscriptions) piece by piece.
public final class LabHTTPService: Sendable {
    /// The numeric address listened on.
    public let host: String
    private let server: HTTPServer

    /// A service for `backend`; nothing listens until ``start()``.
    /// - Parameters:
    ///   - backend: answers every request; build it with ``LabBackend/onWallClock(settings:)``
    ///     so token TTLs pass in real time.
    ///   - host: a numeric IPv4 or IPv6 address (see ``ListenAddress``).
    ///   - port: the port to listen on; 0 lets the system pick a free one.
    ///   - idleTimeout: how long a client has to send a request head (and then its body)
    ///     before the connection is closed.
    public init(backend: LabBackend, host: String, port: UInt16, idleTimeout: Duration = .seconds(30)) {
        self.host = host
        server = HTTPServer(host: host, port: port, idleTimeout: idleTimeout) { request in
            await LabHTTPService.respond(to: request, backend: backend)
        }
    }

    /// Binds, starts listening and returns the port. A service starts once.
    /// - Throws: when `host` is not a numeric address, or the socket cannot be bound (the
    ///   port is taken, the address is not local); the error's description says which.
    @discardableResult
    public func start() throws -> UInt16 {
        try server.start()
    }

    /// Stops listening, closes every connection and cancels responses still waiting out
    /// their latency. Returns promptly; calling it again does nothing.
    public func stop() {
        server.stop()
    }

    /// Answers one HTTP request with the backend's response, after its latency.
    static func respond(to request: HTTPServerRequest, backend: LabBackend) async -> HTTPServerResponse {
        let backendRequest: BackendRequest
        switch BackendRequest.converting(request) {
        case .success(let converted): backendRequest = converted
        case .failure(let error): return .text("\(error.description)\n", status: 400)
        }
        let response = backend.handle(backendRequest)
        if response.latency > 0 {
            do {
                try await Task.sleep(for: LabHTTPService.delay(forLatency: response.latency))
            } catch {
                return .text("the server is stopping\n", status: 503)
            }
        }
        return HTTPServerResponse(response)
    }

    /// The longest latency the service waits out; longer settings are cut to it, because
    /// `Duration` cannot hold every `Double` and no test of a client needs more.
    static let latencyLimit: Double = 24 * 60 * 60

    static func delay(forLatency seconds: Double) -> Duration {
        .seconds(min(seconds, latencyLimit))
    }
}

extension BackendRequest {
    /// The backend's view of a request the server parsed. The parser already refused
    /// header names that are not tokens and values with CR, LF or NUL, so a failure here
    /// means the two validators disagree; it is answered 400 rather than trapping.
    static func converting(_ request: HTTPServerRequest) -> Result<BackendRequest, HeaderValidationError> {
        var fields = HTTPFields()
        for header in request.headers {
            do {
                try fields.append(header.name, header.value)
            } catch {
                return .failure(error)
            }
        }
        return .success(BackendRequest(method: request.method, target: request.target, headers: fields, body: request.body))
    }
}

extension HTTPServerResponse {
    /// The backend's answer as the server sends it; the server adds the framing headers. A
    /// multipart answer goes out chunked, each piece after its delay on the wall clock, so
    /// curl and URLSession receive every part as it is sent.
    init(_ response: BackendResponse) {
        let headers = response.headers.map { HTTPServerHeader(name: $0.name, value: $0.value) }
        guard !response.pieces.isEmpty else {
            self.init(status: response.status, headers: headers, body: response.body)
            return
        }
        let pieces = response.pieces
        self.init(status: response.status, headers: headers, stream: HTTPServerBodyStream { writer in
            for piece in pieces {
                if piece.delay > 0 { try await Task.sleep(for: LabHTTPService.delay(forLatency: piece.delay)) }
                try writer.write(piece.bytes)
            }
        })
    }
}
