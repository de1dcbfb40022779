public import Foundation
import Synchronization
import Vocabulary

/// One HTTP/1.1 connection to a server, with blocking I/O: a request goes out as given,
/// its answer is read head first, then its body piece by piece as it arrives. ChainLab's
/// one HTTP client for `http://`: `chainlab serve --upstream` forwards through it, and
/// every exchange of the lab with a real server goes over it (`PlainHTTPExchange` in `Outbound`).
/// Nothing is added to a request, repeated header fields of an answer stay separate, and a
/// body is pulled only as fast as its reader asks, so a reader that stops reading (a proxy
/// whose client left, a client past its limit) stops the transfer by closing the connection.
///
/// ```swift
/// let connection = try HTTPClientConnection.connect(host: "127.0.0.1", port: 4000, timeout: .seconds(30))
/// try connection.send(head: Array("GET / HTTP/1.1\r\nHost: 127.0.0.1:4000\r\n\r\n".utf8), body: Data())
/// let head = try connection.readHead(method: "GET")
/// while let piece = try connection.readBody() { print(head.status, piece.count) }
/// ```
///
/// Every read and write gives up after `timeout` of silence, and none goes past a
/// `deadline` when one is given; ``interrupt()`` (from another thread) ends any wait at
/// once. A connection serves one exchange at a time: its owner hands it on only once
/// ``isReusable`` says the answer was read to its end.
public final class HTTPClientConnection: Sendable {
    /// The most bytes an answer's head may take.
    public static let maxHeadBytes = 64 << 10

    let descriptor: Int32
    /// The reading side's state; only the connection's one owner touches it, the lock
    /// keeps the type `Sendable` so it can move between tasks. Every call on the socket but
    /// a shutdown is made under it, so ``close()`` never closes a descriptor in use.
    private let reading = Mutex(Reading())
    /// Whether the descriptor was shut down or closed here; ``interrupt()`` takes only this
    /// lock, which is never held across a wait.
    private let ending = Mutex(Ending())

    private struct Ending {
        var interrupted = false
        var closed = false
    }

    private struct Reading {
        var buffer: [UInt8] = []
        var scratch = [UInt8](repeating: 0, count: HTTPServer.readBufferBytes)
        var framing = Framing.none
        var closed = false
        var mustClose = false
        /// The body's framing broke after the bytes before it were handed on: the next read
        /// fails with it.
        var failure: HTTPClientError?
        /// When set, no read waits past it, and one that ends at or after it timed out.
        var deadline: ContinuousClock.Instant?
        /// What a connection made by ``replaying(_:)`` reads instead of its socket, last
        /// piece first.
        var replay: [[UInt8]]?
    }

    /// How the body of the answer being read ends (RFC 9112 §6.3).
    private enum Framing {
        case none
        case length(remaining: Int)
        case chunked(ChunkedDecoder)
        case untilClose
    }

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit {
        if descriptor >= 0, !ending.withLock(\.closed) { Socket.closeDescriptor(descriptor) }
    }

    /// Connects to `host` (a name or a numeric address) on `port`.
    /// - Parameter deadline: when given, the connect, the sends and every read end by then,
    ///   whatever `timeout` allows; a read cut short by it fails with
    ///   ``HTTPClientError/timedOut``.
    public static func connect(
        host: String, port: UInt16, timeout: Duration, deadline: ContinuousClock.Instant? = nil
    ) throws(HTTPClientError) -> HTTPClientConnection {
        let timeout = deadline.map { min(timeout, max($0 - .now, .milliseconds(1))) } ?? timeout
        switch Socket.connect(host: host, port: port, timeout: timeout) {
        case .success(let descriptor):
            let connection = HTTPClientConnection(descriptor: descriptor)
            connection.reading.withLock { $0.deadline = deadline }
            return connection
        case .failure(let error):
            throw error
        }
    }

    /// A connection that reads `pieces`, one at a time, instead of a socket, and sends
    /// nowhere: how tests and the fuzz target feed an answer to the reader in pieces of their
    /// choosing.
    package static func replaying(_ pieces: [[UInt8]]) -> HTTPClientConnection {
        let connection = HTTPClientConnection(descriptor: -1)
        connection.reading.withLock { $0.replay = pieces.reversed() }
        return connection
    }

    /// Sends a request head (every line, the blank one included) and its body.
    public func send(head: [UInt8], body: Data) throws(HTTPClientError) {
        if let deadline = reading.withLock({ $0.deadline }) {
            guard deadline > .now else { throw .timedOut }
            Socket.setSendTimeout(descriptor, deadline - .now)
        }
        try reading.withLock { reading throws(HTTPClientError) in
            guard reading.replay == nil else { return }
            guard !reading.closed, Socket.sendAll(descriptor, head), body.isEmpty || body.withUnsafeBytes({ Socket.sendAll(descriptor, $0) }) else {
                reading.mustClose = true
                throw .connectionLost(received: false)
            }
        }
    }

    /// Reads the answer's head (interim 1xx answers are skipped) and sets up how its body
    /// ends; `method` matters because the answer to HEAD never has a body.
    public func readHead(method: String) throws(HTTPClientError) -> HTTPClientResponseHead {
        try reading.withLock { reading throws(HTTPClientError) -> HTTPClientResponseHead in
            while true {
                let head = try readHeadLines(&reading)
                if (100...199).contains(head.status) && head.status != 101 { continue }
                try setFraming(of: head, method: method, in: &reading)
                return head
            }
        }
    }

    /// The next piece of the body as it arrives (at most 64 KiB), or nil at its end.
    public func readBody() throws(HTTPClientError) -> Data? {
        try reading.withLock { reading throws(HTTPClientError) -> Data? in
            if let failure = reading.failure { throw failure }
            while true {
                switch reading.framing {
                case .none:
                    return nil
                case .length(let remaining):
                    if remaining == 0 {
                        reading.framing = .none
                        return nil
                    }
                    if reading.buffer.isEmpty { guard try fill(&reading) else { throw .connectionLost(received: true) } }
                    let count = min(remaining, reading.buffer.count)
                    let piece = Data(reading.buffer[..<count])
                    reading.buffer.removeFirst(count)
                    reading.framing = .length(remaining: remaining - count)
                    return piece
                case .untilClose:
                    if reading.buffer.isEmpty, try !fill(&reading) {
                        reading.framing = .none
                        return nil
                    }
                    defer { reading.buffer.removeAll(keepingCapacity: true) }
                    return Data(reading.buffer)
                case .chunked(var decoder):
                    var decoded: [UInt8] = []
                    let used: Int
                    do throws(ChunkedCodingError) {
                        used = try decoder.decode(reading.buffer[...], into: &decoded)
                    } catch {
                        // The body's bytes before the error are handed on first, so what a
                        // reader makes of them does not depend on how the bytes arrived.
                        reading.mustClose = true
                        reading.failure = .malformed(error.description)
                        if !decoded.isEmpty { return Data(decoded) }
                        throw .malformed(error.description)
                    }
                    reading.buffer.removeFirst(used)
                    reading.framing = decoder.isDone ? .none : .chunked(decoder)
                    if !decoded.isEmpty { return Data(decoded) }
                    if decoder.isDone { return nil }
                    guard try fill(&reading) else { throw .connectionLost(received: true) }
                }
            }
        }
    }

    /// Whether the answer was read to its end on a connection that may carry another
    /// exchange.
    public var isReusable: Bool {
        reading.withLock { reading in
            if case .none = reading.framing { return !reading.mustClose && !reading.closed && reading.buffer.isEmpty }
            return false
        }
    }

    /// Ends any wait on this connection from another thread; reads and writes fail from then on.
    /// The descriptor stays open until ``close()`` or the connection's end, and a server
    /// still sending is not told until then.
    public func interrupt() {
        ending.withLock { ending in
            guard !ending.closed, !ending.interrupted else { return }
            ending.interrupted = true
            Socket.shutdownBoth(descriptor)
        }
    }

    /// Ends the connection at once, from any thread: a wait under way ends, and the
    /// descriptor is closed as soon as it does, so a server still sending sees the connection
    /// reset (bytes it sent that nobody read make the close a reset) instead of blocking.
    public func close() {
        interrupt()
        reading.withLock { reading in
            reading.closed = true
            reading.mustClose = true
            ending.withLock { ending in
                guard !ending.closed, reading.replay == nil else { return }
                ending.closed = true
                Socket.closeDescriptor(descriptor)
            }
        }
    }

    /// Reads more bytes into the buffer; false at the end of the stream.
    private func fill(_ reading: inout Reading) throws(HTTPClientError) -> Bool {
        if ending.withLock(\.interrupted) {
            reading.mustClose = true
            if let deadline = reading.deadline, deadline <= .now { throw .timedOut }
            throw .connectionLost(received: !reading.buffer.isEmpty)
        }
        guard !reading.closed else { return false }
        if reading.replay != nil {
            guard let piece = reading.replay?.popLast() else {
                reading.closed = true
                return false
            }
            reading.buffer.append(contentsOf: piece)
            return true
        }
        var outcome = Socket.ReadOutcome.failed
        if let deadline = reading.deadline {
            reading.scratch.withUnsafeMutableBytes { outcome = Socket.read(descriptor, into: $0, until: deadline) }
        } else {
            reading.scratch.withUnsafeMutableBytes { outcome = Socket.receive(descriptor, into: $0) }
        }
        // A shutdown here ends a read as if the server had closed: it was not the server.
        if case .bytes = outcome {
        } else if let deadline = reading.deadline, deadline <= .now {
            outcome = .timedOut
        } else if ending.withLock(\.interrupted) {
            outcome = .failed
        }
        switch outcome {
        case .bytes(let count):
            reading.buffer.append(contentsOf: reading.scratch[..<count])
            return true
        case .closed:
            reading.closed = true
            return false
        case .timedOut:
            reading.mustClose = true
            throw .timedOut
        case .failed:
            reading.mustClose = true
            throw .connectionLost(received: !reading.buffer.isEmpty)
        }
    }

    private func readHeadLines(_ reading: inout Reading) throws(HTTPClientError) -> HTTPClientResponseHead {
        var scanned = 0
        var received = !reading.buffer.isEmpty
        while true {
            if let end = Self.headEnd(in: reading.buffer, from: scanned) {
                defer { reading.buffer.removeFirst(end) }
                return try Self.parseHead(reading.buffer[..<(end - 4)])
            }
            scanned = max(0, reading.buffer.count - 3)
            if reading.buffer.count > Self.maxHeadBytes {
                reading.mustClose = true
                throw .malformed("the answer's head is larger than \(Self.maxHeadBytes) bytes")
            }
            guard try fill(&reading) else {
                reading.mustClose = true
                throw .connectionLost(received: received)
            }
            received = true
        }
    }

    /// The index just past the blank line that ends a head, searching from `start`.
    private static func headEnd(in buffer: [UInt8], from start: Int) -> Int? {
        var index = start
        while index + 3 < buffer.count {
            if buffer[index] == HTTPSyntax.cr && buffer[index + 1] == HTTPSyntax.lf && buffer[index + 2] == HTTPSyntax.cr && buffer[index + 3] == HTTPSyntax.lf {
                return index + 4
            }
            index += 1
        }
        return nil
    }

    private static func parseHead(_ bytes: ArraySlice<UInt8>) throws(HTTPClientError) -> HTTPClientResponseHead {
        var lines = bytes.split(separator: HTTPSyntax.lf, omittingEmptySubsequences: false).map { $0.last == HTTPSyntax.cr ? $0.dropLast() : $0 }
        let statusLine = lines.removeFirst()
        let parts = statusLine.split(separator: HTTPSyntax.space, maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0].starts(with: Array("HTTP/1.".utf8)) else {
            throw .malformed("\"\(HTTPSyntax.visible(statusLine))\" is not an HTTP/1.x status line")
        }
        // Three digits, as RFC 9110 §15 has them, so `+20` and `-99` are not numbers here.
        guard parts[1].count == 3, parts[1].allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            let status = Int(String(decoding: parts[1], as: UTF8.self)), (100...599).contains(status)
        else {
            throw .malformed("the status \"\(HTTPSyntax.visible(parts[1]))\" is not a number from 100 to 599")
        }
        var headers: [HTTPServerHeader] = []
        for (index, line) in lines.enumerated() {
            do {
                headers.append(try HTTPRequestParser.parseHeaderLine(line, line: index + 2))
            } catch {
                throw .malformed("in the answer's head: \(error.description)")
            }
        }
        return HTTPClientResponseHead(status: status, headers: headers, closes: parts[0].elementsEqual("HTTP/1.0".utf8))
    }

    private func setFraming(of head: HTTPClientResponseHead, method: String, in reading: inout Reading) throws(HTTPClientError) {
        let closes = head.closes || head.headers.contains { $0.hasName("Connection") && HTTPSyntax.listElements($0.value).contains { $0.lowercased() == "close" } }
        if closes { reading.mustClose = true }
        if method == "HEAD" || head.status == 204 || head.status == 304 {
            reading.framing = .none
            return
        }
        let codings = head.headers.filter { $0.hasName("Transfer-Encoding") }.flatMap { HTTPSyntax.listElements($0.value) }
        if let last = codings.last {
            if last.lowercased() == "chunked" && codings.count == 1 {
                reading.framing = .chunked(ChunkedDecoder())
            } else {
                reading.framing = .untilClose
                reading.mustClose = true
            }
            return
        }
        let lengths = Set(head.headers.filter { $0.hasName("Content-Length") }.flatMap { HTTPSyntax.listElements($0.value) })
        guard let length = lengths.first else {
            reading.framing = .untilClose
            reading.mustClose = true
            return
        }
        guard lengths.count == 1, let count = Int(length), count >= 0 else {
            reading.mustClose = true
            throw .malformed("Content-Length \"\(VisibleEscapes.escape(lengths.sorted().joined(separator: ", ")))\" is not one decimal number")
        }
        reading.framing = .length(remaining: count)
    }
}

/// The head of an answer ``HTTPClientConnection`` read: every field as it came, in order.
public struct HTTPClientResponseHead: Sendable, Hashable {
    public var status: Int
    public var headers: [HTTPServerHeader]
    /// An HTTP/1.0 answer: the connection ends with it.
    public var closes: Bool
}

/// Why an exchange over ``HTTPClientConnection`` failed.
public enum HTTPClientError: Error, Sendable, Hashable, CustomStringConvertible {
    case hostNotFound(String)
    case refused
    case timedOut
    /// The server closed the connection or it broke; `received` says whether any of the
    /// answer had arrived (when not, a request on a reused connection may be sent again).
    case connectionLost(received: Bool)
    case malformed(String)
    case failed(call: String, errno: Int32)

    public var description: String {
        switch self {
        case .hostNotFound(let host): "the host name \(VisibleEscapes.escape(host)) does not resolve"
        case .refused: "connection refused"
        case .timedOut: "no answer within the timeout"
        case .connectionLost: "the connection closed before the answer was complete"
        case .malformed(let reason): "the answer is not valid HTTP/1.1: \(reason)"
        case .failed(let call, let errno): "\(call) failed: \(String(cString: strerror(errno))) (errno \(errno))"
        }
    }
}
