public import Foundation

/// A response body sent while it is produced, with chunked transfer coding (RFC 9112
/// §7.1): each ``HTTPServerChunkWriter/write(_:)`` leaves as one chunk at once, so a client
/// reads every piece (a multipart part, a subscription event) as soon as it is written.
///
/// ```swift
/// HTTPServerResponse(status: 200, headers: [HTTPServerHeader(name: "Content-Type", value: "text/plain")],
///                    stream: HTTPServerBodyStream { writer in
///                        try writer.write(Data("first\n".utf8))
///                        try await Task.sleep(for: .milliseconds(50))
///                        try writer.write(Data("second\n".utf8))
///                    })
/// ```
///
/// Writes block until the bytes are with the kernel (for at most the server's idle
/// timeout), so a producer never runs ahead of a slow client by more than a socket buffer.
/// When the producer returns, the last chunk is sent and the connection may serve another
/// request; when it throws, or the client goes away, the connection is closed without the
/// last chunk, which tells the client the body is incomplete. An HTTP/1.0 client, which
/// does not know chunked coding, gets the bytes as they are and the end of the body is the
/// end of the connection.
public final class HTTPServerBodyStream: Sendable, Hashable {
    /// Writes the body through `writer`; runs as a task, cancelled when the server stops.
    public typealias Produce = @Sendable (_ writer: HTTPServerChunkWriter) async throws -> Void

    let produce: Produce

    public init(_ produce: @escaping Produce) {
        self.produce = produce
    }

    public static func == (lhs: HTTPServerBodyStream, rhs: HTTPServerBodyStream) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// Sends the pieces of a streamed body (see ``HTTPServerBodyStream``).
public struct HTTPServerChunkWriter: Sendable {
    let send: @Sendable (Data) -> Bool

    /// Sends `bytes` now as one chunk; nothing for empty bytes.
    /// - Throws: ``HTTPServerClientGone`` when the client closed the connection or stopped
    ///   reading for longer than the idle timeout.
    public func write(_ bytes: Data) throws(HTTPServerClientGone) {
        guard !bytes.isEmpty else { return }
        guard send(bytes) else { throw HTTPServerClientGone() }
    }
}

/// The client of a streamed response went away (or stopped reading) before the body ended.
public struct HTTPServerClientGone: Error, Sendable, Hashable, CustomStringConvertible {
    public init() {}
    public var description: String { "the client closed the connection or stopped reading before the body ended" }
}
