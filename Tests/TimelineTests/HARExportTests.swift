import ChainKit
import Foundation
import Testing
import Timeline
import Exports

@Suite struct HARExportTests {
    let har: JSONValue
    let text: String

    init() throws {
        text = HARExport.archive(events: Fixtures.retriedRequest, masking: .masked, anchor: .lab(scenario: "fixture"))
        har = try JSONValue(parsing: text)
    }

    private var entries: [JSONValue] { har["log"]?["entries"]?.arrayValue ?? [] }

    private func headers(_ message: JSONValue?) -> [String] {
        (message?["headers"]?.arrayValue ?? []).map { "\($0["name"]?.stringValue ?? "?"): \($0["value"]?.stringValue ?? "?")" }
    }

    @Test func logHeader() throws {
        #expect(har["log"]?["version"] == "1.2")
        #expect(har["log"]?["creator"] == ["name": "ChainLab", "version": "1.0"])
        // Foundation's own parser accepts it too.
        #expect(try JSONSerialization.jsonObject(with: Data(text.utf8)) is [String: Any])
    }

    @Test func oneEntryPerTransportExchange() {
        #expect(entries.count == 3)
        #expect(entries.map { $0["_chainlab"]?["request"] } == [1, 1, 2])
        #expect(entries.map { $0["_chainlab"]?["attempt"] } == [1, 2, 1])
        #expect(entries.map { $0["_chainlab"]?["exchange"] } == ["transport", "transport", "transport"])
        #expect(entries.allSatisfy { $0["_request"] == nil && $0["_attempt"] == nil })
        #expect(entries.map { $0["response"]?["status"] } == [401, 200, 0])
        #expect(entries.map { $0["_error"] } == [.null, .null, "timed out after 30s"])
        #expect(entries.map { $0["startedDateTime"] } == [
            "2025-01-01T00:00:00.001Z", "2025-01-01T00:00:00.021Z", "2025-01-01T00:00:01.000Z",
        ])
    }

    @Test func requestFields() {
        let request = entries[1]["request"]
        #expect(request?["method"] == "POST")
        #expect(request?["url"] == "https://lab.local/graphql")
        #expect(request?["httpVersion"] == "HTTP/1.1")
        #expect(headers(request) == ["Content-Type: application/json", "Authorization: Bearer ••••a1f3"])
        #expect(request?["queryString"] == [])
        #expect(request?["cookies"] == [])
        #expect(request?["headersSize"] == -1)
        #expect(request?["bodySize"] == 24)
        #expect(request?["postData"] == ["mimeType": "application/json", "text": #"{"query":"{hero{name}}"}"#, "_truncated": false])
    }

    @Test func responseFields() {
        let response = entries[1]["response"]
        #expect(response?["statusText"] == "OK")
        #expect(response?["httpVersion"] == "HTTP/1.1")
        #expect(headers(response) == ["Content-Type: application/json", "Set-Cookie: sid=••••6789; Path=/"])
        #expect(response?["cookies"] == [["name": "sid", "value": "••••6789"]])
        #expect(response?["content"] == [
            "size": 34, "mimeType": "application/json", "text": #"{"data":{"hero":{"name":"R2-D2"}}}"#, "_truncated": false,
        ])
        #expect(response?["redirectURL"] == "")
        #expect(response?["bodySize"] == 34)
        #expect(entries[0]["response"]?["statusText"] == "Unauthorized")
        #expect(entries[2]["response"]?["bodySize"] == -1)
    }

    @Test func timingsAreNonNegativeAndAddUp() {
        for entry in entries {
            let timings = entry["timings"]
            let parts = ["send", "wait", "receive"].map { timings?[$0]?.numberValue ?? -1 }
            #expect(parts.allSatisfy { $0 >= 0 })
            #expect(abs(parts.reduce(0, +) - (entry["time"]?.numberValue ?? -1)) < 1e-9)
            #expect(entry["cache"] == [:])
        }
        #expect(abs((entries[0]["time"]?.numberValue ?? 0) - 12) < 1e-9)
        #expect(abs((entries[2]["time"]?.numberValue ?? 0) - 30_000) < 1e-9)
    }

    @Test func hopEventsOfTheSameAttempt() {
        let hops = entries.map { ($0["_hops"]?.arrayValue ?? []).map { "\($0["name"]?.stringValue ?? "?") \($0["phase"]?.stringValue ?? "?")" } }
        #expect(hops == [
            ["MaxRetryInterceptor preflight", "AuthInterceptor preflight", "AuthInterceptor retry"],
            ["MaxRetryInterceptor preflight", "AuthInterceptor preflight", "AuthInterceptor postflight", "MaxRetryInterceptor postflight"],
            [],
        ])
        let expected: JSONValue = [
            "seq": 2, "time": 0, "hop": 1, "name": "AuthInterceptor", "kind": "graphql", "phase": "preflight",
            "status": .null, "error": .null, "detail": .null, "diff": ["added": ["Authorization"], "changed": [], "removed": []],
        ]
        #expect(entries[0]["_hops"]?[1] == expected)
    }

    @Test func idsMatchTheOTLPSpansOfTheSameTimeline() throws {
        let anchor = OTLPExport.Anchor.lab(scenario: "fixture")
        let otlp = try JSONValue(parsing: OTLPExport.document(
            requests: [
                RequestSummary(id: 1, operation: "HeroQuery", outcome: .success, attempts: 2, operationType: "query"),
                RequestSummary(id: 2, operation: "HeroQuery", outcome: .failure, attempts: 1, error: "timed out", operationType: "query"),
            ],
            events: Fixtures.retriedRequest, options: OTLPExport.Options(anchor: anchor, masking: .masked)))
        let clientSpans = (otlp["resourceSpans"]?[0]?["scopeSpans"]?[0]?["spans"]?.arrayValue ?? []).filter { $0["kind"] == 3 }
        #expect(clientSpans.count == 3)
        #expect(entries.map { $0["_chainlab"]?["spanId"] } == clientSpans.map { $0["spanId"] })
        #expect(entries.map { $0["_chainlab"]?["traceId"] } == clientSpans.map { $0["traceId"] })
        #expect(entries[0]["_chainlab"]?["traceId"] != entries[2]["_chainlab"]?["traceId"])
    }

    @Test func aRefreshIsAnEntryWithItsGrantAndAnswer() throws {
        let form = HopSnapshot(
            method: "POST", url: "https://lab.local/oauth/token",
            headers: Fixtures.fields([("Content-Type", "application/x-www-form-urlencoded")]),
            body: BodyPreview(Data("grant_type=refresh_token&refresh_token=rt-abcdef".utf8)))
        let events = Fixtures.stored([
            Fixtures.event(0.5, hop: TimelineEvent.noHop, "TokenManager", .auth, .send, form),
            Fixtures.event(0.75, hop: TimelineEvent.noHop, "TokenManager", .auth, .refresh,
                           HopSnapshot(method: "POST", url: "https://lab.local/oauth/token", status: 400, error: "invalid_grant")),
        ])
        let har = try JSONValue(parsing: HARExport.archive(events: events, masking: .masked, anchor: .lab(scenario: "fixture")))
        let entry = try #require(har["log"]?["entries"]?[0])
        #expect(entry["request"]?["url"] == "https://lab.local/oauth/token")
        #expect(entry["request"]?["postData"]?["text"] == "grant_type=refresh_token&refresh_token=••••cdef")
        #expect(entry["response"]?["status"] == 400)
        #expect(entry["_error"] == "invalid_grant")
        #expect(entry["_chainlab"]?["exchange"] == "refresh")
        #expect(entry["time"] == 250)
    }

    @Test func revealedKeepsSecretsAndOutputIsDeterministic() {
        let revealed = HARExport.archive(events: Fixtures.retriedRequest, masking: .revealed, anchor: .lab(scenario: "fixture"))
        #expect(revealed.contains(#"{"name":"Authorization","value":"Bearer abcdefa1f3"}"#))
        #expect(!revealed.contains("••••"))
        #expect(HARExport.archive(events: Fixtures.retriedRequest, masking: .masked, anchor: .lab(scenario: "fixture")) == text)
    }
}
