import Backend
import ChainKit
import Foundation
import Lab
import Serve
import Testing
import Synchronization
import Timeline
import UpstreamStyle

/// The middlewares of Examples/UpstreamStyle, written as swift-openapi-runtime's documentation
/// writes them, run unchanged: through `UniversalClient` against `chainlab serve`, and hop by
/// hop in the lab.
@Suite("Middlewares in swift-openapi-runtime's documented style", .timeLimit(.minutes(2)))
struct UpstreamStyleMiddlewareTests {
    static let hero = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/heroes/2001")
    static let heroJSON = #"{"id":"2001","name":"R2-D2"}"#

    /// An access token from the served lab's demo account.
    static func accessToken(_ lab: ServedLab) async throws -> String {
        let answer = try await lab.token("grant_type=password&username=demo&password=demo")
        return try #require(JSONValue(parsing: Data(answer.text.utf8))["access_token"]?.stringValue)
    }

    @Test("through UniversalClient against chainlab serve: the header is set by name, the body logged and handed on, the 200 decoded")
    func universalClient() async throws {
        let lab = try ServedLab()
        defer { lab.service.stop() }
        let token = try await Self.accessToken(lab)
        let logging = BodyLoggingMiddleware(bodyLoggingPolicy: .upTo(maxBytes: 1024))
        let client = UniversalClient(
            serverURL: lab.baseURL, transport: URLSessionTransport(),
            middlewares: [AuthenticationMiddleware(authorizationHeaderFieldValue: "Bearer \(token)"), logging, RetryingMiddleware()])

        let name = try await client.send(
            input: "2001", forOperation: "getHero",
            serializer: { id in (HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/heroes/\(id)"), nil) },
            deserializer: { response, body in
                guard response.status == .ok, response.headerFields[.contentType] == "application/json", let body else {
                    throw UnexpectedAnswer(status: response.status)
                }
                return try JSONValue(parsing: try await Data(collecting: body, upTo: 1 << 20))["name"]?.stringValue
            })

        #expect(name == "R2-D2")
        #expect(await logging.lines == [
            "Request: GET /heroes/2001 body: <none>",
            "Response: GET /heroes/2001 200 body: \(Self.heroJSON)",
        ])
        #expect(lab.backend.counters["restRequests"] == 1)
    }

    @Test("a 401 comes back as the status it is: its kind, its challenge by name; the retrying middleware does not retry it")
    func unauthorized() async throws {
        let lab = try ServedLab()
        defer { lab.service.stop() }
        let client = UniversalClient(serverURL: lab.baseURL, transport: URLSessionTransport(), middlewares: [RetryingMiddleware()])

        let (status, challenge) = try await client.send(
            input: (), forOperation: "getHero", serializer: { _ in (Self.hero, nil) },
            deserializer: { response, _ in (response.status, response.headerFields[.wwwAuthenticate]) })

        #expect(status == .unauthorized)
        #expect(status.kind == .clientError)
        #expect(challenge == #"Bearer realm="lab""#)
        #expect(lab.backend.counters["restRequests"] == 1)
    }

    /// A lab session over the middlewares, sending to the served lab.
    static func session(_ lab: ServedLab, token: String, logging: BodyLoggingMiddleware, transport: any ClientTransport = URLSessionTransport(), mode: RunMode)
        -> LabSession
    {
        LabSession(
            name: "documented middlewares",
            chain: .middleware(
                middlewares: { [AuthenticationMiddleware(authorizationHeaderFieldValue: "Bearer \(token)"), logging, RetryingMiddleware()] },
                transport: transport, baseURL: lab.baseURL,
                requests: [CustomChain.HTTPOperation(operationID: "getHero", request: Self.hero)]),
            defaultMode: mode)
    }

    /// `hop name phase` per event.
    static func outline(_ events: [TimelineEvent]) -> [String] {
        events.map { "\($0.hop) \($0.name) \($0.phase.rawValue)" }
    }

    @Test("in the lab, each middleware is a hop with its own pre-flight and post-flight; the header it set is its change")
    func hopByHop() async throws {
        let lab = try ServedLab()
        defer { lab.service.stop() }
        let token = try await Self.accessToken(lab)
        let session = Self.session(lab, token: token, logging: BodyLoggingMiddleware(), mode: .run)

        await session.perform(.launch(operation: 0))
        let result = session.result()

        #expect(result.requests.map(\.outcome) == [.success])
        #expect(Self.outline(result.events) == [
            "0 AuthenticationMiddleware preflight", "1 BodyLoggingMiddleware preflight", "2 RetryingMiddleware preflight",
            "3 transport send", "3 transport receive",
            "2 RetryingMiddleware postflight", "1 BodyLoggingMiddleware postflight", "0 AuthenticationMiddleware postflight",
        ])
        let authorized = try #require(result.events.first)
        #expect(authorized.diff.added == ["Authorization"])
        #expect(result.events.first { $0.phase == .receive }?.snapshot.status == 200)
    }

    @Test("in the lab, a 503 the retrying middleware sees makes it call next again: it hands the request down twice, and one answer goes up")
    func retryInTheLab() async throws {
        let lab = try ServedLab()
        defer { lab.service.stop() }
        let token = try await Self.accessToken(lab)
        let real = URLSessionTransport()
        let firstFails = FirstCallAnswers503(then: real)
        let logging = BodyLoggingMiddleware(bodyLoggingPolicy: .upTo(maxBytes: 1024))
        let session = Self.session(lab, token: token, logging: logging, transport: firstFails, mode: .run)

        await session.perform(.launch(operation: 0))
        let result = session.result()

        #expect(result.requests.map(\.outcome) == [.success])
        #expect(Self.outline(result.events.filter { $0.hop >= 2 }) == [
            "2 RetryingMiddleware preflight", "3 transport send", "3 transport receive",
            "2 RetryingMiddleware preflight", "3 transport send", "3 transport receive",
            "2 RetryingMiddleware postflight",
        ])
        #expect(result.events.filter { $0.phase == .receive }.map(\.snapshot.status) == [503, 200])
        #expect(await logging.lines == ["Request: GET /heroes/2001 body: <none>", "Response: GET /heroes/2001 200 body: \(Self.heroJSON)"])
        #expect(lab.backend.counters["restRequests"] == 1)
    }

    @Test("stepped in the lab, a 401 forced at the transport is what the documented middlewares see: nothing is sent")
    func forced401() async throws {
        let lab = try ServedLab()
        defer { lab.service.stop() }
        let token = try await Self.accessToken(lab)
        let logging = BodyLoggingMiddleware(bodyLoggingPolicy: .upTo(maxBytes: 1024))
        let session = Self.session(lab, token: token, logging: logging, mode: .step)

        session.launch()
        await session.waitUntilSettled()
        #expect(await session.step(1, until: .hop(3, .pre)) == [.hop(0, .pre), .hop(1, .pre), .hop(2, .pre)])
        await session.perform(.force401(request: 1))
        await session.perform(.resume(request: 1))

        #expect(session.result().requests.map(\.outcome) == [.failure])
        #expect(session.events(.send).isEmpty)
        #expect(await logging.lines.last?.hasPrefix("Response: GET /heroes/2001 401 body: ") == true)
        #expect(lab.backend.counters["restRequests"] == 0)
    }
}

/// A transport that answers its first call with 503 and sends the others through `then`.
private final class FirstCallAnswers503: ClientTransport {
    let then: any ClientTransport
    private let calls = Mutex(0)

    init(then: any ClientTransport) { self.then = then }

    func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
        let call = calls.withLock { count in
            count += 1
            return count
        }
        if call == 1 { return (HTTPResponse(status: .serviceUnavailable), nil) }
        return try await then.send(request, body: body, baseURL: baseURL, operationID: operationID)
    }
}

/// What the deserializer throws for an answer it cannot decode.
private struct UnexpectedAnswer: Error {
    let status: HTTPResponse.Status
}
