import Foundation
import Testing
@testable import ChainKit

/// Changes the request and base URL on the way down, so tests can check that errors report
/// the original ones.
private struct RequestChangingMiddleware: ClientMiddleware {
    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: MiddlewareNext
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        request.path = "/changed"
        try request.headerFields.set("Authorization", "Bearer secret")
        return try await next(request, HTTPBody("changed"), URL(string: "https://changed.example.com")!)
    }
}

/// Records the type of the error it sees coming up, then rethrows it.
private struct ErrorObservingMiddleware: ClientMiddleware {
    let log: StackTestLog

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: MiddlewareNext
    ) async throws -> (HTTPResponse, HTTPBody?) {
        do {
            return try await next(request, body, baseURL)
        } catch {
            log.append("saw \(type(of: error))")
            throw error
        }
    }
}

@Suite struct ClientErrorTests {
    private func sendExpectingClientError(_ stack: MiddlewareStack, body: HTTPBody? = nil) async throws -> ClientError {
        do {
            let (response, _) = try await stack.send(
                StackFixture.request, body: body, baseURL: StackFixture.baseURL, operationID: StackFixture.operationID
            )
            Issue.record("expected a ClientError, got status \(response.status.code)")
            throw MarkerError(name: "no error")
        } catch let error as ClientError {
            return error
        }
    }

    @Test func throwingMiddlewareIsNamedInCauseAndErrorCarriesOriginalContext() async throws {
        let thrown = MarkerError(name: "boom")
        let transport = ScriptedStackTransport([.status(200)])
        let stack = MiddlewareStack(
            middlewares: [RequestChangingMiddleware(), FailingMiddleware(error: thrown)],
            transport: transport
        )
        let body = HTTPBody("original")

        let error = try await sendExpectingClientError(stack, body: body)

        #expect(error.causeDescription == "Middleware of type 'FailingMiddleware' threw an error.")
        #expect(error.underlyingError as? MarkerError == thrown)
        #expect(error.operationID == "listPets")
        #expect(error.request == StackFixture.request)
        #expect(error.requestBody === body)
        #expect(error.baseURL == StackFixture.baseURL)
        #expect(error.response == nil)
        #expect(error.responseBody == nil)
        #expect(transport.calls.isEmpty)
    }

    @Test func throwingTransportIsNamedInCause() async throws {
        let thrown = MarkerError(name: "unreachable")
        let stack = MiddlewareStack(middlewares: [RequestChangingMiddleware()], transport: ClosureTransport.failing(with: thrown))

        let error = try await sendExpectingClientError(stack)

        #expect(error.causeDescription == "Transport threw an error.")
        #expect(error.underlyingError as? MarkerError == thrown)
        #expect(error.request == StackFixture.request)
        #expect(error.baseURL == StackFixture.baseURL)
        #expect(error.operationID == "listPets")
    }

    @Test func errorPassingUpThroughSeveralMiddlewaresIsWrappedOnce() async throws {
        let log = StackTestLog()
        let thrown = MarkerError(name: "reset")
        let stack = MiddlewareStack(
            middlewares: [ErrorObservingMiddleware(log: log), ErrorObservingMiddleware(log: log), ErrorObservingMiddleware(log: log)],
            transport: ClosureTransport.failing(with: thrown)
        )

        let error = try await sendExpectingClientError(stack)

        #expect(error.causeDescription == "Transport threw an error.")
        #expect(error.underlyingError as? MarkerError == thrown)
        #expect(log.all == ["saw ClientError", "saw ClientError", "saw ClientError"])
    }

    @Test func clientErrorThrownByMiddlewarePassesThroughUnchanged() async throws {
        let inner = ClientError(
            operationID: "nested",
            operationInput: "inner input",
            request: nil,
            requestBody: nil,
            baseURL: nil,
            causeDescription: "Transport threw an error.",
            underlyingError: MarkerError(name: "inner")
        )
        let stack = MiddlewareStack(middlewares: [FailingMiddleware(error: inner)], transport: ClosureTransport.status(200))

        let error = try await sendExpectingClientError(stack)

        #expect(error.operationID == "nested")
        #expect(error.causeDescription == "Transport threw an error.")
        #expect(error.underlyingError as? MarkerError == MarkerError(name: "inner"))
        #expect(error.request == nil)
    }

    @Test func descriptionNamesCauseUnderlyingErrorAndContext() async throws {
        let request = HTTPRequest(method: .post, path: "/pets?limit=2", headerFields: try HTTPFields(["Accept": "application/json"]))
        let error = ClientError(
            operationID: "createPet",
            operationInput: "input",
            request: request,
            requestBody: HTTPBody("{}"),
            baseURL: URL(string: "https://api.example.com/v1")!,
            causeDescription: "Middleware of type 'FailingMiddleware' threw an error.",
            underlyingError: MarkerError(name: "boom")
        )

        #expect(error.description == """
            Client error - cause description: 'Middleware of type 'FailingMiddleware' threw an error.', \
            underlying error: marker boom, operationID: createPet, operationInput: input, \
            request: POST /pets?limit=2 [Accept: application/json], requestBody: HTTPBody(2 bytes, replayable), \
            baseURL: https://api.example.com/v1, response: <nil>, responseBody: <nil>
            """)
        #expect(error.localizedDescription == """
            Client encountered an error invoking the operation "createPet", caused by \
            "Middleware of type 'FailingMiddleware' threw an error.", underlying error: marker boom.
            """)
    }

    @Test func descriptionRedactsCredentials() throws {
        let request = HTTPRequest(
            method: .get,
            path: "/me",
            headerFields: try HTTPFields(["authorization": "Bearer abc", "Cookie": "s=1", "X-Trace": "7"])
        )
        let error = ClientError(
            operationID: "me",
            operationInput: HTTPOperationInput(request: request, body: nil),
            request: request,
            requestBody: StackFixture.singlePassBody("x"),
            baseURL: nil,
            response: HTTPResponse(status: 401, headerFields: try HTTPFields(["Set-Cookie": "s=2"])),
            causeDescription: "Transport threw an error.",
            underlyingError: MarkerError(name: "x")
        )

        #expect(error.description == """
            Client error - cause description: 'Transport threw an error.', underlying error: marker x, \
            operationID: me, operationInput: GET /me [authorization: <redacted>; Cookie: <redacted>; X-Trace: 7], body: <nil>, \
            request: GET /me [authorization: <redacted>; Cookie: <redacted>; X-Trace: 7], \
            requestBody: HTTPBody(1 byte, single-pass), baseURL: <nil>, \
            response: 401 [Set-Cookie: <redacted>], responseBody: <nil>
            """)
    }
}
