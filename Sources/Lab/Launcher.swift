import Instrumentation
import Scheduling
import Backend
import ChainKit
import Foundation
import Timeline
import Scenarios

/// Starts a session's requests: each on a task of its own (kept in ``SessionRequests``), its
/// chain built from the scenario's layers, an app's provider or an app's own chain,
/// instrumented, and run on the session's ``LabRuntime``; then the summary of how it ended.
///
/// The scheduler asks for each launch (``Scheduler/Environment/launch``); the session holds
/// the launcher and reads its requests.
final class Launcher: Sendable {
    let scenario: Scenario
    let runtime: LabRuntime
    /// The requests started so far: their tasks, hops and summaries.
    let requests = SessionRequests()
    /// The chain new operations go through: the scenario's, unless reordered.
    let chain: Locked<Scenario.Chain>
    /// The parser's name in the chains it builds.
    let parserName: String
    let custom: CustomChain?
    /// An app's own Apollo-shaped provider in place of the scenario's chain, and the host its
    /// ``AppBackend`` session reaches; nil for the scenario's own chain.
    let app: (provider: ApolloProviderAdapter, host: String)?
    let graphQLTransport: any GraphQLTransport
    let clientTransport: any ClientTransport
    let endpoint: URL
    let baseURL: URL
    let remote: RemoteSetup?
    /// A remote lab's counters as last read (`GET /_lab/state` after each request ends), for
    /// a screen; nil until read.
    let remoteCounters = Locked<[String: Int]?>(nil)
    /// Tells whoever shows the session that something changed.
    let changed: @Sendable () -> Void

    init(
        scenario: Scenario, runtime: LabRuntime, transports: (graphQL: any GraphQLTransport, client: any ClientTransport), baseURL: URL,
        custom: CustomChain?, remote: RemoteSetup?, app: (provider: any InterceptorProvider, activity: AppActivity, host: String)?,
        onChange: @escaping @Sendable () -> Void
    ) {
        self.scenario = scenario
        self.runtime = runtime
        self.chain = Locked(scenario.chain)
        self.custom = custom
        self.changed = onChange
        if case .graphQL(let provider, _, let requests) = custom, let first = requests.first {
            self.parserName = typeName(provider.responseParser(for: first.operation))
        } else if let app, let first = scenario.operations.first {
            self.parserName = typeName(app.provider.responseParser(for: LoadedOperation(first.graphQLOperation)))
        } else {
            self.parserName = HopLayout.labParser
        }
        self.remote = remote
        let cache = runtime.cache
        self.app = app.map { (ApolloProviderAdapter($0.provider, store: ApolloStore(cacheStore: cache), activity: $0.activity), $0.host) }
        self.baseURL = baseURL
        self.endpoint = remote?.graphQLEndpoint ?? baseURL.appendingPathComponent("graphql")
        self.graphQLTransport = transports.graphQL
        self.clientTransport = transports.client
    }

    /// What one operation sends through which instrumented chain.
    private enum Exchange {
        case graphQL(InstrumentedGraphQLChain, ChainRequest)
        case http(InstrumentedMiddlewareStack, HTTPRequest, HTTPBody?, baseURL: URL, operationID: String)

        var hops: [HopInfo] {
            switch self {
            case .graphQL(let chain, _): chain.hops
            case .http(let stack, _, _, _, _): stack.hops
            }
        }
    }

    /// A remote lab's counters, read again now that a request has ended, so a screen shows
    /// what the lab has counted (``LabSession/labCounters``); nothing for any other target.
    func readRemoteCounters() async {
        guard custom == nil, case .remote(let lab) = runtime.target, lab.isLab, let counters = await lab.counters() else { return }
        remoteCounters.withLock { $0 = counters }
        changed()
    }

    /// Starts request `request` for operation number `index` on its own task: it arrives at
    /// the launch stop first, and its summary is kept once it ends.
    func start(operation index: Int, request: Int) {
        let context = OperationContext(request: request, safetyCap: scenario.safetyCap, shared: runtime.operationShared)
        requests.start(request) {
            await LabContext.$operation.withValue(context) {
                _ = await context.gate(.launch, name: "launch", kind: .graphql)
                let (summary, watched) = await self.run(operation: index, context: context)
                self.requests.end(request, summary: summary)
                // Watched once its summary is there to count the deliveries in.
                if let watched { self.watch(watched.operation, from: watched.result, request: request, attempt: context.attempt) }
                self.runtime.store.markFinished(request: request)
                self.runtime.scheduler.finish(request: request)
            }
            await self.readRemoteCounters()
        }
    }

    /// Runs the operation; returns its summary and, for a watched query that got a result,
    /// what to watch.
    private func run(operation index: Int, context: OperationContext) async -> (RequestSummary, watched: (operation: ChainOperation, result: ChainResponse)?) {
        guard scenario.operations.indices.contains(index) else {
            // A library caller's `launch(operation:)` out of range; files are checked before they run.
            return (RequestSummary(
                id: context.request, operation: "#\(index)", outcome: .failure, attempts: 0,
                error: "operation \(index) does not exist; the scenario has \(scenario.operations.count)", results: []), nil)
        }
        var watched: (operation: ChainOperation, result: ChainResponse)?
        var results: [String] = []
        var last: ChainResponse?
        var failure: (any Error)?
        var operationType: String?
        // An app's own chain without a request for this operation sends nothing.
        let prepared = if let custom { exchange(custom: custom, operation: index, context: context) } else { exchange(operation: index, context: context) }
        if let prepared {
            requests.setHops(prepared.hops, of: context.request)
            do {
                switch prepared {
                case .graphQL(let instrumented, let request):
                    operationType = request.operation.kind.rawValue
                    // The chain runs in a task of its own, as upstream's does. Its last event
                    // is recorded once that task has ended, so this task waits for it; the
                    // results end silently when this task is cancelled, which only quitting does.
                    let started = instrumented.chain.start(request: request)
                    do {
                        for try await response in started.results {
                            results.append(response.source.rawValue)
                            last = response
                        }
                    } catch RequestChainError.noResults where request.fetchBehavior == .CacheOnly {
                        // A CacheOnly miss: the client answers nil, not an error (upstream's
                        // `ApolloClient.fetch(query:cachePolicy: .cacheOnly)`).
                        _ = await started.task.result
                        await context.networkLaneEnded()
                    } catch {
                        _ = await started.task.result
                        await context.networkLaneEnded()
                        throw error
                    }
                    _ = await started.task.result
                    // A CacheAndNetwork fetch that overlapped ends in its own task.
                    await context.networkLaneEnded()
                    if Task.isCancelled { throw LabFault.sessionEnded }
                    if let last, custom == nil, scenario.operations[index].watch { watched = (request.operation, last) }
                case .http(let instrumented, let request, let body, let baseURL, let operationID):
                    let (response, _) = try await instrumented.send(request, body: body, baseURL: baseURL, operationID: operationID)
                    results.append("server \(response.status.code)")
                    if !response.isSuccess { failure = HTTPStatusFailure(status: response.status.code) }
                }
            } catch {
                failure = error
            }
        }
        var summary = RequestSummary(
            id: context.request, operation: scenario.operations[index].name,
            outcome: failure == nil && (!results.isEmpty || operationType != nil) ? .success : .failure,
            // Attempts that ran: the one the safety cap refused did not.
            attempts: min(max(context.attempt, 1), context.safetyCap),
            error: failure.map(describe), results: results, operationType: operationType)
        if let last, let errors = last.errors, !errors.isEmpty {
            summary.graphQLErrors = errors.map(\.summary)
            summary.data = last.data.map(\.jsonString)
            if summary.outcome == .success {
                // Data with errors is partial; no data is no result (GraphQL over HTTP §7.1.2).
                if let data = last.data, data != .null {
                    summary.outcome = .partial
                } else {
                    summary.outcome = .failure
                    summary.error = "no data: \(errors.count == 1 ? "1 GraphQL error" : "\(errors.count) GraphQL errors"): \(summary.graphQLErrors.joined(separator: "; "))"
                }
            }
        }
        return (summary, watched)
    }

    /// Watches `operation` from now on, as its result `last` read it: each delivery is recorded
    /// on request `request` and counted in its summary's results.
    private func watch(_ operation: ChainOperation, from last: ChainResponse, request: Int, attempt: Int) {
        guard let keys = runtime.cache.dependentKeys(of: last, for: operation) else { return }
        let shared = runtime.operationShared, store = runtime.store, requests = self.requests, changed = self.changed
        let watcher = LabQueryWatcher(
            request: request, attempt: max(attempt, 1), operation: operation, dependentKeys: keys, now: { shared.seconds },
            snapshot: { shared.snapshots.snapshot(result: $0) }
        ) { event, reloaded in
            _ = store.append(event)
            if reloaded != nil { requests.addResult("cache (watcher)", to: request) }
            changed()
        }
        _ = runtime.cache.subscribe(watcher)
    }

    /// The scenario's operation `index` through the session's current chain, built from the
    /// layers' names.
    private func exchange(operation index: Int, context: OperationContext) -> Exchange? {
        let spec = scenario.operations[index]
        let environment = LayerEnvironment(
            clock: runtime.clock, store: runtime.cache, tokens: runtime.tokens, authFailure: remote?.authFailure ?? AuthFailure(), request: context.request
        ) { name, line in
            context.log(name: name, line: line)
        }
        switch chain.value {
        case .graphQL(let graphQL, let http):
            let interceptors = if let app {
                ChainRunner.Interceptors(provider: app.provider, operation: spec.graphQLOperation)
            } else {
                ChainRunner.Interceptors(
                    graphQL: graphQL.map { LayerRegistry.graphQLInterceptor($0, environment) },
                    cache: DefaultCacheInterceptor(store: runtime.cache),
                    http: http.map { LayerRegistry.httpInterceptor($0) },
                    parser: JSONResponseParsingInterceptor(cacheSchema: runtime.cache.schema))
            }
            let stamping = remote?.traceparent.map { traceparent in
                { (hop: any GraphQLTransport) -> any GraphQLTransport in TraceparentStampedTransport(base: hop, traceparent: traceparent, context: context) }
            }
            let instrumented = InstrumentedGraphQLChain(interceptors: interceptors, transport: graphQLTransport, context: context, wrappingTransportHop: stamping)
            return .graphQL(instrumented, graphQLRequest(spec))
        case .middleware(let layers):
            let instrumented = InstrumentedMiddlewareStack(
                middlewares: layers.map { LayerRegistry.middleware($0, environment) }, transport: clientTransport, context: context)
            // The scenario codec refuses a method that is not a token.
            var request = HTTPRequest(method: HTTPRequest.Method(spec.method ?? "GET") ?? .get, path: spec.path ?? "/heroes/2001")
            for field in remote?.headers ?? HTTPFields() { request.headerFields.append(field) }
            // A middleware chain's one pass is its attempt 1.
            if let traceparent = remote?.traceparent {
                request.headerFields = traceparent.adding(to: request.headerFields, request: context.request, attempt: 1)
            }
            var body: HTTPBody?
            if let json = spec.body {
                try? request.headerFields.set("Content-Type", "application/json")
                body = HTTPBody(Data(json.jsonString.utf8))
            }
            return .http(instrumented, request, body, baseURL: baseURL, operationID: spec.name)
        }
    }

    /// Request `index` of an app's own chain, through its own interceptors or middlewares;
    /// nil when it has no such request.
    private func exchange(custom: CustomChain, operation index: Int, context: OperationContext) -> Exchange? {
        switch custom {
        case .graphQL(let provider, let transport, let requests):
            guard requests.indices.contains(index) else { return nil }
            let request = requests[index]
            let instrumented = InstrumentedGraphQLChain(interceptors: .init(provider: provider, operation: request.operation), transport: transport, context: context)
            return .graphQL(instrumented, request)
        case .middleware(let middlewares, let transport, let baseURL, let requests):
            guard requests.indices.contains(index) else { return nil }
            let operation = requests[index]
            let instrumented = InstrumentedMiddlewareStack(middlewares: middlewares(), transport: transport, context: context)
            return .http(instrumented, operation.request, operation.body.map { HTTPBody($0) }, baseURL: baseURL, operationID: operation.operationID)
        }
    }

    private func graphQLRequest(_ spec: Scenario.Operation) -> ChainRequest {
        LabSession.graphQLRequest(spec, endpoint: endpoint, additionalHeaders: remote?.headers ?? HTTPFields())
    }
}

/// What a scenario operation sends; lint reads it too.
extension LabSession {
    /// The request a scenario operation starts (lint reads what it asks for from it).
    static func graphQLRequest(_ spec: Scenario.Operation, endpoint: URL, additionalHeaders: HTTPFields = HTTPFields()) -> ChainRequest {
        let operation = spec.graphQLOperation
        return ChainRequest(
            operation: operation, graphQLEndpoint: endpoint, additionalHeaders: additionalHeaders,
            fetchBehavior: fetchBehavior(spec.fetchBehavior, of: operation.kind), writeResultsToCache: spec.writeResultsToCache,
            apqConfig: AutoPersistedQueryConfiguration(autoPersistQueries: spec.autoPersistQueries, useGETForPersistedQueryRetry: spec.useGETForPersistedQueryRetry),
            useGETForQueries: spec.useGETForQueries, clientAwareness: spec.clientAwareness ?? ClientAwarenessMetadata())
    }

    /// What an operation of `kind` reads from the cache, as upstream's client decides: a
    /// mutation never (`perform` takes no cache policy), a subscription cache-then-network
    /// unless told otherwise (`subscribe`'s default), a query as the scenario says.
    static func fetchBehavior(_ given: FetchBehavior?, of kind: ChainOperation.Kind) -> FetchBehavior? {
        switch kind {
        case .mutation: .NetworkOnly
        case .subscription: given ?? .CacheAndNetwork
        case .query: given
        }
    }
}

/// A REST call that ended with a non-2xx status.
public struct HTTPStatusFailure: Error, Sendable, Hashable, CustomStringConvertible {
    public let status: Int
    public var description: String { "the server answered HTTP \(status)" }
}
