import ChainKit
import Foundation
import HTTPServer
import Synchronization
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A loopback server that records what arrived and answers by path:
/// `/unauthorized` → 401 with an empty body; anything else → the status in `X-Reply-Status`
/// (200 by default) with a fixed header and body.
private final class LoopbackBackend: Sendable {
    let server: HTTPServer
    private let log: RequestLog

    init() {
        let log = RequestLog()
        self.log = log
        server = HTTPServer(idleTimeout: .seconds(5)) { request in
            log.record(request)
            if request.target.hasPrefix("/unauthorized") {
                return HTTPServerResponse(status: 401, headers: [HTTPServerHeader(name: "WWW-Authenticate", value: "Bearer realm=\"lab\"")])
            }
            return HTTPServerResponse(
                status: Int(request.value(forHeader: "X-Reply-Status") ?? "200") ?? 500,
                headers: [
                    HTTPServerHeader(name: "Content-Type", value: "application/json"),
                    HTTPServerHeader(name: "X-Lab-Server", value: "loopback"),
                ],
                body: Data(#"{"data":{"hero":{"name":"R2-D2"}}}"#.utf8)
            )
        }
    }

    var requests: [HTTPServerRequest] { log.all }

    func start() throws -> URL {
        let port = try server.start()
        return URL(string: "http://127.0.0.1:\(port)")!
    }
}

/// What the loopback server received, in order.
private final class RequestLog: Sendable {
    private let requests = Mutex<[HTTPServerRequest]>([])

    func record(_ request: HTTPServerRequest) {
        requests.withLock { $0.append(request) }
    }

    var all: [HTTPServerRequest] { requests.withLock { $0 } }
}

@Suite("URLSessionTransport against a loopback HTTPServer")
struct URLSessionTransportTests {
    private let transport = URLSessionTransport()

    @Test func graphQLRequestAndResponseCrossTheWireExactly() async throws {
        let backend = LoopbackBackend()
        let base = try backend.start()
        defer { backend.server.stop() }
        let body = Data(#"{"operationName":"Hero","query":"query Hero { hero { name } }"}"#.utf8)
        let url = base.appending(path: "graphql").appending(queryItems: [URLQueryItem(name: "op", value: "Hero")])

        let response = try await transport.send(NetworkRequest(
            method: .post,
            url: url,
            headerFields: try HTTPFields([
                "Content-Type": "application/json",
                "X-APOLLO-OPERATION-NAME": "Hero",
                "Authorization": "Bearer token-1",
            ]),
            body: body,
            timeoutInterval: 5
        ))

        let seen = try #require(backend.requests.first)
        #expect(backend.requests.count == 1)
        #expect(seen.method == "POST")
        #expect(seen.target == "/graphql?op=Hero")
        #expect(seen.headers.contains(HTTPServerHeader(name: "Content-Type", value: "application/json")))
        // URLRequest on Linux sends names in Title-Case ("X-Apollo-Operation-Name"); the value survives.
        #expect(seen.value(forHeader: "X-APOLLO-OPERATION-NAME") == "Hero")
        #expect(seen.headers.contains(HTTPServerHeader(name: "Authorization", value: "Bearer token-1")))
        #expect(seen.value(forHeader: "Content-Length") == "\(body.count)")
        #expect(seen.body == body)

        #expect(response.status == 200)
        #expect(response.url == url)
        #expect(response.headerFields == (try HTTPFields(pairs: [
            ("Content-Length", "34"),
            ("Content-Type", "application/json"),
            ("X-Lab-Server", "loopback"),
        ])))
        #expect(try await response.chunks.collect() == [Data(#"{"data":{"hero":{"name":"R2-D2"}}}"#.utf8)])
    }

    @Test func graphQL401WithAnEmptyBodyDeliversNoChunk() async throws {
        let backend = LoopbackBackend()
        let base = try backend.start()
        defer { backend.server.stop() }

        let response = try await transport.send(NetworkRequest(method: .get, url: base.appending(path: "unauthorized")))

        #expect(response.status == 401)
        #expect(response.headerFields["WWW-Authenticate"] == "Bearer realm=\"lab\"")
        #expect(try await response.chunks.collect() == [])
        #expect(backend.requests.map(\.method) == ["GET"])
        #expect(backend.requests.map(\.target) == ["/unauthorized"])
    }

    @Test func middlewareRequestAndResponseCrossTheWireExactly() async throws {
        let backend = LoopbackBackend()
        let base = try backend.start()
        defer { backend.server.stop() }
        let singlePass = HTTPBody(chunks: PullStream([Data("name=".utf8), Data("rex".utf8)]), length: .unknown, iterationBehavior: .single)

        let (response, responseBody) = try await transport.send(
            HTTPRequest(method: .put, path: "/pets/7?dry=1", headerFields: try HTTPFields([
                "Content-Type": "application/x-www-form-urlencoded",
                "X-Request-ID": "req-42",
                "X-Reply-Status": "201",
            ])),
            body: singlePass,
            baseURL: base.appending(path: "api"),
            operationID: "updatePet"
        )

        let seen = try #require(backend.requests.first)
        #expect(seen.method == "PUT")
        #expect(seen.target == "/api/pets/7?dry=1")
        #expect(seen.value(forHeader: "Content-Type") == "application/x-www-form-urlencoded")
        #expect(seen.value(forHeader: "X-Request-ID") == "req-42")
        #expect(seen.body == Data("name=rex".utf8))

        #expect(response.status == 201)
        #expect(response.headerFields["X-Lab-Server"] == "loopback")
        #expect(try await responseBody?.collect(upTo: 1024) == Data(#"{"data":{"hero":{"name":"R2-D2"}}}"#.utf8))
    }

    @Test func middleware401WithAnEmptyBodyHasNoBody() async throws {
        let backend = LoopbackBackend()
        let base = try backend.start()
        defer { backend.server.stop() }

        let (response, body) = try await transport.send(
            HTTPRequest(method: .delete, path: "/unauthorized/1"),
            body: nil,
            baseURL: base,
            operationID: "deletePet"
        )

        #expect(response.status == 401)
        #expect(body == nil)
        #expect(backend.requests.map(\.method) == ["DELETE"])
        #expect(backend.requests.map(\.target) == ["/unauthorized/1"])
    }

    @Test func repeatedRequestHeadersAreSentJoined() async throws {
        let backend = LoopbackBackend()
        let base = try backend.start()
        defer { backend.server.stop() }

        _ = try await transport.send(NetworkRequest(
            method: .get,
            url: base.appending(path: "graphql"),
            headerFields: try HTTPFields(pairs: [("Accept", "application/json"), ("accept", "text/plain")])
        ))

        #expect(backend.requests.first?.values(forHeader: "Accept") == ["application/json, text/plain"])
    }

    @Test func anOversizedMiddlewareBodyIsRefusedBeforeSending() async throws {
        let backend = LoopbackBackend()
        let base = try backend.start()
        defer { backend.server.stop() }
        let small = URLSessionTransport(maxRequestBodyBytes: 4)

        let error = await #expect(throws: HTTPBody.TooManyBytesError.self) {
            try await small.send(HTTPRequest(method: .post, path: "/x"), body: HTTPBody("12345"), baseURL: base, operationID: "big")
        }
        #expect(error?.maxBytes == 4)
        #expect(backend.requests.isEmpty)
    }
}

@Suite("URLSessionTransport streams multipart answers", .timeLimit(.minutes(1)))
struct URLSessionTransportStreamingTests {
    /// Upstream's `URLSession.chunks(for:)` (`ApolloURLSession.swift`, `AsyncHTTPResponseChunkSequence.swift`)
    /// hands each multipart part on as soon as it is complete. The server writes the second
    /// part only after the client has read the first, so this test ends only if the first
    /// part reached the chain while the answer was still being sent.
    @Test func eachPartReachesTheChainBeforeTheServerSendsTheNext() async throws {
        let (gate, open) = AsyncStream.makeStream(of: Void.self)
        let server = HTTPServer(idleTimeout: .seconds(10)) { _ in
            HTTPServerResponse(
                status: 200, headers: [HTTPServerHeader(name: "Content-Type", value: deferType)],
                stream: HTTPServerBodyStream { writer in
                    // The first part, cut in two writes, with its closing delimiter.
                    try writer.write(Data((part(MultipartDeferTests.initial).prefix(30)).utf8))
                    try writer.write(Data((part(MultipartDeferTests.initial).dropFirst(30) + "\r\n--graphql").utf8))
                    for await _ in gate { break }
                    try writer.write(Data(("\r\ncontent-type: application/json\r\n\r\n" + MultipartDeferTests.increment + closing).utf8))
                })
        }
        let port = try server.start()
        defer { server.stop() }
        let chain = makeChain(transport: URLSessionTransport())
        let stream = chain.kickoff(request: ChainRequest(operation: heroQuery, graphQLEndpoint: URL(string: "http://127.0.0.1:\(port)/graphql")!))
        var results: [JSONValue?] = []
        for try await response in stream {
            results.append(response.data)
            if results.count == 1 { open.yield() }
        }
        #expect(results == [
            ["hero": ["id": "2001", "name": "R2-D2"]],
            ["hero": ["id": "2001", "name": "R2-D2", "appearsIn": ["NEWHOPE"]]],
        ])
    }

    @Test func aLargeBodyReadAsItArrivesComesWholeAndInOrder() async throws {
        let pieces = (0..<48).map { Data(repeating: UInt8(ascii: "a") + UInt8($0 % 26), count: 64 * 1024) }
        let server = HTTPServer(idleTimeout: .seconds(10)) { _ in
            HTTPServerResponse(status: 200, stream: HTTPServerBodyStream { writer in
                for piece in pieces { try writer.write(piece) }
            })
        }
        let port = try server.start()
        defer { server.stop() }
        let (head, chunks) = try await URLSessionChunkReader().start(URLRequest(url: URL(string: "http://127.0.0.1:\(port)/")!))
        var body = Data()
        for try await chunk in chunks { body.append(chunk) }
        #expect(head.statusCode == 200)
        #expect(body == pieces.reduce(into: Data()) { $0.append($1) })
    }

    /// Nothing reads the body until the server has written 256 MiB or seen the client go, and
    /// URLSession on Linux reads from the socket regardless, so the reader's unread bytes pass
    /// `maxUnread`: it drops them, fails the body and cancels the transfer.
    @Test func aBodyNobodyReadsFailsPastMaxUnreadInsteadOfFillingMemory() async throws {
        let (outcome, report) = AsyncStream.makeStream(of: String.self)
        let piece = Data(repeating: 0x78, count: 64 * 1024)
        let server = HTTPServer(idleTimeout: .seconds(30)) { _ in
            HTTPServerResponse(status: 200, stream: HTTPServerBodyStream { writer in
                do {
                    for _ in 0..<4_096 { try writer.write(piece) }
                    report.yield("wrote 256 MiB")
                } catch {
                    report.yield("\(error)")
                }
            })
        }
        let port = try server.start()
        defer { server.stop() }
        let reader = URLSessionChunkReader(maxUnread: 1 << 20)
        let (_, chunks) = try await reader.start(URLRequest(url: URL(string: "http://127.0.0.1:\(port)/")!))
        for await _ in outcome { break }
        var read = 0
        do {
            for try await chunk in chunks { read += chunk.count }
            Issue.record("read \(read) bytes without failing")
        } catch {
            #expect(error as? URLSessionChunkReader.ReadAheadExceeded == URLSessionChunkReader.ReadAheadExceeded(limit: 1 << 20))
            #expect(read == 0)
        }
    }
}
