import Foundation
import Testing
import Timeline
import Exports

@Suite struct TraceJSONTests {
    let document = TraceDocument(
        scenario: "basics",
        requests: [
            RequestSummary(id: 1, operation: "HeroQuery", outcome: .success, attempts: 1, results: ["cache", "server"]),
            RequestSummary(id: 2, operation: "HeroQuery", outcome: .failure, attempts: 2, error: "invalid_grant"),
        ],
        events: Fixtures.threeEvents,
        backend: ["token.refresh": 1, "graphql": 2])

    @Test func exactBytesMasked() {
        #expect(TraceJSON.encode(document, masking: .masked) == #"""
            {"scenario":"basics","requests":[
            {"id":1,"operation":"HeroQuery","outcome":"success","attempts":1,"error":null,"results":["cache","server"]},
            {"id":2,"operation":"HeroQuery","outcome":"failure","attempts":2,"error":"invalid_grant","results":[]}
            ],"events":[
            {"seq":1,"time":0.004,"request":1,"attempt":1,"hop":1,"name":"AuthInterceptor","kind":"graphql","phase":"preflight","method":"POST","url":"https://lab.local/graphql","headers":[["Content-Type","application/json"],["Authorization","Bearer ••••a1f3"]],"status":null,"error":null,"body":"{\"query\":\"{hero{name}}\"}","bodyBytes":24,"bodyTruncated":false,"diff":{"added":["Authorization"],"changed":[],"removed":[]},"detail":null},
            {"seq":2,"time":0.016,"request":1,"attempt":1,"hop":3,"name":"transport","kind":"transport","phase":"receive","method":null,"url":null,"headers":[["Content-Type","application/json"],["Set-Cookie","sid=••••6789; Path=/"]],"status":200,"error":null,"body":"{\"data\":{\"hero\":{\"name\":\"R2-D2\"}}}","bodyBytes":34,"bodyTruncated":false,"diff":{"added":[],"changed":[],"removed":[]},"detail":null},
            {"seq":3,"time":0.5,"request":2,"attempt":1,"hop":-1,"name":"TokenManager","kind":"auth","phase":"refresh","method":null,"url":null,"headers":null,"status":400,"error":"invalid_grant","body":null,"bodyBytes":null,"bodyTruncated":null,"diff":{"added":[],"changed":[],"removed":[]},"detail":"rotation"}
            ],"backend":{"graphql":2,"token.refresh":1},"findings":[]}

            """#)
    }

    @Test func revealedKeepsSecrets() {
        let text = TraceJSON.encode(document, masking: .revealed)
        #expect(text.contains(#"["Authorization","Bearer abcdefa1f3"]"#))
        #expect(text.contains(#""Set-Cookie","sid=0123456789; Path=/""#))
        #expect(!text.contains("••••"))
    }

    @Test("findings are written after the backend counters, one per line, and read back")
    func findingsRoundTrip() throws {
        var withFindings = document
        withFindings.findings = [Finding(
            id: "stale-token-retry", severity: .error, message: "#1 retried with the Authorization the server had refused: attempt 2 (seq 3) after the 401 at seq 2",
            events: [2, 3], requests: [1])]
        let text = TraceJSON.encode(withFindings, masking: .masked)
        #expect(text.hasSuffix(#"""
            "backend":{"graphql":2,"token.refresh":1},"findings":[
            {"id":"stale-token-retry","severity":"error","message":"#1 retried with the Authorization the server had refused: attempt 2 (seq 3) after the 401 at seq 2","events":[2,3],"requests":[1]}
            ]}

            """#))
        #expect(try TraceJSON.decode(text).findings == withFindings.findings)
        #expect(try TraceJSON.decode(#"{"scenario":"s","requests":[],"events":[],"backend":{}}"#).findings == [])
        #expect(throws: TraceJSON.DecodingError(path: "findings[0].severity", reason: "unknown severity \"fatal\"; expected info, warning or error")) {
            _ = try TraceJSON.decode(text.replacingOccurrences(of: #""severity":"error""#, with: #""severity":"fatal""#))
        }
    }

    @Test func sameInputSameBytes() {
        #expect(TraceJSON.encode(document, masking: .masked) == TraceJSON.encode(document, masking: .masked))
    }

    @Test func roundTripsRevealed() throws {
        let decoded = try TraceJSON.decode(TraceJSON.encode(document, masking: .revealed))
        #expect(decoded == document)
    }

    @Test func decodingSharesEqualSnapshots() throws {
        let decoded = try TraceJSON.decode(TraceJSON.encode(
            TraceDocument(scenario: "s", requests: [], events: Fixtures.retriedRequest), masking: .revealed))
        #expect(decoded.events == Fixtures.retriedRequest)
        #expect(decoded.events[1].snapshot === decoded.events[2].snapshot)
    }

    @Test func decodingErrorsNameThePlace() {
        #expect(throws: TraceJSON.DecodingError(path: "events[0].kind", reason:
            "unknown kind \"grpc\"; expected one of graphql, cache, http, transport, parser, middleware, auth")) {
            let text = TraceJSON.encode(document, masking: .revealed).replacingOccurrences(of: #""kind":"graphql""#, with: #""kind":"grpc""#)
            _ = try TraceJSON.decode(text)
        }
        #expect(throws: TraceJSON.DecodingError(path: "scenario", reason: "missing")) {
            _ = try TraceJSON.decode(#"{"requests":[],"events":[],"backend":{}}"#)
        }
        #expect(throws: TraceJSON.DecodingError(path: "", reason: "not valid JSON at line 1, column 2: expected a string key in object")) {
            _ = try TraceJSON.decode("{]")
        }
    }
}
