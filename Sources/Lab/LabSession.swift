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
        /// The lab backend's counters; empty when the server is not a ChainLab lab.
        public var backend: [String: Int]
        /// Whether the server is a ChainLab lab with counters (false on a plain server).
        public var hasLabControls = true
        /// ``backend``, or nil when the server has no counters to report.
        public var backendCounters: [String: Int]? { hasLabControls ? backend : nil }
        /// Requests that never finished (held at a stop with nobody to release them).
        public var unfinished: [Int]
        /// Commands the scheduler refused, e.g. a replay that diverged.
        public var refusals: [CommandRefusal]

        /// Why the server failed, in order, when a real one did (unreachable, too large…).
        public var networkFailures: [RemoteFailure] = []

        /// What the run proves, from its events and outcomes (``RunFindings``).
        public var findings: [Finding] { RunFindings.detect(events: events, requests: requests) }

        public var document: TraceDocument { TraceDocument(scenario: "", requests: requests, events: events, backend: backendCounters, findings: findings) }
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
    private let remoteSetup: RemoteSetup?

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

    /// A session whose operations go to the ChainLab lab at `baseURL` (`chainlab serve`).
    public static func connect(
        scenario: Scenario,
        baseURL: URL,
        store: TimelineStore = TimelineStore(),
        defaultMode: Scheduler.RunMode = .run,
        replay: [RecordedCommand]? = nil,
        onChange: @escaping @Sendable () -> Void = {}
    ) async throws -> LabSession {
        try await connect(scenario: scenario, remote: RemoteOptions(endpoint: baseURL), store: store, defaultMode: defaultMode, replay: replay, onChange: onChange)
    }

    /// A session whose operations go to the real server `remote.endpoint` names.
    ///
    /// It first asks the server whether it is a ChainLab lab (`GET /_lab/state`). A lab is
    /// signed in to with its demo account (unless `remote.token` is given) and its tokens
    /// expired for scenarios that start with an expired one; any other server is *plain*:
    /// no sign-in, no `/_lab/` call, the operations go to the endpoint as given with
    /// `remote.token`, and refreshes go to `remote.tokenEndpoint` when there is one.
    /// - Throws: ``RemoteFailure`` when the server cannot be reached.
    public static func connect(
        scenario: Scenario,
        remote options: RemoteOptions,
        store: TimelineStore = TimelineStore(),
        defaultMode: Scheduler.RunMode = .run,
        replay: [RecordedCommand]? = nil,
        onChange: @escaping @Sendable () -> Void = {}
    ) async throws -> LabSession {
        let clock = VirtualClock()
        let client = RemoteHTTPClient(timeout: options.timeout)
        let remote = try await RemoteLab.detect(endpoint: options.endpoint, client: client)
        var initial = TokenPair(accessToken: options.token ?? "", refreshToken: options.refreshToken)
        if remote.isLab, options.token == nil, scenario.token != .none {
            initial = try await remote.signIn()
            if scenario.token == .expired { try await remote.expireTokens() }
        }
        let transport = RemoteTransport(client: client, maxBodyBytes: options.maxBodyBytes, clock: clock)
        let source: TokenSource = options.tokenEndpoint.map { .oauth($0, client) } ?? .lab
        return LabSession(
            scenario: scenario, store: store, clock: clock, backend: LabBackend(settings: scenario.backend, now: { clock.seconds }),
            target: .remote(remote), transports: (transport, transport), baseURL: remote.restBaseURL, tokens: initial,
            defaultMode: defaultMode, replay: replay, recordsLog: true, onChange: onChange,
            remote: RemoteSetup(graphQLEndpoint: remote.graphQLEndpoint, headers: options.headers, tokenSource: source, transport: transport))
    }

    init(
        scenario: Scenario, store: TimelineStore, clock: VirtualClock, backend: LabBackend, target: LabTarget,
        transports: (graphQL: any GraphQLTransport, client: any ClientTransport), baseURL: URL, tokens initial: TokenPair,
        defaultMode: Scheduler.RunMode, replay: [RecordedCommand]?, recordsLog: Bool, onChange: @escaping @Sendable () -> Void,
        custom: CustomChain? = nil, remote: RemoteSetup? = nil
    ) {
        self.custom = custom
        self.remoteSetup = remote
        self.scenario = scenario
        self.currentChain = Locked(scenario.chain)
        self.store = store
        self.clock = clock
        self.backend = backend
        self.target = target
        self.otlpAnchor = target.isRemote ? .wallClock() : .lab(scenario: scenario.name)
        self.cache = CacheStore()
        self.baseURL = baseURL
        self.endpoint = remote?.graphQLEndpoint ?? baseURL.appendingPathComponent("graphql")
        self.graphQLTransport = transports.graphQL
        self.clientTransport = transports.client
        let launcher = Locked<(@Sendable (Int, Int) -> Void)?>(nil)
        let scheduler = Scheduler(
            environment: Scheduler.Environment(
                record: { event in _ = store.append(event) },
                now: { clock.seconds },
                launch: { operation, request in launcher.value?(operation, request) },
                advanceClock: { seconds in clock.advance(by: .milliseconds(Int64(saturating: seconds * 1000))) },
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
        let presented = RefreshTokenNumbers()
        let hooks = TokenManager.Hooks(
            willAwaitSharedRefresh: {
                if let operation = LabContext.operation { operation.scheduler.block(request: operation.request) }
            },
            didAwaitSharedRefresh: {
                guard let operation = LabContext.operation else { return }
                _ = await operation.gate(.wake, name: "TokenManager", kind: .auth)
                // Says which attempt waited for another's refresh (an OTLP span link); at
                // its turn, past the gate, so the timeline's order stays determined.
                operation.emit(nil, .resumed, detail: RefreshNote.released)
            })
        switch remote?.tokenSource ?? .lab {
        case .lab:
            self.tokens = TokenManager(tokens: initial, strategy: scenario.refreshStrategy, hooks: hooks) { refreshToken in
                let form = "grant_type=refresh_token&refresh_token=\(refreshToken)"
                return try await LabSession.refresh(
                    note: RefreshNote.grant(refreshToken: presented.number(of: refreshToken)), form: form,
                    headers: try LabSession.formHeaders(), url: tokenURL, refreshToken: refreshToken
                ) { headers in
                    try await target.exchange(BackendRequest(method: "POST", target: "/oauth/token", headers: headers, body: Data(form.utf8)), clock: clock)
                }
            }
        case .oauth(let endpoint, let client):
            // A grant, not a refresher: without a refresh token it asks for client credentials.
            self.tokens = TokenManager(tokens: initial, strategy: scenario.refreshStrategy, hooks: hooks, grant: { refreshToken in
                let form = endpoint.form(refreshToken: refreshToken)
                return try await LabSession.refresh(
                    note: refreshToken.map { RefreshNote.grant(refreshToken: presented.number(of: $0)) } ?? "client_credentials grant",
                    form: form, headers: try endpoint.headers(),
                    url: RemoteFailure.displayURL(endpoint.url), refreshToken: refreshToken
                ) { headers in
                    try await client.exchange(url: endpoint.url, method: "POST", headers: headers, body: Data(form.utf8), limit: RemoteLab.controlAnswerLimit)
                }
            })
        }
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
        if case .remote(let remote) = target { result.backend = await remote.counters() ?? [:] }
        result.networkFailures = remoteSetup?.transport.failures ?? []
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
        var result = RunResult(
            requests: summaries.keys.sorted().map { summaries[$0]! },
            events: store.events(), backend: target.isRemote ? [:] : backend.counters,
            unfinished: snapshot.launched.keys.filter { summaries[$0] == nil }.sorted(),
            refusals: snapshot.refusals)
        result.hasLabControls = target.hasLabControls
        return result
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

    /// Whether the server has the lab's controls (expiring tokens, counters): false on a
    /// plain server reached with `--endpoint`.
    public var hasLabControls: Bool { target.hasLabControls }

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
        guard scenario.operations.indices.contains(index) else {
            // A library caller's `launch(operation:)` out of range; files are checked before they run.
            return RequestSummary(
                id: context.request, operation: "#\(index)", outcome: .failure, attempts: 0,
                error: "operation \(index) does not exist; the scenario has \(scenario.operations.count)", results: [])
        }
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
                var request = HTTPRequest(method: HTTPMethod(rawValue: spec.method ?? "GET"), path: spec.path ?? "/heroes/2001")
                for field in remoteSetup?.headers ?? HTTPFields() { request.headerFields.append(field) }
                var body: HTTPBody?
                if let json = spec.body {
                    try? request.headerFields.set("Content-Type", "application/json")
                    body = HTTPBody(Data(json.jsonString.utf8))
                }
                let (response, _) = try await instrumented.stack.send(request, body: body, baseURL: baseURL, operationID: spec.name)
                results.append("server \(response.status)")
                if !response.isSuccess { failure = HTTPStatusFailure(status: response.status) }
            } catch {
                failure = error
            }
        }
        return RequestSummary(
            id: context.request, operation: spec.name,
            outcome: failure == nil && !results.isEmpty ? .success : .failure,
            attempts: Self.attemptsMade(context), error: failure.map(describe), results: results, operationType: operationType)
    }

    /// Attempts that ran: the one the safety cap refused did not.
    private static func attemptsMade(_ context: OperationContext) -> Int {
        min(max(context.attempt, 1), context.safetyCap)
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
            attempts: Self.attemptsMade(context), error: failure.map(describe), results: results, operationType: operationType)
    }

    private func graphQLRequest(_ spec: Scenario.Operation) -> GraphQLRequest {
        Self.graphQLRequest(spec, endpoint: endpoint, additionalHeaders: remoteSetup?.headers ?? HTTPFields())
    }

    /// The request a scenario operation starts (lint reads what it asks for from it).
    static func graphQLRequest(_ spec: Scenario.Operation, endpoint: URL, additionalHeaders: HTTPFields = HTTPFields()) -> GraphQLRequest {
        GraphQLRequest(
            operation: Self.graphQLOperation(spec), graphQLEndpoint: endpoint, additionalHeaders: additionalHeaders,
            fetchBehavior: spec.fetchBehavior,
            apqConfig: AutoPersistQueryConfiguration(autoPersistQueries: spec.autoPersistQueries, useGETForPersistedQueryRetry: spec.useGETForPersistedQueryRetry),
            useGETForQueries: spec.useGETForQueries, clientAwareness: spec.clientAwareness)
    }

    static func graphQLOperation(_ spec: Scenario.Operation) -> GraphQLOperation {
        if let document = spec.document {
            return GraphQLOperation(name: spec.name, kind: spec.kind ?? .query, document: document, variables: spec.variables)
        }
        return switch spec.name {
        case "RenameHero": LabOperations.renameHero(name: spec.variables?["name"]?.stringValue ?? "Artoo")
        case "HeroDetailsQuery": LabOperations.heroDetailsQuery(id: spec.variables?["id"]?.stringValue ?? "2001")
        case "HeroDeferQuery": LabOperations.heroDeferQuery
        case "HeroNameChanged": LabOperations.heroNameChanged
        default: LabOperations.heroQuery
        }
    }

    static func formHeaders() throws -> HTTPFields {
        var headers = HTTPFields()
        try headers.append("Content-Type", "application/x-www-form-urlencoded")
        return headers
    }

    /// Sends a grant to a token endpoint with `exchange`, with a stop before it and an
    /// `auth`/`refresh` event for its answer; an `error` answer (RFC 6749 §5.2) becomes a
    /// ``TokenEndpointError``. A new refresh token in the answer replaces the old one
    /// (rotation); without one the old one stays.
    /// `note` is the events' detail: for a `refresh_token` grant it numbers the refresh token
    /// presented (``RefreshNote``), so findings can tell two refreshes presented the same one
    /// without the secret being recorded.
    static func refresh(
        note: String, form: String, headers: HTTPFields, url: String, refreshToken: String?,
        exchange: @Sendable (HTTPFields) async throws -> BackendResponse
    ) async throws -> TokenPair {
        let detail = note
        let operation = LabContext.operation
        operation?.scheduler.refreshStarted()
        defer { operation?.scheduler.refreshEnded() }
        if let operation {
            let release = await operation.gate(
                .refresh, name: "TokenManager", kind: .auth,
                snapshot: HopSnapshot(method: "POST", url: url, headers: headers, body: BodyPreview(Data(form.utf8))),
                capabilities: StopCapabilities(retryRefusal: "a refresh cannot be retried; force the retry at a GraphQL hop"))
            if case .fail(let fault) = release.disposition {
                operation.emit(nil, .refresh, HopSnapshot(error: fault), detail: detail)
                throw fault
            }
        }
        // The grant as sent, so exports show when the refresh started and what it sent.
        operation?.emit(
            nil, .send, HopSnapshot(method: "POST", url: url, headers: headers, body: BodyPreview(Data(form.utf8))),
            detail: detail)
        let response: BackendResponse
        do {
            response = try await exchange(headers)
        } catch {
            operation?.emit(nil, .refresh, HopSnapshot(error: error), detail: detail)
            throw error
        }
        let json = try? JSONValue(parsing: response.body)
        let code = json?["error"]?.stringValue
        operation?.emit(
            nil, .refresh,
            HopSnapshot(method: "POST", url: url, headers: response.headers, status: response.status, error: code, body: BodyPreview(response.body)),
            detail: detail)
        guard response.status == 200, let access = json?["access_token"]?.stringValue else {
            let fallback = json == nil ? "the answer is not JSON (\(response.body.count) bytes)" : "the answer has no access_token"
            throw TokenEndpointError(status: response.status, code: code ?? "invalid_response", detail: json?["error_description"]?.stringValue ?? (code == nil ? fallback : nil))
        }
        return TokenPair(accessToken: access, refreshToken: json?["refresh_token"]?.stringValue ?? refreshToken)
    }
}

/// How a session reaches a real server: what `--endpoint` and its companions set.
///
/// ```swift
/// var options = RemoteOptions(endpoint: URL(string: "https://api.example.com/graphql")!)
/// options.token = ProcessInfo.processInfo.environment["API_TOKEN"]
/// let session = try await LabSession.connect(scenario: scenario, remote: options)
/// ```
public struct RemoteOptions: Sendable {
    /// The server: a lab's base URL, or a plain server's GraphQL endpoint (or REST base URL).
    public var endpoint: URL
    /// Headers added to every request (`--header`).
    public var headers: HTTPFields
    /// The access token the auth layers send (`--token`); nil: none on a plain server, the
    /// demo account's on a lab.
    public var token: String?
    /// The refresh token for the first refresh (`--refresh-token-env`).
    public var refreshToken: String?
    /// A real token endpoint to refresh at (`--oauth-token-url`); nil: the lab's.
    public var tokenEndpoint: OAuthTokenEndpoint?
    /// The most of a response body read (`--max-body`).
    public var maxBodyBytes: Int
    /// Seconds without an answer before an exchange fails (`--timeout`).
    public var timeout: Double

    public init(
        endpoint: URL, headers: HTTPFields = HTTPFields(), token: String? = nil, refreshToken: String? = nil,
        tokenEndpoint: OAuthTokenEndpoint? = nil, maxBodyBytes: Int = 1 << 20, timeout: Double = 30
    ) {
        self.endpoint = endpoint
        self.headers = headers
        self.token = token
        self.refreshToken = refreshToken
        self.tokenEndpoint = tokenEndpoint
        self.maxBodyBytes = maxBodyBytes
        self.timeout = timeout
    }
}

/// Where the token manager renews tokens.
enum TokenSource: Sendable {
    /// The lab backend's `/oauth/token`, in process or over HTTP.
    case lab
    /// A real RFC 6749 token endpoint.
    case oauth(OAuthTokenEndpoint, RemoteHTTPClient)
}

/// What a session on a real server keeps beyond a lab session.
struct RemoteSetup: Sendable {
    var graphQLEndpoint: URL
    var headers: HTTPFields
    var tokenSource: TokenSource
    var transport: RemoteTransport
}

/// A REST call that ended with a non-2xx status.
public struct HTTPStatusFailure: Error, Sendable, Hashable, CustomStringConvertible {
    public let status: Int
    public var description: String { "the server answered HTTP \(status)" }
}
