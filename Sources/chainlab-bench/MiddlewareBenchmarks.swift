import ChainKit
import Foundation
import Lab
import Timeline

/// The middleware stack's figures (a ``DepthFamily``, prefix `middleware`, per-layer figures
/// `middleware.ns_per_layer`, events of kind `middleware`): nanoseconds to send one request
/// through N pass-through middlewares to a ``ClosureTransport`` answering a fixed 70-byte JSON
/// body.
///
/// - `middleware.floor.N`: N async closures with the middleware `next` signature, composed
///   once, each awaiting the next; the response's body is not read;
/// - `middleware.bare.N`: ``MiddlewareStack`` with N middlewares that call `next` unchanged;
/// - `middleware.instrumented.N`: ``InstrumentedMiddlewareStack`` over the same middlewares
///   for each operation, on a free-run scheduler, every event appended to a timeline store
///   (2 events per middleware and 2 at the transport);
/// - `middleware.handcomposed.N`: the floor plus reading and parsing the body, as earlier
///   runs measured it;
/// - `middleware.body.collect`: reading the 70-byte body (its parse is `json.parse.small`).
enum MiddlewareBenchmarks {
    static func run(_ sampling: Sampling, _ selection: Selection) async throws -> [Row] {
        let fixture = try MiddlewareFixture()
        let family = DepthFamily(
            prefix: "middleware", layer: "layer", perLayerTarget: .atMost(80), eventKind: "middleware",
            handComposed: { handComposed(depth: $0, fixture, readBody: true) },
            floor: { handComposed(depth: $0, fixture, readBody: false) },
            bare: { bare(depth: $0, fixture) },
            instrumented: { instrumented(depth: $0, fixture, rig: $1) })
        let body = HTTPBody(MiddlewareFixture.body)
        let collect = Subject(name: "middleware.body.collect", operation: { _ = try await body.collect(upTo: 1 << 16) })
        return try await family.run(sampling, selection, extra: [collect]) { measured in
            measured["middleware.body.collect"].map { [Figure(name: "middleware.body.collect", value: $0, unit: "ns/op")] } ?? []
        }
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
                try expectBody(try await instrumented.send(request, body: nil, baseURL: baseURL, operationID: operationID))
            }
        }
    }

    /// The response must be a 200 with a body; the body is not read.
    static func expectBody(_ answer: (HTTPResponse, HTTPBody?)) throws {
        guard answer.0.status == 200, answer.1 != nil else { throw BenchFailure("expected 200 with a body, got \(answer.0.status.code)") }
    }

    /// Reads and parses the body; the response must be a 200 with a JSON object.
    static func consumeAndParse(_ answer: (HTTPResponse, HTTPBody?)) async throws {
        guard answer.0.status == 200, let body = answer.1 else { throw BenchFailure("expected 200 with a body, got \(answer.0.status.code)") }
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
