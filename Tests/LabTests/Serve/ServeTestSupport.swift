#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Backend
import ChainKit
import Dispatch
import Foundation
import Lab
import Serve
import Synchronization
import TestSupport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A ``LabHTTPService`` on an ephemeral loopback port, with the backend behind it.
struct ServedLab {
    let backend: LabBackend
    let service: LabHTTPService
    let port: UInt16

    init(_ settings: LabBackend.Settings = LabBackend.Settings(), idleTimeout: Duration = .seconds(5)) throws {
        backend = .onWallClock(settings: settings)
        service = LabHTTPService(backend: backend, host: "127.0.0.1", port: 0, idleTimeout: idleTimeout)
        port = try service.start()
    }

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Sends one request with ``URLSessionTransport`` and returns the status, headers and body text.
    /// The request's timeout is a hang guard: the lab's handlers share the test process's
    /// few concurrency threads with every other test, which can hold them for seconds.
    func send(_ method: HTTPMethod, _ path: String, headers: KeyValuePairs<String, String> = [:], body: String? = nil)
        async throws -> (status: Int, headers: HTTPFields, text: String)
    {
        let response = try await URLSessionTransport().send(NetworkRequest(
            method: method, url: baseURL.appending(path: path), headerFields: try HTTPFields(headers),
            body: body.map { Data($0.utf8) }, timeoutInterval: 120))
        let text = try await response.chunks.collect().map { String(decoding: $0, as: UTF8.self) }.joined()
        return (response.status, response.headerFields, text)
    }

    /// `POST /oauth/token` with a form body.
    func token(_ form: String) async throws -> (status: Int, headers: HTTPFields, text: String) {
        try await send(.post, "/oauth/token", headers: ["Content-Type": "application/x-www-form-urlencoded"], body: form)
    }
}

/// A response read off a raw socket.
struct RawResponse: Equatable {
    var status: Int
    var headers: [String: String]
    var body: String
}

/// Why a raw client gave up.
struct RawClientError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A blocking HTTP/1.1 client on one loopback connection, for the requests URLSession
/// will not send (malformed, trickled, oversized) and for load. Every read and write gives
/// up after `timeout`, so a test never hangs on it.
final class RawClient {
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private var closed = false

    init(port: UInt16, timeout: Duration = .seconds(10)) throws {
        #if canImport(Glibc)
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw RawClientError("socket: \(String(cString: strerror(errno)))") }
        var wait = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw RawClientError("connect: \(reason)")
        }
    }

    deinit {
        if !closed { close(descriptor) }
    }

    func disconnect() {
        guard !closed else { return }
        closed = true
        close(descriptor)
    }

    func transmit(_ text: String) throws {
        try transmit(Array(text.utf8))
    }

    func transmit(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw RawClientError("send: \(String(cString: strerror(errno)))") }
            offset += sent
        }
    }

    /// Whether bytes (or the end of the stream) can be read within `timeout`.
    func waitReadable(for timeout: Duration) -> Bool {
        if !buffer.isEmpty { return true }
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        return poll(&entry, 1, milliseconds) > 0
    }

    /// Reads one response framed by Content-Length.
    func readResponse() throws -> RawResponse {
        let (status, fields, body) = try readResponseFields()
        var headers: [String: String] = [:]
        for line in fields {
            let parts = line.split(separator: ":", maxSplits: 1)
            headers[parts[0].lowercased()] = parts[1].trimmingCharacters(in: .whitespaces)
        }
        return RawResponse(status: status, headers: headers, body: body)
    }

    /// Reads one response framed by Content-Length, its header lines verbatim and in order.
    func readResponseFields() throws -> (status: Int, fields: [String], body: String) {
        var headEnd: Int?
        while headEnd == nil {
            headEnd = buffer.indices.dropLast(3).first { index in
                buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10
            }
            if headEnd == nil { try fill() }
        }
        let head = String(decoding: buffer[..<headEnd!], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ", maxSplits: 2)
        guard statusLine.count >= 2, statusLine[0] == "HTTP/1.1", let status = Int(statusLine[1]) else {
            throw RawClientError("bad status line in \(head.debugDescription)")
        }
        for line in lines where !line.contains(":") { throw RawClientError("bad header line \(line.debugDescription)") }
        let lengthLine = lines.first { $0.lowercased().hasPrefix("content-length:") }
        let length = Int(lengthLine.map { $0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces) } ?? "0") ?? 0
        let bodyStart = headEnd! + 4
        while buffer.count < bodyStart + length { try fill() }
        let body = String(decoding: buffer[bodyStart..<(bodyStart + length)], as: UTF8.self)
        buffer.removeFirst(bodyStart + length)
        return (status, lines, body)
    }

    /// Reads a response's head and returns it (the lines before the blank one); what came
    /// of the body stays buffered.
    func readHead() throws -> String {
        let end = Array("\r\n\r\n".utf8)
        while true {
            if let index = buffer.indices.dropLast(3).first(where: { buffer[$0..<($0 + 4)].elementsEqual(end) }) {
                defer { buffer.removeFirst(index + 4) }
                return String(decoding: buffer[..<index], as: UTF8.self)
            }
            try fill()
        }
    }

    /// Reads a chunked response through its last chunk and returns the bytes as they came.
    func readThroughLastChunk() throws -> String {
        let last = Array("\r\n0\r\n\r\n".utf8)
        while !buffer.suffix(last.count).elementsEqual(last) { try fill() }
        defer { buffer.removeAll() }
        return String(decoding: buffer, as: UTF8.self)
    }

    /// Whether the server has closed the connection (reads end of stream within `timeout`).
    func isClosedByServer(within timeout: Duration) -> Bool {
        guard buffer.isEmpty, waitReadable(for: timeout) else { return false }
        var byte: UInt8 = 0
        return recv(descriptor, &byte, 1, 0) == 0
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        if count == 0 { throw RawClientError("the server closed the connection") }
        if count < 0 { throw RawClientError("recv: \(String(cString: strerror(errno)))") }
        buffer.append(contentsOf: chunk[..<count])
    }
}

/// Runs `body` on `count` dedicated threads (not the concurrency pool, which serves the
/// lab's handlers) and returns once every one has finished.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) async {
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        let thread = Thread {
            body(index)
            group.leave()
        }
        thread.stackSize = 256 * 1024
        thread.start()
    }
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        group.notify(queue: .global()) { continuation.resume() }
    }
}

/// Runs an executable to its end and returns its exit status and output; the waiting
/// happens on threads of its own.
func runProcess(_ path: String, _ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let (output, errors) = try startPiped(process)
    return await onOwnThread {
        let err = LockedData()
        let errorsRead = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            err.set(errors.fileHandleForReading.readDataToEndOfFile())
            errorsRead.signal()
        }
        let out = output.fileHandleForReading.readDataToEndOfFile()
        errorsRead.wait()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err.value, as: UTF8.self))
    }
}

/// Bytes handed from one thread to another.
final class LockedData: Sendable {
    private let data = Mutex(Data())
    func set(_ value: Data) { data.withLock { $0 = value } }
    var value: Data { data.withLock { $0 } }
}
