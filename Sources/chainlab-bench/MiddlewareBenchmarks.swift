import ChainKit
import Foundation
import Lab
import Timeline

/// `middleware.handcomposed.N`, `middleware.bare.N`, `middleware.instrumented.N`: nanoseconds
/// to send one request through N pass-through middlewares to a ``ClosureTransport`` answering
/// a fixed small JSON, then read and parse the response body.
///
/// - hand-composed: N async closures with the middleware `next` signature, each awaiting the
///   next and returning its value, over the same transport call (the floor);
/// - bare: ``MiddlewareStack`` with N middlewares that call `next` unchanged;
/// - instrumented: ``InstrumentedMiddlewareStack`` over the same middlewares for each
///   operation, on a free-run scheduler, every event appended to a timeline store.
enum MiddlewareBenchmarks {
    static let depths = [0, 1, 5, 10]

    static func run(_ sampling: Sampling, _ selection: Selection) async throws -> [Figure] {
        let fixture = try MiddlewareFixture()
        var figures: [Figure] = []
        for depth in depths {
            let subjects = [
                Subject(name: "middleware.handcomposed.\(depth)", operation: handComposed(depth: depth, fixture)),
                Subject(name: "middleware.bare.\(depth)", operation: bare(depth: depth, fixture)),
                Subject(name: "middleware.instrumented.\(depth)") { instrumented(depth: depth, fixture, rig: LabRig()) },
            ].filter { selection.includes($0.name) }
            guard !subjects.isEmpty else { continue }
            for subject in subjects { try await subject.prepareBatch()() }
            let values = try await Sampler.nanosecondsPerOperation(subjects, sampling: sampling)
            let measured = Dictionary(uniqueKeysWithValues: zip(subjects.map(\.name), values))
            let floor = measured["middleware.handcomposed.\(depth)"].map {
                Figure(name: "middleware.handcomposed.\(depth)", value: $0, unit: "ns/op")
            }
            let bareFigure = measured["middleware.bare.\(depth)"].map {
                Figure(name: "middleware.bare.\(depth)", value: $0, unit: "ns/op", baseline: floor,
                       target: depth == 5 ? .ratioAtMost(1.5) : nil)
            }
            let instrumentedFigure = measured["middleware.instrumented.\(depth)"].map {
                Figure(name: "middleware.instrumented.\(depth)", value: $0, unit: "ns/op", baseline: bareFigure)
            }
            figures += [floor, bareFigure, instrumentedFigure].compactMap { $0 }
        }
        return figures
    }

    static func handComposed(depth: Int, _ fixture: MiddlewareFixture) -> Subject.Operation {
        let transport = fixture.transport, operationID = fixture.operationID
        var next: MiddlewareNext = { request, body, baseURL in
            try await transport.send(request, body: body, baseURL: baseURL, operationID: operationID)
        }
        for _ in 0..<depth {
            let inner = next
            next = { request, body, baseURL in try await inner(request, body, baseURL) }
        }
        let top = next
        let request = fixture.request, baseURL = fixture.baseURL
        return { try await consume(try await top(request, nil, baseURL)) }
    }

    static func bare(depth: Int, _ fixture: MiddlewareFixture) -> Subject.Operation {
        let stack = MiddlewareStack(middlewares: fixture.middlewares(depth: depth), transport: fixture.transport)
        let request = fixture.request, baseURL = fixture.baseURL, operationID = fixture.operationID
        return { try await consume(try await stack.send(request, body: nil, baseURL: baseURL, operationID: operationID)) }
    }

    static func instrumented(depth: Int, _ fixture: MiddlewareFixture, rig: LabRig) -> Subject.Operation {
        let middlewares = fixture.middlewares(depth: depth), transport = fixture.transport
        let request = fixture.request, baseURL = fixture.baseURL, operationID = fixture.operationID
        return {
            try await rig.run { context in
                let instrumented = InstrumentedMiddlewareStack(middlewares: middlewares, transport: transport, context: context)
                try await consume(try await instrumented.stack.send(request, body: nil, baseURL: baseURL, operationID: operationID))
            }
        }
    }

    /// Reads and parses the body; the response must be a 200 with a JSON object.
    static func consume(_ answer: (HTTPResponse, HTTPBody?)) async throws {
        guard answer.0.status == 200, let body = answer.1 else { throw BenchFailure("expected 200 with a body, got \(answer.0.status)") }
        guard case .object = try JSONValue(parsing: try await body.collect(upTo: 1 << 16)) else {
            throw BenchFailure("the body is not a JSON object")
        }
    }
}

/// Does nothing but call `next` with what it was given.
struct PassThroughMiddleware: ClientMiddleware {
    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String, next: MiddlewareNext
    ) async throws -> (HTTPResponse, HTTPBody?) {
        try await next(request, body, baseURL)
    }
}

/// The request, transport and middlewares every `middleware.*` variant shares.
struct MiddlewareFixture: Sendable {
    static let body = Data(#"{"id":"2001","name":"R2-D2","friends":[{"name":"Luke"},{"name":"Han"}]}"#.utf8)

    let request: HTTPRequest
    let baseURL = URL(string: "https://lab.chainlab.local")!
    let operationID = "getHero"
    let transport: ClosureTransport

    init() throws {
        request = HTTPRequest(method: .get, path: "/heroes/2001", headerFields: try HTTPFields(["Accept": "application/json"]))
        let response = HTTPResponse(status: 200, headerFields: try HTTPFields(["Content-Type": "application/json"]))
        let body = MiddlewareFixture.body
        transport = ClosureTransport { _, _, _, _ in (response, HTTPBody(body)) }
    }

    func middlewares(depth: Int) -> [any ClientMiddleware] {
        Array(repeating: PassThroughMiddleware(), count: depth)
    }
}
