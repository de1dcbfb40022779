package import ChainKit
package import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
package import HTTPServer
import Synchronization
import Timeline
import Vocabulary

/// One exchange with a server at an `http://` URL over ChainLab's own HTTP/1.1 client,
/// ``HTTPClientConnection``, rather than URLSession: operations, token refreshes, `/_lab/`
/// calls and the OTLP export all go through it (``RemoteHTTPClient`` picks it for every
/// `http://` URL, IPv6 literals included).
///
/// ```
///  fetch / stream ──▶ connect (names resolved, whole exchange bounded by a deadline)
///                     send: the request's fields, Accept-Encoding: gzip, deflate, Connection: close
///                     read the head ──▶ HTTPResponse (every field as it came, in order)
///  each next() ─────▶ read one piece (Content-Length, chunked or to the end)
///                     ──▶ gzip/deflate: Inflater, at most what the limit leaves
///                     ──▶ counted after decoding; past the limit or the deadline: closed
/// ```
///
/// Nothing is read or inflated but when the reader asks for the next piece, one piece at a
/// time, so an endless or bomb-sized compressed answer costs at most the limit: past it,
/// or past the deadline, the connection is closed at once and the server sees it. A
/// body with another coding (`br`, `zstd`, several codings) is handed on as it came, with
/// its `Content-Encoding`. Redirects are answers, a 401 with a challenge too; the
/// connection is not kept for another exchange.
package enum PlainHTTPExchange {
    /// The most bytes one read hands on, inflated or not.
    static let pieceBytes = 64 << 10

    /// Sends `request` and returns the answer's head as soon as it arrives; the body
    /// follows as the reader asks for it. The whole exchange ends by `timeout`.
    ///
    /// An announced `Content-Length` over `limit` fails at once. With `boundsBody`, the body
    /// fails once it passes `limit` (``RemoteHTTPClient/fetch(_:limit:)``); without, its
    /// reader bounds it (``RemoteHTTPClient/stream(_:limit:)``: a multipart answer's limit
    /// holds for each part and for the parts together, not for the bytes between them), and
    /// nothing is inflated but what it asks for. Either way, when the reader lets go of the
    /// body, the connection is closed.
    static func start(
        _ request: URLRequest, limit: Int, boundsBody: Bool, timeout: Double, inflated: Locked<Int>?
    ) async throws -> (HTTPResponse, ChunkStream) {
        guard let url = request.url else { throw RemoteFailure(url: "the server", cause: .other("no URL")) }
        let shown = RemoteFailure.displayURL(url)
        let (head, host, port) = try requestHead(for: request, url: url)
        let method = request.httpMethod ?? "GET"
        let body = request.httpBody ?? Data()
        let deadline = ContinuousClock.now + .milliseconds(Int64((timeout * 1000).rounded()))
        let cancelled = Mutex<(cancelled: Bool, connection: HTTPClientConnection?)>((false, nil))
        let (answer, reader) = try await withTaskCancellationHandler {
            try await blocking { () throws(RemoteFailure) -> (HTTPResponse, Body) in
                let connection: HTTPClientConnection
                do throws(HTTPClientError) {
                    connection = try HTTPClientConnection.connect(host: host, port: port, timeout: .milliseconds(Int64((timeout * 1000).rounded())), deadline: deadline)
                } catch {
                    throw RemoteFailure(url: shown, client: error, timeout: timeout)
                }
                guard cancelled.withLock({ state in
                    state.connection = connection
                    return !state.cancelled
                }) else {
                    connection.close()
                    throw RemoteFailure(url: shown, cause: .other("the exchange was cancelled"))
                }
                closeAtDeadline(connection, deadline)
                do throws(HTTPClientError) {
                    try connection.send(head: head, body: body)
                } catch {
                    connection.close()
                    throw RemoteFailure(url: shown, client: error, timeout: timeout)
                }
                return try readAnswer(on: connection, method: method, limit: limit, boundsBody: boundsBody, url: shown, timeout: timeout, inflated: inflated)
            }
        } onCancel: {
            cancelled.withLock { state in
                state.cancelled = true
                return state.connection
            }?.close()
        }
        let chunks = ChunkStream {
            let reading = Reading(reader)
            return {
                try await withTaskCancellationHandler {
                    try await blocking { () throws(RemoteFailure) in try reading.body.next() }
                } onCancel: {
                    reading.body.close()
                }
            }
        }
        return (answer, chunks)
    }

    /// One iteration of a body: when its reader lets go of it (done, failed, or stopped at
    /// a limit of its own), the connection is closed, whoever still holds the stream.
    private final class Reading: Sendable {
        let body: Body

        init(_ body: Body) {
            self.body = body
        }

        deinit {
            body.close()
        }
    }

    /// Reads the head of the answer to a `method` request on `connection`, and sets up how
    /// its body is read: with `boundsBody`, at most `limit` bytes after decoding. What the
    /// fuzz target `FuzzHTTPAnswer` reads, on a connection that replays its input.
    /// - Throws: ``RemoteFailure`` naming `url`; the connection is closed then.
    package static func readAnswer(
        on connection: HTTPClientConnection, method: String, limit: Int, boundsBody: Bool = true, url: String, timeout: Double,
        inflated: Locked<Int>? = nil
    ) throws(RemoteFailure) -> (HTTPResponse, Body) {
        let head: HTTPClientResponseHead
        do throws(HTTPClientError) {
            head = try connection.readHead(method: method)
        } catch {
            connection.close()
            throw RemoteFailure(url: url, client: error, timeout: timeout)
        }
        let fields = HTTPFields(head.headers.compactMap { try? HTTPField(name: $0.name, value: $0.value) })
        let encodings = head.headers.filter { $0.hasName("Content-Encoding") }.map(\.value)
        let coding = encodings.isEmpty ? nil : Inflater.Coding(contentEncoding: encodings.joined(separator: ", "))
        let hasBody = method != "HEAD" && head.status != 204 && head.status != 304
        if coding == nil, hasBody, !head.headers.contains(where: { $0.hasName("Transfer-Encoding") }),
            let length = head.headers.first(where: { $0.hasName("Content-Length") }), let announced = Int(length.value), announced > limit
        {
            connection.close()
            throw RemoteFailure(url: url, cause: .tooLarge(limit: limit, announced: announced))
        }
        let body = Body(
            connection: connection, inflater: coding.map(Inflater.init), limit: boundsBody ? limit : nil, url: url, timeout: timeout, inflated: inflated)
        return (HTTPResponse(status: .init(code: head.status), headerFields: fields), body)
    }

    /// An answer's body being read: each ``next()`` reads and decodes one piece.
    package final class Body: Sendable {
        private let connection: HTTPClientConnection
        /// Nil: the reader bounds the body.
        private let limit: Int?
        private let url: String
        private let timeout: Double
        private let inflated: Locked<Int>?
        private let state: Mutex<State>

        private struct State {
            var inflater: Inflater?
            /// Bytes handed on so far, after decoding.
            var count = 0
            var finished = false
            /// The bytes handed on passed the limit: the next read fails.
            var tooLarge = false
        }

        init(connection: HTTPClientConnection, inflater: sending Inflater?, limit: Int?, url: String, timeout: Double, inflated: Locked<Int>?) {
            self.connection = connection
            self.limit = limit.map { min(max(0, $0), Int.max - 1) }
            self.url = url
            self.timeout = timeout
            self.inflated = inflated
            state = Mutex(State(inflater: inflater))
        }

        /// The next piece of the body, decoded, or nil at its end. Blocks until the server
        /// sends it. Past the limit, at a failure and at the end the connection is closed.
        /// - Throws: ``RemoteFailure``.
        package func next() throws(RemoteFailure) -> Data? {
            try state.withLock { state throws(RemoteFailure) -> Data? in
                if state.tooLarge, let limit { throw RemoteFailure(url: url, cause: .tooLarge(limit: limit, announced: nil)) }
                guard !state.finished else { return nil }
                do throws(RemoteFailure) {
                    let piece = try read(&state)
                    if piece == nil { end(&state) }
                    return piece
                } catch {
                    end(&state)
                    throw error
                }
            }
        }

        /// Ends the exchange from any thread: a read under way fails, and the server sees the
        /// connection closed.
        func close() {
            connection.close()
        }

        private func end(_ state: inout State) {
            state.finished = true
            state.inflater = nil
            connection.close()
        }

        private func read(_ state: inout State) throws(RemoteFailure) -> Data? {
            while true {
                if let inflater = state.inflater {
                    // One byte past the limit is enough to know the body is too large.
                    let room = min(PlainHTTPExchange.pieceBytes, limit.map { $0 - state.count + 1 } ?? .max)
                    let bytes: [UInt8]?
                    do throws(Inflater.Failure) {
                        bytes = try inflater.inflate(max: room)
                    } catch {
                        throw RemoteFailure(url: url, cause: .other(error.description))
                    }
                    if let bytes {
                        inflated?.withLock { $0 += bytes.count }
                        return counted(Data(bytes), &state)
                    }
                }
                let piece: Data?
                do throws(HTTPClientError) {
                    piece = try connection.readBody()
                } catch {
                    throw RemoteFailure(url: url, client: error, timeout: timeout)
                }
                guard let piece else {
                    do throws(Inflater.Failure) {
                        try state.inflater?.finish()
                    } catch {
                        throw RemoteFailure(url: url, cause: .other(error.description))
                    }
                    return nil
                }
                guard let inflater = state.inflater else { return counted(piece, &state) }
                inflater.append(piece)
            }
        }

        /// `piece`, or as much of it as brings the body one byte past the limit: a reader
        /// cutting the body into parts sees a part too large before the whole is. Past the
        /// limit the connection is closed at once and the next read fails.
        private func counted(_ piece: Data, _ state: inout State) -> Data {
            guard let limit else { return piece }
            let kept = piece.prefix(limit + 1 - state.count)
            state.count += kept.count
            if state.count > limit {
                state.tooLarge = true
                end(&state)
            }
            return kept
        }
    }

    /// The request's head as it goes on the wire, and where it goes. The request's own fields
    /// go as they are, ordered by name (`URLRequest` keeps them in a dictionary), but for
    /// those that describe the connection, which this client writes itself.
    static func requestHead(for request: URLRequest, url: URL) throws(RemoteFailure) -> (head: [UInt8], host: String, port: UInt16) {
        let shown = RemoteFailure.displayURL(url)
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false), components.scheme?.lowercased() == "http",
            let rawHost = components.host, !rawHost.isEmpty
        else {
            throw RemoteFailure(url: shown, cause: .other("not an http:// URL with a host"))
        }
        // The port comes from the user or a server's answer: out of range is an error, not a trap.
        guard let port = UInt16(exactly: components.port ?? 80) else {
            throw RemoteFailure(url: shown, cause: .other("port \(components.port ?? 0) is out of range (0–65535)"))
        }
        let host = rawHost.hasPrefix("[") ? String(rawHost.dropFirst().dropLast()) : rawHost
        let authority = (host.contains(":") ? "[\(host)]" : host) + (components.port.map { ":\($0)" } ?? "")
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        let target = path + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
        let method = request.httpMethod ?? "GET"
        let body = request.httpBody ?? Data()
        guard HTTPSyntax.isToken(method.utf8) else {
            throw RemoteFailure(url: shown, cause: .other("the method \"\(VisibleEscapes.escape(method))\" is not an HTTP token"))
        }

        var fields = HTTPFields()
        do throws(HeaderValidationError) {
            try fields.append("Host", authority)
            let own = (request.allHTTPHeaderFields ?? [:]).filter { !connectionFields.contains($0.key.lowercased()) }
            for (name, value) in own.sorted(by: { ($0.key.lowercased(), $0.key) < ($1.key.lowercased(), $1.key) }) {
                try fields.append(name, value)
            }
            if fields["Accept-Encoding"] == nil { try fields.append("Accept-Encoding", "gzip, deflate") }
            if fields["User-Agent"] == nil { try fields.append("User-Agent", "chainlab/\(ChainLabVersion.current)") }
            if !body.isEmpty || ["POST", "PUT", "PATCH"].contains(method) { try fields.append("Content-Length", "\(body.count)") }
            try fields.append("Connection", "close")
        } catch {
            throw RemoteFailure(url: shown, cause: .other("a request header is not valid: \(error)"))
        }
        var head = "\(method) \(target) HTTP/1.1\r\n"
        for field in fields { head += "\(field.name): \(field.value)\r\n" }
        head += "\r\n"
        return (Array(head.utf8), host, port)
    }

    /// The fields this client writes itself.
    private static let connectionFields: Set<String> = ["host", "connection", "content-length", "transfer-encoding", "keep-alive", "te", "upgrade"]

    /// Where blocking socket calls run: threads added as needed, never the concurrency
    /// pool's, which a read waiting on a slow server must not hold.
    private static let io = DispatchQueue(label: "chainlab.remote.http", attributes: .concurrent)
    /// Where deadlines expire.
    private static let deadlines = DispatchQueue(label: "chainlab.remote.http.deadlines")

    private static func blocking<T: Sendable>(_ work: @escaping @Sendable () throws(RemoteFailure) -> T) async throws(RemoteFailure) -> T {
        let result: Result<T, RemoteFailure> = await withCheckedContinuation { continuation in
            io.async { continuation.resume(returning: Result { () throws(RemoteFailure) -> T in try work() }) }
        }
        return try result.get()
    }

    /// Closes `connection` at `deadline` if it is still open then, so an exchange whose
    /// reader waits elsewhere (the chain held at a stop) ends on time too; the read under
    /// way, or the next, fails as timed out.
    private static func closeAtDeadline(_ connection: HTTPClientConnection, _ deadline: ContinuousClock.Instant) {
        let (seconds, attoseconds) = (deadline - .now).components
        // A little after: the read that the close ends must find the deadline passed.
        let delay = Double(seconds) + Double(attoseconds) / 1e18 + 0.01
        deadlines.asyncAfter(deadline: .now() + max(0, delay)) { [weak connection] in connection?.close() }
    }
}
