import ChainKit
import Foundation
import Testing
import Timeline

@Suite struct HARExportTests {
    let har: JSONValue
    let text: String

    init() throws {
        text = HARExport.archive(events: Fixtures.retriedRequest, masking: .masked)
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
        #expect(entries.map { $0["_request"] } == [1, 1, 2])
        #expect(entries.map { $0["_attempt"] } == [1, 2, 1])
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

    @Test func revealedKeepsSecretsAndOutputIsDeterministic() {
        let revealed = HARExport.archive(events: Fixtures.retriedRequest, masking: .revealed)
        #expect(revealed.contains(#"{"name":"Authorization","value":"Bearer abcdefa1f3"}"#))
        #expect(!revealed.contains("••••"))
        #expect(HARExport.archive(events: Fixtures.retriedRequest, masking: .masked) == text)
    }
}
