import Instrumentation
import Scheduling
import Backend
import ChainKit
import Foundation
import Timeline
import Scenarios

/// Running one operation of a session: its task, its chain built and instrumented, and the
/// summary of how it ended.
extension LabSession {
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
    /// what the lab has counted (``labCounters``); nothing for any other target.
    func readRemoteCounters() async {
        guard custom == nil, case .remote(let remote) = target, remote.isLab, let counters = await remote.counters() else { return }
        remoteCounters.withLock { $0 = counters }
        changed()
    }

    /// Starts request `request` for operation number `index` on its own task: it arrives at
    /// the launch stop first, and its summary is kept once it ends.
    func start(operation index: Int, request: Int) {
        let context = OperationContext(request: request, safetyCap: scenario.safetyCap, shared: operationShared)
        requests.start(request) {
            await LabContext.$operation.withValue(context) {
                _ = await context.gate(.launch, name: "launch", kind: .graphql)
                let (summary, watched) = await self.run(operation: index, context: context)
                self.requests.end(request, summary: summary)
                // Watched once its summary is there to count the deliveries in.
                if let watched { self.watch(watched.operation, from: watched.result, request: request, attempt: context.attempt) }
                self.store.markFinished(request: request)
                self.scheduler.finish(request: request)
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
        guard let keys = cache.dependentKeys(of: last, for: operation) else { return }
        let shared = operationShared, store = self.store, requests = self.requests, changed = self.changed
        let watcher = LabQueryWatcher(
            request: request, attempt: max(attempt, 1), operation: operation, dependentKeys: keys, now: { shared.seconds },
            snapshot: { shared.snapshots.snapshot(result: $0) }
        ) { event, reloaded in
            _ = store.append(event)
            if reloaded != nil { requests.addResult("cache (watcher)", to: request) }
            changed()
        }
        _ = cache.subscribe(watcher)
    }

    /// The scenario's operation `index` through the session's current chain, built from the
    /// layers' names.
    private func exchange(operation index: Int, context: OperationContext) -> Exchange? {
        let spec = scenario.operations[index]
        let environment = LayerEnvironment(
            clock: clock, store: cache, tokens: tokens, authFailure: remoteSetup?.authFailure ?? AuthFailure(), request: context.request
        ) { name, line in
            context.log(name: name, line: line)
        }
        switch chain {
        case .graphQL(let graphQL, let http):
            let interceptors = if let app {
                ChainRunner.Interceptors(provider: app.provider, operation: spec.graphQLOperation)
            } else {
                ChainRunner.Interceptors(
                    graphQL: graphQL.map { LayerRegistry.graphQLInterceptor($0, environment) },
                    cache: DefaultCacheInterceptor(store: cache),
                    http: http.map { LayerRegistry.httpInterceptor($0) },
                    parser: JSONResponseParsingInterceptor(cacheSchema: cache.schema))
            }
            let stamping = remoteSetup?.traceparent.map { traceparent in
                { (hop: any GraphQLTransport) -> any GraphQLTransport in TraceparentStampedTransport(base: hop, traceparent: traceparent, context: context) }
            }
            let instrumented = InstrumentedGraphQLChain(interceptors: interceptors, transport: graphQLTransport, context: context, wrappingTransportHop: stamping)
            return .graphQL(instrumented, graphQLRequest(spec))
        case .middleware(let layers):
            let instrumented = InstrumentedMiddlewareStack(
                middlewares: layers.map { LayerRegistry.middleware($0, environment) }, transport: clientTransport, context: context)
            // The scenario codec refuses a method that is not a token.
            var request = HTTPRequest(method: HTTPRequest.Method(spec.method ?? "GET") ?? .get, path: spec.path ?? "/heroes/2001")
            for field in remoteSetup?.headers ?? HTTPFields() { request.headerFields.append(field) }
            // A middleware chain's one pass is its attempt 1.
            if let traceparent = remoteSetup?.traceparent {
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
        Self.graphQLRequest(spec, endpoint: endpoint, additionalHeaders: remoteSetup?.headers ?? HTTPFields())
    }

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
