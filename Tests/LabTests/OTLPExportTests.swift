import ChainKit
import Foundation
import Lab
import Testing
import Timeline
import Exports

/// An OTLP/JSON document read back: spans with their attributes as plain values (`intValue`
/// strings as numbers, arrays as arrays), so tests state what a backend would show.
struct OTLPDocument {
    struct Event {
        var name: String
        var time: String
        var attributes: [String: JSONValue]
    }

    struct Link {
        var traceID: String
        var spanID: String
        var attributes: [String: JSONValue]
    }

    struct Span {
        var traceID: String
        var spanID: String
        var parent: String?
        var name: String
        var kind: Int
        var start: String
        var end: String
        var attributes: [String: JSONValue]
        var events: [Event]
        var links: [Link]
        var status: JSONValue
    }

    let root: JSONValue
    let spans: [Span]

    init(_ text: String) throws {
        root = try JSONValue(parsing: text)
        let raw = try #require(root["resourceSpans"]?[0]?["scopeSpans"]?[0]?["spans"]?.arrayValue)
        spans = try raw.map { span in
            Span(
                traceID: try #require(span["traceId"]?.stringValue), spanID: try #require(span["spanId"]?.stringValue),
                parent: span["parentSpanId"]?.stringValue, name: try #require(span["name"]?.stringValue),
                kind: Int(try #require(span["kind"]?.numberValue)),
                start: try #require(span["startTimeUnixNano"]?.stringValue), end: try #require(span["endTimeUnixNano"]?.stringValue),
                attributes: Self.attributes(span["attributes"]),
                events: (span["events"]?.arrayValue ?? []).map {
                    Event(name: $0["name"]?.stringValue ?? "?", time: $0["timeUnixNano"]?.stringValue ?? "?", attributes: Self.attributes($0["attributes"]))
                },
                links: (span["links"]?.arrayValue ?? []).map {
                    Link(traceID: $0["traceId"]?.stringValue ?? "?", spanID: $0["spanId"]?.stringValue ?? "?", attributes: Self.attributes($0["attributes"]))
                },
                status: span["status"] ?? .null)
        }
    }

    static func attributes(_ list: JSONValue?) -> [String: JSONValue] {
        var attributes: [String: JSONValue] = [:]
        for item in list?.arrayValue ?? [] {
            if let key = item["key"]?.stringValue, let value = item["value"] { attributes[key] = plain(value) }
        }
        return attributes
    }

    static func plain(_ value: JSONValue) -> JSONValue {
        if let text = value["stringValue"] { return text }
        if let number = value["intValue"]?.stringValue, let integer = Int(number) { return .number(Double(integer)) }
        if let flag = value["boolValue"] { return flag }
        if let values = value["arrayValue"]?["values"]?.arrayValue { return .array(values.map(plain)) }
        return .null
    }

    func span(_ id: String?) -> Span? { spans.first { $0.spanID == id } }

    /// Each span as `name` indented two spaces per level under its parent, in document order.
    var tree: [String] {
        spans.map { span in
            var depth = 0
            var parent = span.parent
            while let id = parent {
                depth += 1
                parent = self.span(id)?.parent
            }
            return String(repeating: "  ", count: depth) + span.name
        }
    }

    func named(_ name: String) -> [Span] { spans.filter { $0.name == name } }
}

@Suite("OTLP traces")
struct OTLPExportTests {
    static func run(_ name: String) async throws -> LabSession.RunResult {
        await LabSession(scenario: try #require(Catalog.scenario(named: name))).runHeadless()
    }

    static func document(
        _ name: String, masking: SecretMasking = .masked, serviceName: String = "chainlab"
    ) async throws -> (text: String, document: OTLPDocument) {
        let result = try await run(name)
        let text = OTLPExport.document(
            requests: result.requests, events: result.events,
            options: OTLPExport.Options(serviceName: serviceName, anchor: .lab(scenario: name), masking: masking))
        return (text, try OTLPDocument(text))
    }

    @Test("basics: one trace, the operation over its attempt over one span per hop; the transport a CLIENT span")
    func basicsTree() async throws {
        let (_, document) = try await Self.document("basics")
        #expect(document.tree == [
            "HeroQuery",
            "  attempt 1",
            "    MaxRetryInterceptor",
            "    AuthInterceptor",
            "    AutomaticPersistedQueryInterceptor",
            "    cache",
            "    ResponseCodeInterceptor",
            "    POST /graphql",
            "    JSONResponseParsingInterceptor",
        ])
        #expect(Set(document.spans.map(\.traceID)).count == 1)
        #expect(Set(document.spans.map(\.spanID)).count == 9)
        #expect(document.spans.allSatisfy { $0.traceID.count == 32 && $0.spanID.count == 16 })
        #expect(document.spans.map(\.kind) == [1, 1, 1, 1, 1, 1, 1, 3, 1])
        let operation = document.spans[0]
        #expect(operation.parent == nil)
        #expect(operation.attributes == [
            "graphql.operation.name": "HeroQuery", "graphql.operation.type": "query", "chainlab.request": 1,
            "chainlab.outcome": "success", "chainlab.attempts": 1, "chainlab.results": ["server"],
        ])
        #expect(operation.start == "1735689600000000000")
        #expect(operation.end == "1735689600012000000")
        #expect(operation.status == [:])
    }

    @Test("the resource and scope name the service, ChainLab's version and the SDK")
    func resource() async throws {
        let (_, document) = try await Self.document("basics", serviceName: "checkout-app")
        let resource = try #require(document.root["resourceSpans"]?[0])
        #expect(OTLPDocument.attributes(resource["resource"]?["attributes"]) == [
            "service.name": "checkout-app", "service.version": "1.0", "telemetry.sdk.name": "chainlab",
            "telemetry.sdk.language": "swift", "telemetry.sdk.version": "1.0",
        ])
        #expect(resource["scopeSpans"]?[0]?["scope"] == ["name": "chainlab", "version": "1.0"])
    }

    @Test("protobuf JSON mapping: enums as integers, int64 as strings, ids as lowercase hex")
    func encoding() async throws {
        let (text, _) = try await Self.document("basics")
        #expect(text.contains(#""kind":3,"#))
        #expect(text.contains(#"{"key":"http.response.status_code","value":{"intValue":"200"}}"#))
        #expect(text.contains(#"{"key":"chainlab.results","value":{"arrayValue":{"values":[{"stringValue":"server"}]}}}"#))
        #expect(text.range(of: #""traceId":"[0-9a-f]{32}""#, options: .regularExpression) != nil)
        #expect(text.hasSuffix("]}]}]}\n"))
    }

    @Test("basics: the transport span carries the HTTP client conventions' attributes")
    func transportAttributes() async throws {
        let (_, document) = try await Self.document("basics")
        let transport = try #require(document.named("POST /graphql").first)
        #expect(transport.attributes == [
            "http.request.method": "POST", "url.full": "https://lab.chainlab.local/graphql",
            "server.address": "lab.chainlab.local", "server.port": 443, "url.template": "/graphql",
            "http.response.status_code": 200,
        ])
        #expect(transport.start == "1735689600000000000")
        #expect(transport.end == "1735689600012000000")
        #expect(transport.events.map(\.name) == ["send", "receive"])
        #expect(transport.status == [:])
    }

    @Test("basics: the Auth hop's pre-flight is a span event with the header it added, masked")
    func headerDiffEvent() async throws {
        let (_, masked) = try await Self.document("basics")
        let auth = try #require(masked.named("AuthInterceptor").first)
        #expect(auth.events.map(\.name) == ["preflight", "postflight"])
        #expect(auth.events[0].attributes == [
            "chainlab.seq": 2, "chainlab.headers.added": ["Authorization"],
            "http.request.header.authorization": ["Bearer ••••-1-1"],
        ])
        #expect(auth.attributes == ["chainlab.hop.index": 1, "chainlab.hop.kind": "graphql"])
        let (revealedText, revealed) = try await Self.document("basics", masking: .revealed)
        #expect(revealed.named("AuthInterceptor").first?.events[0].attributes["http.request.header.authorization"] == ["Bearer at-1-1"])
        #expect(revealedText.contains("at-1-1"))
    }

    @Test("token-expiry: attempt 1's 401 is an ERROR CLIENT span; its refresh a CLIENT span it links; attempt 2 is a resend")
    func tokenExpiry() async throws {
        let (text, document) = try await Self.document("token-expiry")
        #expect(document.tree.filter { !$0.hasSuffix("Interceptor") && !$0.hasSuffix("cache") } == [
            "HeroQuery", "  attempt 1", "    POST /graphql", "    POST /oauth/token", "  attempt 2", "    POST /graphql",
        ])
        let sends = document.named("POST /graphql")
        #expect(sends[0].attributes["http.response.status_code"] == 401)
        #expect(sends[0].attributes["error.type"] == "401")
        #expect(sends[0].attributes["http.request.resend_count"] == nil)
        #expect(sends[0].status == ["message": "401 Unauthorized", "code": 2])
        #expect(sends[1].attributes["http.request.resend_count"] == 1)
        #expect(sends[1].attributes["error.type"] == nil)
        let refresh = try #require(document.named("POST /oauth/token").first)
        #expect(refresh.kind == 3)
        #expect(refresh.attributes == [
            "http.request.method": "POST", "url.full": "https://lab.chainlab.local/oauth/token",
            "server.address": "lab.chainlab.local", "server.port": 443, "url.template": "/oauth/token",
            "http.response.status_code": 200, "chainlab.token.grant": "refresh_token",
        ])
        #expect(refresh.start == "1735689600012000000")
        #expect(refresh.end == "1735689600024000000")
        #expect(refresh.events.map(\.name) == ["send", "refresh"])
        let attempts = document.spans.filter { $0.name.hasPrefix("attempt") }
        #expect(refresh.parent == attempts[0].spanID)
        #expect(attempts[0].links.map(\.spanID) == [refresh.spanID])
        #expect(attempts[0].links.first?.attributes == ["chainlab.refresh": "started"])
        #expect(attempts[1].links.isEmpty)
        // The server's 401 made Auth retry.
        let retry = try #require(document.named("AuthInterceptor").first?.events.first { $0.name == "retry" })
        #expect(retry.attributes["chainlab.origin"] == "server")
        // The refresh's form body and the tokens it returned never appear.
        for secret in ["at-1-1", "rt-1-1", "at-1-2", "rt-1-2"] { #expect(!text.contains(secret)) }
    }

    @Test("refresh-storm: six refresh spans, each linked from the one attempt that started it")
    func refreshStorm() async throws {
        let (_, document) = try await Self.document("refresh-storm")
        #expect(Set(document.spans.map(\.traceID)).count == 5)
        let refreshes = document.named("POST /oauth/token")
        #expect(refreshes.count == 6)
        #expect(refreshes.map { $0.attributes["http.response.status_code"] } == [200, 400, 400, 400, 400, 400])
        #expect(refreshes.map(\.status) == [[:]] + Array(repeating: ["message": "invalid_grant", "code": 2], count: 5))
        let links = document.spans.flatMap { span in span.links.map { (from: span, to: $0) } }
        #expect(links.count == 6)
        #expect(Set(links.map(\.to.spanID)) == Set(refreshes.map(\.spanID)))
        #expect(links.allSatisfy { $0.to.attributes == ["chainlab.refresh": "started"] && $0.from.name.hasPrefix("attempt") })
        #expect(document.spans.filter { $0.parent == nil }.map { $0.status["code"] } == Array(repeating: 2, count: 5))
    }

    @Test("refresh-storm-fixed: one refresh span with five links, four from attempts that waited in other traces")
    func refreshStormFixed() async throws {
        let (_, document) = try await Self.document("refresh-storm-fixed")
        let refreshes = document.named("POST /oauth/token")
        #expect(refreshes.count == 1)
        let refresh = try #require(refreshes.first)
        let linking = document.spans.filter { $0.links.contains { $0.spanID == refresh.spanID } }
        #expect(linking.count == 5)
        #expect(linking.allSatisfy { $0.name == "attempt 1" })
        #expect(Set(linking.map(\.traceID)).count == 5)
        #expect(linking.flatMap(\.links).map { $0.attributes["chainlab.refresh"] } == ["started", "waited", "waited", "waited", "waited"])
        #expect(linking.flatMap(\.links).allSatisfy { $0.traceID == refresh.traceID })
        // A waiter's attempt says when it woke.
        #expect(linking[1].events.map { $0.attributes["chainlab.detail"] } == ["woke after the shared refresh"])
        #expect(document.spans.filter { $0.parent == nil }.allSatisfy { $0.status == [:] })
    }

    @Test("openapi-middleware: one span per middleware call, the transport a CLIENT span, the retry's origin the scenario")
    func middleware() async throws {
        let (_, document) = try await Self.document("openapi-middleware")
        #expect(document.tree == [
            "getHero",
            "  attempt 1",
            "    AuthenticationMiddleware",
            "    LoggingMiddleware",
            "    RetryingMiddleware",
            "    FaultInjectionMiddleware",
            "    FaultInjectionMiddleware",
            "    GET",
        ])
        #expect(document.spans[0].attributes["chainlab.operation.id"] == "getHero")
        #expect(document.spans[0].attributes["graphql.operation.name"] == nil)
        let retrying = try #require(document.named("RetryingMiddleware").first)
        #expect(retrying.events.map(\.name) == ["preflight", "retry", "preflight", "postflight"])
        #expect(retrying.events[1].attributes == ["chainlab.detail": "called next again", "chainlab.origin": "scenario"])
        let faults = document.named("FaultInjectionMiddleware")
        #expect(faults.map { $0.events.map(\.name) } == [["postflight"], ["preflight", "postflight"]])
        #expect(faults[0].events[0].attributes["http.response.status_code"] == 503)
        let logging = try #require(document.named("LoggingMiddleware").first)
        #expect(logging.events.map(\.name) == ["log", "preflight", "log", "postflight"])
        #expect(logging.attributes["chainlab.hop.index"] == 1)
        let transport = try #require(document.named("GET").first)
        #expect(transport.kind == 3)
        #expect(transport.attributes["url.full"] == "https://lab.chainlab.local/heroes/2001")
        #expect(transport.attributes["url.template"] == nil)
        #expect(transport.attributes["http.request.resend_count"] == nil)
    }

    @Test("a forced 401 and an edit are span events whose origin is the person, and so is the retry they caused")
    func personOrigin() async throws {
        let session = steppingSession("basics")
        await session.perform(.launch(operation: 0))
        await session.step(1, until: .hop(BasicsHop.responseCode, .pre))
        var headers = try #require(session.control.parked.first?.currentHeaders)
        try headers.set("X-Debug", "1")
        await session.perform(.editRequestHeaders(request: 1, headers: headers))
        await session.step(1, until: .hop(BasicsHop.transport, .pre))
        await session.perform(.force401(request: 1))
        await session.perform(.resume(request: 1))
        let result = session.result()
        await session.shutDown()
        let document = try OTLPDocument(OTLPExport.document(
            requests: result.requests, events: result.events, options: OTLPExport.Options(anchor: .lab(scenario: "basics"), masking: .masked)))
        let events = document.spans.flatMap(\.events)
        let edited = try #require(events.first { $0.name == "edited" })
        #expect(edited.attributes["chainlab.origin"] == "person")
        #expect(edited.attributes["chainlab.headers.added"] == ["X-Debug"])
        #expect(edited.attributes["http.request.header.x-debug"] == ["1"])
        let forced = try #require(events.first { $0.name == "injected" })
        #expect(forced.attributes["chainlab.origin"] == "person")
        #expect(forced.attributes["chainlab.detail"] == "force 401 · pre-flight")
        #expect(events.filter { $0.name == "retry" }.map { $0.attributes["chainlab.origin"] } == ["person", "person"])
        #expect(document.tree.filter { $0.hasPrefix("  attempt") }.count == 2)
    }

    @Test("lab runs give the same bytes every time; another scenario name or a wall-clock anchor other ids")
    func determinism() async throws {
        let first = try await Self.document("refresh-storm-fixed").text
        let second = try await Self.document("refresh-storm-fixed").text
        #expect(first == second)
        let result = try await Self.run("basics")
        let ids = { (anchor: OTLPExport.Anchor) in
            try OTLPDocument(OTLPExport.document(
                requests: result.requests, events: result.events, options: OTLPExport.Options(anchor: anchor, masking: .masked))
            ).spans.map(\.traceID)
        }
        #expect(try ids(.lab(scenario: "basics")) == ids(.lab(scenario: "basics")))
        #expect(try ids(.lab(scenario: "basics")) != ids(.lab(scenario: "other")))
        let wall = OTLPExport.Anchor.wallClock(start: Date(timeIntervalSince1970: 1_800_000_000.5))
        #expect(try ids(wall) != ids(.wallClock(start: wall.epoch)))
        let spans = try OTLPDocument(OTLPExport.document(
            requests: result.requests, events: result.events, options: OTLPExport.Options(anchor: wall, masking: .masked))).spans
        #expect(spans[0].start == "1800000000500000000")
        #expect(spans[0].end == "1800000000512000000")
    }

    @Test("HAR entries carry the ids of their OTLP spans; a refresh is an entry of its own")
    func harMatchesSpans() async throws {
        let result = try await Self.run("token-expiry")
        let anchor = OTLPExport.Anchor.lab(scenario: "token-expiry")
        let document = try OTLPDocument(OTLPExport.document(
            requests: result.requests, events: result.events, options: OTLPExport.Options(anchor: anchor, masking: .masked)))
        let har = try JSONValue(parsing: HARExport.archive(events: result.events, masking: .masked, anchor: anchor))
        let entries = try #require(har["log"]?["entries"]?.arrayValue)
        #expect(entries.map { $0["request"]?["url"] } == [
            "https://lab.chainlab.local/graphql", "https://lab.chainlab.local/oauth/token", "https://lab.chainlab.local/graphql",
        ])
        #expect(entries.map { $0["_chainlab"]?["exchange"] } == ["transport", "refresh", "transport"])
        #expect(entries.map { $0["_chainlab"]?["attempt"] } == [1, 1, 2])
        let clientSpans = document.spans.filter { $0.kind == 3 }
        #expect(entries.map { $0["_chainlab"]?["spanId"]?.stringValue } == clientSpans.map(\.spanID))
        #expect(entries.allSatisfy { $0["_chainlab"]?["traceId"]?.stringValue == clientSpans[0].traceID })
        let refresh = entries[1]
        #expect(refresh["request"]?["method"] == "POST")
        #expect(refresh["request"]?["postData"]?["text"] == "grant_type=refresh_token&refresh_token=••••-1-1")
        #expect(refresh["response"]?["status"] == 200)
        #expect(refresh["response"]?["content"]?["text"]?.stringValue?.contains(#""access_token":"••••-1-2""#) == true)
        #expect(refresh["startedDateTime"] == "2025-01-01T00:00:00.012Z")
        #expect(refresh["time"] == 12)
        #expect(refresh["_error"] == .null)
    }

    @Test("url.full never carries credentials; secret query fields are masked; the port is the URL's")
    func urlCredentials() throws {
        let send = HopSnapshot(method: "GET", url: "http://ops:hunter2@api.example:8080/heroes?access_token=abcdef1234&page=2")
        let events = [
            TimelineEvent(time: 0, request: 1, attempt: 1, hop: 0, name: "transport", kind: .transport, phase: .send, snapshot: send),
            TimelineEvent(time: 0.5, request: 1, attempt: 1, hop: 0, name: "transport", kind: .transport, phase: .error, snapshot: HopSnapshot(error: "timed out")),
        ]
        let request = RequestSummary(id: 1, operation: "getHeroes", outcome: .failure, attempts: 1, error: "timed out")
        for masking in [SecretMasking.masked, .revealed] {
            let document = try OTLPDocument(OTLPExport.document(
                requests: [request], events: events, options: OTLPExport.Options(anchor: .lab(scenario: "urls"), masking: masking)))
            let client = try #require(document.named("GET").first)
            let query = masking == .masked ? "access_token=••••1234&page=2" : "access_token=abcdef1234&page=2"
            #expect(client.attributes["url.full"] == .string("http://REDACTED:REDACTED@api.example:8080/heroes?" + query))
            #expect(client.attributes["server.address"] == "api.example")
            #expect(client.attributes["server.port"] == 8080)
            #expect(client.attributes["error.type"] == "_OTHER")
            #expect(client.status == ["message": "timed out", "code": 2])
        }
    }
}
