import ChainKit
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Lab
import Outbound
import Testing
import Timeline
import Exports

/// A receiver that answers from a script and records what it was sent and how long the sender
/// chose to wait (no real time passes).
final class ScriptedReceiver: Sendable {
    typealias Answer = (status: Int, headers: [String: String], body: Data)
    let script: Locked<[Result<Answer, URLError>]>
    let requests = Locked<[URLRequest]>([])
    let waits = Locked<[Duration]>([])

    init(_ script: [Result<Answer, URLError>]) {
        self.script = Locked(script)
    }

    static func answer(_ status: Int, _ headers: [String: String] = [:], _ body: String = "{}") -> Result<Answer, URLError> {
        .success((status, headers, Data(body.utf8)))
    }

    func sender(endpoint: String = "http://127.0.0.1:4318", headers: [String] = []) throws -> OTLPSender {
        try OTLPSender(
            endpoint: endpoint, headers: headers,
            post: { request in
                self.requests.withLock { $0.append(request) }
                let next = self.script.withLock { $0.isEmpty ? ScriptedReceiver.answer(200) : $0.removeFirst() }
                return try next.get()
            },
            sleep: { duration in self.waits.withLock { $0.append(duration) } },
            jitter: { 1 })
    }
}

@Suite("OTLP/HTTP export")
struct OTLPSenderTests {
    @Test("posts JSON to URL/v1/traces with the extra headers")
    func request() async throws {
        let receiver = ScriptedReceiver([])
        let sender = try receiver.sender(endpoint: "http://127.0.0.1:4318/", headers: ["Authorization: Basic dXNlcjpwdw==", "X-Scope-OrgID:  team-a "])
        #expect(sender.url.absoluteString == "http://127.0.0.1:4318/v1/traces")
        #expect(try receiver.sender(endpoint: "https://otlp.example/v1/traces").url.absoluteString == "https://otlp.example/v1/traces")
        let outcome = try await sender.send(#"{"resourceSpans":[]}"#)
        #expect(outcome == OTLPSender.Outcome(rejectedSpans: 0, message: nil, tries: 1))
        let sent = try #require(receiver.requests.value.first)
        #expect(sent.httpMethod == "POST")
        #expect(sent.url?.absoluteString == "http://127.0.0.1:4318/v1/traces")
        #expect(sent.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(sent.value(forHTTPHeaderField: "Authorization") == "Basic dXNlcjpwdw==")
        #expect(sent.value(forHTTPHeaderField: "X-Scope-OrgID") == "team-a")
        #expect(sent.httpBody == Data(#"{"resourceSpans":[]}"#.utf8))
    }

    @Test("503 twice, then 200: three tries, waiting as Retry-After says, else 1 s then 2 s")
    func retriesUnavailable() async throws {
        let receiver = ScriptedReceiver([
            ScriptedReceiver.answer(503, ["Retry-After": "3"]), ScriptedReceiver.answer(503), ScriptedReceiver.answer(200),
        ])
        let outcome = try await receiver.sender().send("{}")
        #expect(outcome.tries == 3)
        #expect(receiver.waits.value == [.seconds(3), .seconds(2)])
    }

    @Test("429, 502 and 504 are retried too; exponential backoff 1, 2, 4, 8 s, then it gives up after 5 tries")
    func givesUp() async throws {
        let receiver = ScriptedReceiver([
            ScriptedReceiver.answer(429), ScriptedReceiver.answer(502), ScriptedReceiver.answer(504),
            ScriptedReceiver.answer(503), ScriptedReceiver.answer(503, [:], #"{"message":"overloaded"}"#),
        ])
        await #expect(throws: OTLPSender.Failure(description: "the receiver at http://127.0.0.1:4318/v1/traces answered 503 Service Unavailable: overloaded (gave up after 5 tries)")) {
            try await receiver.sender().send("{}")
        }
        #expect(receiver.requests.value.count == 5)
        #expect(receiver.waits.value == [.seconds(1), .seconds(2), .seconds(4), .seconds(8)])
    }

    @Test("a 400 is not retried: the receiver's reason is reported")
    func badRequest() async throws {
        let receiver = ScriptedReceiver([ScriptedReceiver.answer(400, [:], #"{"code":3,"message":"bad span id"}"#)])
        await #expect(throws: OTLPSender.Failure(description: "the receiver at http://127.0.0.1:4318/v1/traces answered 400 Bad Request: bad span id")) {
            try await receiver.sender().send("{}")
        }
        #expect(receiver.requests.value.count == 1)
        #expect(receiver.waits.value.isEmpty)
    }

    @Test("an unreachable receiver is tried five times and reported")
    func unreachable() async throws {
        let receiver = ScriptedReceiver(Array(repeating: .failure(URLError(.cannotConnectToHost)), count: 5))
        do {
            _ = try await receiver.sender().send("{}")
            Issue.record("sending to an unreachable receiver succeeded")
        } catch {
            #expect("\(error)".hasPrefix("cannot reach the receiver at http://127.0.0.1:4318/v1/traces: "))
            #expect("\(error)".hasSuffix(" (gave up after 5 tries)"))
        }
        #expect(receiver.requests.value.count == 5)
    }

    @Test("a partial success is reported with the number of rejected spans and the reason")
    func partialSuccess() async throws {
        let receiver = ScriptedReceiver([ScriptedReceiver.answer(200, [:], #"{"partialSuccess":{"rejectedSpans":"2","errorMessage":"too old"}}"#)])
        let outcome = try await receiver.sender().send("{}")
        #expect(outcome == OTLPSender.Outcome(rejectedSpans: 2, message: "too old", tries: 1))
    }

    @Test("Retry-After as an HTTP date is honoured; a bad endpoint or header is a clear error")
    func inputs() throws {
        let soon = Date(timeIntervalSinceNow: 3600)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let wait = try #require(OTLPSender.retryAfter(["retry-after": formatter.string(from: soon)]))
        #expect(wait > 3500 && wait <= 3600)
        #expect(OTLPSender.retryAfter(["Retry-After": "soon"]) == nil)
        #expect(throws: OTLPSender.Failure(description: "--otlp-endpoint needs an http:// or https:// URL such as http://127.0.0.1:4318, got 'localhost:4318'")) {
            try OTLPSender(endpoint: "localhost:4318")
        }
        #expect(throws: OTLPSender.Failure(description: "--otlp-header needs 'Name: value', got 'X-Key'")) {
            try OTLPSender(endpoint: "http://127.0.0.1:4318", headers: ["X-Key"])
        }
    }

    @Test("the inspector's live export sends each operation once it ends, retries a failure and reports it")
    func liveExport() async throws {
        var scenario = try #require(Catalog.scenario(named: "basics"))
        scenario.launch = [0, 0]
        let session = LabSession(scenario: scenario)
        let receiver = ScriptedReceiver([
            .failure(URLError(.cannotConnectToHost)), .failure(URLError(.cannotConnectToHost)),
        ])
        let sleeps = Locked<[Duration]>([])
        let live = OTLPLiveExport(
            session: session, sender: try OTLPSender(
                endpoint: "http://127.0.0.1:4318", maxTries: 2,
                post: { request in
                    receiver.requests.withLock { $0.append(request) }
                    let next = receiver.script.withLock { $0.isEmpty ? ScriptedReceiver.answer(200) : $0.removeFirst() }
                    return try next.get()
                },
                sleep: { _ in }, jitter: { 1 }),
            retryDelay: .seconds(10), sleep: { duration in sleeps.withLock { $0.append(duration) } })
        _ = await session.runHeadless()
        live.poll()
        live.poll()
        #expect(await live.finish(waitingUpTo: .seconds(60)) == 0)
        let bodies = try receiver.requests.value.map { try OTLPDocument(String(decoding: try #require($0.httpBody), as: UTF8.self)) }
        // Two tries failed (one export), the retry after 10 s succeeded, then #2 went out.
        #expect(bodies.count == 4)
        #expect(bodies.map { $0.spans[0].attributes["chainlab.request"] } == [1, 1, 1, 2])
        #expect(sleeps.value == [.seconds(10)])
        #expect(live.takeStatus()?.text == "OTLP: exporting again; #1 sent to http://127.0.0.1:4318/v1/traces")
        #expect(live.takeStatus() == nil)
    }

    @Test("each operation's live export is its trace in the whole export: the same spans, waiters linked to #1's refresh")
    func liveExportMatchesTheWholeDocument() async throws {
        let scenario = try #require(Catalog.scenario(named: "refresh-storm-fixed"))
        let session = LabSession(scenario: scenario)
        let receiver = ScriptedReceiver([])
        let live = OTLPLiveExport(session: session, sender: try receiver.sender())
        let result = await session.runHeadless()
        #expect(await live.finish(waitingUpTo: .seconds(60)) == 0)
        let whole = OTLPExport.document(
            requests: result.requests, events: result.events, options: OTLPExport.Options(anchor: session.otlpAnchor, masking: .masked))
        // One span a line; the last of a document has no comma after it.
        let spanLines = { (text: String) in
            text.split(separator: "\n").filter { $0.hasPrefix(#"{"traceId""#) }.map { String($0.hasSuffix(",") ? $0.dropLast() : $0) }
        }
        let sent = receiver.requests.value.map { spanLines(String(decoding: $0.httpBody ?? Data(), as: UTF8.self)) }
        #expect(sent.count == 5)
        #expect(sent.flatMap { $0 } == spanLines(whole))
        let waiter = try OTLPDocument(String(decoding: try #require(receiver.requests.value.last?.httpBody), as: UTF8.self))
        let refresh = try #require(OTLPDocument(whole).named("POST /oauth/token").first)
        #expect(waiter.spans[1].links.map(\.spanID) == [refresh.spanID])
    }
}
