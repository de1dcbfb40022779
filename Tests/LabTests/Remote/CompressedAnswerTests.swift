import ChainKit
import CZlib
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPServer
import Lab
import Outbound
import Synchronization
import Testing
import Timeline

/// What a server at an `http://` URL sends compressed is inflated by ChainLab's own client,
/// piece by piece and no further than `--max-body`: past it, or past `--timeout`, the
/// connection is closed at once, so nothing goes on inflating after the exchange failed.
@Suite("Compressed answers from plain-HTTP servers", .timeLimit(.minutes(2)))
struct CompressedAnswerTests {
    static let json = #"{"data":{"hero":{"id":"2001","name":"R2-D2","friends":["Luke","Han","Leia"]}}}"#

    /// A server whose every answer is `body` with `headers`, whole (with a Content-Length).
    static func answering(_ body: Data, _ headers: [HTTPServerHeader], seen: Locked<[HTTPServerRequest]>? = nil) throws -> (HTTPServer, URL) {
        let server = HTTPServer { request in
            seen?.withLock { $0.append(request) }
            return HTTPServerResponse(status: 200, headers: headers, body: body)
        }
        return (server, URL(string: "http://127.0.0.1:\(try server.start())/graphql")!)
    }

    /// A server that streams what `next` makes (chunked) until it returns nil or the client
    /// is gone; `ended` tells how its writing ended.
    static func streaming(
        encoding: String, ended: Locked<StreamEnd?>, _ next: @escaping @Sendable () async -> Data?
    ) throws -> (HTTPServer, URL) {
        let server = HTTPServer { _ in
            HTTPServerResponse(
                status: 200, headers: [HTTPServerHeader(name: "Content-Type", value: "application/json"), HTTPServerHeader(name: "Content-Encoding", value: encoding)],
                stream: HTTPServerBodyStream { writer in
                    do {
                        while let piece = await next() {
                            try writer.write(piece)
                            await Task.yield()
                        }
                        ended.withLock { $0 = .finished }
                    } catch {
                        ended.withLock { $0 = .clientGone }
                    }
                })
        }
        return (server, URL(string: "http://127.0.0.1:\(try server.start())/graphql")!)
    }

    enum StreamEnd: Equatable {
        case finished
        case clientGone
    }

    /// Waits (polling, at most 60 s: the whole suite may be running beside it on two
    /// cores) until `ended` is set, and returns it.
    static func waitForEnd(_ ended: Locked<StreamEnd?>) async -> StreamEnd? {
        let deadline = ContinuousClock.now + .seconds(60)
        while ended.value == nil, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
        return ended.value
    }

    @Test("a gzip answer is inflated: the body is the JSON the server compressed, read whole or streamed (the host by name), and the head is as sent")
    func aGzipAnswerIsInflated() async throws {
        let seen = Locked<[HTTPServerRequest]>([])
        let (server, url) = try Self.answering(
            Deflater.compress(Data(Self.json.utf8), format: .gzip),
            [HTTPServerHeader(name: "Content-Encoding", value: "gzip"), HTTPServerHeader(name: "Set-Cookie", value: "a=1"), HTTPServerHeader(name: "Set-Cookie", value: "b=2")],
            seen: seen)
        defer { server.stop() }
        let client = RemoteHTTPClient(timeout: 20)
        let (head, body) = try await client.fetch(URLRequest(url: url), limit: 1 << 10)
        #expect(head.status == 200)
        #expect(String(decoding: body, as: UTF8.self) == Self.json)
        #expect(head.headerFields.values(for: "Set-Cookie") == ["a=1", "b=2"])
        #expect(head.headerFields["Content-Encoding"] == "gzip")
        let byName = URL(string: "http://localhost:\(url.port!)/graphql")!
        let (_, chunks) = try await client.stream(URLRequest(url: byName), limit: 1 << 10)
        var streamed = Data()
        for try await piece in chunks { streamed.append(piece) }
        #expect(String(decoding: streamed, as: UTF8.self) == Self.json)
        #expect(seen.value.map { $0.value(forHeader: "Accept-Encoding") } == ["gzip, deflate", "gzip, deflate"])
        #expect(seen.value.map { $0.value(forHeader: "Connection") } == ["close", "close"])
    }

    @Test("deflate is inflated in the zlib format the RFC names and as the raw deflate some servers send",
          arguments: [Deflater.Format.zlib, .raw])
    func deflateIsInflated(format: Deflater.Format) async throws {
        let (server, url) = try Self.answering(Deflater.compress(Data(Self.json.utf8), format: format), [HTTPServerHeader(name: "Content-Encoding", value: "deflate")])
        defer { server.stop() }
        let (_, body) = try await RemoteHTTPClient(timeout: 20).fetch(URLRequest(url: url), limit: 1 << 10)
        #expect(String(decoding: body, as: UTF8.self) == Self.json)
    }

    @Test("an operation's gzip answer reaches the timeline and the result decoded")
    func anOperationsGzipAnswerIsShownDecoded() async throws {
        let (server, url) = try Self.answering(
            Deflater.compress(Data(Self.json.utf8), format: .gzip),
            [HTTPServerHeader(name: "Content-Type", value: "application/json"), HTTPServerHeader(name: "Content-Encoding", value: "gzip")])
        defer { server.stop() }
        let store = TimelineStore()
        let session = try await LabSession.connect(
            scenario: try #require(Catalog.scenario(named: "basics")), remote: RemoteOptions(endpoint: url, token: "t", timeout: 20), store: store)
        let result = await session.runHeadless()
        await session.shutDown()
        #expect(result.networkFailures == [])
        #expect(result.requests.map(\.outcome) == [.success])
        let received = store.events().filter { $0.kind == .transport && $0.phase == .receive }
        #expect(received.map { $0.snapshot.body?.wholeText } == [Self.json])
    }

    @Test("an endless gzip stream fails the exchange at --max-body, and the server sees the connection closed")
    func anEndlessGzipStreamIsCutAndClosed() async throws {
        let ended = Locked<StreamEnd?>(nil)
        let deflater = Deflater(format: .gzip)
        let zeros = Data(count: 256 << 10)
        let (server, url) = try Self.streaming(encoding: "gzip", ended: ended) {
            deflater.compress(zeros, flush: Z_SYNC_FLUSH)
        }
        defer { server.stop() }
        let client = RemoteHTTPClient(timeout: 20)
        await #expect(throws: RemoteFailure(url: url.absoluteString, cause: .tooLarge(limit: 1 << 20, announced: nil))) {
            _ = try await client.fetch(URLRequest(url: url), limit: 1 << 20)
        }
        #expect(await Self.waitForEnd(ended) == .clientGone)
        // Inflated: the limit and the one byte that showed it passed, nothing after.
        #expect(client.bytesInflated == (1 << 20) + 1)
    }

    @Test("an endless gzip answer to an operation fails it at --max-body, and the server sees the connection closed")
    func anOperationsEndlessGzipAnswerIsCutAndClosed() async throws {
        let ended = Locked<StreamEnd?>(nil)
        let deflater = Deflater(format: .gzip)
        let zeros = Data(repeating: 0x20, count: 256 << 10)
        let (server, url) = try Self.streaming(encoding: "gzip", ended: ended) {
            deflater.compress(zeros, flush: Z_SYNC_FLUSH)
        }
        defer { server.stop() }
        let session = try await LabSession.connect(
            scenario: try #require(Catalog.scenario(named: "basics")),
            remote: RemoteOptions(endpoint: url, token: "t", maxBodyBytes: 64 << 10, timeout: 20))
        let result = await session.runHeadless()
        await session.shutDown()
        #expect(result.networkFailures.first == RemoteFailure(url: url.absoluteString, cause: .tooLarge(limit: 64 << 10, announced: nil)))
        #expect(await Self.waitForEnd(ended) == .clientGone)
    }

    @Test("a gzip bomb (1 GiB of zeros, compressed as it is sent) fails with the limit, and no more than the limit is inflated")
    func aGzipBombFailsWithItsSize() async throws {
        let ended = Locked<StreamEnd?>(nil)
        let deflater = Deflater(format: .gzip, level: Z_BEST_COMPRESSION)
        let sent = Locked(0)
        let zeros = Data(count: 1 << 20)
        let (server, url) = try Self.streaming(encoding: "gzip", ended: ended) {
            // 1 GiB of zeros in all, about 1 MiB compressed, in pieces of at least 16 KiB.
            var piece = Data()
            while piece.count < 16 << 10, sent.value < 1 << 30 {
                let total = sent.withLock { $0 += zeros.count; return $0 }
                piece += deflater.compress(zeros, flush: total < 1 << 30 ? Z_NO_FLUSH : Z_FINISH)
            }
            return piece.isEmpty ? nil : piece
        }
        defer { server.stop() }
        let client = RemoteHTTPClient(timeout: 30)
        await #expect(throws: RemoteFailure(url: url.absoluteString, cause: .tooLarge(limit: 1 << 20, announced: nil))) {
            _ = try await client.fetch(URLRequest(url: url), limit: 1 << 20)
        }
        // The whole bomb is about 1 MiB: the socket buffers may take all of it before the
        // client closes, so whether the server sees the close is the endless stream's test.
        #expect(client.bytesInflated == (1 << 20) + 1)
    }

    @Test("past --timeout a slow gzip stream fails as timed out, and the server sees the connection closed")
    func aSlowGzipStreamEndsAtTheTimeout() async throws {
        let ended = Locked<StreamEnd?>(nil)
        let deflater = Deflater(format: .gzip)
        // A server that drips a byte every 0.2 s: the pace is what the test is about.
        let (server, url) = try Self.streaming(encoding: "gzip", ended: ended) {
            try? await Task.sleep(for: .milliseconds(200))
            return deflater.compress(Data("{".utf8), flush: Z_SYNC_FLUSH)
        }
        defer { server.stop() }
        await #expect(throws: RemoteFailure(url: url.absoluteString, cause: .timedOut(seconds: 1))) {
            _ = try await RemoteHTTPClient(timeout: 1).fetch(URLRequest(url: url), limit: 1 << 20)
        }
        #expect(await Self.waitForEnd(ended) == .clientGone)
    }

    @Test("a coding it does not inflate (br) is handed on as it came, with its Content-Encoding")
    func anUnknownCodingIsHandedOnRaw() async throws {
        let raw = Data([0x8B, 0x02, 0x80, 0x7B, 0x7D, 0x03])
        let (server, url) = try Self.answering(raw, [HTTPServerHeader(name: "Content-Encoding", value: "br")])
        defer { server.stop() }
        let (head, body) = try await RemoteHTTPClient(timeout: 20).fetch(URLRequest(url: url), limit: 1 << 10)
        #expect(body == raw)
        #expect(head.headerFields["Content-Encoding"] == "br")
    }

    @Test("a gzip body cut short, or not gzip at all, fails the exchange saying so")
    func aBrokenGzipBodyFails() async throws {
        let whole = Deflater.compress(Data(Self.json.utf8), format: .gzip)
        let (cut, cutURL) = try Self.answering(whole.prefix(whole.count - 6), [HTTPServerHeader(name: "Content-Encoding", value: "gzip")])
        defer { cut.stop() }
        await #expect(throws: RemoteFailure(url: cutURL.absoluteString, cause: .other("the gzip-compressed answer stops before its end"))) {
            _ = try await RemoteHTTPClient(timeout: 20).fetch(URLRequest(url: cutURL), limit: 1 << 10)
        }
        let (plain, plainURL) = try Self.answering(Data(Self.json.utf8), [HTTPServerHeader(name: "Content-Encoding", value: "gzip")])
        defer { plain.stop() }
        await #expect(throws: RemoteFailure(url: plainURL.absoluteString, cause: .other("the gzip-compressed answer is not valid: incorrect header check"))) {
            _ = try await RemoteHTTPClient(timeout: 20).fetch(URLRequest(url: plainURL), limit: 1 << 10)
        }
    }
}

/// zlib's deflate, for servers that compress what they send. The stream is used under
/// its lock, so one deflater can be shared by a server's handler and its body stream.
final class Deflater: Sendable {
    enum Format: Sendable {
        case gzip
        case zlib
        case raw

        var windowBits: Int32 {
            switch self {
            case .gzip: 15 + 16
            case .zlib: 15
            case .raw: -15
            }
        }
    }

    /// zlib's state refers to the stream by its address: it lives on the heap.
    private let stream: Mutex<UnsafeMutablePointer<z_stream>>

    init(format: Format, level: Int32 = Z_DEFAULT_COMPRESSION) {
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        precondition(chainlab_deflate_init(stream, level, format.windowBits) == Z_OK)
        self.stream = Mutex(stream)
    }

    deinit {
        stream.withLock { stream in
            deflateEnd(stream)
            stream.deinitialize(count: 1)
            stream.deallocate()
        }
    }

    /// `data` compressed, with what zlib held back when `flush` asks for it.
    func compress(_ data: Data, flush: Int32) -> Data {
        stream.withLock { stream in
            var input = [UInt8](data)
            var output = Data()
            var buffer = [UInt8](repeating: 0, count: 64 << 10)
            input.withUnsafeMutableBufferPointer { source in
                stream.pointee.next_in = source.baseAddress
                stream.pointee.avail_in = UInt32(source.count)
                repeat {
                    let written = buffer.withUnsafeMutableBufferPointer { target in
                        stream.pointee.next_out = target.baseAddress
                        stream.pointee.avail_out = UInt32(target.count)
                        _ = deflate(stream, flush)
                        return target.count - Int(stream.pointee.avail_out)
                    }
                    output.append(contentsOf: buffer[..<written])
                } while stream.pointee.avail_out == 0 || stream.pointee.avail_in > 0
                stream.pointee.next_in = nil
                stream.pointee.next_out = nil
            }
            return output
        }
    }

    static func compress(_ data: Data, format: Format) -> Data {
        Deflater(format: format).compress(data, flush: Z_FINISH)
    }
}
