import ChainKit
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPServer
import Lab
import Outbound
import TestSupport
import Testing
import Timeline
import Vocabulary

/// Servers that answer in ways meant to hold a client, leak what it sends or fill its memory.
/// Every exchange must end, and end with what the server said or a failure saying why.
@Suite("Exchanges with hostile servers end, and end honestly")
struct HostileServerTests {
    static let challengeBody = #"{"error":"invalid_client"}"#

    /// A server that answers everything 401 with a Basic challenge, as RFC 6749 §5.2 has a
    /// token endpoint answer `invalid_client` and as nginx's `auth_basic` does.
    static func challengingServer() throws -> (HTTPServer, URL) {
        let server = HTTPServer { _ in
            HTTPServerResponse(
                status: 401,
                headers: [
                    HTTPServerHeader(name: "WWW-Authenticate", value: #"Basic realm="lab""#),
                    HTTPServerHeader(name: "Content-Type", value: "application/json"),
                ],
                body: Data(challengeBody.utf8))
        }
        let port = try server.start()
        return (server, URL(string: "http://127.0.0.1:\(port)/graphql")!)
    }

    @Test("a 401 with a Basic challenge comes back as the 401 it is, read whole or streamed", .timeLimit(.minutes(1)))
    func aChallengeIsPassedThrough() async throws {
        let (server, url) = try Self.challengingServer()
        defer { server.stop() }
        let client = RemoteHTTPClient(timeout: 20)
        let (response, body) = try await client.fetch(URLRequest(url: url), limit: 1 << 10)
        #expect(response.status == 401)
        #expect(response.headerFields["WWW-Authenticate"] == #"Basic realm="lab""#)
        #expect(String(decoding: body, as: UTF8.self) == Self.challengeBody)
        let (head, chunks) = try await client.stream(URLRequest(url: url), limit: 1 << 10)
        var streamed = Data()
        for try await piece in chunks { streamed.append(piece) }
        #expect(head.status == 401)
        #expect(String(decoding: streamed, as: UTF8.self) == Self.challengeBody)
    }

    @Test("an operation answered with a Basic challenge ends with the 401 on its timeline", .timeLimit(.minutes(1)))
    func anOperationAgainstAChallengeEnds() async throws {
        let (server, url) = try Self.challengingServer()
        defer { server.stop() }
        let store = TimelineStore()
        let session = try await LabSession.connect(
            scenario: try #require(Catalog.scenario(named: "basics")),
            remote: RemoteOptions(endpoint: url, token: "t", timeout: 20), store: store)
        let result = await session.runHeadless()
        await session.shutDown()
        #expect(result.networkFailures == [])
        let received = store.events().filter { $0.kind == .transport && $0.phase == .receive }
        #expect(!received.isEmpty)
        #expect(received.allSatisfy { $0.snapshot.status == 401 })
    }

    /// A server whose every answer is a chunked body of 16 MiB, far past any limit here, written
    /// as fast as the client reads. It ends there so that its writes, which block while the
    /// client does not read, cannot hold a thread of the test's pool for long.
    static func endlessServer() throws -> (HTTPServer, Int) {
        let piece = Data(repeating: 0x61, count: 16 << 10)
        let server = HTTPServer { _ in
            HTTPServerResponse(status: 200, stream: HTTPServerBodyStream { writer in
                for _ in 0..<1024 where !Task.isCancelled {
                    try writer.write(piece)
                    await Task.yield()
                }
            })
        }
        return (server, Int(try server.start()))
    }

    @Test("an OTLP receiver's endless answer is read no further than 64 KiB, and not tried again", .timeLimit(.minutes(1)))
    func anEndlessOTLPAnswerIsCut() async throws {
        let (server, port) = try Self.endlessServer()
        defer { server.stop() }
        let sender = try OTLPSender(endpoint: "http://127.0.0.1:\(port)", timeout: 20)
        await #expect(throws: OTLPSender.Failure(
            description: "the receiver at http://127.0.0.1:\(port)/v1/traces answered with more than 65536 bytes; reading stopped there"
        )) {
            try await sender.send("{}")
        }
    }

    @Test("a silent OTLP receiver costs one timeout: the try is not repeated", .timeLimit(.minutes(1)))
    func aSilentOTLPReceiverIsTriedOnce() async throws {
        let tries = Locked(0)
        let server = HTTPServer { _ in
            tries.withLock { $0 += 1 }
            try? await Task.sleep(for: .seconds(60))
            return .text("late")
        }
        let port = try server.start()
        defer { server.stop() }
        let sender = try OTLPSender(endpoint: "http://127.0.0.1:\(port)", timeout: 1)
        await #expect(throws: OTLPSender.Failure(description: "no answer from http://127.0.0.1:\(port)/v1/traces within 1 s (--timeout)")) {
            try await sender.send("{}")
        }
        #expect(tries.value == 1)
    }

    @Test("an OTLP receiver answering with a Basic challenge is reported, not waited on", .timeLimit(.minutes(1)))
    func anOTLPChallengeIsReported() async throws {
        let (server, url) = try Self.challengingServer()
        defer { server.stop() }
        let sender = try OTLPSender(endpoint: "http://127.0.0.1:\(url.port!)", timeout: 20)
        await #expect(throws: OTLPSender.Failure(description: "the receiver at http://127.0.0.1:\(url.port!)/v1/traces answered 401 Unauthorized")) {
            try await sender.send("{}")
        }
    }

    /// A server that sends everything on to `target` with `status`, and another that
    /// records what reaches it: whatever arrives there was sent to a host the user never named.
    static func redirecting(status: Int) throws -> (redirector: HTTPServer, redirectorPort: Int, elsewhere: HTTPServer, received: Locked<[HTTPServerRequest]>) {
        let received = Locked<[HTTPServerRequest]>([])
        let elsewhere = HTTPServer { request in
            received.withLock { $0.append(request) }
            return .text("collected")
        }
        let target = try elsewhere.start()
        let redirector = HTTPServer { request in
            HTTPServerResponse(status: status, headers: [HTTPServerHeader(name: "Location", value: "http://127.0.0.1:\(target)\(request.target)")])
        }
        return (redirector, Int(try redirector.start()), elsewhere, received)
    }

    @Test("a redirect to another host is the answer: credentials, secret headers and bodies go nowhere else", .timeLimit(.minutes(1)),
          arguments: [302, 307, 308])
    func redirectsAreNotFollowed(status: Int) async throws {
        let (redirector, port, elsewhere, received) = try Self.redirecting(status: status)
        defer { redirector.stop(); elsewhere.stop() }
        var headers = HTTPFields()
        try headers.append("X-Api-Key", "key-0123456789")
        try headers.append("Cookie", "session=cookie-0123456789")
        let store = TimelineStore()
        let session = try await LabSession.connect(
            scenario: try #require(Catalog.scenario(named: "basics")),
            remote: RemoteOptions(endpoint: URL(string: "http://127.0.0.1:\(port)/graphql")!, headers: headers, token: "token-0123456789", timeout: 20),
            store: store)
        _ = await session.runHeadless()
        await session.shutDown()
        let answers = store.events().filter { $0.kind == .transport && $0.phase == .receive }
        #expect(!answers.isEmpty)
        #expect(answers.allSatisfy { $0.snapshot.status == status })
        #expect(answers.first?.snapshot.headers?["Location"]?.hasSuffix("/graphql") == true)

        let client = RemoteHTTPClient(timeout: 20)
        let endpoint = OAuthTokenEndpoint(url: URL(string: "http://127.0.0.1:\(port)/token")!, clientID: "app", clientSecret: "secret-0123456789")
        let (grant, _) = try await client.fetch(
            RemoteHTTPClient.request(url: endpoint.url, method: "POST", headers: try endpoint.headers(), body: Data(endpoint.form(refreshToken: "r").utf8)),
            limit: 1 << 10)
        #expect(grant.status.code == status)

        let sender = try OTLPSender(endpoint: "http://127.0.0.1:\(port)", headers: ["X-Otlp-Key: otlp-0123456789"], timeout: 20)
        await #expect(throws: OTLPSender.Failure(
            description: "the receiver at http://127.0.0.1:\(port)/v1/traces answered \(status) \(ReasonPhrase.of(status))"
        )) {
            try await sender.send("{}")
        }
        #expect(received.value == [])
    }

    @Test("a method that is not an HTTP token is refused before anything is sent", .timeLimit(.minutes(1)))
    func aMethodThatIsNotATokenIsRefused() async throws {
        let received = Locked<[HTTPServerRequest]>([])
        let server = HTTPServer { request in
            received.withLock { $0.append(request) }
            return .text("sent")
        }
        let port = try server.start()
        defer { server.stop() }
        let url = URL(string: "http://127.0.0.1:\(port)/graphql")!
        var request = URLRequest(url: url)
        request.httpMethod = "GET / HTTP/1.1\r\nX-Smuggled: 1\r\n\r\nGET"
        await #expect(throws: RemoteFailure(url: url.absoluteString, cause: .other(#"the method "GET / HTTP/1.1\r\nX-Smuggled: 1\r\n\r\nGET" is not an HTTP token"#))) {
            _ = try await RemoteHTTPClient(timeout: 20).fetch(request, limit: 1 << 10)
        }
        #expect(received.value == [])
    }

    @Test("a token the server echoes in a message, a challenge, a header of its own or a Location is masked in every export",
          .timeLimit(.minutes(1)))
    func echoedTokensAreMasked() async throws {
        let token = "echo-token-0123456789"
        let server = HTTPServer { request in
            let sent = request.value(forHeader: "Authorization") ?? ""
            let echoed = String(sent.dropFirst("Bearer ".count))
            return HTTPServerResponse(
                status: 401,
                headers: [
                    HTTPServerHeader(name: "WWW-Authenticate", value: #"Bearer error="invalid_token", token="\#(echoed)""#),
                    HTTPServerHeader(name: "X-Echo", value: echoed),
                    HTTPServerHeader(name: "Location", value: "/login?was=\(echoed)"),
                    HTTPServerHeader(name: "Content-Type", value: "application/json"),
                ],
                body: Data(#"{"errors":[{"message":"token \#(echoed) is not valid"}]}"#.utf8))
        }
        let port = try server.start()
        defer { server.stop() }
        let session = try await LabSession.connect(
            scenario: try #require(Catalog.scenario(named: "basics")),
            remote: RemoteOptions(endpoint: URL(string: "http://127.0.0.1:\(port)/graphql")!, token: token, timeout: 20))
        _ = await session.runHeadless()
        await session.shutDown()
        for format in ExportFormat.all {
            let exported = session.export(format)
            #expect(!exported.contains(token), "\(format) shows the token")
            #expect(!exported.contains("0123456789"), "\(format) shows the token's end")
        }
        #expect(session.export(.har).contains(#"token=\"••••6789\""#))
        #expect(session.export(.json).contains("token ••••6789 is not valid"))
        #expect(session.export(.har, masking: .revealed).contains(token))
    }

    @Test("over an IPv6 literal, a chunk size of 7fffffffffffffff after a first chunk is an error, not a trap",
          .timeLimit(.minutes(1)))
    func aHostileChunkSizeOverIPv6IsAnError() async throws {
        let server = try PythonServer(PythonServer.rawAnswer(
            host: "::1", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n7fffffffffffffff\r\n"))
        defer { server.stop() }
        let url = URL(string: "http://[::1]:\(server.port)/graphql")!
        let reason = "the answer is not valid HTTP/1.1: chunk size \"7fffffffffffffff\" is not a hexadecimal number"
        await #expect(throws: RemoteFailure(url: url.absoluteString, cause: .other(reason))) {
            _ = try await RemoteHTTPClient(timeout: 20).fetch(URLRequest(url: url), limit: 1 << 20)
        }
    }
    /// A server that answers with a byte every `interval`, for ever: never silent for long,
    /// never done.
    static func drippingServer(contentType: String, interval: Duration) throws -> (HTTPServer, Int) {
        let server = HTTPServer { _ in
            HTTPServerResponse(status: 200, headers: [HTTPServerHeader(name: "Content-Type", value: contentType)], stream: HTTPServerBodyStream { writer in
                while !Task.isCancelled {
                    try writer.write(Data("{".utf8))
                    try await Task.sleep(for: interval)
                }
            })
        }
        return (server, Int(try server.start()))
    }

    @Test("a drip of a byte every half second is given up at --timeout, read whole or streamed", .timeLimit(.minutes(1)))
    func aSlowDripEndsAtTheTimeout() async throws {
        let (server, port) = try Self.drippingServer(contentType: "application/json", interval: .milliseconds(500))
        defer { server.stop() }
        let url = URL(string: "http://127.0.0.1:\(port)/_lab/state")!
        let client = RemoteHTTPClient(timeout: 2)
        await #expect(throws: RemoteFailure(url: url.absoluteString, cause: .timedOut(seconds: 2))) {
            _ = try await client.fetch(URLRequest(url: url), limit: 1 << 20)
        }
        let (head, chunks) = try await client.stream(URLRequest(url: url), limit: 1 << 20)
        #expect(head.status == 200)
        await #expect(throws: RemoteFailure(url: url.absoluteString, cause: .timedOut(seconds: 2))) {
            for try await _ in chunks {}
        }
    }

    @Test("a multipart subscription longer than --max-body in all stops there, and the run ends to say so", .timeLimit(.minutes(1)))
    func anEndlessSubscriptionStopsAtMaxBody() async throws {
        let event = Data("\r\n--graphql\r\ncontent-type: application/json\r\n\r\n{\"payload\":{\"data\":{\"hero\":{\"id\":\"1\",\"name\":\"R2-D2\"}}}}".utf8)
        let server = HTTPServer { _ in
            HTTPServerResponse(
                status: 200, headers: [HTTPServerHeader(name: "Content-Type", value: #"multipart/mixed;boundary="graphql";subscriptionSpec=1.0"#)],
                stream: HTTPServerBodyStream { writer in
                    // 8 MiB of events, far past the limit; yielding between writes, and ending,
                    // so that blocking writes cannot hold a thread of the test's pool for long.
                    for _ in 0..<((8 << 20) / event.count) where !Task.isCancelled {
                        try writer.write(event)
                        await Task.yield()
                    }
                })
        }
        let port = try server.start()
        defer { server.stop() }
        let url = URL(string: "http://127.0.0.1:\(port)/graphql")!
        let session = try await LabSession.connect(
            scenario: try #require(Catalog.scenario(named: "defer")),
            remote: RemoteOptions(endpoint: url, token: "t", maxBodyBytes: 64 << 10, timeout: 20))
        let result = await session.runHeadless()
        await session.shutDown()
        #expect(result.networkFailures == [RemoteFailure(url: url.absoluteString, cause: .tooLarge(limit: 64 << 10, announced: nil))])
    }
}


/// A server written in Python's standard library, started for one test: `script` listens
/// on a loopback port of the system's choosing, prints the port on its first line, and ends
/// when its standard input closes (so it never outlives the test process).
final class PythonServer: Sendable {
    let port: Int
    private let process: Process
    private let input: Pipe

    init(_ script: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script]
        let input = Pipe()
        process.standardInput = input
        let (output, _) = try startPiped(process)
        self.process = process
        self.input = input
        let line = output.fileHandleForReading.availableData
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            process.terminate()
            throw RemoteFailure(url: "the Python server", cause: .other("it printed no port"))
        }
        self.port = port
    }

    func stop() {
        try? input.fileHandleForWriting.close()
        process.terminate()
        process.waitUntilExit()
    }

    /// Every connection to `host` gets `answer` as it is, then the connection closes.
    static func rawAnswer(host: String, _ answer: String) -> String {
        """
        import socket, sys, threading, os
        family = socket.AF_INET6 if ":" in \(String(reflecting: host)) else socket.AF_INET
        listener = socket.socket(family, socket.SOCK_STREAM)
        listener.bind((\(String(reflecting: host)), 0))
        listener.listen(8)
        print(listener.getsockname()[1], flush=True)
        threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()
        while True:
            connection, _ = listener.accept()
            connection.recv(65536)
            connection.sendall(\(String(reflecting: answer)).encode("latin-1"))
            connection.close()
        """
    }
}
