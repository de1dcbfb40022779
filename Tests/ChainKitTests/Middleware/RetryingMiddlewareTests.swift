import Foundation
import Testing
@testable import ChainKit
@testable import Wire

/// Sends every request twice without buffering, the mistake RetryingMiddleware guards against.
private struct NaiveResendingMiddleware: ClientMiddleware {
    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: MiddlewareNext
    ) async throws -> (HTTPResponse, HTTPBody?) {
        _ = try await next(request, body, baseURL)
        return try await next(request, body, baseURL)
    }
}

@Suite struct RetryingMiddlewareTests {
    private func send(
        through retrying: RetryingMiddleware,
        to transport: ScriptedStackTransport,
        body: HTTPBody? = nil
    ) async throws -> (HTTPResponse, HTTPBody?) {
        try await MiddlewareStack(middlewares: [retrying], transport: transport)
            .send(StackFixture.request, body: body, baseURL: StackFixture.baseURL, operationID: StackFixture.operationID)
    }

    @Test func retriesOn503TwiceThenReturnsSuccess() async throws {
        let transport = ScriptedStackTransport([.status(503), .status(503), .status(200, body: "ok")])
        let retrying = RetryingMiddleware(signals: [.code(503)], maxAttempts: 3, delay: .none, clock: VirtualClock())

        let (response, body) = try await send(through: retrying, to: transport)

        #expect(response.status == 200)
        #expect(try await StackFixture.text(of: body) == "ok")
        #expect(transport.calls.count == 3)
        #expect(transport.calls.allSatisfy { $0.request == StackFixture.request && $0.baseURL == StackFixture.baseURL })
    }

    @Test func retriesOnEveryStatusInRange() async throws {
        let transport = ScriptedStackTransport([.status(500), .status(599), .status(502), .status(200)])
        let retrying = RetryingMiddleware(signals: [.range(500..<600)], maxAttempts: 5, delay: .none, clock: VirtualClock())

        let (response, _) = try await send(through: retrying, to: transport)

        #expect(response.status == 200)
        #expect(transport.calls.count == 4)
    }

    @Test func statusOutsideSignalsIsReturnedWithoutRetry() async throws {
        let transport = ScriptedStackTransport([.status(600), .status(200)])
        let retrying = RetryingMiddleware(signals: [.range(500..<600), .code(429)], maxAttempts: 3, delay: .none, clock: VirtualClock())

        let (response, _) = try await send(through: retrying, to: transport)

        #expect(response.status == 600)
        #expect(transport.calls.count == 1)
    }

    @Test func retriesOnThrownError() async throws {
        let transport = ScriptedStackTransport([.error(MarkerError(name: "reset")), .status(200)])
        let retrying = RetryingMiddleware(signals: [.errorThrown], maxAttempts: 3, delay: .none, clock: VirtualClock())

        let (response, _) = try await send(through: retrying, to: transport)

        #expect(response.status == 200)
        #expect(transport.calls.count == 2)
    }

    @Test func thrownErrorIsNotRetriedWithoutErrorSignal() async throws {
        let transport = ScriptedStackTransport([.error(MarkerError(name: "down")), .status(200)])
        let retrying = RetryingMiddleware(signals: [.range(500..<600)], maxAttempts: 3, delay: .none, clock: VirtualClock())

        let error = try await #require(throws: ClientError.self) { try await send(through: retrying, to: transport) }

        #expect(error.causeDescription == "Transport threw an error.")
        #expect(error.underlyingError as? MarkerError == MarkerError(name: "down"))
        #expect(transport.calls.count == 1)
    }

    @Test func givesUpAfterMaxAttemptsReturningLastResponse() async throws {
        let transport = ScriptedStackTransport([.status(503, body: "first"), .status(502, body: "second"), .status(500, body: "third"), .status(200)])
        let retrying = RetryingMiddleware(signals: [.range(500..<600)], maxAttempts: 3, delay: .none, clock: VirtualClock())

        let (response, body) = try await send(through: retrying, to: transport)

        #expect(response.status == 500)
        #expect(try await StackFixture.text(of: body) == "third")
        #expect(transport.calls.count == 3)
    }

    @Test func givesUpAfterMaxAttemptsRethrowingLastError() async throws {
        let transport = ScriptedStackTransport([
            .error(MarkerError(name: "first")), .error(MarkerError(name: "second")), .status(200),
        ])
        let retrying = RetryingMiddleware(signals: [.errorThrown], maxAttempts: 2, delay: .none, clock: VirtualClock())

        let error = try await #require(throws: ClientError.self) { try await send(through: retrying, to: transport) }

        #expect(error.causeDescription == "Transport threw an error.")
        #expect(error.underlyingError as? MarkerError == MarkerError(name: "second"))
        #expect(transport.calls.count == 2)
    }

    @Test func singleAttemptNeverRetries() async throws {
        let transport = ScriptedStackTransport([.status(503), .status(200)])
        let retrying = RetryingMiddleware(signals: [.code(503)], maxAttempts: 1, delay: .constant(.seconds(1)), clock: VirtualClock())

        let (response, _) = try await send(through: retrying, to: transport)

        #expect(response.status == 503)
        #expect(transport.calls.count == 1)
    }

    @Test func exponentialBackoffWaitsDoubleEachRetry() async throws {
        let clock = VirtualClock()
        let transport = ScriptedStackTransport([.status(503), .status(503), .status(503), .status(503), .status(200)])
        let retrying = RetryingMiddleware(
            signals: [.code(503)], maxAttempts: 5, delay: .exponential(initial: .milliseconds(100)), clock: clock
        )

        _ = try await send(through: retrying, to: transport)

        #expect(clock.sleeps == [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800)])
        #expect(clock.now.offset == .milliseconds(1500))
    }

    @Test func exponentialBackoffStopsGrowingAtMaximum() async throws {
        let clock = VirtualClock()
        let transport = ScriptedStackTransport([.status(503)])
        let retrying = RetryingMiddleware(
            signals: [.code(503)],
            maxAttempts: 5,
            delay: .exponential(initial: .seconds(1), multiplier: 3, maximum: .seconds(5)),
            clock: clock
        )

        let (response, _) = try await send(through: retrying, to: transport)

        #expect(response.status == 503)
        #expect(clock.sleeps == [.seconds(1), .seconds(3), .seconds(5), .seconds(5)])
    }

    @Test func constantDelayWaitsTheSameBeforeEveryRetry() async throws {
        let clock = VirtualClock()
        let transport = ScriptedStackTransport([.status(429), .status(429), .status(200)])
        let retrying = RetryingMiddleware(signals: [.code(429)], maxAttempts: 3, delay: .constant(.milliseconds(250)), clock: clock)

        _ = try await send(through: retrying, to: transport)

        #expect(clock.sleeps == [.milliseconds(250), .milliseconds(250)])
    }

    @Test func noDelayNeverSleeps() async throws {
        let clock = VirtualClock()
        let transport = ScriptedStackTransport([.status(503), .status(200)])
        let retrying = RetryingMiddleware(signals: [.code(503)], maxAttempts: 3, delay: .none, clock: clock)

        _ = try await send(through: retrying, to: transport)

        #expect(clock.sleeps == [])
    }

    @Test func cancelledTaskIsNotRetried() async throws {
        let transport = ScriptedStackTransport([.status(503), .status(200)])
        let retrying = RetryingMiddleware(signals: [.code(503)], maxAttempts: 3, delay: .none, clock: VirtualClock())

        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await send(through: retrying, to: transport)
        }
        let (response, _) = try await task.value

        #expect(response.status == 503)
        #expect(transport.calls.count == 1)
    }

    @Test func iteratingSinglePassBodyTwiceThrowsTooManyIterations() async throws {
        let body = StackFixture.singlePassBody("payload")

        #expect(try await body.collect(upTo: 100) == Data("payload".utf8))
        await #expect(throws: HTTPBody.TooManyIterationsError()) { _ = try await body.collect(upTo: 100) }
    }

    @Test func resendingUnbufferedSinglePassBodyFailsInTransport() async throws {
        let transport = ScriptedStackTransport([.status(200)])
        let stack = MiddlewareStack(middlewares: [NaiveResendingMiddleware()], transport: transport)

        let error = try await #require(throws: ClientError.self) {
            try await stack.send(
                StackFixture.request, body: StackFixture.singlePassBody("payload"),
                baseURL: StackFixture.baseURL, operationID: StackFixture.operationID
            )
        }

        #expect(error.causeDescription == "Transport threw an error.")
        #expect(error.underlyingError as? HTTPBody.TooManyIterationsError == HTTPBody.TooManyIterationsError())
        #expect(transport.calls.map(\.body) == [Data("payload".utf8)])
    }

    @Test func retryOfUnbufferedSinglePassBodyThrowsSinglePassBodyError() async throws {
        let transport = ScriptedStackTransport([.status(503), .status(200)])
        let retrying = RetryingMiddleware(signals: [.code(503)], maxAttempts: 3, delay: .none, clock: VirtualClock())

        let error = try await #require(throws: ClientError.self) {
            try await send(through: retrying, to: transport, body: StackFixture.singlePassBody("payload"))
        }

        #expect(error.causeDescription == "Middleware of type 'RetryingMiddleware' threw an error.")
        let refusal = try #require(error.underlyingError as? RetryingMiddleware.SinglePassBodyError)
        #expect(refusal.description == """
            RetryingMiddleware cannot retry after status 503: the request body can be read only once. \
            Set bufferingSinglePassBodies to a byte limit to buffer such bodies before the first attempt.
            """)
        #expect(transport.calls.count == 1)
    }

    @Test func retryAfterErrorOfUnbufferedSinglePassBodyNamesTheError() async throws {
        let transport = ScriptedStackTransport([.error(MarkerError(name: "timeout")), .status(200)])
        let retrying = RetryingMiddleware(signals: [.errorThrown], maxAttempts: 3, delay: .none, clock: VirtualClock())

        let error = try await #require(throws: ClientError.self) {
            try await send(through: retrying, to: transport, body: StackFixture.singlePassBody("payload"))
        }

        let refusal = try #require(error.underlyingError as? RetryingMiddleware.SinglePassBodyError)
        guard case .error(let trigger as ClientError) = refusal.trigger else {
            Issue.record("expected the transport's ClientError as the trigger, got \(refusal.trigger)")
            return
        }
        #expect(trigger.underlyingError as? MarkerError == MarkerError(name: "timeout"))
        #expect(transport.calls.count == 1)
    }

    @Test func singlePassBodyNeedingNoRetryIsSentAsIs() async throws {
        let transport = ScriptedStackTransport([.status(200)])
        let retrying = RetryingMiddleware(signals: [.code(503)], maxAttempts: 3, delay: .none, clock: VirtualClock())

        let (response, _) = try await send(through: retrying, to: transport, body: StackFixture.singlePassBody("payload"))

        #expect(response.status == 200)
        #expect(transport.calls.map(\.body) == [Data("payload".utf8)])
    }

    @Test func bufferedSinglePassBodyIsRetriedWithTheSameBytes() async throws {
        let transport = ScriptedStackTransport([.status(503), .status(200)])
        let retrying = RetryingMiddleware(
            signals: [.code(503)], maxAttempts: 3, delay: .none, bufferingSinglePassBodies: 1024, clock: VirtualClock()
        )

        let (response, _) = try await send(through: retrying, to: transport, body: StackFixture.singlePassBody("payload"))

        #expect(response.status == 200)
        #expect(transport.calls.map(\.body) == [Data("payload".utf8), Data("payload".utf8)])
    }

    @Test func bufferingFailsForBodyOverTheLimit() async throws {
        let transport = ScriptedStackTransport([.status(200)])
        let retrying = RetryingMiddleware(
            signals: [.code(503)], maxAttempts: 3, delay: .none, bufferingSinglePassBodies: 4, clock: VirtualClock()
        )

        let error = try await #require(throws: ClientError.self) {
            try await send(through: retrying, to: transport, body: StackFixture.singlePassBody("payload"))
        }

        #expect(error.causeDescription == "Middleware of type 'RetryingMiddleware' threw an error.")
        #expect(error.underlyingError as? HTTPBody.TooManyBytesError == HTTPBody.TooManyBytesError(maxBytes: 4))
        #expect(transport.calls.isEmpty)
    }
}
