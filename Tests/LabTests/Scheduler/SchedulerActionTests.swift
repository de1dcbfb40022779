import ChainKit
import Foundation
import Lab
import Testing
import Timeline

@Suite("Scheduler actions")
struct SchedulerActionTests {
    @Test("stepping basics visits every stop in onion order and ends in a 200")
    func stepThroughBasics() async {
        let session = steppingSession()
        session.launch()
        await session.waitUntilSettled()
        var places: [StopPlace] = []
        while let place = session.place(of: 1) {
            places.append(place)
            await session.perform(.step(request: 1))
        }
        #expect(places == [
            .hop(0, .pre), .hop(1, .pre), .hop(2, .pre), .hop(3, .pre), .hop(4, .pre), .hop(5, .pre),
            .hop(5, .post), .hop(4, .post), .hop(6, .pre), .hop(2, .post), .hop(1, .post), .hop(0, .post),
        ])
        #expect(session.summary(of: 1) == RequestSummary(id: 1, operation: "HeroQuery", outcome: .success, attempts: 1, results: ["server"], operationType: "query"))
        #expect(session.events(.receive).map(\.status) == [200])
        #expect(session.events(.paused).count == 12)
        #expect(session.events(.resumed).count == 12)
    }

    @Test("a breakpoint holds a running request at that stop, and only there")
    func breakpoint() async {
        let session = LabSession(scenario: Catalog.scenario(named: "basics")!)
        session.setBreakpoint(.init(hop: BasicsHop.transport, position: .pre), enabled: true)
        session.launch()
        await session.waitUntilSettled()
        #expect(session.place(of: 1) == .hop(BasicsHop.transport, .pre))
        let paused = session.events(.paused)
        #expect(paused.map(\.name) == ["transport"])
        #expect(paused.map(\.detail) == ["breakpoint · pre-flight"])
        await session.perform(.resume(request: 1))
        #expect(session.summary(of: 1)?.outcome == .success)
    }

    @Test("a header edited at an HTTP interceptor's pre-flight stop arrives at the transport")
    func editRequestHeaders() async throws {
        let session = steppingSession()
        session.launch()
        await session.waitUntilSettled()
        await session.step(1, until: .hop(BasicsHop.responseCode, .pre))
        var headers = try #require(session.control.parked.first?.currentHeaders)
        try headers.append("X-Debug", "1")
        await session.perform(.editRequestHeaders(request: 1, headers: headers))
        let edited = try #require(session.events(.edited).first)
        #expect(edited.diff.added == ["X-Debug"])
        #expect(edited.name == "ResponseCodeInterceptor")
        await session.perform(.resume(request: 1))
        let sent = try #require(session.events(.send).first)
        #expect(sent.headers?["X-Debug"] == "1")
        #expect(session.summary(of: 1)?.outcome == .success)
    }

    @Test("a 401 forced at the transport makes Auth refresh once and retry: success in 2 attempts")
    func force401AtTransport() async {
        let session = steppingSession()
        session.launch()
        await session.waitUntilSettled()
        await session.step(1, until: .hop(BasicsHop.transport, .pre))
        await session.perform(.force401(request: 1))
        await session.perform(.resume(request: 1))
        #expect(session.summary(of: 1) == RequestSummary(id: 1, operation: "HeroQuery", outcome: .success, attempts: 2, results: ["server"], operationType: "query"))
        #expect(session.labCounters?["tokenRefreshes"] == 1)
        #expect(session.events(.send).map(\.name) == ["TokenManager", "transport"])
        #expect(session.events(.receive).map(\.status) == [401, 200])
        #expect(session.events(.refresh).map(\.status) == [200])
        #expect(session.events(.injected).map(\.detail) == ["force 401 · pre-flight"])
    }

    @Test("a 401 forced at a GraphQL post-flight stop reaches the hop above as ResponseCodeError")
    func force401AtGraphQLPost() async {
        let session = steppingSession()
        session.launch()
        await session.waitUntilSettled()
        await session.step(1, until: .hop(BasicsHop.apq, .post))
        await session.perform(.force401(request: 1))
        await session.perform(.resume(request: 1))
        #expect(session.summary(of: 1)?.attempts == 2)
        #expect(session.summary(of: 1)?.outcome == .success)
        #expect(session.labCounters?["tokenRefreshes"] == 1)
    }

    @Test("a 401 forced at an HTTP post-flight stop replaces the response")
    func force401AtHTTPPost() async {
        let session = steppingSession()
        session.launch()
        await session.waitUntilSettled()
        await session.step(1, until: .hop(BasicsHop.responseCode, .post))
        await session.perform(.force401(request: 1))
        await session.perform(.resume(request: 1))
        #expect(session.summary(of: 1)?.attempts == 2)
        #expect(session.labCounters?["graphqlRequests"] == 2)
    }

    @Test("a retry forced at a GraphQL pre-flight stop starts attempt 2 from the top")
    func forceRetryAtGraphQL() async {
        let session = steppingSession()
        session.launch()
        await session.waitUntilSettled()
        await session.step(1, until: .hop(BasicsHop.apq, .pre))
        await session.perform(.forceRetry(request: 1))
        // The retry travels up through the post stops of the hops above, like any error.
        #expect(session.place(of: 1) == .hop(BasicsHop.auth, .post))
        await session.perform(.step(request: 1))
        #expect(session.place(of: 1) == .hop(BasicsHop.maxRetry, .post))
        await session.perform(.step(request: 1))
        #expect(session.place(of: 1) == .hop(BasicsHop.maxRetry, .pre))
        #expect(session.control.parked.first?.attempt == 2)
        #expect(session.control.modes == [1: .step])
        await session.perform(.resume(request: 1))
        #expect(session.control.modes == [1: .run])
        #expect(session.summary(of: 1)?.attempts == 2)
        #expect(session.events(.retry).map(\.name) == ["AutomaticPersistedQueryInterceptor", "AuthInterceptor", "MaxRetryInterceptor"])
        // The hop that threw says why; the hops above pass the retry on.
        #expect(session.events(.retry).map(\.detail) == ["forced retry from pre-flight", nil, nil])
    }

    @Test("a retry forced at the top hop's pre-flight stop is reported there and starts attempt 2")
    func forceRetryAtTopHop() async {
        let session = steppingSession()
        session.launch()
        await session.waitUntilSettled()
        await session.step(1, until: .hop(BasicsHop.maxRetry, .pre))
        await session.perform(.forceRetry(request: 1))
        #expect(session.place(of: 1) == .hop(BasicsHop.maxRetry, .pre))
        #expect(session.control.parked.first?.attempt == 2)
        let retries = session.events(.retry)
        #expect(retries.map(\.name) == ["MaxRetryInterceptor"])
        #expect(retries.map(\.detail) == ["forced retry from pre-flight"])
        #expect(retries.map(\.attempt) == [1])
        await session.perform(.resume(request: 1))
        #expect(session.summary(of: 1)?.attempts == 2)
    }

    @Test("a retry forced at an HTTP hop is refused with the upstream reason and the request stays held")
    func forceRetryAtHTTPRefused() async {
        let session = steppingSession()
        session.launch()
        await session.waitUntilSettled()
        await session.step(1, until: .hop(BasicsHop.responseCode, .pre))
        await session.perform(.forceRetry(request: 1))
        #expect(session.place(of: 1) == .hop(BasicsHop.responseCode, .pre))
        #expect(session.control.refusals.map(\.reason) == [
            "HTTP interceptors see only the HTTP request, so they cannot throw RequestChain.Retry (Apollo iOS 2.x); force the retry at a GraphQL hop",
        ])
    }

    @Test("fail with a timeout at the transport fails the request with the injected fault")
    func failTimeout() async {
        let session = steppingSession()
        session.launch()
        await session.waitUntilSettled()
        await session.step(1, until: .hop(BasicsHop.transport, .pre))
        await session.perform(.fail(request: 1, fault: .timeout))
        await session.perform(.resume(request: 1))
        #expect(session.summary(of: 1) == RequestSummary(
            id: 1, operation: "HeroQuery", outcome: .failure, attempts: 1, error: "LabFault: the request timed out (injected)", operationType: "query"))
        #expect(session.events(.send).isEmpty)
    }

    @Test("a fault injected at the transport, stepping, stops next at the HTTP interceptor's post-flight stop showing it, then fails the request with it")
    func faultStopsAtHTTPPost() async throws {
        let session = steppingSession()
        session.launch()
        await session.waitUntilSettled()
        await session.step(1, until: .hop(BasicsHop.transport, .pre))
        await session.perform(.fail(request: 1, fault: .timeout))
        #expect(session.place(of: 1) == .hop(BasicsHop.responseCode, .post))
        let stop = try #require(session.control.parked.first)
        #expect(stop.snapshot.error == "LabFault: the request timed out (injected)")
        #expect(stop.snapshot.status == nil)
        #expect(await session.step(1, until: .hop(99, .post)) == [
            .hop(BasicsHop.responseCode, .post), .hop(BasicsHop.apq, .post), .hop(BasicsHop.auth, .post), .hop(BasicsHop.maxRetry, .post),
        ])
        #expect(session.summary(of: 1) == RequestSummary(
            id: 1, operation: "HeroQuery", outcome: .failure, attempts: 1, error: "LabFault: the request timed out (injected)", operationType: "query"))
        #expect(session.events(.error).map(\.name) == [
            "transport", "ResponseCodeInterceptor", "AutomaticPersistedQueryInterceptor", "AuthInterceptor", "MaxRetryInterceptor",
        ])
    }

    @Test("a response status edited at the transport's post stop reaches the interceptors")
    func editResponseStatus() async {
        let session = steppingSession()
        session.launch()
        await session.waitUntilSettled()
        await session.step(1, until: .hop(BasicsHop.transport, .post))
        await session.perform(.editResponse(request: 1, status: 500, headers: nil))
        await session.perform(.resume(request: 1))
        #expect(session.summary(of: 1)?.outcome == .failure)
        #expect(session.summary(of: 1)?.error?.hasPrefix("ResponseCodeError: Received a 500 error.") == true)
        #expect(session.events(.edited).map(\.status) == [500])
    }

    @Test("delay advances the lab clock while the request is held")
    func delay() async {
        let session = steppingSession()
        session.launch()
        await session.waitUntilSettled()
        await session.perform(.delay(request: 1, seconds: 2.5))
        #expect(session.clock.now.offset == .milliseconds(2500))
        #expect(session.events(.injected).map(\.detail) == ["delay 2.5s · pre-flight"])
        #expect(session.place(of: 1) == .hop(0, .pre))
    }

    @Test("a retry forced at a middleware's post stop calls next again")
    func middlewareRetry() async throws {
        let scenario = Scenario(
            name: "rest", summary: "", teaches: "",
            chain: .middleware([Scenario.Layer("AuthenticationMiddleware")]),
            operations: [Scenario.Operation(name: "getHero") { $0.method = "GET"; $0.path = "/heroes/2001" }])
        let session = steppingSession(scenario: scenario)
        session.launch()
        await session.waitUntilSettled()
        await session.step(1, until: .hop(0, .post))
        await session.perform(.forceRetry(request: 1))
        await session.perform(.resume(request: 1))
        #expect(session.summary(of: 1)?.outcome == .success)
        #expect(session.events(.send).count == 2)
        #expect(session.labCounters?["restRequests"] == 2)
    }

    /// A stepping session over two middlewares (hops 0 and 1, the transport 2), its request
    /// launched and held at `place`.
    private func twoMiddlewareSession(heldAt place: StopPlace) async -> LabSession {
        let session = steppingSession(scenario: Scenario(
            name: "rest", summary: "", teaches: "",
            chain: .middleware([Scenario.Layer("LoggingMiddleware"), Scenario.Layer("AuthenticationMiddleware")]),
            operations: [Scenario.Operation(name: "getHero") { $0.method = "GET"; $0.path = "/heroes/2001" }]))
        session.launch()
        await session.waitUntilSettled()
        await session.step(1, until: place)
        return session
    }

    @Test("a retry forced at the upper middleware's post stop runs the middleware below it again, from its pre stop")
    func middlewareRetryOverAMiddleware() async throws {
        let session = await twoMiddlewareSession(heldAt: .hop(0, .post))
        await session.perform(.forceRetry(request: 1))
        let again = await session.step(1, until: .hop(0, .post))
        #expect(again == [.hop(1, .pre), .hop(2, .pre), .hop(2, .post), .hop(1, .post)])
        await session.perform(.resume(request: 1))
        #expect(session.summary(of: 1)?.outcome == .success)
        #expect(session.events(.retry).map(\.hop) == [0])
        #expect(session.events(.preflight).map(\.hop) == [0, 1, 1])
        #expect(session.events(.postflight).map(\.hop) == [1, 1, 0])
        #expect(session.events(.send).count == 2)
    }

    @Test("a fault injected at the transport goes up through each middleware's post stop as the transport's ClientError")
    func middlewareFailureThroughPostStops() async throws {
        let session = await twoMiddlewareSession(heldAt: .hop(2, .pre))
        await session.perform(.fail(request: 1, fault: .timeout))
        let passed = await session.step(1, until: .hop(0, .post))
        // The fault releases the transport's pre stop: the failure goes up to the post stop below.
        #expect(passed == [.hop(1, .post)])
        await session.perform(.resume(request: 1))
        #expect(session.summary(of: 1)?.outcome == .failure)
        #expect(session.summary(of: 1)?.error?.hasPrefix(
            "ClientError: Client error - cause description: 'Transport threw an error.', underlying error: the request timed out (injected), operationID: getHero,") == true)
        #expect(session.events(.send).isEmpty)
        #expect(session.events(.error).map(\.hop) == [2, 1, 0])
    }

    @Test("a header edited at a middleware's pre stop is what that middleware receives and hands on, and arrives at the transport")
    func middlewareEditedRequest() async throws {
        let session = await twoMiddlewareSession(heldAt: .hop(1, .pre))
        var headers = try #require(session.control.parked.first?.currentHeaders)
        try headers.append("X-Debug", "1")
        await session.perform(.editRequestHeaders(request: 1, headers: headers))
        await session.perform(.resume(request: 1))
        #expect(session.summary(of: 1)?.outcome == .success)
        let edited = try #require(session.events(.edited).first)
        #expect(edited.hop == 1)
        #expect(edited.diff.added == ["X-Debug"])
        // AuthenticationMiddleware's own change is told against the edited request: it adds
        // Authorization and nothing else.
        let preflights = session.events(.preflight)
        #expect(preflights.map(\.hop) == [0, 1])
        #expect(preflights.last?.diff.added == ["Authorization"])
        #expect(preflights.last?.headers?["X-Debug"] == "1")
        #expect(session.events(.send).first?.headers?["X-Debug"] == "1")
    }

    @Test("a 401 forced at the middleware transport's pre stop is answered without sending: AuthenticationMiddleware refreshes and sends once")
    func middlewareTransportForced401() async throws {
        let session = await twoMiddlewareSession(heldAt: .hop(2, .pre))
        await session.perform(.force401(request: 1))
        await session.perform(.resume(request: 1))
        #expect(session.summary(of: 1)?.outcome == .success)
        let received = session.events(.receive)
        #expect(received.map(\.status) == [401, 200])
        #expect(received.first?.detail == "401 forced, not sent")
        // The refresh grant, then the one request the transport sent.
        #expect(session.events(.send).map(\.name) == ["TokenManager", "transport"])
        #expect(session.labCounters?["restRequests"] == 1)
    }

    @Test("a status edited at the middleware transport's post stop is what the middlewares above receive and hand up")
    func middlewareTransportEditedStatus() async throws {
        let session = await twoMiddlewareSession(heldAt: .hop(2, .post))
        await session.perform(.editResponse(request: 1, status: 503, headers: nil))
        await session.perform(.resume(request: 1))
        #expect(session.events(.receive).map(\.status) == [200])
        #expect(session.events(.edited).map(\.status) == [503])
        #expect(session.events(.postflight).map(\.hop) == [1, 0])
        #expect(session.events(.postflight).map(\.status) == [503, 503])
    }
}

