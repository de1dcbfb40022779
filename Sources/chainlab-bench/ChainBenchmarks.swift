import ChainKit
import Foundation
import Lab
import Timeline

/// The GraphQL chain's figures: nanoseconds to kick off one GraphQL operation and read its
/// single result through N pass-through interceptors, over an in-memory transport answering
/// a fixed small JSON, every variant of every depth interleaved in one run (see
/// ``depthFigures(_:depths:_:_:)``).
///
/// The request is NetworkOnly and does not write to the cache, so the cache step does no work
/// in any variant. The floor, bare and instrumented variants share a response parser that
/// hands on one result parsed before the run ("parsing" is `json.parse.small`), so they differ
/// only in the chain machinery:
/// - `chain.floor.N`: N async closures composed once, each awaiting the next, over the same
///   request building, transport call and chunk loop;
/// - `chain.bare.N`: ``RequestChain`` with N interceptors that return `await next(request)`;
/// - `chain.instrumented.N`: ``InstrumentedGraphQLChain`` over the same interceptors for each
///   operation, on a free-run scheduler, every event appended to a timeline store;
/// - `chain.handcomposed.N`: the floor with the body parsed, as earlier runs measured it;
/// - `chain.ns_per_hop`: (bare.10 − bare.0) / 10, and the floor's the same way;
/// - `instrument.ns_per_event.graphql`: (instrumented.5 − bare.5) / events per operation.
enum ChainBenchmarks {
    static let depths = [0, 1, 5, 10]
    static let eventDepth = 5

    static func run(_ sampling: Sampling, _ selection: Selection) async throws -> [Row] {
        let fixture = try GraphQLFixture()
        var subjects: [Subject] = []
        for depth in depths {
            subjects += [
                Subject(name: "chain.handcomposed.\(depth)", operation: handComposed(depth: depth, fixture, parse: true)),
                Subject(name: "chain.floor.\(depth)", operation: handComposed(depth: depth, fixture, parse: false)),
                Subject(name: "chain.bare.\(depth)", operation: bare(depth: depth, fixture)),
                Subject(name: "chain.instrumented.\(depth)") { instrumented(depth: depth, fixture, rig: LabRig()) },
            ]
        }
        let family = Family(subjects: subjects, derived: [
            "chain.ns_per_hop": ["chain.bare.0", "chain.bare.10"],
            "chain.floor.ns_per_hop": ["chain.floor.0", "chain.floor.10"],
            "instrument.ns_per_event.graphql": perEventNeeds(prefix: "chain", depth: eventDepth),
        ])
        let measured = try await family.measure(sampling, selection)
        var figures = depthFigures("chain", depths: depths, measured, selection)
        if selection.includes("chain.ns_per_hop"), let hop = perLayer(measured, "chain.bare", from: 0, to: 10) {
            figures.append(Figure(name: "chain.ns_per_hop", value: hop, unit: "ns/hop"))
        }
        if selection.includes("chain.floor.ns_per_hop"), let hop = perLayer(measured, "chain.floor", from: 0, to: 10) {
            figures.append(Figure(name: "chain.floor.ns_per_hop", value: hop, unit: "ns/hop"))
        }
        if ["instrument.ns_per_event.graphql", "instrument.events_per_op.graphql"].contains(where: selection.includes) {
            let rig = LabRig()
            try await instrumented(depth: eventDepth, fixture, rig: rig)()
            figures += perEventFigures("graphql", prefix: "chain", depth: eventDepth, events: rig.store.count, measured, selection)
        }
        return figures.map(Row.measured)
    }

    typealias Layer = @Sendable (GraphQLRequest) async throws -> GraphQLResponse

    static func handComposed(depth: Int, _ fixture: GraphQLFixture, parse: Bool) -> Subject.Operation {
        let transport = fixture.transport, parsed = fixture.parsed
        var next: Layer = { request in
            let response = try await transport.send(try request.makeNetworkRequest())
            var result: GraphQLResponse?
            for try await chunk in response.chunks {
                result = parse ? try GraphQLResponse(parsing: chunk, source: .server) : parsed
            }
            guard let result else { throw BenchFailure("the transport sent no body") }
            return result
        }
        for _ in 0..<depth {
            let inner = next
            next = { request in try await inner(request) }
        }
        let top = next, request = fixture.request
        return { try expectData(try await top(request)) }
    }

    static func bare(depth: Int, _ fixture: GraphQLFixture) -> Subject.Operation {
        let chain = RequestChain(interceptors: fixture.interceptors(depth: depth), transport: fixture.transport)
        let request = fixture.request
        return { try await consumeSingleResult(chain.kickoff(request: request)) }
    }

    static func instrumented(depth: Int, _ fixture: GraphQLFixture, rig: LabRig) -> Subject.Operation {
        let interceptors = fixture.interceptors(depth: depth)
        let transport = fixture.transport, request = fixture.request
        return {
            try await rig.run { context in
                let instrumented = InstrumentedGraphQLChain(interceptors: interceptors, transport: transport, context: context)
                try await consumeSingleResult(instrumented.chain.kickoff(request: request))
            }
        }
    }

    /// Reads the stream to its end; it must yield exactly one result with data.
    static func consumeSingleResult(_ results: InterceptorResultStream) async throws {
        var count = 0
        for try await response in results {
            try expectData(response)
            count += 1
        }
        guard count == 1 else { throw BenchFailure("expected one result, got \(count)") }
    }

    static func expectData(_ response: GraphQLResponse) throws {
        guard response.data != nil else { throw BenchFailure("the result has no data: \(response.errors ?? [])") }
    }
}

/// Does nothing but hand the request on.
struct PassThroughInterceptor: GraphQLInterceptor {
    func intercept(request: GraphQLRequest, next: GraphQLNext) async throws -> InterceptorResultStream {
        await next(request)
    }
}

/// Hands on one result per body chunk without parsing it: the result the fixture's body
/// parses to, parsed once before the run (it keeps that body, as a parsed result does).
struct PreparsedResponseParser: ResponseParsingInterceptor {
    let parsed: GraphQLResponse

    func parse(response: NetworkResponse, for request: GraphQLRequest) async throws -> InterceptorResultStream {
        let parsed = self.parsed
        return response.chunks.map { _ in parsed }
    }
}

/// The request, transport and interceptors every `chain.*` variant shares.
struct GraphQLFixture: Sendable {
    static let body = Data(#"{"data":{"hero":{"id":"2001","name":"R2-D2","friends":[{"name":"Luke"},{"name":"Han"}]}}}"#.utf8)

    let request: GraphQLRequest
    let transport: InMemoryGraphQLTransport
    let cache = DefaultCacheInterceptor(store: CacheStore())
    /// What the body parses to.
    let parsed: GraphQLResponse

    init() throws {
        parsed = try GraphQLResponse(parsing: GraphQLFixture.body, source: .server)
        request = GraphQLRequest(
            operation: GraphQLOperation(name: "HeroQuery", kind: .query, document: "query HeroQuery { hero { id name friends { name } } }"),
            graphQLEndpoint: URL(string: "https://lab.chainlab.local/graphql")!,
            fetchBehavior: .NetworkOnly, writeResultsToCache: false)
        let headers = try HTTPFields(["Content-Type": "application/json"])
        let body = GraphQLFixture.body
        transport = InMemoryGraphQLTransport { request in
            NetworkResponse(status: 200, headerFields: headers, url: request.url, body: body)
        }
    }

    func interceptors(depth: Int) -> RequestChain.Interceptors {
        RequestChain.Interceptors(
            graphQL: Array(repeating: PassThroughInterceptor(), count: depth), cache: cache, http: [],
            parser: PreparsedResponseParser(parsed: parsed))
    }
}
