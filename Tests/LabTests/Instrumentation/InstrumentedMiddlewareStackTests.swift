import ChainKit
import Foundation
@testable import Instrumentation
@testable import Lab
@testable import Scheduling
import Testing
import Timeline

/// The instrumented middleware stack's structure: it runs the caller's middlewares itself
/// (no wrapper per layer), and its transport shows a body held in memory without reading it.
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

    /// Adds `X-Answered: yes` to the response that comes back from below.
    struct MarkAnswer: ClientMiddleware {
        func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String, next: MiddlewareNext) async throws -> (HTTPResponse, HTTPBody?) {
            var (response, body) = try await next(request, body, baseURL)
            try response.headerFields.set("X-Answered", "yes")
            return (response, body)
        }
    }

    /// Answers 204 with `X-Cached: yes` without calling `next`.
    struct AnswerItself: ClientMiddleware {
        func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String, next: MiddlewareNext) async throws -> (HTTPResponse, HTTPBody?) {
            (HTTPResponse(status: 204, headerFields: try HTTPFields(["X-Cached": "yes"])), nil)
        }
    }

    /// Runs one request through an instrumented stack recording into a fresh store.
    static func run(
        _ middlewares: [any ClientMiddleware], transport: any ClientTransport, request: HTTPRequest = HTTPRequest(method: .get, path: "/heroes/2001")
    ) async throws -> (events: [TimelineEvent], response: HTTPResponse, body: HTTPBody?) {
        let store = TimelineStore()
        let scheduler = Scheduler(environment: Scheduler.Environment(record: { _ in }, now: { 0 }, launch: { _, _ in }, advanceClock: { _ in }, expireTokens: {}))
        let context = OperationContext(request: 1, scheduler: scheduler, safetyCap: 10, store: store, clock: EventClock { 0 })
        let instrumented = InstrumentedMiddlewareStack(middlewares: middlewares, transport: transport, context: context)
        let (response, body) = try await instrumented.send(request, body: nil, baseURL: baseURL, operationID: "getHero")
        return (store.events(), response, body)
    }

    @Test("the stack runs the caller's own middlewares, each hop named by its middleware, with a pre and post event per call of next")
    func runsTheMiddlewaresThemselves() async throws {
        let scheduler = Scheduler(environment: Scheduler.Environment(record: { _ in }, now: { 0 }, launch: { _, _ in }, advanceClock: { _ in }, expireTokens: {}))
        let context = OperationContext(request: 1, scheduler: scheduler, safetyCap: 10, record: { _ in }, clock: EventClock { 0 })
        let middlewares: [any ClientMiddleware] = [Pass(), SendTwice(), Pass()]
        let instrumented = InstrumentedMiddlewareStack(middlewares: middlewares, transport: ClosureTransport.status(200), context: context)
        #expect(instrumented.hops.map(\.name) == ["Pass", "SendTwice", "Pass", "transport"])
        // Not wrapped: the layers are the middlewares handed in, in order.
        #expect(instrumented.stack.middlewares.map { String(describing: type(of: $0)) } == ["Pass", "SendTwice", "Pass"])
        let result = try await Self.run(middlewares, transport: ClosureTransport.status(200))
        #expect(result.response.status == 200)
        // SendTwice calls next twice: the hops below it run twice, and it records two
        // pre-flights (one per call of next) before its one post-flight.
        #expect(result.events.map { "\($0.hop) \($0.phase)" } == [
            "0 preflight", "1 preflight", "2 preflight", "3 send", "3 receive", "2 postflight",
            "1 preflight", "2 preflight", "3 send", "3 receive", "2 postflight", "1 postflight", "0 postflight",
        ])
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

    @Test("a post-flight event's diff is what the middleware changed in the answer from below, and nothing when it answered itself")
    func postflightDiffs() async throws {
        let marked = try await Self.run([Pass(), MarkAnswer(), Pass()], transport: ClosureTransport.status(200, body: "ok"))
        let postflights = marked.events.filter { $0.phase == .postflight }
        #expect(postflights.map { "\($0.hop) \($0.headers?["X-Answered"] ?? "-")" } == ["2 -", "1 yes", "0 yes"])
        #expect(postflights.map(\.diff) == [.none, HeaderDiff(added: ["X-Answered"]), .none])
        // Answering without `next`, nothing came up from below to differ from.
        let answered = try await Self.run([Pass(), AnswerItself()], transport: ClosureTransport.status(200, body: "ok"))
        #expect(answered.events.map { "\($0.hop) \($0.phase) \($0.status.map(String.init) ?? "-")" } == [
            "0 preflight -", "1 postflight 204", "0 postflight 204",
        ])
        #expect(answered.events.filter { $0.phase == .postflight }.map(\.diff) == [.none, .none])
        #expect(answered.response.status == 204)
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
