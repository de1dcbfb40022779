import ChainKit
import Foundation
@testable import Lab
import Testing
import Timeline

/// The instrumented middleware stack's structure: one shared object per stack, wrappers that
/// are an index into it, and a transport that shows a body held in memory without reading it.
/// None of it may change what is recorded or what the caller gets.
@Suite("Instrumented middleware stack")
struct InstrumentedMiddlewareStackTests {
    static let baseURL = URL(string: "https://lab.example")!
    static let body = #"{"id":"2001","name":"R2-D2"}"#

    struct Pass: ClientMiddleware {
        func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String, next: MiddlewareNext) async throws -> (HTTPResponse, HTTPBody?) {
            try await next(request, body, baseURL)
        }
    }

    /// Hands down the request with `X-Step: 1`, then changes its own copy to `X-Step: 2` and
    /// calls `next` again, answering with the second response.
    struct SendTwice: ClientMiddleware {
        func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String, next: MiddlewareNext) async throws -> (HTTPResponse, HTTPBody?) {
            var request = request
            try request.headerFields.set("X-Step", "1")
            _ = try await next(request, body, baseURL)
            try request.headerFields.set("X-Step", "2")
            return try await next(request, body, baseURL)
        }
    }

    /// Runs one request through an instrumented stack recording into a fresh store.
    static func run(
        _ middlewares: [any ClientMiddleware], transport: any ClientTransport, request: HTTPRequest = HTTPRequest(method: .get, path: "/heroes/2001")
    ) async throws -> (events: [TimelineEvent], response: HTTPResponse, body: HTTPBody?) {
        let store = TimelineStore()
        let scheduler = Scheduler(environment: Scheduler.Environment(record: { _ in }, now: { 0 }, launch: { _, _ in }, advanceClock: { _ in }, expireTokens: {}))
        let context = OperationContext(request: 1, scheduler: scheduler, safetyCap: 10, store: store, now: { 0 })
        let instrumented = InstrumentedMiddlewareStack(middlewares: middlewares, transport: transport, context: context)
        let (response, body) = try await instrumented.stack.send(request, body: nil, baseURL: baseURL, operationID: "getHero")
        return (store.events(), response, body)
    }

    @Test("the wrappers are one shared object and an index each, named by the middleware they wrap")
    func wrappersShareOneObject() throws {
        let scheduler = Scheduler(environment: Scheduler.Environment(record: { _ in }, now: { 0 }, launch: { _, _ in }, advanceClock: { _ in }, expireTokens: {}))
        let context = OperationContext(request: 1, scheduler: scheduler, safetyCap: 10, record: { _ in }, now: { 0 })
        let instrumented = InstrumentedMiddlewareStack(
            middlewares: [Pass(), SendTwice(), Pass()], transport: ClosureTransport.status(200), context: context)
        let wrappers = try instrumented.stack.middlewares.map { try #require($0 as? InstrumentedMiddleware) }
        #expect(wrappers.map(\.index) == [0, 1, 2])
        #expect(wrappers.allSatisfy { $0.layers === wrappers[0].layers })
        #expect(wrappers.map(\.layerName) == ["Pass", "SendTwice", "Pass"])
        #expect(instrumented.hops.map(\.name) == ["Pass", "SendTwice", "Pass", "transport"])
        let transport = try #require(instrumented.stack.transport as? InstrumentedClientTransport)
        #expect(transport.layers === wrappers[0].layers)
    }

    @Test("a body held in memory and the same body streamed are recorded alike, and both reach the caller whole")
    func bodyInMemoryAndStreamedAlike() async throws {
        let head = HTTPResponse(status: 200, headerFields: try HTTPFields(["Content-Type": "application/json"]))
        let held = HTTPBody(Data(Self.body.utf8))
        let inMemory = try await Self.run([Pass()], transport: ClosureTransport { _, _, _, _ in (head, held) })
        let streamed = try await Self.run([Pass()], transport: ClosureTransport { _, _, _, _ in
            (head, HTTPBody(chunks: PullStream([Data(Self.body.prefix(10).utf8), Data(Self.body.dropFirst(10).utf8)]), length: .unknown, iterationBehavior: .single))
        })
        func shown(_ events: [TimelineEvent]) -> [String] {
            events.map { "\($0.hop) \($0.phase) \($0.status.map(String.init) ?? "-") \($0.body?.text ?? "-") \($0.body?.byteCount ?? -1)" }
        }
        #expect(shown(inMemory.events) == shown(streamed.events))
        #expect(shown(inMemory.events).filter { $0.hasPrefix("1 receive") } == ["1 receive 200 \(Self.body) \(Self.body.utf8.count)"])
        // A body that can be read again is handed up as it came; a single-pass one as its bytes.
        #expect(inMemory.body === held)
        #expect(String(decoding: try await inMemory.body?.collect(upTo: 1 << 16) ?? Data(), as: UTF8.self) == Self.body)
        #expect(String(decoding: try await streamed.body?.collect(upTo: 1 << 16) ?? Data(), as: UTF8.self) == Self.body)
    }

    @Test("what a hop recorded stays as it was when the middleware changes its request afterwards")
    func recordedRequestsKeepTheirValue() async throws {
        let result = try await Self.run([SendTwice(), Pass()], transport: ClosureTransport.status(200, body: "ok"))
        let steps = result.events.filter { $0.phase == .preflight || $0.phase == .send }.map { "\($0.hop) \($0.phase) \($0.headers?["X-Step"] ?? "-")" }
        #expect(steps == [
            "0 preflight 1", "1 preflight 1", "2 send 1",
            "0 preflight 2", "1 preflight 2", "2 send 2",
        ])
        let firstHanded = try #require(result.events.first { $0.phase == .preflight })
        #expect(firstHanded.diff == HeaderDiff(added: ["X-Step"]))
        #expect(firstHanded.url == "https://lab.example/heroes/2001")
        #expect(firstHanded.snapshot == HopSnapshot(HTTPRequest(method: .get, path: "/heroes/2001", headerFields: try HTTPFields(["X-Step": "1"])), baseURL: Self.baseURL))
    }
}
