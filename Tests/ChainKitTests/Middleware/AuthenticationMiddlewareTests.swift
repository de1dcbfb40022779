import Foundation
import Testing
@testable import ChainKit

@Suite struct AuthenticationMiddlewareTests {
    /// A server that accepts only `Authorization: <accepted>` and logs every Authorization
    /// value it receives.
    private func server(accepting accepted: String, refusingWith refusal: Int = 401, log: StackTestLog) -> ClosureTransport {
        ClosureTransport { request, _, _, _ in
            let authorization = request.headerFields["Authorization"] ?? "<none>"
            log.append("transport \(authorization)")
            return authorization == accepted
                ? (HTTPResponse(status: 200), HTTPBody("welcome"))
                : (HTTPResponse(status: .init(code: refusal)), HTTPBody("who are you"))
        }
    }

    /// A refreshing middleware whose token is `token` and whose refresh logs the token it was
    /// handed and answers `renewed`.
    private func refreshing(_ token: String, renewed: String, rejectedStatuses: Set<Int> = [401], log: StackTestLog) -> AuthenticationMiddleware {
        AuthenticationMiddleware(
            token: { token },
            refresh: { rejected in
                log.append("refresh \(rejected)")
                return renewed
            },
            rejectedStatuses: rejectedStatuses
        )
    }

    private func send(_ stack: MiddlewareStack, request: HTTPRequest = StackFixture.request, body: HTTPBody? = nil) async throws -> (HTTPResponse, HTTPBody?) {
        try await stack.send(request, body: body, baseURL: StackFixture.baseURL, operationID: StackFixture.operationID)
    }

    @Test func staticValueIsSetOnEveryRequest() async throws {
        let log = StackTestLog()
        let stack = MiddlewareStack(
            middlewares: [try AuthenticationMiddleware(authorization: "Basic dXNlcjpwYXNz")],
            transport: server(accepting: "Basic dXNlcjpwYXNz", log: log)
        )

        let (first, _) = try await send(stack)
        let (second, _) = try await send(stack)

        #expect(first.status == 200)
        #expect(second.status == 200)
        #expect(log.all == ["transport Basic dXNlcjpwYXNz", "transport Basic dXNlcjpwYXNz"])
    }

    @Test func staticValueReplacesAnAuthorizationAlreadyPresent() async throws {
        let transport = ScriptedStackTransport([.status(200)])
        let stack = MiddlewareStack(middlewares: [try AuthenticationMiddleware(authorization: "Bearer fixed")], transport: transport)
        let request = HTTPRequest(
            method: .get,
            path: "/pets",
            headerFields: try HTTPFields(["authorization": "Bearer stale", "Accept": "application/json"])
        )

        _ = try await send(stack, request: request)

        #expect(transport.calls.map(\.request.headerFields) == [
            try HTTPFields(["Authorization": "Bearer fixed", "Accept": "application/json"]),
        ])
    }

    @Test func staticValueThatCannotBeAHeaderIsRefusedUpFront() {
        #expect(throws: HeaderValidationError.invalidValue(name: "Authorization", character: "\n", offset: 6)) {
            try AuthenticationMiddleware(authorization: "Bearer\nX-Injected: 1")
        }
    }

    @Test func refreshingSendsBearerTokenWithoutRefreshingWhenAccepted() async throws {
        let log = StackTestLog()
        let auth = refreshing("good", renewed: "unused", log: log)
        let stack = MiddlewareStack(middlewares: [auth], transport: server(accepting: "Bearer good", log: log))

        let (response, _) = try await send(stack)

        #expect(response.status == 200)
        #expect(log.all == ["transport Bearer good"])
    }

    @Test func refreshingOn401RefreshesOnceWithRejectedTokenAndRetriesWithNewToken() async throws {
        let log = StackTestLog()
        let auth = refreshing("old", renewed: "new", log: log)
        let stack = MiddlewareStack(middlewares: [auth], transport: server(accepting: "Bearer new", log: log))

        let (response, body) = try await send(stack)

        #expect(response.status == 200)
        #expect(try await StackFixture.text(of: body) == "welcome")
        #expect(log.all == ["transport Bearer old", "refresh old", "transport Bearer new"])
    }

    @Test("rejectedStatuses says which statuses refuse the token: 403 refreshes when listed, 401 then does not", arguments: [
        (403, ["transport Bearer old", "refresh old", "transport Bearer new"], 200),
        (401, ["transport Bearer old"], 401),
    ])
    func refreshingOnTheStatusesGiven(refusal: Int, log expected: [String], status: Int) async throws {
        let log = StackTestLog()
        let auth = refreshing("old", renewed: "new", rejectedStatuses: [403], log: log)
        let stack = MiddlewareStack(middlewares: [auth], transport: server(accepting: "Bearer new", refusingWith: refusal, log: log))

        let (response, _) = try await send(stack)

        #expect(response.status.code == status)
        #expect(log.all == expected)
    }

    @Test func refreshingRetriesOnlyOnceWhenNewTokenIsAlsoRejected() async throws {
        let log = StackTestLog()
        let auth = refreshing("old", renewed: "also-bad", log: log)
        let stack = MiddlewareStack(middlewares: [auth], transport: server(accepting: "Bearer never", log: log))

        let (response, body) = try await send(stack)

        #expect(response.status == 401)
        #expect(try await StackFixture.text(of: body) == "who are you")
        #expect(log.all == ["transport Bearer old", "refresh old", "transport Bearer also-bad"])
    }

    @Test func refreshingReturns401AsIsForSinglePassBody() async throws {
        let log = StackTestLog()
        let auth = refreshing("old", renewed: "new", log: log)
        let stack = MiddlewareStack(middlewares: [auth], transport: server(accepting: "Bearer new", log: log))

        let (response, _) = try await send(stack, body: StackFixture.singlePassBody("upload"))

        #expect(response.status == 401)
        #expect(log.all == ["transport Bearer old"])
    }

    @Test func failingRefreshIsReportedAsThisMiddlewaresError() async throws {
        let log = StackTestLog()
        let auth = AuthenticationMiddleware(token: { "old" }, refresh: { _ in throw MarkerError(name: "invalid_grant") })
        let stack = MiddlewareStack(middlewares: [auth], transport: server(accepting: "Bearer new", log: log))

        let error = try await #require(throws: ClientError.self) { try await send(stack) }

        #expect(error.causeDescription == "Middleware of type 'AuthenticationMiddleware' threw an error.")
        #expect(error.underlyingError as? MarkerError == MarkerError(name: "invalid_grant"))
        #expect(log.all == ["transport Bearer old"])
    }
}
