import Foundation
import Testing
@testable import ChainKit

/// Fails on the way down or on the way back up (swift-openapi-runtime's `MockMiddleware`).
private struct PhaseFailingMiddleware: ClientMiddleware {
    enum Phase { case onRequest, onResponse }
    let phase: Phase

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String, next: MiddlewareNext
    ) async throws -> (HTTPResponse, HTTPBody?) {
        if phase == .onRequest { throw MarkerError(name: "middleware") }
        _ = try await next(request, body, baseURL)
        throw MarkerError(name: "middleware")
    }
}

/// The four phases of a call and the `ClientError` each failure produces, against
/// swift-openapi-runtime's `UniversalClient.send` (Tests/OpenAPIRuntimeTests/Interface/Test_UniversalClient.swift).
@Suite("Client phases (UniversalClient)")
struct ClientPhasesTests {
    static let requestBody = HTTPBody("hello")
    static let responseBody = HTTPBody("bye")
    static let request = HTTPRequest(method: .post, path: "/")
    static let baseURL = URL(string: "https://api.example.com")!
    static let successful = ClosureTransport { _, _, _, _ in (HTTPResponse(status: 200), responseBody) }

    /// Sends `"input"` for operation `op` and returns the `ClientError` it fails with.
    func failure(
        middlewares: [any ClientMiddleware] = [], transport: ClosureTransport = successful,
        serializer: @escaping @Sendable (String) throws -> (HTTPRequest, HTTPBody?) = { _ in (request, requestBody) },
        deserializer: @escaping @Sendable (HTTPResponse, HTTPBody?) async throws -> String = { _, _ in throw MarkerError(name: "deserializer") },
        madeHere: Bool = true
    ) async throws -> ClientError {
        let stack = MiddlewareStack(middlewares: middlewares, transport: transport)
        do {
            let output = try await stack.send(input: "input", forOperation: "op", baseURL: Self.baseURL, serializer: serializer, deserializer: deserializer)
            Issue.record("expected a ClientError, got \(output)")
            throw MarkerError(name: "no error")
        } catch let error as ClientError {
            if madeHere {
                #expect(error.operationID == "op")
                #expect(error.operationInput as? String == "input")
            }
            return error
        }
    }

    /// Mirrors `Test_UniversalClient.testSuccess`.
    @Test("success: the deserializer's output comes back")
    func success() async throws {
        let stack = MiddlewareStack(middlewares: [], transport: Self.successful)
        let output = try await stack.send(
            input: "input", forOperation: "op", baseURL: Self.baseURL, serializer: { _ in (Self.request, Self.requestBody) },
            deserializer: { _, body in String(decoding: try await body!.collect(upTo: 10), as: UTF8.self) })
        #expect(output == "bye")
    }

    /// Mirrors `Test_UniversalClient.testErrorPropagation_serializer`.
    @Test("a serializer failure: cause Unknown, no request, no response")
    func serializerFailure() async throws {
        let error = try await failure(serializer: { _ in throw MarkerError(name: "serializer") })
        #expect(error.causeDescription == "Unknown")
        #expect(error.underlyingError as? MarkerError == MarkerError(name: "serializer"))
        #expect(error.request == nil)
        #expect(error.requestBody == nil)
        #expect(error.baseURL == nil)
        #expect(error.response == nil)
        #expect(error.responseBody == nil)
    }

    /// Mirrors `Test_UniversalClient.testErrorPropagation_middlewareOnRequest` and `_middlewareOnResponse`.
    @Test("a middleware failure, on the way down or up: the middleware named, the request known, no response",
          arguments: [PhaseFailingMiddleware.Phase.onRequest, .onResponse])
    fileprivate func middlewareFailure(phase: PhaseFailingMiddleware.Phase) async throws {
        let error = try await failure(middlewares: [PhaseFailingMiddleware(phase: phase)])
        #expect(error.causeDescription == "Middleware of type 'PhaseFailingMiddleware' threw an error.")
        #expect(error.underlyingError as? MarkerError == MarkerError(name: "middleware"))
        #expect(error.request == Self.request)
        #expect(error.requestBody === Self.requestBody)
        #expect(error.baseURL == Self.baseURL)
        #expect(error.response == nil)
        #expect(error.responseBody == nil)
    }

    /// Mirrors `Test_UniversalClient.testErrorPropagation_transport`.
    @Test("a transport failure below a middleware: the transport named, the request known")
    func transportFailure() async throws {
        let error = try await failure(middlewares: [PassThroughMiddleware()], transport: .failing(with: MarkerError(name: "transport")))
        #expect(error.causeDescription == "Transport threw an error.")
        #expect(error.underlyingError as? MarkerError == MarkerError(name: "transport"))
        #expect(error.request == Self.request)
        #expect(error.requestBody === Self.requestBody)
        #expect(error.baseURL == Self.baseURL)
        #expect(error.response == nil)
    }

    /// Mirrors `Test_UniversalClient.testErrorPropagation_deserializer`.
    @Test("a deserializer failure: cause Unknown, with the response and its body")
    func deserializerFailure() async throws {
        let error = try await failure()
        #expect(error.causeDescription == "Unknown")
        #expect(error.underlyingError as? MarkerError == MarkerError(name: "deserializer"))
        #expect(error.request == Self.request)
        #expect(error.requestBody === Self.requestBody)
        #expect(error.baseURL == Self.baseURL)
        #expect(error.response == HTTPResponse(status: 200))
        #expect(error.responseBody === Self.responseBody)
    }

    /// `UniversalClient`'s `wrappingErrors` rethrows a `ClientError` as it is, in every phase:
    /// an inner client's error reaches the caller with the inner context, not the outer one.
    @Test("a nested ClientError from the transport or the deserializer passes through unchanged")
    func nestedClientError() async throws {
        let inner = ClientError(operationID: "inner", operationInput: "inner input", causeDescription: "Transport threw an error.", underlyingError: MarkerError(name: "inner"))
        for error in [
            try await failure(transport: .failing(with: inner), madeHere: false),
            try await failure(deserializer: { _, _ in throw inner }, madeHere: false),
        ] {
            #expect(error.operationID == "inner")
            #expect(error.operationInput as? String == "inner input")
            #expect(error.request == nil)
            #expect(error.underlyingError as? MarkerError == MarkerError(name: "inner"))
        }
    }

    @Test("a raw send's input is the request and body, described with credentials masked")
    func rawInput() async throws {
        let request = HTTPRequest(method: .get, path: "/me", headerFields: try HTTPFields(["Authorization": "Bearer abc"]))
        let stack = MiddlewareStack(middlewares: [], transport: ClosureTransport.failing(with: MarkerError(name: "x")))
        do {
            _ = try await stack.send(request, body: nil, baseURL: Self.baseURL, operationID: "me")
            Issue.record("expected a ClientError")
        } catch let error as ClientError {
            let input = try #require(error.operationInput as? HTTPOperationInput)
            #expect(input.request == request)
            #expect(input.description == "GET /me [Authorization: <redacted>], body: <nil>")
        }
    }
}

private struct PassThroughMiddleware: ClientMiddleware {
    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String, next: MiddlewareNext
    ) async throws -> (HTTPResponse, HTTPBody?) {
        try await next(request, body, baseURL)
    }
}
