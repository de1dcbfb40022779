#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization

/// A blocking HTTP/1.1 client over a raw loopback socket, so tests can send exactly the
/// bytes they mean (malformed ones included) and see exactly what comes back. Use it on a
/// thread of its own (``onThread(_:)``), never on the concurrency pool. One thread uses it
/// at a time; the lock only makes handing it from one thread to the next safe.
final class RawHTTPClient: Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// A response as it arrived: header lines verbatim and in order.
    struct Response: Equatable, CustomStringConvertible {
        var status: Int
        var headers: [String]
        var body: String

        var description: String { "\(status) \(headers) \(body.debugDescription)" }
    }

    private let descriptor: Int32
    private let received = Mutex<[UInt8]>([])

    init(port: UInt16) throws {
        #if canImport(Glibc)
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            throw Failure(description: "connect: errno \(errno)")
        }
        #if canImport(Darwin)
        var one: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    deinit {
        close(descriptor)
    }

    func write(_ text: String) throws {
        try write(Array(text.utf8))
    }

    func write(_ bytes: [UInt8]) throws {
        #if canImport(Glibc)
        let flags = Int32(MSG_NOSIGNAL)
        #else
        let flags: Int32 = 0
        #endif
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress! + offset, $0.count - offset, flags) }
            guard sent > 0 else { throw Failure(description: "send: errno \(errno)") }
            offset += sent
        }
    }

    /// Reads one response (an interim 1xx counts as one), failing after `timeout`.
    /// `bodyless` is for answers to HEAD, whose Content-Length describes a body not sent.
    func readResponse(within timeout: Duration = .seconds(5), bodyless: Bool = false) throws -> Response {
        let deadline = ContinuousClock.now + timeout
        var head: String?
        while head == nil {
            head = received.withLock { received -> String? in
                let end = received.indices.dropLast(3).first { index in
                    received[index] == 13 && received[index + 1] == 10 && received[index + 2] == 13 && received[index + 3] == 10
                }
                guard let end else { return nil }
                defer { received.removeSubrange(..<(end + 4)) }
                return String(decoding: received[..<end], as: UTF8.self)
            }
            if head == nil { try fill(until: deadline) }
        }
        let lines = head?.components(separatedBy: "\r\n") ?? []
        let statusLine = lines.first?.split(separator: " ", maxSplits: 2) ?? []
        guard statusLine.count >= 2, statusLine[0] == "HTTP/1.1", let status = Int(statusLine[1]) else {
            throw Failure(description: "bad status line in \(lines)")
        }
        let headers = Array(lines.dropFirst())
        let length = headers.first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { bodyless ? nil : Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
        while received.withLock({ $0.count }) < length { try fill(until: deadline) }
        let body = received.withLock { received in
            defer { received.removeSubrange(..<length) }
            return String(decoding: received[..<length], as: UTF8.self)
        }
        return Response(status: status, headers: headers, body: body)
    }

    /// Whether the server closes the connection (end of stream or reset) within `timeout`,
    /// discarding anything it sends first.
    func waitForClose(within timeout: Duration = .seconds(5)) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            do {
                try fill(until: deadline)
            } catch let failure as Failure {
                return failure.description != "timed out"
            } catch {
                return false
            }
        }
    }

    /// Whether the server has sent nothing and kept the connection open for `duration`.
    func staysSilent(for duration: Duration) -> Bool {
        do {
            try fill(until: .now + duration)
            return false
        } catch {
            return (error as? Failure)?.description == "timed out"
        }
    }

    /// Runs `body` on the bytes received and not yet read.
    func takeReceived<T>(_ body: (inout [UInt8]) -> T) -> T {
        received.withLock { body(&$0) }
    }

    /// Waits for more bytes (see ``read(through:within:)``).
    func fillForRead(until deadline: ContinuousClock.Instant) throws {
        try fill(until: deadline)
    }

    private func fill(until deadline: ContinuousClock.Instant) throws {
        while true {
            let remaining = deadline - .now
            guard remaining > .zero else { throw Failure(description: "timed out") }
            let (seconds, attoseconds) = remaining.components
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1))
            guard ready > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                received.withLock { $0.append(contentsOf: chunk[..<count]) }
                return
            }
            throw Failure(description: count == 0 ? "closed" : "reset (errno \(errno))")
        }
    }
}

/// Runs blocking work on a new thread, so sockets never block the concurrency pool that
/// the server's handlers run on.
func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread {
            continuation.resume(with: Result { try body() })
        }.start()
    }
}

/// Polls `condition` until it holds or `timeout` passes; true when it held.
func eventually(within timeout: Duration = .seconds(5), _ condition: @Sendable () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

extension RawHTTPClient {
    /// Reads until `marker` has arrived and returns everything up to and including it, as
    /// text; what follows stays for the next read. For bodies the server streams.
    func read(through marker: String, within timeout: Duration = .seconds(5)) throws -> String {
        let deadline = ContinuousClock.now + timeout
        let needle = Array(marker.utf8)
        while true {
            let found = takeReceived { received -> [UInt8]? in
                guard received.count >= needle.count,
                    let start = received.indices.dropLast(needle.count - 1).first(where: { received[$0..<($0 + needle.count)].elementsEqual(needle) })
                else { return nil }
                defer { received.removeSubrange(..<(start + needle.count)) }
                return Array(received[..<(start + needle.count)])
            }
            if let found { return String(decoding: found, as: UTF8.self) }
            try fillForRead(until: deadline)
        }
    }
}
