import ChainKit
import Foundation
import Lab
import Timeline

/// The middleware stack's figures: nanoseconds to send one request through N pass-through
/// middlewares to a ``ClosureTransport`` answering a fixed 70-byte JSON body, every variant
/// of every depth interleaved in one run (see ``depthFigures(_:depths:_:_:)``).
///
/// - `middleware.floor.N`: N async closures with the middleware `next` signature, composed
///   once, each awaiting the next; the response's body is not read;
/// - `middleware.bare.N`: ``MiddlewareStack`` with N middlewares that call `next` unchanged;
/// - `middleware.instrumented.N`: ``InstrumentedMiddlewareStack`` over the same middlewares
///   for each operation, on a free-run scheduler, every event appended to a timeline store;
/// - `middleware.handcomposed.N`: the floor plus reading and parsing the body, as earlier
///   runs measured it;
/// - `middleware.body.collect`: reading the 70-byte body (its parse is `json.parse.small`);
/// - `middleware.ns_per_layer`: (bare.10 − bare.0) / 10, and the floor's the same way;
/// - `instrument.ns_per_event.middleware`: (instrumented.5 − bare.5) / events per operation.
enum MiddlewareBenchmarks {
    static let depths = [0, 1, 5, 10]
    static let eventDepth = 5

    static func run(_ sampling: Sampling, _ selection: Selection) async throws -> [Row] {
        let fixture = try MiddlewareFixture()
        var subjects: [Subject] = []
        for depth in depths {
            subjects += [
                Subject(name: "middleware.handcomposed.\(depth)", operation: handComposed(depth: depth, fixture, readBody: true)),
                Subject(name: "middleware.floor.\(depth)", operation: handComposed(depth: depth, fixture, readBody: false)),
                Subject(name: "middleware.bare.\(depth)", operation: bare(depth: depth, fixture)),
                Subject(name: "middleware.instrumented.\(depth)") { instrumented(depth: depth, fixture, rig: LabRig()) },
            ]
        }
        let body = HTTPBody(MiddlewareFixture.body)
        subjects.append(Subject(name: "middleware.body.collect", operation: { _ = try await body.collect(upTo: 1 << 16) }))
        let family = Family(subjects: subjects, derived: [
            "middleware.ns_per_layer": ["middleware.bare.0", "middleware.bare.10"],
            "middleware.floor.ns_per_layer": ["middleware.floor.0", "middleware.floor.10"],
            "instrument.ns_per_event.middleware": perEventNeeds(prefix: "middleware", depth: eventDepth),
        ])
        let measured = try await family.measure(sampling, selection)
        var figures = depthFigures("middleware", depths: depths, measured, selection)
        if selection.includes("middleware.body.collect"), let collect = measured["middleware.body.collect"] {
            figures.append(Figure(name: "middleware.body.collect", value: collect, unit: "ns/op"))
        }
        if selection.includes("middleware.ns_per_layer"), let layer = perLayer(measured, "middleware.bare", from: 0, to: 10) {
            figures.append(Figure(name: "middleware.ns_per_layer", value: layer, unit: "ns/layer", target: .atMost(80)))
        }
        if selection.includes("middleware.floor.ns_per_layer"), let layer = perLayer(measured, "middleware.floor", from: 0, to: 10) {
            figures.append(Figure(name: "middleware.floor.ns_per_layer", value: layer, unit: "ns/layer"))
        }
        if ["instrument.ns_per_event.middleware", "instrument.events_per_op.middleware"].contains(where: selection.includes) {
            // 2 events per middleware and 2 at the transport; counted, not assumed.
            let events = try await eventsPerOperation(depth: eventDepth, fixture)
            figures += perEventFigures("middleware", prefix: "middleware", depth: eventDepth, events: events, measured, selection)
        }
        return figures.map(Row.measured)
    }

    /// The events one instrumented operation at `depth` records.
    static func eventsPerOperation(depth: Int, _ fixture: MiddlewareFixture) async throws -> Int {
        let rig = LabRig()
        try await instrumented(depth: depth, fixture, rig: rig)()
        return rig.store.count
    }

    static func handComposed(depth: Int, _ fixture: MiddlewareFixture, readBody: Bool) -> Subject.Operation {
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
        if readBody { return { try await consumeAndParse(try await top(request, nil, baseURL)) } }
        return { try expectBody(try await top(request, nil, baseURL)) }
    }

    static func bare(depth: Int, _ fixture: MiddlewareFixture) -> Subject.Operation {
        let stack = MiddlewareStack(middlewares: fixture.middlewares(depth: depth), transport: fixture.transport)
        let request = fixture.request, baseURL = fixture.baseURL, operationID = fixture.operationID
        return { try expectBody(try await stack.send(request, body: nil, baseURL: baseURL, operationID: operationID)) }
    }

    static func instrumented(depth: Int, _ fixture: MiddlewareFixture, rig: LabRig) -> Subject.Operation {
        let middlewares = fixture.middlewares(depth: depth), transport = fixture.transport
        let request = fixture.request, baseURL = fixture.baseURL, operationID = fixture.operationID
        return {
            try await rig.run { context in
                let instrumented = InstrumentedMiddlewareStack(middlewares: middlewares, transport: transport, context: context)
                try expectBody(try await instrumented.stack.send(request, body: nil, baseURL: baseURL, operationID: operationID))
            }
        }
    }

    /// The response must be a 200 with a body; the body is not read.
    static func expectBody(_ answer: (HTTPResponse, HTTPBody?)) throws {
        guard answer.0.status == 200, answer.1 != nil else { throw BenchFailure("expected 200 with a body, got \(answer.0.status)") }
    }

    /// Reads and parses the body; the response must be a 200 with a JSON object.
    static func consumeAndParse(_ answer: (HTTPResponse, HTTPBody?)) async throws {
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
