import Backend
import ChainKit
import Foundation
import HTTPServer
@testable import Lab
import Outbound
@testable import Scheduling
@testable import Serve
import Synchronization
import Testing
import Timeline
import TestSupport

/// An upstream for the proxy: an ``HTTPServer`` on loopback that records what reached it.
private final class RecordingUpstream: Sendable {
    let server: HTTPServer
    let port: UInt16
    private let seen = Locked<[HTTPServerRequest]>([])

    init(_ answer: @escaping @Sendable (HTTPServerRequest) async -> HTTPServerResponse) throws {
        let seen = self.seen
        server = HTTPServer { request in
            seen.withLock { $0.append(request) }
            return await answer(request)
        }
        port = try server.start()
    }

    var requests: [HTTPServerRequest] { seen.withLock { $0 } }
    var base: String { "http://127.0.0.1:\(port)" }
}

/// A proxy in front of `upstream`, on an ephemeral loopback port, and the lines it logged.
private struct RunningProxy {
    let proxy: UpstreamProxy
    let port: UInt16
    let lines: LockedLines

    init(_ upstream: String, recording: ProxyRecordingLimits = ProxyRecordingLimits(), otlp: OTLPSender? = nil) throws {
        let lines = LockedLines()
        self.lines = lines
        proxy = UpstreamProxy(upstream: URL(string: upstream)!, host: "127.0.0.1", port: 0, recording: recording, otlp: otlp.map { ($0, "proxy-test") }) {
            lines.append($0)
        }
        port = try proxy.start()
    }

    /// One request over a raw socket, on a thread of its own; the answer's header lines as sent.
    func send(_ wire: String) async throws -> (status: Int, fields: [String], body: String) {
        let port = self.port
        return try await onOwnThread {
            let client = try RawClient(port: port)
            try client.transmit(wire)
            return try client.readResponseFields()
        }
    }

    func get(_ target: String) async throws -> (status: Int, fields: [String], body: String) {
        try await send("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
    }

    func post(_ target: String, _ body: String) async throws -> (status: Int, fields: [String], body: String) {
        try await send("POST \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
    }

    func harEntries() throws -> [JSONValue] {
        try #require(try JSONValue(parsing: Data(proxy.har(masking: .revealed).utf8))["log"]?["entries"]?.arrayValue)
    }
}

final class LockedLines: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

/// `"Name: value"` pairs of a HAR header list.
private func pairs(_ headers: JSONValue?) -> [String] {
    (headers?.arrayValue ?? []).map { "\($0["name"]?.stringValue ?? ""): \($0["value"]?.stringValue ?? "")" }
}

@Suite("chainlab serve --upstream: what is forwarded, what is recorded", .serialized, .timeLimit(.minutes(2)))
struct UpstreamProxyTests {
    @Test("the memory bound adds the HAR's total, the idle connections' buffers and each connection's body, buffers and whole answer")
    func memoryBound() {
        let kib = 1 << 10, mib = 1 << 20
        #expect(UpstreamProxy.memoryBound(recording: ProxyRecordingLimits(totalBytes: mib), maxConnections: 1)
            == mib + 256 * 64 * kib + (2 * 16 * mib + 2 * 64 * kib + 256 * kib))
        #expect(UpstreamProxy.memoryBound(recording: ProxyRecordingLimits(), maxConnections: 256) >> 20 == 8368)
        #expect(UpstreamProxy.memoryBound(recording: ProxyRecordingLimits(totalBytes: 0), maxConnections: 0) == 16 * mib)
    }

    @Test func repeatedAnswerFieldsStaySeparateInTheAnswerAndTheHAR() async throws {
        let upstream = try RecordingUpstream { _ in
            HTTPServerResponse(status: 200, headers: [
                HTTPServerHeader(name: "Set-Cookie", value: "a=1; Path=/"), HTTPServerHeader(name: "Set-Cookie", value: "b=2; Path=/"),
                HTTPServerHeader(name: "Content-Type", value: "text/plain"),
            ], body: Data("ok".utf8))
        }
        let running = try RunningProxy(upstream.base)
        defer { Task { await running.proxy.stop() } }
        let answer = try await running.get("/cookies")
        #expect(answer.status == 200)
        #expect(answer.fields == ["Set-Cookie: a=1; Path=/", "Set-Cookie: b=2; Path=/", "Content-Type: text/plain", "Content-Length: 2"])
        #expect(answer.body == "ok")
        let entry = try #require(try running.harEntries().first)
        #expect(pairs(entry["response"]?["headers"]) == ["Set-Cookie: a=1; Path=/", "Set-Cookie: b=2; Path=/", "Content-Type: text/plain"])
        #expect(pairs(entry["response"]?["cookies"]) == ["a: 1", "b: 2"])
    }

    @Test func theProxyAddsNoFieldAndTheHARsURLAndHostAgree() async throws {
        let upstream = try RecordingUpstream { _ in .text("ok") }
        let running = try RunningProxy(upstream.base + "/base")
        defer { Task { await running.proxy.stop() } }
        _ = try await running.send("GET /x?y=1 HTTP/1.1\r\nHost: 127.0.0.1:\(running.port)\r\nX-App: 7\r\nConnection: keep-alive\r\n\r\n")
        let seen = try #require(upstream.requests.first)
        #expect(seen.target == "/base/x?y=1")
        #expect(seen.headers == [HTTPServerHeader(name: "Host", value: "127.0.0.1:\(upstream.port)"), HTTPServerHeader(name: "X-App", value: "7")])
        let request = try #require(try running.harEntries().first?["request"])
        #expect(request["url"]?.stringValue == "http://127.0.0.1:\(upstream.port)/base/x?y=1")
        #expect(pairs(request["headers"]) == ["Host: 127.0.0.1:\(upstream.port)", "X-App: 7"])
    }

    @Test func aChunkedUploadIsForwardedWithItsLength() async throws {
        let upstream = try RecordingUpstream { request in .text("got \(request.body.count)") }
        let running = try RunningProxy(upstream.base)
        defer { Task { await running.proxy.stop() } }
        let answer = try await running.send(
            "POST /upload HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Type: text/plain\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n")
        #expect(answer.status == 200)
        #expect(answer.body == "got 11")
        let seen = try #require(upstream.requests.first)
        #expect(String(decoding: seen.body, as: UTF8.self) == "hello world")
        #expect(seen.headers.map(\.description) == ["Host: 127.0.0.1:\(upstream.port)", "Content-Type: text/plain", "Content-Length: 11"])
    }

    @Test func headExchangesAreLoggedAndInTheHAR() async throws {
        let upstream = try RecordingUpstream { _ in .text("twelve bytes") }
        let running = try RunningProxy(upstream.base)
        defer { Task { await running.proxy.stop() } }
        let port = running.port
        let head = try await onOwnThread {
            let client = try RawClient(port: port)
            try client.transmit("HEAD /page HTTP/1.1\r\nHost: a\r\n\r\n")
            return try client.readHead()
        }
        #expect(head.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(upstream.requests.map(\.method) == ["HEAD"])
        #expect(running.lines.all.map { $0.split(separator: " ").dropFirst().prefix(4).joined(separator: " ") } == ["HEAD /page - 200"])
        let entry = try #require(try running.harEntries().first)
        #expect(entry["request"]?["method"]?.stringValue == "HEAD")
        #expect(entry["response"]?["status"]?.numberValue == 200)
    }

    @Test func targetsStayUnderTheBasePathOrAreRefused() async throws {
        let upstream = try RecordingUpstream { _ in .text("ok") }
        let running = try RunningProxy(upstream.base + "/base/")
        defer { Task { await running.proxy.stop() } }
        #expect(try await running.get("/a/./b/../c?x=1").status == 200)
        #expect(try await running.get("/a/%2E%2e/d").status == 200)
        #expect(upstream.requests.map(\.target) == ["/base/a/c?x=1", "/base/d"])
        for target in ["/../../etc/passwd", "/a/../../etc/passwd", "/%2e%2e/etc/passwd"] {
            let refused = try await running.get(target)
            #expect(refused.status == 400)
            #expect(refused.body == #"{"error":"bad target","message":"the path \#(target) climbs above the upstream's base path /base; it is not forwarded"}"# + "\n")
        }
        #expect(upstream.requests.count == 2)
        #expect(running.lines.all.filter { $0.hasSuffix(" refused") }.count == 3)
    }

    @Test func dotSegmentsAreResolvedUnderTheBase() {
        #expect(ProxyTarget.resolve("/", basePath: "") == .success("/"))
        #expect(ProxyTarget.resolve("/a/b/..", basePath: "/api") == .success("/api/a/"))
        #expect(ProxyTarget.resolve("/a/.?q=../..", basePath: "/api") == .success("/api/a/?q=../.."))
        #expect(ProxyTarget.resolve("/..", basePath: "") == .failure(ProxyTarget.Refusal(description: "the path /.. climbs above the upstream's base path /; it is not forwarded")))
        #expect(ProxyTarget.resolve("http://elsewhere/x", basePath: "")
            == .failure(ProxyTarget.Refusal(description: "the request target http://elsewhere/x is not a path starting with /; send origin-form targets such as /graphql")))
    }

    @Test func injectedAnswersCarryTheirFieldsAndAreMarkedInTheHAR() async throws {
        let upstream = try RecordingUpstream { _ in .text("real") }
        let running = try RunningProxy(upstream.base)
        defer { Task { await running.proxy.stop() } }
        #expect(try await running.post("/_lab/unauthorized-next", "{}").status == 200)
        let unauthorized = try await running.get("/me")
        #expect(unauthorized.status == 401)
        #expect(unauthorized.fields.contains("WWW-Authenticate: Bearer error=\"invalid_token\""))
        let queued = try await running.post("/_lab/fail-next", #"{"status": 429, "headers": {"Retry-After": 2, "X-Why": "busy"}}"#)
        #expect(queued.body == "{\"queued\":1}\n")
        let limited = try await running.get("/me")
        #expect(limited.status == 429)
        #expect(limited.fields.prefix(3) == ["Content-Type: application/json", "Retry-After: 2", "X-Why: busy"])
        #expect(try await running.post("/_lab/fail-next", #"{"status": 404}"#).status == 200)
        #expect(try await running.get("/me").status == 404)
        #expect(try await running.get("/me").body == "real")
        #expect(upstream.requests.count == 1)
        let entries = try running.harEntries()
        #expect(entries.map { $0["response"]?["status"]?.numberValue } == [401, 429, 404, 200])
        #expect(entries.map { $0["_hops"]?.arrayValue?.first?["detail"]?.stringValue } == [
            "injected: 401 (unauthorized-next)", "injected: 429 (fail-next)", "injected: 404 (fail-next)", nil,
        ])
        #expect(pairs(entries[1]["response"]?["headers"]) == ["Content-Type: application/json", "Retry-After: 2", "X-Why: busy"])
    }

    @Test func controlsRefuseUnknownFieldsAndBadValuesSayingWhere() async throws {
        let upstream = try RecordingUpstream { _ in .text("real") }
        let running = try RunningProxy(upstream.base)
        defer { Task { await running.proxy.stop() } }
        let cases: [(String, String, String)] = [
            ("/_lab/fail-next", #"{"status": 503, "retryAfter": 2}"#, #"fail-next has an unknown field \"retryAfter\"; known: count, status, headers, match"#),
            ("/_lab/fail-next", #"{"status": 302}"#, "status must be a whole number from 400 to 599 (429, 500, 503…)"),
            ("/_lab/fail-next", #"{"headers": {"Bad Name": "x"}}"#, #"headers: \"Bad Name\" is not a field name (letters, digits and !#$%&'*+-.^_`|~)"#),
            ("/_lab/fail-next", #"{"headers": {"Content-Length": "1"}}"#, "headers: Content-Length is set by the proxy itself"),
            ("/_lab/fail-next", #"{"headers": {"Retry-After": true}}"#, "headers.Retry-After must be a string or a whole number"),
            ("/_lab/unauthorized-next", #"{"mode": "status401", "count": 1, "status": 401}"#, #"unauthorized-next has an unknown field \"status\"; known: count, mode, match"#),
            ("/_lab/latency", #"{"second": 1}"#, #"latency has an unknown field \"second\"; known: seconds, match"#),
        ]
        for (path, body, reason) in cases {
            let answer = try await running.post(path, body)
            #expect(answer.status == 400)
            #expect(answer.body == #"{"error":"bad control","message":"\#(reason)"}"# + "\n")
        }
    }

    @Test func resetClearsInjectionsLatencyAndTheLog() async throws {
        let upstream = try RecordingUpstream { _ in .text("real") }
        let running = try RunningProxy(upstream.base)
        defer { Task { await running.proxy.stop() } }
        _ = try await running.get("/one")
        _ = try await running.post("/_lab/fail-next", #"{"count": 3}"#)
        _ = try await running.post("/_lab/latency", #"{"seconds": 30}"#)
        #expect(try await running.post("/_lab/reset", "").body == "{\"reset\":true}\n")
        #expect(try await running.get("/two").body == "real")
        let state = try JSONValue(parsing: Data(try await running.get("/_lab/state").body.utf8))
        #expect(state["injections"] == [])
        #expect(state["latency"] == .null)
        #expect(state["har"]?["exchanges"] == 1)
        #expect(try running.harEntries().map { $0["request"]?["url"]?.stringValue } == ["http://127.0.0.1:\(upstream.port)/two"])
    }

    @Test func theHARKeepsAtMostItsLimitPerBodyAndInAllDroppingTheOldestBodiesFirst() async throws {
        let body = String(repeating: "0123456789", count: 100)
        let upstream = try RecordingUpstream { _ in .text(body) }
        let limits = ProxyRecordingLimits(bodyBytes: 600, totalBytes: 7700)
        let running = try RunningProxy(upstream.base, recording: limits)
        defer { Task { await running.proxy.stop() } }
        for index in 0..<5 { #expect(try await running.get("/n\(index)").body == body) }
        let entries = try running.harEntries()
        let state = try JSONValue(parsing: Data(try await running.get("/_lab/state").body.utf8))
        let kept = try #require(state["har"]?["bytes"]?.numberValue)
        #expect(kept <= 7700)
        #expect(state["har"]?["droppedExchanges"] == 0)
        #expect(entries.count == 5)
        let newest = try #require(entries.last?["response"]?["content"])
        #expect(newest["text"]?.stringValue == String(body.prefix(600)))
        #expect(newest["size"] == 1000)
        #expect(newest["_truncated"] == true)
        let oldest = try #require(entries.first)
        #expect(oldest["response"]?["content"]?["text"] == "")
        #expect(oldest["response"]?["content"]?["size"] == 1000)
        #expect(oldest["_hops"]?.arrayValue?.first?["detail"] == "bodies dropped: the HAR was over its total limit (--har-max-total)")
        let dropped = entries.filter { $0["response"]?["content"]?["text"] == "" }.count
        #expect(state["har"]?["droppedBodies"]?.numberValue == Double(dropped))
        #expect(dropped == 3)
    }

    @Test func pastItsTotalLimitTheHARLetsTheOldestExchangesGo() async throws {
        let upstream = try RecordingUpstream { _ in .text("x") }
        let running = try RunningProxy(upstream.base, recording: ProxyRecordingLimits(bodyBytes: 1, totalBytes: 1))
        defer { Task { await running.proxy.stop() } }
        for index in 0..<3 { _ = try await running.get("/n\(index)") }
        let state = try JSONValue(parsing: Data(try await running.get("/_lab/state").body.utf8))
        #expect(state["har"]?["exchanges"] == 0)
        #expect(state["har"]?["bytes"] == 0)
        #expect(state["har"]?["droppedExchanges"] == 3)
        #expect(try running.harEntries() == [])
    }
}

/// An upstream that streams 64 KiB pieces for as long as anyone reads, counting the
/// answers still being written.
private final class EndlessUpstream: Sendable {
    let server: HTTPServer
    let port: UInt16
    private let counts = Locked((started: 0, writing: 0))

    init() throws {
        let counts = self.counts
        server = HTTPServer { _ in
            HTTPServerResponse(status: 200, headers: [HTTPServerHeader(name: "Content-Type", value: "application/octet-stream")], stream: HTTPServerBodyStream { writer in
                counts.withLock { $0 = ($0.started + 1, $0.writing + 1) }
                defer { counts.withLock { $0.writing -= 1 } }
                let piece = Data(repeating: 0x61, count: 64 << 10)
                while true { try writer.write(piece) }
            })
        }
        port = try server.start()
    }

    var answersBeingWritten: Int { counts.value.writing }
    var answersStarted: Int { counts.value.started }
}

@Suite("chainlab serve --upstream: endless answers", .serialized, .timeLimit(.minutes(2)))
struct UpstreamProxyEndlessTests {
    @Test func eightReadersEachGetAHeadAndTheUpstreamStopsWhenTheyLeave() async throws {
        let upstream = try EndlessUpstream()
        defer { upstream.server.stop() }
        let running = try RunningProxy("http://127.0.0.1:\(upstream.port)")
        defer { Task { await running.proxy.stop() } }
        let port = running.port
        let heads = Mutex<[String]>([])
        await onThreads(8) { _ in
            guard let client = try? RawClient(port: port) else { return }
            try? client.transmit("GET /stream HTTP/1.1\r\nHost: a\r\n\r\n")
            let head = (try? client.readHead()) ?? "no head"
            heads.withLock { $0.append(String(head.prefix(15))) }
            client.disconnect()
        }
        #expect(heads.withLock { $0 } == Array(repeating: "HTTP/1.1 200 OK", count: 8))
        #expect(upstream.answersStarted == 8)
        // Once every reader left, the proxy closed its upstream connections: no answer is
        // still being written.
        #expect(await eventually(within: .seconds(60)) { upstream.answersBeingWritten == 0 })
        #expect(running.lines.all.count == 8)
        #expect(running.lines.all.allSatisfy { $0.hasSuffix(" cut") })
    }
}

/// Polls `condition` until it holds or `limit` passes (a hang guard, not a timing).
private func eventually(within limit: Duration, _ condition: @Sendable () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return condition()
}

@Suite("chainlab serve --upstream: OTLP", .serialized, .timeLimit(.minutes(2)))
struct UpstreamProxyOTLPTests {
    @Test func eachExchangeIsOneSpanWithTheHARsIds() async throws {
        let receiver = try RecordingUpstream { _ in HTTPServerResponse(status: 200, headers: [HTTPServerHeader(name: "Content-Type", value: "application/json")], body: Data("{}".utf8)) }
        let upstream = try RecordingUpstream { _ in .text("ok") }
        let sender = try OTLPSender(endpoint: receiver.base)
        let running = try RunningProxy(upstream.base, otlp: sender)
        _ = try await running.get("/traced")
        #expect(await eventually(within: .seconds(60)) { !receiver.requests.isEmpty })
        let entry = try #require(try running.harEntries().first)
        await running.proxy.stop()
        let posted = try #require(receiver.requests.first)
        #expect(posted.target == "/v1/traces")
        let document = try JSONValue(parsing: posted.body)
        #expect(document["resourceSpans"]?[0]?["resource"]?["attributes"]?[0]?["value"]?["stringValue"] == "proxy-test")
        let spans = try #require(document["resourceSpans"]?[0]?["scopeSpans"]?[0]?["spans"]?.arrayValue)
        #expect(spans.count == 1)
        #expect(spans[0]["traceId"] == entry["_chainlab"]?["traceId"])
        #expect(spans[0]["spanId"] == entry["_chainlab"]?["spanId"])
        #expect(spans[0]["parentSpanId"] == nil)
        #expect(spans[0]["kind"] == 3)
        #expect(spans[0]["name"] == "GET")
    }
}
