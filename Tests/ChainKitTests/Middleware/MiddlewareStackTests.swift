import Foundation
import Synchronization
import Testing
@testable import ChainKit

/// Adds `X-Added-By: <name>` to the request it passes on.
private struct HeaderAddingMiddleware: ClientMiddleware {
    let name: String

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: MiddlewareNext
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        try request.headerFields.append("X-Added-By", name)
        return try await next(request, body, baseURL)
    }
}

/// Sends the request to `newBaseURL` and records what it received from the layer above.
private final class BaseURLRewritingMiddleware: ClientMiddleware {
    let newBaseURL: URL
    private let received = Mutex<[HTTPRequest]>([])

    init(newBaseURL: URL) { self.newBaseURL = newBaseURL }

    var receivedRequests: [HTTPRequest] { received.withLock { $0 } }

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: MiddlewareNext
    ) async throws -> (HTTPResponse, HTTPBody?) {
        received.withLock { $0.append(request) }
        return try await next(request, body, newBaseURL)
    }
}

@Suite struct MiddlewareStackTests {
    @Test func middlewaresRunInArrayOrderOutAndInReverseOrderBack() async throws {
        let log = StackTestLog()
        let transport = ClosureTransport { _, _, _, _ in
            log.append("transport")
            return (HTTPResponse(status: 200), nil)
        }
        let stack = MiddlewareStack(
            middlewares: ["A", "B", "C"].map { LoggingTestMiddleware(name: $0, log: log) },
            transport: transport
        )

        _ = try await stack.send(StackFixture.request, body: nil, baseURL: StackFixture.baseURL, operationID: "op")

        #expect(log.all == ["A out", "B out", "C out", "transport", "C back", "B back", "A back"])
    }

    @Test func headerAddedByOuterMiddlewareReachesNextLayerAndTransport() async throws {
        let rewriter = BaseURLRewritingMiddleware(newBaseURL: URL(string: "https://staging.example.com/v2")!)
        let transport = ScriptedStackTransport([.status(200)])
        let stack = MiddlewareStack(middlewares: [HeaderAddingMiddleware(name: "A"), rewriter], transport: transport)
        let request = HTTPRequest(method: .get, path: "/pets", headerFields: try HTTPFields(["Accept": "application/json"]))

        _ = try await stack.send(request, body: nil, baseURL: StackFixture.baseURL, operationID: "listPets")

        let expected = HTTPRequest(
            method: .get,
            path: "/pets",
            headerFields: try HTTPFields(["Accept": "application/json", "X-Added-By": "A"])
        )
        #expect(rewriter.receivedRequests == [expected])
        #expect(transport.calls.map(\.request) == [expected])
    }

    @Test func baseURLChangedByMiddlewareReachesTransport() async throws {
        let transport = ScriptedStackTransport([.status(200)])
        let stack = MiddlewareStack(
            middlewares: [
                HeaderAddingMiddleware(name: "A"),
                BaseURLRewritingMiddleware(newBaseURL: URL(string: "https://staging.example.com/v2")!),
            ],
            transport: transport
        )

        _ = try await stack.send(StackFixture.request, body: nil, baseURL: StackFixture.baseURL, operationID: "listPets")

        #expect(transport.calls.map(\.baseURL) == [URL(string: "https://staging.example.com/v2")!])
        #expect(transport.calls.map(\.operationID) == ["listPets"])
    }

    @Test func responseFromTransportIsReturnedThroughEveryLayer() async throws {
        let log = StackTestLog()
        let stack = MiddlewareStack(
            middlewares: [LoggingTestMiddleware(name: "A", log: log)],
            transport: ClosureTransport.status(201, body: "created")
        )

        let (response, body) = try await stack.send(
            StackFixture.request, body: nil, baseURL: StackFixture.baseURL, operationID: "createPet"
        )

        #expect(response == HTTPResponse(status: 201))
        #expect(try await StackFixture.text(of: body) == "created")
        #expect(log.all == ["A out", "A back"])
    }

    @Test func stackWithoutMiddlewaresCallsTransportDirectly() async throws {
        let transport = ScriptedStackTransport([.status(204)])
        let stack = MiddlewareStack(middlewares: [], transport: transport)

        let (response, body) = try await stack.send(
            StackFixture.request, body: HTTPBody("hi"), baseURL: StackFixture.baseURL, operationID: "ping"
        )

        #expect(response.status == 204)
        #expect(body == nil)
        #expect(transport.calls == [
            .init(request: StackFixture.request, body: Data("hi".utf8), baseURL: StackFixture.baseURL, operationID: "ping"),
        ])
    }

    @Test func layerNamesAreMiddlewareTypeNamesThenTransport() {
        let stack = MiddlewareStack(
            middlewares: [
                LoggingTestMiddleware(name: "A", log: StackTestLog()),
                HeaderAddingMiddleware(name: "B"),
                LoggingTestMiddleware(name: "C", log: StackTestLog()),
            ],
            transport: ClosureTransport.status(200)
        )

        #expect(stack.layerNames == ["LoggingTestMiddleware", "HeaderAddingMiddleware", "LoggingTestMiddleware", "ClosureTransport"])
    }

    /// The layers are not nested closures: building, running and releasing a stack costs no
    /// native stack in its depth. Folded closures would release 100,000 contexts one inside
    /// the other and overflow the thread's stack when the call ends.
    @Test func aHundredThousandMiddlewaresRunAndAreReleasedWithoutRecursion() async throws {
        let counters = StackCounters()
        do {
            let counter = CountingMiddleware(counters: counters)
            let stack = MiddlewareStack(middlewares: Array(repeating: counter, count: 100_000), transport: ClosureTransport.status(204))
            let (response, _) = try await stack.send(
                StackFixture.request, body: nil, baseURL: StackFixture.baseURL, operationID: StackFixture.operationID)
            #expect(response.status == 204)
            let failing = MiddlewareStack(middlewares: stack.middlewares, transport: ClosureTransport.failing(with: MarkerError(name: "deep")))
            do {
                _ = try await failing.send(StackFixture.request, body: nil, baseURL: StackFixture.baseURL, operationID: StackFixture.operationID)
                Issue.record("expected the transport's failure")
            } catch let error as ClientError {
                #expect(error.causeDescription == "Transport threw an error.")
                #expect(error.underlyingError as? MarkerError == MarkerError(name: "deep"))
            }
        }
        #expect(counters.passes.load(ordering: .relaxed) == 200_000)
        #expect(counters.released.load(ordering: .relaxed) == 1)
    }
}


extension MiddlewareStackTests {
    /// The layers are made once per stack; what belongs to a call (its operation, its
    /// request, the context its errors report) is its own, however many calls share the stack.
    @Test func aStackReusedForManyCallsGivesEachCallItsOwnContext() async throws {
        let log = StackTestLog()
        // Fails the calls whose path ends in an odd number, after the middleware passed them on.
        let transport = ClosureTransport { request, _, _, operationID in
            log.append("transport \(operationID) \(request.path ?? "")")
            guard let number = Int(request.path?.split(separator: "/").last ?? ""), number.isMultiple(of: 2) else {
                throw MarkerError(name: request.path ?? "")
            }
            return (HTTPResponse(status: 200), HTTPBody(operationID))
        }
        let stack = MiddlewareStack(middlewares: [HeaderAddingMiddleware(name: "A"), LoggingTestMiddleware(name: "B", log: StackTestLog())], transport: transport)
        let outcomes = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for number in 0..<40 {
                group.addTask {
                    let request = HTTPRequest(method: .get, path: "/pets/\(number)")
                    do {
                        let (response, body) = try await stack.send(request, body: nil, baseURL: StackFixture.baseURL, operationID: "op\(number)")
                        return (number, "\(response.status.code) \(try await StackFixture.text(of: body) ?? "-")")
                    } catch let error as ClientError {
                        let input = error.operationInput as? HTTPOperationInput
                        let header = error.request?.headerFields.contains("X-Added-By") == true ? "with A's header" : "as sent"
                        return (number, "\(error.operationID) \(error.request?.path ?? "-") \(header) \(input?.request.path ?? "-") \(error.underlyingError)")
                    }
                }
            }
            var outcomes: [Int: String] = [:]
            for try await (number, outcome) in group { outcomes[number] = outcome }
            return outcomes
        }
        #expect(outcomes.count == 40)
        for number in 0..<40 {
            // The error reports the request as the caller sent it: without the header A added.
            #expect(outcomes[number] == (number.isMultiple(of: 2) ? "200 op\(number)" : "op\(number) /pets/\(number) as sent /pets/\(number) marker /pets/\(number)"))
        }
        #expect(Set(log.all) == Set((0..<40).map { "transport op\($0) /pets/\($0)" }))
    }

    /// A stack and its copies read back the middlewares and transport it was made with, in order.
    @Test func aStackReadsBackItsLayers() {
        let log = StackTestLog()
        let stack = MiddlewareStack(
            middlewares: [LoggingTestMiddleware(name: "A", log: log), HeaderAddingMiddleware(name: "B")], transport: ClosureTransport.status(204))
        let copy = stack
        #expect(copy.middlewares.map(\.layerName) == ["LoggingTestMiddleware", "HeaderAddingMiddleware"])
        #expect((copy.middlewares[0] as? LoggingTestMiddleware)?.name == "A")
        #expect((copy.middlewares[1] as? HeaderAddingMiddleware)?.name == "B")
        #expect(copy.transport is ClosureTransport)
    }

    /// A body made from bytes holds them, so an observer can show it without reading it; a
    /// streamed body holds none and is read as before.
    @Test func aBodyMadeFromBytesHoldsThem() async throws {
        #expect(HTTPBody(Data("hello".utf8)).bytes == Data("hello".utf8))
        #expect(HTTPBody("hi").bytes == Data("hi".utf8))
        #expect(HTTPBody(Data()).bytes == Data())
        let streamed = StackFixture.singlePassBody("hello")
        #expect(streamed.bytes == nil)
        #expect(try await StackFixture.text(of: streamed) == "hello")
        let held = HTTPBody("again")
        #expect(try await StackFixture.text(of: held) == "again")
        #expect(try await StackFixture.text(of: held) == "again")
    }
}

private final class StackCounters: Sendable {
    let passes = Atomic<Int>(0)
    let released = Atomic<Int>(0)
}

/// Counts the passes through it, and says when it is released.
private final class CountingMiddleware: ClientMiddleware {
    let counters: StackCounters

    init(counters: StackCounters) { self.counters = counters }

    deinit { counters.released.add(1, ordering: .relaxed) }

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: MiddlewareNext
    ) async throws -> (HTTPResponse, HTTPBody?) {
        counters.passes.add(1, ordering: .relaxed)
        return try await next(request, body, baseURL)
    }
}
