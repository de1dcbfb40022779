import Backend
import ChainKit
import Foundation
import Lab
import Serve
import Synchronization
import TestSupport
import Testing

private let heroRequest = "GET /heroes/2001 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer at-1-1\r\n\r\n"
private let heroBody = #"{"id":"2001","name":"R2-D2"}"#

/// Sends `request` on a fresh connection and reads one response, off the pool.
private func exchange(_ request: String, port: UInt16) async throws -> RawResponse {
    try await onOwnThread {
        let client = try RawClient(port: port)
        try client.transmit(request)
        return try client.readResponse()
    }
}

/// Asserts that a fresh connection still gets the hero.
private func expectServing(_ lab: ServedLab) async throws {
    let response = try await exchange(heroRequest, port: lab.port)
    #expect(response.status == 200)
    #expect(response.body == heroBody)
}

@Suite("serve under abuse: bad input, slow clients and load")
struct ServeAbuseTests {
    @Test(arguments: [
        ("GARBAGE\r\n\r\n", #"malformed request line: "GARBAGE" is not method, target and version separated by single spaces"#),
        ("GET /heroes HTTP/1.1\r\n\r\n", "an HTTP/1.1 request needs a Host header"),
        ("GET /heroes HTTP/1.1\r\nHost: a\r\nno colon here\r\n\r\n", #"line 3 of the request head: "no colon here" has no colon"#),
        ("GET /heroes HTTP/1.1\r\nHost: a\r\nContent-Length: ten\r\n\r\n", #"Content-Length "ten" is not a decimal number"#),
        ("GET /heroes HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", "2 Host headers; send exactly one"),
    ])
    func malformedRequestIs400AndTheServerKeepsServing(request: String, reason: String) async throws {
        let lab = try ServedLab()
        defer { lab.service.stop() }
        _ = lab.backend.issueTokens()

        let (response, closed) = try await onOwnThread {
            let client = try RawClient(port: lab.port)
            try client.transmit(request)
            let response = try client.readResponse()
            return (response, client.isClosedByServer(within: .seconds(5)))
        }

        #expect(response.status == 400)
        #expect(response.headers["connection"] == "close")
        #expect(response.body == reason + "\n")
        #expect(closed)
        try await expectServing(lab)
    }

    @Test func keepAliveServesSeveralRequestsOnOneConnection() async throws {
        let lab = try ServedLab()
        defer { lab.service.stop() }
        _ = lab.backend.issueTokens()

        let responses = try await onOwnThread {
            let client = try RawClient(port: lab.port)
            var responses: [RawResponse] = []
            for _ in 0..<3 {
                try client.transmit(heroRequest)
                responses.append(try client.readResponse())
            }
            let form = "grant_type=password&username=demo&password=demo"
            try client.transmit("POST /oauth/token HTTP/1.1\r\nHost: a\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: \(form.utf8.count)\r\n\r\n\(form)")
            responses.append(try client.readResponse())
            return responses
        }

        let hero = RawResponse(status: 200, headers: ["content-type": "application/json", "content-length": "28"], body: heroBody)
        #expect(responses.prefix(3) == [hero, hero, hero])
        #expect(responses.last?.body == #"{"access_token":"at-2-1","expires_in":300,"refresh_token":"rt-2-1","token_type":"Bearer"}"#)
    }

    @Test func aThousandMalformedRequestsInARowThenAGoodOne() async throws {
        let lab = try ServedLab()
        defer { lab.service.stop() }
        _ = lab.backend.issueTokens()

        let statuses = try await onOwnThread {
            var statuses: [Int: Int] = [:]
            for index in 0..<1_000 {
                let client = try RawClient(port: lab.port)
                try client.transmit("\(index) NOT HTTP \u{1}\r\n\r\n")
                statuses[try client.readResponse().status, default: 0] += 1
                client.disconnect()
            }
            return statuses
        }

        #expect(statuses == [400: 1_000])
        try await expectServing(lab)
    }

    @Test func aTwentyKiBHeaderIs431() async throws {
        let lab = try ServedLab()
        defer { lab.service.stop() }
        _ = lab.backend.issueTokens()

        let response = try await exchange(
            "GET /heroes HTTP/1.1\r\nHost: a\r\nX-Padding: \(String(repeating: "a", count: 20 * 1024))\r\n\r\n", port: lab.port)

        #expect(response.status == 431)
        #expect(response.body == "the request head is larger than 16384 bytes\n")
        try await expectServing(lab)
    }

    @Test func aTwoMiBBodyIs413() async throws {
        let lab = try ServedLab()
        defer { lab.service.stop() }
        _ = lab.backend.issueTokens()
        let size = 2 * 1024 * 1024

        let response = try await onOwnThread {
            let client = try RawClient(port: lab.port)
            try client.transmit("POST /heroes HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: \(size)\r\n\r\n")
            try client.transmit([UInt8](repeating: UInt8(ascii: " "), count: size))
            return try client.readResponse()
        }

        #expect(response.status == 413)
        #expect(response.body == "a body of 2097152 bytes is larger than the 1048576-byte limit\n")
        #expect(lab.backend.counters["restRequests"] == 0)
        try await expectServing(lab)
    }

    @Test func aClientTricklingBytesIsCutOffByTheIdleTimeout() async throws {
        let lab = try ServedLab(idleTimeout: .milliseconds(500))
        defer { lab.service.stop() }
        _ = lab.backend.issueTokens()
        let request = Array(heroRequest.utf8)

        let (response, sent, elapsed) = try await onOwnThread {
            let start = ContinuousClock.now
            let client = try RawClient(port: lab.port)
            var sent = 0
            // One byte every 100 ms: the whole request would take 7 s to arrive.
            while sent < request.count && !client.waitReadable(for: .zero) {
                try client.transmit([request[sent]])
                sent += 1
                _ = client.waitReadable(for: .milliseconds(100))
            }
            return (try client.readResponse(), sent, ContinuousClock.now - start)
        }

        #expect(response.status == 408)
        #expect(response.body == "the request did not arrive within 0.5 seconds\n")
        #expect(sent < request.count)
        #expect(elapsed >= .milliseconds(450))
        #expect(elapsed < .seconds(5))
        try await expectServing(lab)
    }

    @Test func twoHundredKeepAliveClientsForTwoSecondsWithoutAnError() async throws {
        let lab = try ServedLab()
        defer { lab.service.stop() }
        _ = lab.backend.issueTokens()
        let clients = 200
        let deadline = ContinuousClock.now + .seconds(2)
        let tally = LoadTally()

        await onThreads(clients) { _ in
            do {
                let client = try RawClient(port: lab.port)
                var served = 0
                repeat {
                    try client.transmit(heroRequest)
                    let response = try client.readResponse()
                    guard response.status == 200, response.body == heroBody else {
                        throw RawClientError("status \(response.status), body \(response.body)")
                    }
                    served += 1
                } while ContinuousClock.now < deadline
                tally.record(served: served, error: nil)
            } catch {
                tally.record(served: 0, error: "\(error)")
            }
        }

        let result = tally.result
        #expect(result.errors == [])
        #expect(result.clients == clients)
        #expect(result.idleClients == 0)
        #expect(lab.backend.counters["restRequests"] == result.requests)
        try await expectServing(lab)
    }
}

/// What the load clients report.
private final class LoadTally: Sendable {
    struct Result {
        var clients = 0
        var requests = 0
        var idleClients = 0
        var errors: [String] = []
    }

    private let state = Mutex(Result())

    func record(served: Int, error: String?) {
        state.withLock { result in
            result.clients += 1
            result.requests += served
            if served == 0 { result.idleClients += 1 }
            if let error { result.errors.append(error) }
        }
    }

    var result: Result { state.withLock { $0 } }
}
