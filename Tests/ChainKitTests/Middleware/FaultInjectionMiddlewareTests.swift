import Foundation
import Testing
@testable import ChainKit

@Suite struct FaultInjectionMiddlewareTests {
    private func send(_ stack: MiddlewareStack) async throws -> (HTTPResponse, HTTPBody?) {
        try await stack.send(StackFixture.request, body: nil, baseURL: StackFixture.baseURL, operationID: StackFixture.operationID)
    }

    @Test func noFaultPlannedPassesThrough() async throws {
        let transport = ScriptedStackTransport([.status(200, body: "ok")])
        let stack = MiddlewareStack(middlewares: [FaultInjectionMiddleware(clock: VirtualClock())], transport: transport)

        let (response, body) = try await send(stack)

        #expect(response.status == 200)
        #expect(try await StackFixture.text(of: body) == "ok")
        #expect(transport.calls.count == 1)
    }

    @Test func statusFaultAnswersWithoutCallingNext() async throws {
        let faults = FaultInjectionMiddleware(clock: VirtualClock())
        faults.enqueue(.status(503, body: "down for maintenance"))
        let transport = ScriptedStackTransport([.status(200)])
        let stack = MiddlewareStack(middlewares: [faults], transport: transport)

        let (response, body) = try await send(stack)

        #expect(response == HTTPResponse(status: 503))
        #expect(try await StackFixture.text(of: body) == "down for maintenance")
        #expect(transport.calls.isEmpty)
    }

    @Test func errorFaultThrowsWithoutCallingNext() async throws {
        let faults = FaultInjectionMiddleware(clock: VirtualClock())
        faults.enqueue(.error(FaultInjectionMiddleware.InjectedError.timeout))
        let transport = ScriptedStackTransport([.status(200)])
        let stack = MiddlewareStack(middlewares: [faults], transport: transport)

        let error = try await #require(throws: ClientError.self) { try await send(stack) }

        #expect(error.causeDescription == "Middleware of type 'FaultInjectionMiddleware' threw an error.")
        #expect(error.underlyingError as? FaultInjectionMiddleware.InjectedError == .timeout)
        #expect(transport.calls.isEmpty)
    }

    @Test func delayFaultSleepsOnClockThenPassesThrough() async throws {
        let clock = VirtualClock()
        let faults = FaultInjectionMiddleware(clock: clock)
        faults.enqueue(.delay(.seconds(2)))
        let transport = ScriptedStackTransport([.status(200)])
        let stack = MiddlewareStack(middlewares: [faults], transport: transport)

        let (response, _) = try await send(stack)

        #expect(response.status == 200)
        #expect(clock.sleeps == [.seconds(2)])
        #expect(clock.now.offset == .seconds(2))
        #expect(transport.calls.count == 1)
    }

    @Test func faultsAreConsumedOnePerCallInPlannedOrder() async throws {
        let faults = FaultInjectionMiddleware(clock: VirtualClock())
        faults.enqueue(.status(503, body: "busy"), count: 2)
        faults.enqueue(.error(FaultInjectionMiddleware.InjectedError.connectionReset))
        let transport = ScriptedStackTransport([.status(200)])
        let stack = MiddlewareStack(middlewares: [faults], transport: transport)
        #expect(faults.pendingCount == 3)

        let first = try await send(stack).0.status.code
        let second = try await send(stack).0.status.code
        let third = try await #require(throws: ClientError.self) { try await send(stack) }
        let fourth = try await send(stack).0.status.code

        let passedStatuses: [Int] = [first, second, fourth]
        #expect(passedStatuses == [503, 503, 200])
        #expect(third.underlyingError as? FaultInjectionMiddleware.InjectedError == .connectionReset)
        #expect(faults.pendingCount == 0)
        #expect(transport.calls.count == 1)
    }

    @Test func enqueueWithCountZeroPlansNothing() {
        let faults = FaultInjectionMiddleware(clock: VirtualClock())

        faults.enqueue(.delay(.seconds(1)), count: 0)

        #expect(faults.pendingCount == 0)
    }

    @Test func concurrentCallsConsumeEachPlannedFaultExactlyOnce() async throws {
        let faults = FaultInjectionMiddleware(clock: VirtualClock())
        faults.enqueue(.status(503, body: ""), count: 30)
        let stack = MiddlewareStack(middlewares: [faults], transport: ClosureTransport.status(200))

        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<100 {
                group.addTask { try await send(stack).0.status.code }
            }
            return try await group.reduce(into: [Int: Int]()) { counts, status in counts[status, default: 0] += 1 }
        }

        #expect(statuses == [503: 30, 200: 70])
        #expect(faults.pendingCount == 0)
    }

    @Test func faultsBelowRetryingMiddlewareFailSingleAttempts() async throws {
        let clock = VirtualClock()
        let faults = FaultInjectionMiddleware(clock: clock)
        faults.enqueue(.status(503, body: "busy"), count: 2)
        let retrying = RetryingMiddleware(signals: [.code(503)], maxAttempts: 3, delay: .constant(.seconds(1)), clock: clock)
        let transport = ScriptedStackTransport([.status(200)])
        let stack = MiddlewareStack(middlewares: [retrying, faults], transport: transport)

        let (response, _) = try await send(stack)

        #expect(response.status == 200)
        #expect(clock.sleeps == [.seconds(1), .seconds(1)])
        #expect(transport.calls.count == 1)
    }

    @Test func injectedErrorsDescribeTheFailureTheyStandFor() {
        #expect(FaultInjectionMiddleware.InjectedError.connectionReset.description
            == "the connection was reset by the peer (injected fault)")
        #expect(FaultInjectionMiddleware.InjectedError.timeout.description == "the request timed out (injected fault)")
        #expect(FaultInjectionMiddleware.InjectedError.cannotConnect.description
            == "could not connect to the server (injected fault)")
    }
}
