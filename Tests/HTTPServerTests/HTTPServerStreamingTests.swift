import Foundation
import HTTPServer
import Synchronization
import Testing

@Suite("HTTPServer streamed responses", .timeLimit(.minutes(1)))
struct HTTPServerStreamingTests {
    /// The producer writes its second piece only after the client has read the first, so
    /// the exchange ends only if the first chunk reached the client while the body was
    /// still being produced.
    @Test func eachWriteLeavesAsOneChunkBeforeTheNextIsProducedAndTheConnectionIsKept() async throws {
        let (gate, open) = AsyncStream.makeStream(of: Void.self)
        let server = HTTPServer { request in
            guard request.target == "/stream" else { return .text("plain") }
            return HTTPServerResponse(status: 200, headers: [HTTPServerHeader(name: "Content-Type", value: "text/plain"),
                                                             HTTPServerHeader(name: "Content-Length", value: "99")],
                                      stream: HTTPServerBodyStream { writer in
                try writer.write(Data("first part\n".utf8))
                for await _ in gate { break }
                try writer.write(Data())
                try writer.write(Data("second\n".utf8))
            })
        }
        let port = try server.start()
        defer { server.stop() }
        let (head, first, rest, next) = try await onThread {
            let client = try RawHTTPClient(port: port)
            try client.write("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
            let head = try client.read(through: "\r\n\r\n")
            let first = try client.read(through: "first part\n\r\n")
            open.yield()
            let rest = try client.read(through: "0\r\n\r\n")
            try client.write("GET /again HTTP/1.1\r\nHost: x\r\n\r\n")
            return (head, first, rest, try client.readResponse())
        }
        #expect(head == "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n")
        #expect(first == "b\r\nfirst part\n\r\n")
        #expect(rest == "7\r\nsecond\n\r\n0\r\n\r\n")
        #expect(next.status == 200)
        #expect(next.body == "plain")
    }

    @Test func anHTTP10ClientGetsTheBytesUnchunkedEndedByTheClose() async throws {
        let server = HTTPServer { _ in
            HTTPServerResponse(status: 200, stream: HTTPServerBodyStream { writer in
                try writer.write(Data("a".utf8))
                try writer.write(Data("b".utf8))
            })
        }
        let port = try server.start()
        defer { server.stop() }
        let (wire, closed) = try await onThread {
            let client = try RawHTTPClient(port: port)
            try client.write("GET / HTTP/1.0\r\n\r\n")
            let wire = try client.read(through: "ab")
            return (wire, client.waitForClose())
        }
        #expect(wire == "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nab")
        #expect(closed)
    }

    @Test func aProducerThatFailsClosesTheConnectionWithoutTheLastChunk() async throws {
        struct Broken: Error {}
        let server = HTTPServer { _ in
            HTTPServerResponse(status: 200, stream: HTTPServerBodyStream { writer in
                try writer.write(Data("partial".utf8))
                throw Broken()
            })
        }
        let port = try server.start()
        defer { server.stop() }
        let (wire, closed) = try await onThread {
            let client = try RawHTTPClient(port: port)
            try client.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            let wire = try client.read(through: "partial\r\n")
            return (wire, client.waitForClose())
        }
        #expect(wire == "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n7\r\npartial\r\n")
        #expect(closed)
    }

    @Test func headGetsTheStreamedHeadAndNoBody() async throws {
        let produced = Mutex(false)
        let server = HTTPServer { _ in
            HTTPServerResponse(status: 200, stream: HTTPServerBodyStream { writer in
                produced.withLock { $0 = true }
                try writer.write(Data("never".utf8))
            })
        }
        let port = try server.start()
        defer { server.stop() }
        let response = try await onThread {
            let client = try RawHTTPClient(port: port)
            try client.write("HEAD / HTTP/1.1\r\nHost: x\r\n\r\n")
            return try client.readResponse(bodyless: true)
        }
        #expect(response == RawHTTPClient.Response(status: 200, headers: ["Transfer-Encoding: chunked"], body: ""))
        #expect(!produced.withLock { $0 })
    }
}
