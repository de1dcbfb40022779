#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
package import Foundation
import Vocabulary
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One plain-HTTP/1.1 exchange over a socket, for `http://[IPv6]:port` URLs, which
/// FoundationNetworking refuses with `NSURLErrorBadURL` before connecting (it compares its
/// host with curl's, and they differ by the brackets: swift-corelibs-foundation issue 5496).
///
/// It sends the request with `Connection: close` and reads the answer — Content-Length,
/// chunked, or up to the end — no further than the limit, with the client's timeout on
/// every read and write. HTTPS to an IPv6 literal is not possible this way.
package enum IPv6LiteralExchange {
    static func fetch(_ request: URLRequest, limit: Int, timeout: Double) async throws -> (HTTPURLResponse, Data) {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try exchange(request, limit: limit, timeout: timeout) })
            }
        }
    }

    private static func exchange(_ request: URLRequest, limit: Int, timeout: Double) throws -> (HTTPURLResponse, Data) {
        guard let url = request.url, let host = url.host?.trimmingCharacters(in: CharacterSet(charactersIn: "[]")) else {
            throw RemoteFailure(url: "the server", cause: .other("no URL"))
        }
        let shown = RemoteFailure.displayURL(url)
        guard url.scheme?.lowercased() == "http" else { throw RemoteFailure(url: shown, cause: .ipv6Literal) }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        // The port comes from the user or a server's redirect: out of range is an error, not a trap.
        guard let port = UInt16(exactly: url.port ?? 80) else { throw RemoteFailure(url: shown, cause: .other("port \(url.port ?? 0) is out of range (0–65535)")) }
        address.sin6_port = in_port_t(port.bigEndian)
        guard inet_pton(AF_INET6, host, &address.sin6_addr) == 1 else {
            throw RemoteFailure(url: shown, cause: .other("\(host) is not an IPv6 address"))
        }
        #if canImport(Glibc)
        let descriptor = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET6, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw RemoteFailure(url: shown, cause: .other(String(cString: strerror(errno)))) }
        defer { close(descriptor) }
        // --timeout is at most 3600 s, so both conversions are in range.
        var wait = timeval()
        wait.tv_sec = .init(timeout.rounded(.down))
        wait.tv_usec = .init((timeout - timeout.rounded(.down)) * 1_000_000)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        var noSignal: Int32 = 1
        #if canImport(Darwin)
        setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &noSignal, socklen_t(MemoryLayout<Int32>.size))
        #else
        _ = noSignal
        #endif
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
        }
        guard connected == 0 else { throw failure(errno, url: shown, timeout: timeout) }

        var head = "\(request.httpMethod ?? "GET") \(target(of: url)) HTTP/1.1\r\nHost: \(url.port.map { "[\(host)]:\($0)" } ?? "[\(host)]")\r\n"
        for (name, value) in request.allHTTPHeaderFields ?? [:] where !["host", "connection", "content-length"].contains(name.lowercased()) {
            head += "\(name): \(value)\r\n"
        }
        let body = request.httpBody ?? Data()
        if !body.isEmpty || ["POST", "PUT", "PATCH"].contains(request.httpMethod ?? "GET") { head += "Content-Length: \(body.count)\r\n" }
        head += "Connection: close\r\n\r\n"
        try send(Data(head.utf8) + body, descriptor, url: shown, timeout: timeout)

        // Each read waits at most the timeout; the whole answer may not take longer either.
        let deadline = ContinuousClock.now + .milliseconds(Int64((timeout * 1000).rounded()))
        let answer = try readAnswer(method: request.httpMethod ?? "GET", limit: limit, url: shown) {
            guard ContinuousClock.now < deadline else { throw RemoteFailure(url: shown, cause: .timedOut(seconds: timeout)) }
            var chunk = [UInt8](repeating: 0, count: 64 << 10)
            let count = recv(descriptor, &chunk, chunk.count, 0)
            if count < 0 { throw IPv6LiteralExchange.failure(errno, url: shown, timeout: timeout) }
            return count == 0 ? nil : Data(chunk[0..<count])
        }
        guard let response = HTTPURLResponse(url: url, statusCode: answer.status, httpVersion: "HTTP/1.1", headerFields: answer.fields) else {
            throw RemoteFailure(url: shown, cause: .notHTTP)
        }
        return (response, answer.body)
    }

    /// An answer as read from the server: its status, header fields (repeated names joined
    /// with ", ") and body.
    package struct Answer: Sendable, Hashable {
        package var status: Int
        package var fields: [String: String]
        package var body: Data
    }

    private static func isDigit(_ character: Character) -> Bool { character.isASCII && character.isNumber }

    /// Reads an HTTP/1.1 answer to a `method` request from `read` (the next bytes, nil at the
    /// end), its body at most `limit` bytes. Anything a server could send is an error, never
    /// a trap: statuses outside 100–599, sizes that are not numbers or do not fit.
    /// - Throws: ``RemoteFailure`` naming `url`.

    package static func readAnswer(method: String, limit: Int, url: String, read: @escaping () throws -> Data?) throws -> Answer {
        var reader = Reader(url: url, read: read)
        var lines = try reader.head().components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ", omittingEmptySubsequences: false)
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1.") else { throw RemoteFailure(url: url, cause: .notHTTP) }
        guard statusLine[1].count == 3, statusLine[1].allSatisfy(isDigit), let status = Int(statusLine[1]), (100...599).contains(status) else {
            throw RemoteFailure(url: url, cause: .other("the answer's status '\(VisibleEscapes.escape(String(statusLine[1].prefix(32))))' is not a number from 100 to 599"))
        }
        var fields: [String: String] = [:]
        // A name is kept as first spelled: `Content-Length` and `content-length` are one field.
        var spellings: [String: String] = [:]
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = spellings[line[..<colon].lowercased(), default: String(line[..<colon])]
            spellings[name.lowercased()] = name
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            fields[name] = fields[name].map { $0 + ", " + value } ?? value
        }
        let header = { (name: String) in spellings[name].flatMap { fields[$0] } }
        let body: Data
        if method == "HEAD" || status == 204 || status == 304 || (100..<200).contains(status) {
            body = Data()
        } else if header("transfer-encoding")?.lowercased().contains("chunked") == true {
            body = try reader.chunked(limit: limit)
        } else if let lengthText = header("content-length") {
            guard !lengthText.isEmpty, lengthText.allSatisfy(isDigit) else { throw RemoteFailure(url: url, cause: .notHTTP) }
            guard let length = Int(lengthText), length <= limit else {
                throw RemoteFailure(url: url, cause: .tooLarge(limit: limit, announced: Int(lengthText)))
            }
            body = try reader.exactly(length)
        } else {
            body = try reader.toEnd(limit: limit)
        }
        return Answer(status: status, fields: fields, body: body)
    }

    private static func target(of url: URL) -> String {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let path = components?.percentEncodedPath ?? "/"
        return (path.isEmpty ? "/" : path) + (components?.percentEncodedQuery.map { "?" + $0 } ?? "")
    }

    private static func send(_ data: Data, _ descriptor: Int32, url: String, timeout: Double) throws {
        var offset = 0
        while offset < data.count {
            let written = data.withUnsafeBytes { bytes in
                #if canImport(Glibc)
                Glibc.send(descriptor, bytes.baseAddress! + offset, data.count - offset, Int32(MSG_NOSIGNAL))
                #else
                Darwin.send(descriptor, bytes.baseAddress! + offset, data.count - offset, 0)
                #endif
            }
            guard written > 0 else { throw failure(errno, url: url, timeout: timeout) }
            offset += written
        }
    }

    static func failure(_ code: Int32, url: String, timeout: Double) -> RemoteFailure {
        switch code {
        case ECONNREFUSED: RemoteFailure(url: url, cause: .refused)
        case EAGAIN, ETIMEDOUT, EINPROGRESS: RemoteFailure(url: url, cause: .timedOut(seconds: timeout))
        case ECONNRESET, EPIPE: RemoteFailure(url: url, cause: .connectionLost)
        default: RemoteFailure(url: url, cause: .other(String(cString: strerror(code))))
        }
    }

    /// Buffered reads from the server.
    private struct Reader {
        let url: String
        let read: () throws -> Data?
        var buffer = Data()
        var ended = false

        /// Reads more into the buffer; false at the end of the stream.
        mutating func fill() throws -> Bool {
            guard !ended else { return false }
            guard let more = try read(), !more.isEmpty else {
                ended = true
                return false
            }
            buffer.append(more)
            return true
        }

        /// A chunk-size line, without its CRLF.
        mutating func line() throws -> String {
            try text(upTo: "\r\n", tooLong: .connectionLost)
        }

        /// The status line and header fields, without the blank line that ends them.
        mutating func head() throws -> String {
            try text(upTo: "\r\n\r\n", tooLong: .notHTTP)
        }

        /// The text before `terminator`, which must come within the first 64 KiB however the
        /// bytes arrive; the terminator is consumed.
        private mutating func text(upTo terminator: String, tooLong: RemoteFailure.Cause) throws -> String {
            let limit = 64 << 10
            let marker = Data(terminator.utf8)
            while true {
                if let end = buffer.firstRange(of: marker) {
                    guard end.lowerBound - buffer.startIndex <= limit else { throw RemoteFailure(url: url, cause: tooLong) }
                    let text = String(decoding: buffer[buffer.startIndex..<end.lowerBound], as: UTF8.self)
                    buffer.removeSubrange(buffer.startIndex..<end.upperBound)
                    return text
                }
                guard buffer.count < limit + marker.count else { throw RemoteFailure(url: url, cause: tooLong) }
                guard try fill() else { throw RemoteFailure(url: url, cause: .connectionLost) }
            }
        }

        mutating func exactly(_ count: Int) throws -> Data {
            while buffer.count < count {
                guard try fill() else { throw RemoteFailure(url: url, cause: .connectionLost) }
            }
            let data = buffer.prefix(count)
            buffer.removeFirst(count)
            return Data(data)
        }

        mutating func toEnd(limit: Int) throws -> Data {
            repeat {
                if buffer.count > limit { throw RemoteFailure(url: url, cause: .tooLarge(limit: limit, announced: nil)) }
            } while try fill()
            return buffer
        }

        mutating func chunked(limit: Int) throws -> Data {
            var body = Data()
            while true {
                let sizeText = try line().split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
                guard !sizeText.isEmpty, sizeText.allSatisfy({ $0.isASCII && $0.isHexDigit }) else {
                    throw RemoteFailure(url: url, cause: .notHTTP)
                }
                // Compared with what is left, so a size near Int.max cannot overflow the sum.
                guard let size = Int(sizeText, radix: 16), size <= limit - body.count else {
                    throw RemoteFailure(url: url, cause: .tooLarge(limit: limit, announced: nil))
                }
                if size == 0 { return body }
                body.append(try exactly(size))
                _ = try line()
            }
        }
    }
}
