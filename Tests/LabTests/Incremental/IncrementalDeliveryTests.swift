import Backend
import ChainKit
import Foundation
import Lab
import Testing
import Timeline
import Exports

@Suite("The backend's multipart answers")
struct MultipartBackendTests {
    func send(_ operation: ChainOperation, accept: String?) -> BackendResponse {
        let lab = BackendHarness()
        var headers = [("Content-Type", "application/json"), ("Authorization", "Bearer \(lab.backend.issueTokens().accessToken)")]
        if let accept { headers.append(("Accept", accept)) }
        let body: JSONValue = ["operationName": .string(operation.name), "query": .string(operation.document)]
        return lab.send("POST", "/graphql", headers: headers, body: body.jsonString)
    }

    @Test func aDeferQueryIsAnsweredInTwoPartsThe2ndEightyMillisecondsLater() {
        let response = send(LabOperations.heroDeferQuery, accept: ChainRequest.deferAccept)
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "multipart/mixed;boundary=\"graphql\";deferSpec=20220824")
        #expect(response.pieces.map(\.delay) == [0, 0.08, 0])
        #expect(response.pieces.map { String(decoding: $0.bytes, as: UTF8.self) } == [
            "\r\n--graphql\r\ncontent-type: application/json\r\n\r\n{\"data\":{\"hero\":{\"id\":\"2001\",\"name\":\"R2-D2\"}},\"hasNext\":true}\r\n--graphql",
            "\r\ncontent-type: application/json\r\n\r\n{\"hasNext\":false,\"incremental\":[{\"data\":{\"appearsIn\":[\"NEWHOPE\",\"EMPIRE\",\"JEDI\"]},\"label\":\"films\",\"path\":[\"hero\"]}]}\r\n--graphql",
            "--\r\n",
        ])
        #expect(response.body == response.pieces.reduce(into: Data()) { $0.append($1.bytes) })
    }

    @Test func aClientThatDoesNotAcceptDeferGetsTheWholeResultAtOnce() {
        let response = send(LabOperations.heroDeferQuery, accept: "application/json")
        #expect(response.pieces.isEmpty)
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"data":{"hero":{"appearsIn":["NEWHOPE","EMPIRE","JEDI"],"id":"2001","name":"R2-D2"}}}"#)
    }

    @Test func aSubscriptionSendsThreeEventsAHeartbeatAndTheEnd() {
        let response = send(LabOperations.heroNameChanged, accept: ChainRequest.subscriptionAccept)
        #expect(response.headers["Content-Type"] == "multipart/mixed;boundary=\"graphql\";subscriptionSpec=1.0")
        #expect(response.pieces.map(\.delay) == [0, 0.1, 0.1, 0.1, 0.05])
        let jsons = response.pieces.dropLast().map { String(decoding: $0.bytes, as: UTF8.self).components(separatedBy: "\r\n\r\n")[1] }
        #expect(jsons == [
            "{\"payload\":{\"data\":{\"heroNameChanged\":{\"id\":\"2001\",\"name\":\"R2-D2\"}}}}\r\n--graphql",
            "{}\r\n--graphql",
            "{\"payload\":{\"data\":{\"heroNameChanged\":{\"id\":\"2001\",\"name\":\"Artoo\"}}}}\r\n--graphql",
            "{\"payload\":{\"data\":{\"heroNameChanged\":{\"id\":\"2001\",\"name\":\"Artoo-Detoo\"}}}}\r\n--graphql",
        ])
    }

    @Test func aSubscriptionWithoutTheMultipartAcceptIsRefused406() {
        let response = send(LabOperations.heroNameChanged, accept: "application/json")
        #expect(response.status == 406)
        #expect(String(decoding: response.body, as: UTF8.self)
            == #"{"errors":[{"extensions":{"code":"NOT_ACCEPTABLE"},"message":"subscriptions over HTTP need Accept: multipart/mixed;subscriptionSpec=1.0"}]}"#)
    }
}

@Suite("Scenarios defer and subscription")
struct IncrementalScenarioTests {
    func session(_ name: String) throws -> LabSession {
        LabSession(scenario: try #require(Catalog.scenario(named: name)))
    }

    /// The body the backend sends for `HeroDeferQuery`, all its pieces joined.
    static var deferWire: Data {
        let lab = BackendHarness()
        let body: JSONValue = ["operationName": "HeroDeferQuery", "query": .string(LabOperations.heroDeferQuery.document)]
        return lab.send("POST", "/graphql", headers: [
            ("Content-Type", "application/json"), ("Accept", ChainRequest.deferAccept),
            ("Authorization", "Bearer \(lab.backend.issueTokens().accessToken)"),
        ], body: body.jsonString).body
    }

    func receives(_ events: [TimelineEvent], request: Int) -> [String] {
        events.filter { $0.request == request && $0.kind == .transport && $0.phase == .receive }.map { $0.detail ?? "" }
    }

    @Test("defer: two results, the fragment 80 ms after the initial payload; each post-flight once per result; a second run hits the cache")
    func deferScenario() async throws {
        let session = try session("defer")
        let first = await session.runHeadless()
        #expect(first.unfinished.isEmpty)
        #expect(first.requests == [RequestSummary(id: 1, operation: "HeroDeferQuery", outcome: .success, attempts: 1, results: ["server", "server"], operationType: "query")])
        #expect(receives(first.events, request: 1) == ["multipart head; parts follow", "part 1", "part 2"])
        let parts = first.events.filter { $0.kind == .transport && $0.phase == .receive && $0.detail?.hasPrefix("part") == true }
        #expect(parts.count == 2)
        #expect(abs(parts[1].time - parts[0].time - 0.08) < 1e-9)
        let parsed = first.events.filter { $0.kind == .parser && $0.phase == .postflight }
        #expect(parsed.count == 2)
        #expect(parsed.map { $0.body?.text.contains("appearsIn") } == [false, true])
        for hop in ["MaxRetryInterceptor", "AuthInterceptor", "AutomaticPersistedQueryInterceptor"] {
            #expect(first.events.filter { $0.name == hop && $0.phase == .postflight }.count == 2, "\(hop)")
        }

        let har = try JSONValue(parsing: HARExport.archive(events: first.events, masking: .masked, anchor: .lab(scenario: "defer")))
        let entry = try #require(har["log"]?["entries"]?[0])
        let wire = String(decoding: IncrementalScenarioTests.deferWire, as: UTF8.self)
        #expect(entry["response"]?["content"]?["text"] == .string(wire))
        #expect(entry["response"]?["content"]?["size"] == .number(Double(wire.utf8.count)))
        #expect(entry["timings"]?["wait"] == 12)
        #expect(entry["timings"]?["receive"] == 80)
        #expect(entry["time"] == 92)

        let second = await session.runHeadless()
        let rerun = try #require(second.requests.last)
        #expect(rerun.results == ["cache"])
        #expect(second.events.contains { $0.request == 2 && $0.phase == .cacheHit })
        #expect(second.backend["graphqlRequests"] == 1)
    }

    @Test("subscription: three events as three results, one heartbeat part that yields nothing, then the server closes")
    func subscriptionScenario() async throws {
        let session = try session("subscription")
        let result = await session.runHeadless()
        #expect(result.unfinished.isEmpty)
        #expect(result.requests == [RequestSummary(id: 1, operation: "HeroNameChanged", outcome: .success, attempts: 1, results: ["server", "server", "server"], operationType: "subscription")])
        #expect(receives(result.events, request: 1) == ["multipart head; parts follow", "part 1", "part 2", "part 3", "part 4"])
        let heartbeat = try #require(result.events.first { $0.detail == "part 2" })
        #expect(heartbeat.body?.text == "content-type: application/json\r\n\r\n{}")
        let names = result.events.filter { $0.kind == .parser && $0.phase == .postflight }.compactMap { $0.body?.text }
        #expect(names.count == 3)
        #expect(zip(names, ["R2-D2", "Artoo", "Artoo-Detoo"]).allSatisfy { $0.contains("\"name\":\"\($1)\"") })
    }
}
