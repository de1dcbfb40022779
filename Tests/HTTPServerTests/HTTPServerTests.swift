import Foundation
import HTTPServer
import Synchronization
import Testing

/// Requests a handler saw, in arrival order.
private final class RequestLog: Sendable {
    private let requests = Mutex<[HTTPServerRequest]>([])

    func record(_ request: HTTPServerRequest) {
        requests.withLock { $0.append(request) }
    }

    var all: [HTTPServerRequest] { requests.withLock { $0 } }
}

/// Answers `<method> <target>` plus the body, with an `X-Seen-Headers` count.
private func echo(_ request: HTTPServerRequest) -> HTTPServerResponse {
    HTTPServerResponse(
        status: 200,
        headers: [HTTPServerHeader(name: "X-Seen-Headers", value: "\(request.headers.count)")],
        body: Data("\(request.method) \(request.target)".utf8) + request.body
    )
}

@Suite("HTTPServer over loopback")
struct HTTPServerTests {
    @Test func getAndPostRoundTrip() async throws {
        let log = RequestLog()
        let server = HTTPServer { request in
            log.record(request)
            return echo(request)
        }
        let port = try server.start()
        defer { server.stop() }

        let (get, post) = try await onThread {
            let client = try RawHTTPClient(port: port)
            try client.write("GET /hero?id=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nx-Trace: abc\r\n\r\n")
            let get = try client.readResponse()
            try client.write("POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 17\r\n\r\n{\"query\":\"{ a }\"}")
            return (get, try client.readResponse())
        }

        #expect(get == RawHTTPClient.Response(status: 200, headers: ["X-Seen-Headers: 2", "Content-Length: 14"], body: "GET /hero?id=1"))
        #expect(post == RawHTTPClient.Response(
            status: 200, headers: ["X-Seen-Headers: 3", "Content-Length: 30"], body: "POST /graphql{\"query\":\"{ a }\"}"))
        #expect(log.all == [
            HTTPServerRequest(method: "GET", target: "/hero?id=1", headers: [
                HTTPServerHeader(name: "Host", value: "127.0.0.1"),
                HTTPServerHeader(name: "x-Trace", value: "abc"),
            ]),
            HTTPServerRequest(method: "POST", target: "/graphql", headers: [
                HTTPServerHeader(name: "Host", value: "127.0.0.1"),
                HTTPServerHeader(name: "Content-Type", value: "application/json"),
                HTTPServerHeader(name: "Content-Length", value: "17"),
            ], body: Data("{\"query\":\"{ a }\"}".utf8)),
        ])
    }

    @Test func keepAliveServesThreeRequestsOnOneConnection() async throws {
        let server = HTTPServer { echo($0) }
        let port = try server.start()
        defer { server.stop() }

        let (sequential, pipelined, stillOpen) = try await onThread {
            let client = try RawHTTPClient(port: port)
            var sequential: [RawHTTPClient.Response] = []
            for index in 1...3 {
                try client.write("GET /\(index) HTTP/1.1\r\nHost: a\r\n\r\n")
                sequential.append(try client.readResponse())
            }
            try client.write("GET /4 HTTP/1.1\r\nHost: a\r\n\r\nGET /5 HTTP/1.1\r\nHost: a\r\n\r\nHEAD /6 HTTP/1.1\r\nHost: a\r\n\r\n")
            let fourth = try client.readResponse()
            let fifth = try client.readResponse()
            // HEAD: the Content-Length the body would have, and no body bytes.
            let sixth = try client.readResponse(bodyless: true)
            return (sequential, [fourth, fifth, sixth], client.staysSilent(for: .milliseconds(100)))
        }

        #expect(sequential == (1...3).map {
            RawHTTPClient.Response(status: 200, headers: ["X-Seen-Headers: 1", "Content-Length: 6"], body: "GET /\($0)")
        })
        #expect(pipelined == [
            RawHTTPClient.Response(status: 200, headers: ["X-Seen-Headers: 1", "Content-Length: 6"], body: "GET /4"),
            RawHTTPClient.Response(status: 200, headers: ["X-Seen-Headers: 1", "Content-Length: 6"], body: "GET /5"),
            RawHTTPClient.Response(status: 200, headers: ["X-Seen-Headers: 1", "Content-Length: 7"], body: ""),
        ])
        #expect(stillOpen)
    }

    @Test func connectionCloseIsHonoured() async throws {
        let server = HTTPServer { echo($0) }
        let port = try server.start()
        defer { server.stop() }

        let results = try await onThread {
            var results: [(RawHTTPClient.Response, Bool)] = []
            for request in [
                "GET /bye HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
                "GET /old HTTP/1.0\r\n\r\n",
            ] {
                let client = try RawHTTPClient(port: port)
                try client.write(request)
                results.append((try client.readResponse(), client.waitForClose()))
            }
            return results.map { RawHTTPClient.Response(status: $0.0.status, headers: $0.0.headers + ["closed: \($0.1)"], body: $0.0.body) }
        }

        #expect(results == [
            RawHTTPClient.Response(
                status: 200, headers: ["X-Seen-Headers: 2", "Content-Length: 8", "Connection: close", "closed: true"], body: "GET /bye"),
            RawHTTPClient.Response(
                status: 200, headers: ["X-Seen-Headers: 0", "Content-Length: 8", "Connection: close", "closed: true"], body: "GET /old"),
        ])
    }

    @Test func malformedRequestIs400AndCloses() async throws {
        let log = RequestLog()
        let server = HTTPServer { request in
            log.record(request)
            return echo(request)
        }
        let port = try server.start()
        defer { server.stop() }

        let (response, closed) = try await onThread {
            let client = try RawHTTPClient(port: port)
            try client.write("GET / HTTP/1.1\r\nHost: a\r\n\r\nGET /x HTTP/1.1\r\nHost: a\r\nBad Header: 1\r\n\r\n")
            _ = try client.readResponse()
            return (try client.readResponse(), client.waitForClose())
        }

        let reason = "header name \"Bad Header\" is not a token: a space at offset 3; use letters, digits and !#$%&'*+-.^_`|~\n"
        #expect(response == RawHTTPClient.Response(
            status: 400,
            headers: ["Content-Type: text/plain; charset=utf-8", "Content-Length: \(reason.utf8.count)", "Connection: close"],
            body: reason
        ))
        #expect(closed)
        #expect(log.all.map(\.target) == ["/"])
    }

    @Test func hugeHeaderIs431() async throws {
        let server = HTTPServer(limits: HTTPRequestLimits(maxHeaderBytes: 1024)) { echo($0) }
        let port = try server.start()
        defer { server.stop() }

        let (response, closed) = try await onThread {
            let client = try RawHTTPClient(port: port)
            try client.write("GET / HTTP/1.1\r\nHost: a\r\nX-Big: " + String(repeating: "b", count: 4000) + "\r\n\r\n")
            return (try client.readResponse(), client.waitForClose())
        }

        #expect(response.status == 431)
        #expect(response.body == "the request head is larger than 1024 bytes\n")
        #expect(response.headers.last == "Connection: close")
        #expect(closed)
    }

    @Test func hugeBodyIs413WithoutCallingTheHandler() async throws {
        let log = RequestLog()
        let server = HTTPServer(limits: HTTPRequestLimits(maxBodyBytes: 1024)) { request in
            log.record(request)
            return echo(request)
        }
        let port = try server.start()
        defer { server.stop() }

        let (response, closed) = try await onThread {
            let client = try RawHTTPClient(port: port)
            try client.write("POST /upload HTTP/1.1\r\nHost: a\r\nContent-Length: 200000\r\n\r\n")
            try client.write([UInt8](repeating: 0x61, count: 100_000))
            return (try client.readResponse(), client.waitForClose())
        }

        #expect(response.status == 413)
        #expect(response.body == "a body of 200000 bytes is larger than the 1024-byte limit\n")
        #expect(closed)
        #expect(log.all.isEmpty)
    }

    @Test func expectContinueGetsAnInterimResponse() async throws {
        let server = HTTPServer { echo($0) }
        let port = try server.start()
        defer { server.stop() }

        let (interim, final) = try await onThread {
            let client = try RawHTTPClient(port: port)
            try client.write("PUT /doc HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n")
            let interim = try client.readResponse()
            try client.write("hello")
            return (interim, try client.readResponse())
        }

        #expect(interim == RawHTTPClient.Response(status: 100, headers: [], body: ""))
        #expect(final == RawHTTPClient.Response(status: 200, headers: ["X-Seen-Headers: 3", "Content-Length: 13"], body: "PUT /dochello"))
    }

    @Test func anUnsendableHandlerResponseBecomes500() async throws {
        let server = HTTPServer { _ in
            HTTPServerResponse(status: 200, headers: [HTTPServerHeader(name: "X-Split", value: "a\r\nSet-Cookie: evil=1")])
        }
        let port = try server.start()
        defer { server.stop() }

        let response = try await onThread {
            let client = try RawHTTPClient(port: port)
            try client.write("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
            return try client.readResponse()
        }

        #expect(response.status == 500)
        #expect(response.body == "the handler's header \"X-Split\" has CR in its value\n")
    }

    @Test func idleTimeoutClosesASilentConnection() async throws {
        let server = HTTPServer(idleTimeout: .milliseconds(300)) { echo($0) }
        let port = try server.start()
        defer { server.stop() }

        let (closed, elapsed) = try await onThread {
            let client = try RawHTTPClient(port: port)
            let start = ContinuousClock.now
            return (client.waitForClose(within: .seconds(5)), ContinuousClock.now - start)
        }

        #expect(closed)
        #expect(elapsed >= .milliseconds(250))
        #expect(elapsed < .seconds(3))
    }

    @Test func aClientTricklingBytesIsCutOffByTheWholeHeadDeadline() async throws {
        let server = HTTPServer(idleTimeout: .milliseconds(300)) { echo($0) }
        let port = try server.start()
        defer { server.stop() }

        let (response, bytesSent, elapsed) = try await onThread {
            let client = try RawHTTPClient(port: port)
            let start = ContinuousClock.now
            var sent = 0
            // One byte every 50 ms: each arrives well within the timeout, the head never does.
            for byte in "GET / HTTP/1.1\r\nHost: a\r\nX-Slow: ".utf8 + Array(repeating: UInt8(ascii: "z"), count: 1000) {
                try client.write([byte])
                sent += 1
                if !client.staysSilent(for: .milliseconds(50)) { break }
            }
            return (try client.readResponse(within: .seconds(1)), sent, ContinuousClock.now - start)
        }

        #expect(response.status == 408)
        #expect(response.body == "the request did not arrive within 0.3 seconds\n")
        #expect(bytesSent > 3)
        #expect(elapsed < .seconds(2))
    }

    @Test func fiftyConcurrentClientsEachDoFiveKeepAliveRequests() async throws {
        let server = HTTPServer { request in
            // Yield so requests from different clients interleave on the pool.
            await Task.yield()
            return echo(request)
        }
        let port = try server.start()
        defer { server.stop() }

        let bodies = try await withThrowingTaskGroup(of: [String].self) { group in
            for client in 0..<50 {
                group.addTask {
                    try await onThread {
                        let connection = try RawHTTPClient(port: port)
                        return try (0..<5).map { request in
                            try connection.write("GET /c\(client)/r\(request) HTTP/1.1\r\nHost: a\r\n\r\n")
                            let response = try connection.readResponse()
                            return "\(response.status) \(response.body)"
                        }
                    }
                }
            }
            var all: [String] = []
            for try await bodies in group { all += bodies }
            return all
        }

        let expected = (0..<50).flatMap { client in (0..<5).map { "200 GET /c\(client)/r\($0)" } }
        #expect(bodies.sorted() == expected.sorted())
    }

    @Test func connectionsBeyondTheLimitGet503() async throws {
        let server = HTTPServer(maxConnections: 1) { echo($0) }
        let port = try server.start()
        defer { server.stop() }

        let (first, second) = try await onThread {
            let held = try RawHTTPClient(port: port)
            try held.write("GET /held HTTP/1.1\r\nHost: a\r\n\r\n")
            let first = try held.readResponse()
            let refused = try RawHTTPClient(port: port)
            return (first, try refused.readResponse())
        }

        #expect(first.body == "GET /held")
        #expect(second.status == 503)
        #expect(second.body == "the server is at its connection limit or stopping\n")
    }

    @Test func stopReturnsPromptlyWithClientsConnected() async throws {
        let handlerStarted = Mutex(false)
        let handlerCancelled = Mutex(false)
        let server = HTTPServer { request in
            guard request.target == "/slow" else { return echo(request) }
            handlerStarted.withLock { $0 = true }
            try? await Task.sleep(for: .seconds(60))
            handlerCancelled.withLock { $0 = Task.isCancelled }
            return echo(request)
        }
        let port = try server.start()

        let idle = try await onThread {
            try (0..<20).map { index in
                let client = try RawHTTPClient(port: port)
                try client.write("GET /\(index) HTTP/1.1\r\nHost: a\r\n\r\n")
                _ = try client.readResponse()
                return client
            }
        }
        let (slow, partial) = try await onThread {
            let slow = try RawHTTPClient(port: port)
            try slow.write("GET /slow HTTP/1.1\r\nHost: a\r\n\r\n")
            let partial = try RawHTTPClient(port: port)
            try partial.write("GET /never-fin")
            return (slow, partial)
        }
        #expect(await eventually { handlerStarted.withLock { $0 } })

        let start = ContinuousClock.now
        server.stop()
        let stopping = ContinuousClock.now - start

        #expect(stopping < .seconds(1))
        #expect(server.port == nil)
        #expect(await eventually { handlerCancelled.withLock { $0 } })
        let allClosed = try await onThread {
            (idle + [slow, partial]).allSatisfy { $0.waitForClose(within: .seconds(2)) }
        }
        #expect(allClosed)
        #expect(throws: HTTPServerError.alreadyStarted) { try server.start() }
    }
}
