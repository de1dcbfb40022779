import ChainKit
import Foundation
import Lab
import Timeline

/// The GraphQL chain's figures (a ``DepthFamily``, prefix `chain`, per-layer figures
/// `chain.ns_per_hop`, events of kind `graphql`): nanoseconds to kick off one GraphQL
/// operation and read its single result through N pass-through interceptors, over an
/// in-memory transport answering a fixed small JSON.
///
/// The request is NetworkOnly and does not write to the cache, so the cache step does no work
/// in any variant. The floor, bare and instrumented variants share a response parser that
/// hands on one result parsed before the run ("parsing" is `json.parse.small`), so they differ
/// only in the chain machinery:
/// - `chain.floor.N`: N async closures composed once, each awaiting the next, over the same
///   request building, transport call and chunk loop;
/// - `chain.bare.N`: ``ChainRunner`` with N interceptors that return `await next(request)`;
/// - `chain.instrumented.N`: ``InstrumentedGraphQLChain`` over the same interceptors for each
///   operation, on a free-run scheduler, every event appended to a timeline store;
/// - `chain.handcomposed.N`: the floor with the body parsed, as earlier runs measured it;
/// - `chain.http2.bare.5` and `chain.http2.instrumented.5`: bare and instrumented with two
///   pass-through HTTP interceptors below the 5 GraphQL ones, as the lab's chains have HTTP
///   interceptors (the depth figures have none); the instrumented one against the bare one.
enum ChainBenchmarks {
    /// The HTTP interceptors of the `chain.http2.*` figures.
    static let httpDepth = 2

    static func run(_ sampling: Sampling, _ selection: Selection) async throws -> [Row] {
        let fixture = try GraphQLFixture()
        let family = DepthFamily(
            prefix: "chain", layer: "hop", perLayerTarget: nil, eventKind: "graphql",
            handComposed: { handComposed(depth: $0, fixture, parse: true) },
            floor: { handComposed(depth: $0, fixture, parse: false) },
            bare: { bare(depth: $0, fixture) },
            instrumented: { instrumented(depth: $0, fixture, rig: $1) })
        let depth = DepthFamily.eventDepth, http = httpDepth
        let bareName = "chain.http\(http).bare.\(depth)", instrumentedName = "chain.http\(http).instrumented.\(depth)"
        let withHTTP = [
            Subject(name: bareName, operation: bare(depth: depth, http: http, fixture)),
            Subject(name: instrumentedName) { instrumented(depth: depth, http: http, fixture, rig: LabRig()) },
        ]
        return try await family.run(sampling, selection, extra: withHTTP) { measured in
            let bare = measured[bareName].map { Figure(name: bareName, value: $0, unit: "ns/op") }
            let instrumented = measured[instrumentedName].map { Figure(name: instrumentedName, value: $0, unit: "ns/op", baseline: bare) }
            return [bare, instrumented].compactMap { $0 }
        }
    }

    typealias Layer = @Sendable (ChainRequest) async throws -> ChainResponse

    static func handComposed(depth: Int, _ fixture: GraphQLFixture, parse: Bool) -> Subject.Operation {
        let transport = fixture.transport, parsed = fixture.parsed
        var next: Layer = { request in
            let response = try await transport.send(try request.makeNetworkRequest())
            var result: ChainResponse?
            for try await chunk in response.chunks {
                result = parse ? try ChainResponse(parsing: chunk, source: .server) : parsed
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

    static func bare(depth: Int, http: Int = 0, _ fixture: GraphQLFixture) -> Subject.Operation {
        let chain = ChainRunner(interceptors: fixture.interceptors(depth: depth, http: http), transport: fixture.transport)
        let request = fixture.request
        return { try await consumeSingleResult(chain.kickoff(request: request)) }
    }

    static func instrumented(depth: Int, http: Int = 0, _ fixture: GraphQLFixture, rig: LabRig) -> Subject.Operation {
        let interceptors = fixture.interceptors(depth: depth, http: http)
        let transport = fixture.transport, request = fixture.request
        return {
            try await rig.run { context in
                let instrumented = InstrumentedGraphQLChain(interceptors: interceptors, transport: transport, context: context)
                try await consumeSingleResult(instrumented.chain.kickoff(request: request))
            }
        }
    }

    /// Reads the stream to its end; it must yield exactly one result with data.
    static func consumeSingleResult(_ results: ChainResultStream) async throws {
        var count = 0
        for try await response in results {
            try expectData(response)
            count += 1
        }
        guard count == 1 else { throw BenchFailure("expected one result, got \(count)") }
    }

    static func expectData(_ response: ChainResponse) throws {
        guard response.data != nil else { throw BenchFailure("the result has no data: \(response.errors ?? [])") }
    }
}

/// Does nothing but hand the request on.
struct PassThroughInterceptor: ChainInterceptor {
    func intercept(request: ChainRequest, next: ChainNext) async throws -> ChainResultStream {
        await next(request)
    }
}

/// Hands the request on and returns the response as it came.
struct PassThroughHTTPInterceptor: ChainHTTPInterceptor {
    func intercept(request: NetworkRequest, next: ChainHTTPNext) async throws -> NetworkResponse {
        try await next(request)
    }
}

/// Hands on one result per body chunk without parsing it: the result the fixture's body
/// parses to, parsed once before the run (it keeps that body, as a parsed result does).
struct PreparsedResponseParser: ChainResponseParser {
    let parsed: ChainResponse

    func parse(response: NetworkResponse, for request: ChainRequest) async throws -> ChainResultStream {
        let parsed = self.parsed
        return response.chunks.map { _ in parsed }
    }
}

/// The request, transport and interceptors every `chain.*` variant shares.
struct GraphQLFixture: Sendable {
    static let body = Data(#"{"data":{"hero":{"id":"2001","name":"R2-D2","friends":[{"name":"Luke"},{"name":"Han"}]}}}"#.utf8)

    let request: ChainRequest
    let transport: InMemoryGraphQLTransport
    let cache = DefaultCacheInterceptor(store: CacheStore())
    /// What the body parses to.
    let parsed: ChainResponse

    init() throws {
        parsed = try ChainResponse(parsing: GraphQLFixture.body, source: .server)
        request = ChainRequest(
            operation: ChainOperation(name: "HeroQuery", kind: .query, document: "query HeroQuery { hero { id name friends { name } } }"),
            graphQLEndpoint: URL(string: "https://lab.chainlab.local/graphql")!,
            fetchBehavior: .NetworkOnly, writeResultsToCache: false)
        let headers = try HTTPFields(["Content-Type": "application/json"])
        let body = GraphQLFixture.body
        transport = InMemoryGraphQLTransport { request in
            NetworkResponse(status: 200, headerFields: headers, url: request.url, body: body)
        }
    }

    /// `depth` pass-through GraphQL interceptors and `http` pass-through HTTP interceptors.
    func interceptors(depth: Int, http: Int = 0) -> ChainRunner.Interceptors {
        ChainRunner.Interceptors(
            graphQL: Array(repeating: PassThroughInterceptor(), count: depth), cache: cache,
            http: Array(repeating: PassThroughHTTPInterceptor(), count: http), parser: PreparsedResponseParser(parsed: parsed))
    }
}
