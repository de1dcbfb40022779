import ChainKit
import Foundation
import Lab
import Timeline

/// `chain.handcomposed.N`, `chain.bare.N`, `chain.instrumented.N`: nanoseconds to kick off one
/// GraphQL operation and read its single result through N pass-through interceptors, over an
/// in-memory transport answering a fixed small JSON.
///
/// The request is NetworkOnly and does not write to the cache, so the cache step does no work
/// in any variant and the three differ only in the chain machinery:
/// - hand-composed: N async closures, each awaiting the next and returning its value, over
///   the same request building, transport call and JSON parse (the floor);
/// - bare: ``RequestChain`` with N interceptors that return `await next(request)`;
/// - instrumented: ``InstrumentedGraphQLChain`` over the same interceptors for each operation,
///   on a free-run scheduler, every event appended to a timeline store.
enum ChainBenchmarks {
    static let depths = [0, 1, 5, 10]

    static func run(_ sampling: Sampling, _ selection: Selection) async throws -> [Figure] {
        let fixture = try GraphQLFixture()
        var figures: [Figure] = []
        for depth in depths {
            let subjects = [
                Subject(name: "chain.handcomposed.\(depth)", operation: handComposed(depth: depth, fixture)),
                Subject(name: "chain.bare.\(depth)", operation: bare(depth: depth, fixture)),
                Subject(name: "chain.instrumented.\(depth)") { instrumented(depth: depth, fixture, rig: LabRig()) },
            ].filter { selection.includes($0.name) }
            guard !subjects.isEmpty else { continue }
            for subject in subjects { try await subject.prepareBatch()() }
            let values = try await Sampler.nanosecondsPerOperation(subjects, sampling: sampling)
            let measured = Dictionary(uniqueKeysWithValues: zip(subjects.map(\.name), values))
            let floor = measured["chain.handcomposed.\(depth)"].map {
                Figure(name: "chain.handcomposed.\(depth)", value: $0, unit: "ns/op")
            }
            let bareFigure = measured["chain.bare.\(depth)"].map {
                Figure(name: "chain.bare.\(depth)", value: $0, unit: "ns/op", baseline: floor,
                       target: depth == 5 ? .ratioAtMost(1.5) : nil)
            }
            let instrumentedFigure = measured["chain.instrumented.\(depth)"].map {
                Figure(name: "chain.instrumented.\(depth)", value: $0, unit: "ns/op", baseline: bareFigure,
                       target: depth == 5 ? .ratioAtMost(2.0) : nil)
            }
            figures += [floor, bareFigure, instrumentedFigure].compactMap { $0 }
        }
        return figures
    }

    typealias Layer = @Sendable (GraphQLRequest) async throws -> GraphQLResponse

    static func handComposed(depth: Int, _ fixture: GraphQLFixture) -> Subject.Operation {
        let transport = fixture.transport
        var next: Layer = { request in
            let response = try await transport.send(try request.makeNetworkRequest())
            var result: GraphQLResponse?
            for try await chunk in response.chunks { result = try GraphQLResponse(parsing: chunk, source: .server) }
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

/// The request, transport and interceptors every `chain.*` variant shares.
struct GraphQLFixture: Sendable {
    static let body = Data(#"{"data":{"hero":{"id":"2001","name":"R2-D2","friends":[{"name":"Luke"},{"name":"Han"}]}}}"#.utf8)

    let request: GraphQLRequest
    let transport: InMemoryGraphQLTransport
    let cache = DefaultCacheInterceptor(store: CacheStore())

    init() throws {
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
            parser: JSONResponseParsingInterceptor())
    }
}
