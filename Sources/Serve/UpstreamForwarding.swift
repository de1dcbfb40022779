import ChainKit
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPServer
import Synchronization
import Vocabulary
import Outbound

/// How the proxy reaches its upstream. Plain `http://` goes over ``HTTPClientConnection``s
/// kept alive in a pool: the request leaves as the client sent it (nothing added), repeated
/// answer fields stay separate, and the body is read only as fast as the client takes it.
/// `https://` goes through URLSession (the toolchain has no TLS of its own), which joins
/// repeated answer fields and decodes compressed bodies itself.
enum UpstreamRoute: Sendable {
    case plain(UpstreamPool)
    case session(URLSessionChunkReader)
}

/// An answer's head from the upstream, and how to read its body.
struct UpstreamAnswer: Sendable {
    var status: Int
    /// The fields the client gets: the upstream's, hop-by-hop ones removed, in order.
    var headers: [HTTPServerHeader]
    var body: UpstreamBody
}

/// Where an answer's body comes from.
enum UpstreamBody: Sendable {
    /// Already read whole (no body, or a small one with a Content-Length).
    case whole(Data)
    /// Read piece by piece from a pooled connection, which goes back to the pool once the
    /// body has been read to its end.
    case connection(HTTPClientConnection, UpstreamPool)
    case session(ChunkStream)
}

/// Connections to one upstream host and port: the idle ones kept alive for the next
/// exchange, and every open one, so stopping the proxy can end their waits at once.
final class UpstreamPool: Sendable {
    let host: String
    let port: UInt16
    let timeout: Duration
    /// The most idle connections kept; more are closed when their exchange ends.
    static let maxIdle = 256
    private let state = Mutex(State())

    private struct State {
        var idle: [HTTPClientConnection] = []
        var open: [ObjectIdentifier: HTTPClientConnection] = [:]
        var stopped = false
    }

    init(host: String, port: UInt16, timeout: Duration) {
        self.host = host
        self.port = port
        self.timeout = timeout
    }

    /// Sends a request and reads its answer's head. A request that finds its reused
    /// connection closed by the upstream (nothing of an answer came back) is sent once more
    /// on a new connection.
    func exchange(head: [UInt8], body: Data, method: String) throws(HTTPClientError) -> (HTTPClientConnection, HTTPClientResponseHead) {
        if let reused = state.withLock({ $0.idle.popLast() }) {
            do throws(HTTPClientError) {
                return (reused, try send(head: head, body: body, method: method, on: reused))
            } catch .connectionLost(received: false) {
                discard(reused)
            } catch {
                discard(reused)
                throw error
            }
        }
        let connection = try HTTPClientConnection.connect(host: host, port: port, timeout: timeout)
        let admitted = state.withLock { state in
            guard !state.stopped else { return false }
            state.open[ObjectIdentifier(connection)] = connection
            return true
        }
        guard admitted else { throw .connectionLost(received: false) }
        do throws(HTTPClientError) {
            return (connection, try send(head: head, body: body, method: method, on: connection))
        } catch {
            discard(connection)
            throw error
        }
    }

    private func send(head: [UInt8], body: Data, method: String, on connection: HTTPClientConnection) throws(HTTPClientError) -> HTTPClientResponseHead {
        try connection.send(head: head, body: body)
        return try connection.readHead(method: method)
    }

    /// Takes a connection back after its exchange: kept for the next one when its answer
    /// was read to the end, closed otherwise.
    func release(_ connection: HTTPClientConnection) {
        let kept = connection.isReusable && state.withLock { state in
            guard !state.stopped, state.idle.count < Self.maxIdle else { return false }
            state.idle.append(connection)
            return true
        }
        if !kept { discard(connection) }
    }

    /// Closes a connection whose answer is abandoned (its client left), so the upstream
    /// stops sending.
    func discard(_ connection: HTTPClientConnection) {
        connection.interrupt()
        _ = state.withLock { $0.open.removeValue(forKey: ObjectIdentifier(connection)) }
    }

    /// Ends every wait on the upstream and refuses new connections.
    func closeAll() {
        let open = state.withLock { state in
            state.stopped = true
            state.idle = []
            defer { state.open = [:] }
            return Array(state.open.values)
        }
        for connection in open { connection.interrupt() }
    }
}

/// The fields of a request or an answer that describe one connection, not the message
/// (RFC 9110 §7.6.1), and the framing the proxy writes itself.
enum HopByHop {
    static let names: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization", "te", "trailer",
        "transfer-encoding", "upgrade", "content-length",
    ]

    /// `headers` without the hop-by-hop fields, those `Connection` names, and `also`.
    static func removed(from headers: [HTTPServerHeader], also: Set<String> = []) -> [HTTPServerHeader] {
        let named = Set(headers.filter { $0.hasName("Connection") }.flatMap { HTTPSyntax.listElements($0.value) }.map { $0.lowercased() })
        return headers.filter { header in
            let name = header.name.lowercased()
            return !names.contains(name) && !named.contains(name) && !also.contains(name)
        }
    }
}

extension UpstreamRoute {
    /// The route for `upstream`: a socket pool for `http://`, URLSession for `https://`.
    static func forUpstream(_ upstream: URL, timeout: Double) -> UpstreamRoute {
        if upstream.scheme?.lowercased() == "http", let host = upstream.host {
            let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
            return .plain(UpstreamPool(host: bare, port: UInt16(clamping: upstream.port ?? 80), timeout: .seconds(timeout)))
        }
        let configuration = URLSessionConfiguration.ephemeral
        // The timeout is for silence: a stream (a subscription) may last longer than it.
        configuration.timeoutIntervalForRequest = timeout
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        // URLSession's default of 6 connections per host would leave a 7th client waiting
        // behind six long answers.
        configuration.httpMaximumConnectionsPerHost = 1024
        HTTPSTrust.prepare(configuration)
        return .session(URLSessionChunkReader(configuration: configuration, followsRedirects: false, maxUnread: 16 << 20))
    }

    /// Sends a request (its fields already without hop-by-hop ones, `Host` first) for
    /// `target` on `origin` and returns the answer's head. The smallest bodies with a length
    /// are read whole.
    func forward(method: String, origin: URL, target: String, headers: [HTTPServerHeader], body: Data, timeout: Double) async throws -> UpstreamAnswer {
        switch self {
        case .plain(let pool):
            var head = "\(method) \(target) HTTP/1.1\r\n"
            for header in headers { head += "\(header.name): \(header.value)\r\n" }
            head += "\r\n"
            let (connection, answer) = try pool.exchange(head: Array(head.utf8), body: body, method: method)
            let fields = HopByHop.removed(from: answer.headers)
            let lengths = answer.headers.filter { $0.hasName("Content-Length") }
            let isSmall = lengths.count == 1 && (Int(lengths[0].value) ?? .max) <= Self.wholeLimit
                && !answer.headers.contains { $0.hasName("Transfer-Encoding") }
            guard isSmall || connection.isReusable else {
                return UpstreamAnswer(status: answer.status, headers: fields, body: .connection(connection, pool))
            }
            var whole = Data()
            do {
                while let piece = try connection.readBody() { whole.append(piece) }
            } catch {
                pool.discard(connection)
                throw error
            }
            pool.release(connection)
            return UpstreamAnswer(status: answer.status, headers: fields, body: .whole(whole))
        case .session(let reader):
            guard let url = URL(string: origin.absoluteString + target) else { throw URLError(.badURL) }
            var request = URLRequest(url: url)
            request.httpMethod = method
            request.timeoutInterval = timeout
            // URLSession negotiates and decodes compression itself: the client's
            // Accept-Encoding stays behind, and the decoded body's encoding and length go.
            for header in headers where !header.hasName("Host") && !header.hasName("Accept-Encoding") {
                request.addValue(header.value, forHTTPHeaderField: header.name)
            }
            if !body.isEmpty { request.httpBody = body }
            let (head, chunks) = try await reader.start(request)
            let fields = RemoteHTTPClient.headerFields(of: head).map { HTTPServerHeader(name: $0.name, value: $0.value) }
            // An answer to HEAD has no body: it is answered whole, so it is logged and recorded
            // like any other (the server sends no stream for HEAD).
            let body: UpstreamBody = method == "HEAD" ? .whole(Data()) : .session(chunks)
            return UpstreamAnswer(status: head.statusCode, headers: HopByHop.removed(from: fields, also: ["content-encoding"]), body: body)
        }
    }

    /// Answers with a Content-Length up to this size are read whole and sent with their length.
    static let wholeLimit = 256 << 10

    func stop() {
        if case .plain(let pool) = self { pool.closeAll() }
    }
}
