public import ChainKit
public import Foundation
public import Timeline

/// The operation whose task is running, for code that several operations share (the token
/// manager's refresh and its hooks).
enum LabContext {
    @TaskLocal static var operation: OperationContext?
}

/// The token endpoint's refusal of a refresh (RFC 6749 §5.2).
public struct TokenEndpointError: Error, Sendable, Hashable, CustomStringConvertible {
    public let status: Int
    /// The OAuth `error` code, e.g. `invalid_grant`.
    public let code: String
    public let detail: String?
    public var description: String {
        "token endpoint refused the refresh: HTTP \(status) \(code)" + (detail.map { " (\($0))" } ?? "")
    }
}

/// One lab run: a scenario's backend, clock, cache, tokens, timeline and scheduler, and the
/// operations launched into it.
///
/// ```swift
/// let session = LabSession(scenario: Catalog.scenario(named: "basics")!)
/// let result = await session.runHeadless()
/// result.requests.map(\.outcome) // [.success]
/// ```
public final class LabSession: Sendable {
    /// Where the in-process backend is addressed.
    public static let baseURL = URL(string: "https://lab.chainlab.local")!

    /// How a run ended.
    public struct RunResult: Sendable {
        public var requests: [RequestSummary]
        public var events: [TimelineEvent]
        public var backend: [String: Int]
        /// Requests that never finished (held at a stop with nobody to release them).
        public var unfinished: [Int]
        /// Commands the scheduler refused, e.g. a replay that diverged.
        public var refusals: [CommandRefusal]

        public var document: TraceDocument { TraceDocument(scenario: "", requests: requests, events: events, backend: backend) }
    }

    public let scenario: Scenario
    public let store: TimelineStore
    /// Where this session's OpenTelemetry traces start and where their ids come from: the
    /// fixed epoch and ids derived from the scenario on the lab backend; the wall clock and
    /// random ids against a real endpoint.
    public let otlpAnchor: OTLPExport.Anchor
    public let clock: VirtualClock
    /// The in-process backend (also present, unused, when the session talks to a real server).
    public let backend: LabBackend
    public let target: LabTarget
    public let cache: CacheStore
    public let tokens: TokenManager
    public let scheduler: Scheduler
    /// Snapshots the session's operations share.
    private let snapshots = SnapshotCache()
    private let currentChain: Locked<Scenario.Chain>
    private let custom: CustomChain?
    private let summariesByRequest = Locked<[Int: RequestSummary]>([:])
    private let hopLists = Locked<[Int: [HopInfo]]>([:])
    private let tasks = Locked<[Int: Task<Void, Never>]>([:])
    /// Requests whose operation task has not returned yet.
    private let unfinishedTasks = Locked<Set<Int>>([])
    private let graphQLTransport: any GraphQLTransport
    private let clientTransport: any ClientTransport
    private let endpoint: URL
    private let baseURL: URL

    /// - Parameters:
    ///   - defaultMode: how new operations treat stops (``Scheduler/RunMode/run`` headless,
    ///     ``Scheduler/RunMode/step`` for a person stepping).
    ///   - replay: recorded commands to carry out instead of the scenario's own launches.
    public convenience init(
        scenario: Scenario,
        store: TimelineStore = TimelineStore(),
        defaultMode: Scheduler.RunMode = .run,
        replay: [RecordedCommand]? = nil,
        recordsLog: Bool = true,
        onChange: @escaping @Sendable () -> Void = {}
    ) {
        let clock = VirtualClock()
        let backend = LabBackend(settings: scenario.backend, now: { clock.seconds })
        let initial: TokenPair
        switch scenario.token {
        case .valid: initial = backend.issueTokens()
        case .expired:
            initial = backend.issueTokens()
            backend.expireAllAccessTokens()
        case .none: initial = TokenPair(accessToken: "", refreshToken: nil)
        }
        self.init(
            scenario: scenario, store: store, clock: clock, backend: backend, target: .inProcess(backend),
            transports: (LabGraphQLTransport(backend: backend, clock: clock), LabClientTransport(backend: backend, clock: clock)),
            baseURL: LabSession.baseURL, tokens: initial, defaultMode: defaultMode, replay: replay, recordsLog: recordsLog, onChange: onChange)
    }

    /// A session on an app's own chain (see ``CustomChain``): `n` starts its requests in
    /// turn, every hop instrumented. There is no lab backend behind it.
    public convenience init(name: String, chain: CustomChain, defaultMode: Scheduler.RunMode = .step, onChange: @escaping @Sendable () -> Void = {}) {
        let clock = VirtualClock()
        let backend = LabBackend(now: { clock.seconds })
        let operations = chain.operationNames.map { Scenario.Operation(name: $0) }
        let scenario = Scenario(
            name: name, summary: "Your own chain, instrumented.",
            teaches: "Every interceptor of your provider (or every middleware) is a hop with a stop on each side: step, edit headers, force 401s and retries as with the lab's scenarios. Operations go to your transport.",
            chain: chain.displayChain, operations: operations.isEmpty ? [Scenario.Operation(name: "none")] : operations)
        let transports: (any GraphQLTransport, any ClientTransport) = switch chain {
        case .graphQL(_, let transport, _): (transport, LabClientTransport(backend: backend, clock: clock))
        case .middleware(_, let transport, _, _): (LabGraphQLTransport(backend: backend, clock: clock), transport)
        }
        self.init(
            scenario: scenario, store: TimelineStore(), clock: clock, backend: backend, target: .inProcess(backend), transports: transports,
            baseURL: LabSession.baseURL, tokens: TokenPair(accessToken: ""), defaultMode: defaultMode, replay: nil, recordsLog: true,
            onChange: onChange, custom: chain)
    }

    /// A session whose operations go to a real server at `baseURL` through
    /// `URLSessionTransport` (`--endpoint`). It signs in with the lab's demo account when
    /// the server has a ChainLab token endpoint, and expires that token for scenarios that
    /// start with an expired one.
    public static func connect(
        scenario: Scenario,
        baseURL: URL,
        store: TimelineStore = TimelineStore(),
        defaultMode: Scheduler.RunMode = .run,
        replay: [RecordedCommand]? = nil,
        onChange: @escaping @Sendable () -> Void = {}
    ) async throws -> LabSession {
        let clock = VirtualClock()
        let remote = RemoteLab(baseURL: baseURL)
        var initial = TokenPair(accessToken: "", refreshToken: nil)
        if scenario.token != .none {
            initial = try await remote.signIn()
            if scenario.token == .expired { try await remote.expireTokens() }
        }
        let transport = URLSessionTransport()
        return LabSession(
            scenario: scenario, store: store, clock: clock, backend: LabBackend(settings: scenario.backend, now: { clock.seconds }),
            target: .remote(remote), transports: (transport, transport), baseURL: baseURL, tokens: initial,
            defaultMode: defaultMode, replay: replay, recordsLog: true, onChange: onChange)
    }

    init(
        scenario: Scenario, store: TimelineStore, clock: VirtualClock, backend: LabBackend, target: LabTarget,
        transports: (graphQL: any GraphQLTransport, client: any ClientTransport), baseURL: URL, tokens initial: TokenPair,
        defaultMode: Scheduler.RunMode, replay: [RecordedCommand]?, recordsLog: Bool, onChange: @escaping @Sendable () -> Void,
        custom: CustomChain? = nil
    ) {
        self.custom = custom
        self.scenario = scenario
        self.currentChain = Locked(scenario.chain)
        self.store = store
        self.clock = clock
        self.backend = backend
        self.target = target
        self.otlpAnchor = target.isRemote ? .wallClock() : .lab(scenario: scenario.name)
        self.cache = CacheStore()
        self.baseURL = baseURL
        self.endpoint = baseURL.appendingPathComponent("graphql")
        self.graphQLTransport = transports.graphQL
        self.clientTransport = transports.client
        let launcher = Locked<(@Sendable (Int, Int) -> Void)?>(nil)
        let scheduler = Scheduler(
            environment: Scheduler.Environment(
                record: { event in _ = store.append(event) },
                now: { clock.seconds },
                launch: { operation, request in launcher.value?(operation, request) },
                advanceClock: { seconds in clock.advance(by: .milliseconds(Int64((seconds * 1000).rounded()))) },
                expireTokens: {
                    switch target {
                    case .inProcess(let backend): backend.expireAllAccessTokens()
                    case .remote(let remote): Task { try? await remote.expireTokens() }
                    }
                },
                changed: onChange),
            defaultMode: defaultMode, script: replay == nil ? scenario.script : [], replay: replay, recordsLog: recordsLog)
        self.scheduler = scheduler
        let tokenURL = self.baseURL.appendingPathComponent("oauth/token").absoluteString
        self.tokens = TokenManager(
            tokens: initial, strategy: scenario.refreshStrategy,
            hooks: TokenManager.Hooks(
                willAwaitSharedRefresh: {
                    if let operation = LabContext.operation { operation.scheduler.block(request: operation.request) }
                },
                didAwaitSharedRefresh: {
                    guard let operation = LabContext.operation else { return }
                    _ = await operation.gate(.wake, name: "TokenManager", kind: .auth)
                    // Says which attempt waited for another's refresh (an OTLP span link); at
                    // its turn, past the gate, so the timeline's order stays determined.
                    operation.emit(nil, .resumed, detail: "woke after the shared refresh")
                }),
            refresher: { refreshToken in
                try await LabSession.refresh(refreshToken, target: target, clock: clock, tokenURL: tokenURL)
            })
        if scenario.prefillCache, let first = scenario.operations.first {
            cache.write(GraphQLResponse(source: .server, data: ["hero": ["id": "2001", "name": "R2-D2 (cached)"]]), for: Self.graphQLOperation(first))
        }
        launcher.withLock { $0 = { [weak self] operation, request in self?.start(operation: operation, request: request) } }
    }

    // MARK: - Running

    /// Launches the scenario's operations (or replays), runs until nothing can move, and
    /// reports what happened.
    public func runHeadless() async -> RunResult {
        if !scheduler.isReplaying {
            for operation in scenario.launch { scheduler.submit(.launch(operation: operation)) }
        }
        await scheduler.waitUntilSettled()
        var result = result()
        if case .remote(let remote) = target { result.backend = await remote.counters() }
        return result
    }

    /// Launches operation number `operation` of the scenario (what `n` does).
    public func launch(operation: Int = 0) {
        scheduler.submit(.launch(operation: operation))
    }

    /// What has happened so far.
    public func result() -> RunResult {
        let snapshot = scheduler.snapshot
        let summaries = summariesByRequest.value
        return RunResult(
            requests: summaries.keys.sorted().map { summaries[$0]! },
            events: store.events(), backend: target.isRemote ? [:] : backend.counters,
            unfinished: snapshot.launched.keys.filter { summaries[$0] == nil }.sorted(),
            refusals: snapshot.refusals)
    }

    /// The hops of request `request`'s chain, from the top (empty until it starts).
    public func hops(of request: Int) -> [HopInfo] {
        hopLists.value[request] ?? []
    }

    /// The chain new operations go through: the scenario's, unless reordered.
    public var chain: Scenario.Chain { currentChain.value }

    /// Replaces the chain for operations launched from now on (running ones keep theirs).
    public func setChain(_ chain: Scenario.Chain) {
        currentChain.withLock { $0 = chain }
    }

    /// The hops the current chain has, from the top, before any request runs.
    public var chainHops: [HopInfo] {
        switch chain {
        case .graphQL(let graphQL, let http):
            var hops = graphQL.enumerated().map { HopInfo(index: $0.offset, name: $0.element.name, kind: .graphql) }
            hops.append(HopInfo(index: hops.count, name: "cache", kind: .cache))
            for layer in http { hops.append(HopInfo(index: hops.count, name: layer.name, kind: .http)) }
            hops.append(HopInfo(index: hops.count, name: "transport", kind: .transport))
            hops.append(HopInfo(index: hops.count, name: "JSONResponseParsingInterceptor", kind: .parser))
            return hops
        case .middleware(let layers):
            var hops = layers.enumerated().map { HopInfo(index: $0.offset, name: $0.element.name, kind: .middleware) }
            hops.append(HopInfo(index: hops.count, name: "transport", kind: .transport))
            return hops
        }
    }

    /// The summaries of every finished request, by id.
    public var summaries: [Int: RequestSummary] { summariesByRequest.value }

    /// A summary of request `request`, once it finished.
    public func summary(of request: Int) -> RequestSummary? {
        summariesByRequest.value[request]
    }

    /// How many operations' tasks have not returned yet, whether running, waiting for their
    /// turn or held at a stop. 0 once ``shutDown()`` has returned: quitting leaks no task.
    public var activeTaskCount: Int { unfinishedTasks.value.count }

    /// Ends every operation: waiting ones are released with a cancellation, and this returns
    /// when all their tasks have finished.
    public func shutDown() async {
        scheduler.shutDown()
        for task in tasks.value.values { task.cancel() }
        for task in tasks.value.values { await task.value }
    }

    private func start(operation index: Int, request: Int) {
        let context = OperationContext(
            request: request, scheduler: scheduler, safetyCap: scenario.safetyCap,
            store: store, snapshots: snapshots, now: { [clock] in clock.seconds })
        unfinishedTasks.withLock { _ = $0.insert(request) }
        let task = Task {
            await LabContext.$operation.withValue(context) {
                _ = await context.gate(.launch, name: "launch", kind: .graphql)
                let summary = await self.run(operation: index, context: context)
                self.summariesByRequest.withLock { $0[request] = summary }
                self.store.markFinished(request: request)
                self.scheduler.finish(request: request)
            }
            self.unfinishedTasks.withLock { _ = $0.remove(request) }
        }
        tasks.withLock { $0[request] = task }
    }

    private func run(operation index: Int, context: OperationContext) async -> RequestSummary {
        if let custom { return await run(custom: custom, operation: index, context: context) }
        let spec = scenario.operations[index]
        let environment = LayerEnvironment(clock: clock, store: cache, tokens: tokens, request: context.request) { name, line in
            context.log(name: name, line: line)
        }
        var results: [String] = []
        var failure: (any Error)?
        var operationType: String?
        switch chain {
        case .graphQL(let graphQL, let http):
            operationType = Self.graphQLOperation(spec).kind.rawValue
            let interceptors = RequestChain.Interceptors(
                graphQL: graphQL.map { LayerRegistry.graphQLInterceptor($0, environment) },
                cache: DefaultCacheInterceptor(store: cache),
                http: http.map { LayerRegistry.httpInterceptor($0) },
                parser: JSONResponseParsingInterceptor())
            let instrumented = InstrumentedGraphQLChain(interceptors: interceptors, transport: graphQLTransport, context: context)
            hopLists.withLock { $0[context.request] = instrumented.hops }
            do {
                for try await response in instrumented.chain.kickoff(request: graphQLRequest(spec)) {
                    results.append(response.source.rawValue)
                }
            } catch {
                failure = error
            }
        case .middleware(let layers):
            let instrumented = InstrumentedMiddlewareStack(
                middlewares: layers.map { LayerRegistry.middleware($0, environment) }, transport: clientTransport, context: context)
            hopLists.withLock { $0[context.request] = instrumented.hops }
            do {
                let request = HTTPRequest(method: HTTPMethod(rawValue: spec.method ?? "GET"), path: spec.path ?? "/heroes/2001")
                let (response, _) = try await instrumented.stack.send(request, body: nil, baseURL: baseURL, operationID: spec.name)
                results.append("server \(response.status)")
                if !response.isSuccess { failure = HTTPStatusFailure(status: response.status) }
            } catch {
                failure = error
            }
        }
        return RequestSummary(
            id: context.request, operation: spec.name,
            outcome: failure == nil && !results.isEmpty ? .success : .failure,
            attempts: max(context.attempt, 1), error: failure.map(describe), results: results, operationType: operationType)
    }

    private func run(custom: CustomChain, operation index: Int, context: OperationContext) async -> RequestSummary {
        var results: [String] = []
        var failure: (any Error)?
        var operationType: String?
        let name = scenario.operations[index].name
        switch custom {
        case .graphQL(let provider, let transport, let requests):
            guard requests.indices.contains(index) else { break }
            let request = requests[index]
            operationType = request.operation.kind.rawValue
            let instrumented = InstrumentedGraphQLChain(interceptors: .init(provider: provider, operation: request.operation), transport: transport, context: context)
            hopLists.withLock { $0[context.request] = instrumented.hops }
            do {
                for try await response in instrumented.chain.kickoff(request: request) { results.append(response.source.rawValue) }
            } catch {
                failure = error
            }
        case .middleware(let middlewares, let transport, let baseURL, let requests):
            guard requests.indices.contains(index) else { break }
            let operation = requests[index]
            let instrumented = InstrumentedMiddlewareStack(middlewares: middlewares(), transport: transport, context: context)
            hopLists.withLock { $0[context.request] = instrumented.hops }
            do {
                let (response, _) = try await instrumented.stack.send(operation.request, body: operation.body.map { HTTPBody($0) }, baseURL: baseURL, operationID: operation.operationID)
                results.append("server \(response.status)")
                if !response.isSuccess { failure = HTTPStatusFailure(status: response.status) }
            } catch {
                failure = error
            }
        }
        return RequestSummary(
            id: context.request, operation: name, outcome: failure == nil && !results.isEmpty ? .success : .failure,
            attempts: max(context.attempt, 1), error: failure.map(describe), results: results, operationType: operationType)
    }

    private func graphQLRequest(_ spec: Scenario.Operation) -> GraphQLRequest {
        GraphQLRequest(
            operation: Self.graphQLOperation(spec), graphQLEndpoint: endpoint, fetchBehavior: spec.fetchBehavior,
            apqConfig: AutoPersistQueryConfiguration(autoPersistQueries: spec.autoPersistQueries, useGETForPersistedQueryRetry: spec.useGETForPersistedQueryRetry),
            useGETForQueries: spec.useGETForQueries, clientAwareness: spec.clientAwareness)
    }

    static func graphQLOperation(_ spec: Scenario.Operation) -> GraphQLOperation {
        switch spec.name {
        case "RenameHero": LabOperations.renameHero(name: spec.variables?["name"]?.stringValue ?? "Artoo")
        case "HeroDetailsQuery": LabOperations.heroDetailsQuery(id: spec.variables?["id"]?.stringValue ?? "2001")
        default: LabOperations.heroQuery
        }
    }

    /// Sends a `refresh_token` grant to the backend's token endpoint, with a stop before it
    /// and an `auth`/`refresh` event for its answer.
    static func refresh(_ refreshToken: String, target: LabTarget, clock: VirtualClock, tokenURL: String) async throws -> TokenPair {
        let form = "grant_type=refresh_token&refresh_token=\(refreshToken)"
        var headers = HTTPFields()
        try headers.append("Content-Type", "application/x-www-form-urlencoded")
        let operation = LabContext.operation
        operation?.scheduler.refreshStarted()
        defer { operation?.scheduler.refreshEnded() }
        if let operation {
            let release = await operation.gate(
                .refresh, name: "TokenManager", kind: .auth,
                snapshot: HopSnapshot(method: "POST", url: tokenURL, headers: headers, body: BodyPreview(Data(form.utf8))),
                capabilities: StopCapabilities(retryRefusal: "a refresh cannot be retried; force the retry at a GraphQL hop"))
            if case .fail(let fault) = release.disposition {
                operation.emit(nil, .refresh, HopSnapshot(error: fault), detail: "refresh_token grant")
                throw fault
            }
        }
        // The grant as sent, so exports show when the refresh started and what it sent.
        operation?.emit(
            nil, .send, HopSnapshot(method: "POST", url: tokenURL, headers: headers, body: BodyPreview(Data(form.utf8))),
            detail: "refresh_token grant")
        let response: BackendResponse
        do {
            response = try await target.exchange(BackendRequest(method: "POST", target: "/oauth/token", headers: headers, body: Data(form.utf8)), clock: clock)
        } catch {
            operation?.emit(nil, .refresh, HopSnapshot(error: error), detail: "refresh_token grant")
            throw error
        }
        let json = try? JSONValue(parsing: response.body)
        let code = json?["error"]?.stringValue
        operation?.emit(
            nil, .refresh,
            HopSnapshot(method: "POST", url: tokenURL, headers: response.headers, status: response.status, error: code, body: BodyPreview(response.body)),
            detail: "refresh_token grant")
        guard response.status == 200, let access = json?["access_token"]?.stringValue else {
            throw TokenEndpointError(status: response.status, code: code ?? "invalid_response", detail: json?["error_description"]?.stringValue)
        }
        return TokenPair(accessToken: access, refreshToken: json?["refresh_token"]?.stringValue ?? refreshToken)
    }
}

/// A REST call that ended with a non-2xx status.
public struct HTTPStatusFailure: Error, Sendable, Hashable, CustomStringConvertible {
    public let status: Int
    public var description: String { "the server answered HTTP \(status)" }
}
