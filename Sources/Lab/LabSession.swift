// The scheduler, the instrumentation and the scenarios are part of the lab's API: whoever
// imports Lab drives the one (`LabCommand`…), reads the other's hops (`HopInfo`) and picks
// or writes what to run (`Scenario`, `Catalog`, `ScenarioCodec`).
@_exported public import Scheduling
@_exported public import Instrumentation
@_exported public import Scenarios
import Findings
import Backend
public import ChainKit
public import Foundation
public import Timeline
public import Exports
public import Outbound

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
        /// The lab backend's counters; empty when the run has none (see ``hasLabControls``).
        public var backend: [String: Int]
        /// Whether the run has a lab's counters: the in-process lab's, or a remote lab's as
        /// ``LabSession/runHeadless()`` reads them at the end (``LabSession/result()`` gives
        /// them as read after the last request ended); false on a plain server and for an
        /// app's own chain.
        public var hasLabControls = true
        /// ``backend``, or nil when the server has no counters to report.
        public var backendCounters: [String: Int]? { hasLabControls ? backend : nil }
        /// Requests that never finished (held at a stop with nobody to release them).
        public var unfinished: [Int]
        /// Commands the scheduler refused, e.g. a replay that diverged.
        public var refusals: [CommandRefusal]

        /// Why the server failed, in order, when a real one did (unreachable, too large…).
        public var networkFailures: [RemoteFailure] = []
        /// Whether `https://` certificates went unchecked during the run (`--insecure`,
        /// ``HTTPSTrust/unverified``): every export says so.
        public var tlsUnverified = false

        /// What the run proves, from its events and outcomes (``RunFindings``).
        public var findings: [Finding] { keptFindings ?? RunFindings.detect(events: events, requests: requests) }
        /// The whole run's findings, kept when the result was filtered down to some requests.
        var keptFindings: [Finding]?

        public var document: TraceDocument {
            TraceDocument(scenario: "", requests: requests, events: events, backend: backendCounters, findings: findings, tlsUnverified: tlsUnverified)
        }
    }

    public let scenario: Scenario
    /// Where this session's OpenTelemetry traces start and where their ids come from: the
    /// fixed epoch and ids derived from the scenario on the lab backend; the wall clock and
    /// random ids against a real endpoint.
    public let otlpAnchor: OTLPExport.Anchor
    /// The clock, backend, cache, tokens, store and scheduler the operations run on.
    let runtime: LabRuntime
    /// What starts the operations, and the requests it started (``Launcher/requests``).
    let launcher: Launcher

    public var clock: VirtualClock { runtime.clock }
    public var cache: CacheStore { runtime.cache }
    public var tokens: TokenManager { runtime.tokens }
    /// Where the operations record their events; read it through ``timeline(upTo:)``.
    var store: TimelineStore { runtime.store }
    /// The in-process backend or the real server the operations reach.
    var target: LabTarget { runtime.target }
    /// Decides who moves at each stop; driven through the façade (``submit(_:)``…).
    var scheduler: Scheduler { runtime.scheduler }
    /// The requests started so far: their tasks, hops and summaries.
    var requests: SessionRequests { launcher.requests }

    /// - Parameters:
    ///   - defaultMode: how new operations treat stops (``RunMode/run`` headless,
    ///     ``RunMode/step`` for a person stepping).
    ///   - replay: recorded commands to carry out instead of the scenario's own launches.
    public convenience init(
        scenario: Scenario,
        store: TimelineStore = TimelineStore(),
        defaultMode: RunMode = .run,
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

    /// A lab scenario run through an app's own interceptors: the scenario's launches,
    /// backend, tokens and script, with `provider`'s interceptors in place of its chain.
    /// `provider` is asked once, with the lab's addresses and a `URLSession` that reaches it
    /// (``AppBackend``); it is then asked for fresh interceptors for each request.
    public convenience init(
        scenario: Scenario,
        provider makeProvider: (AppBackend) -> any InterceptorProvider,
        store: TimelineStore = TimelineStore(),
        defaultMode: RunMode = .run,
        onChange: @escaping @Sendable () -> Void = {}
    ) {
        let clock = VirtualClock()
        let backend = LabBackend(settings: scenario.backend, now: { clock.seconds })
        var initial = TokenPair(accessToken: "", refreshToken: nil)
        if scenario.token != .none { initial = backend.issueTokens() }
        if scenario.token == .expired { backend.expireAllAccessTokens() }
        let activity = AppActivity()
        let numbers = RefreshTokenNumbers()
        let host = LabURLProtocol.register { request in
            await LabSession.answerAppRequest(request, activity: activity, backend: backend, clock: clock, numbers: numbers)
        }
        let base = URL(string: "https://\(host)")!
        let provider = makeProvider(AppBackend(
            graphQLURL: base.appendingPathComponent("graphql"), tokenURL: base.appendingPathComponent("oauth/token"),
            urlSession: LabURLProtocol.session(), accessToken: initial.accessToken, refreshToken: initial.refreshToken))
        var scenario = scenario
        if let first = scenario.operations.first {
            let operation = LoadedOperation(first.graphQLOperation)
            scenario.chain = .graphQL(
                graphQL: provider.graphQLInterceptors(for: operation).map { Scenario.Layer(typeName($0)) },
                http: provider.httpInterceptors(for: operation).map { Scenario.Layer(typeName($0)) })
        }
        self.init(
            scenario: scenario, store: store, clock: clock, backend: backend, target: .inProcess(backend),
            transports: (LabGraphQLTransport(backend: backend, clock: clock), LabClientTransport(backend: backend, clock: clock)),
            baseURL: LabSession.baseURL, tokens: initial, defaultMode: defaultMode, replay: nil, recordsLog: true, onChange: onChange,
            app: (provider, activity, host))
    }

    /// A session on an app's own chain (see ``CustomChain``): `n` starts its requests in
    /// turn, every hop instrumented. There is no lab backend behind it.
    public convenience init(name: String, chain: CustomChain, defaultMode: RunMode = .step, onChange: @escaping @Sendable () -> Void = {}) {
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
        defaultMode: RunMode = .run,
        replay: [RecordedCommand]? = nil,
        onChange: @escaping @Sendable () -> Void = {}
    ) async throws -> LabSession {
        try await connect(
            scenario: scenario, remote: RemoteOptions(endpoint: baseURL, asksForLab: true), store: store, defaultMode: defaultMode, replay: replay,
            onChange: onChange)
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
        defaultMode: RunMode = .run,
        replay: [RecordedCommand]? = nil,
        onChange: @escaping @Sendable () -> Void = {}
    ) async throws -> LabSession {
        let clock = VirtualClock()
        let client = RemoteHTTPClient(timeout: options.timeout)
        let remote = options.asksForLab ? try await RemoteLab.detect(endpoint: options.endpoint, client: client) : RemoteLab.plain(endpoint: options.endpoint, client: client)
        var initial = TokenPair(accessToken: options.token ?? "", refreshToken: options.refreshToken)
        if remote.isLab, options.token == nil, scenario.token != .none {
            initial = try await remote.signIn()
            if scenario.token == .expired { try await remote.expireTokens() }
        }
        let transport = RemoteTransport(client: client, maxBodyBytes: options.maxBodyBytes, clock: clock)
        let source: TokenSource = options.tokenEndpoint.map { .oauth($0, client, keepsTokens: options.keepsTokens) } ?? .lab
        let anchor = OTLPExport.Anchor.wallClock()
        return LabSession(
            scenario: scenario, store: store, clock: clock, backend: LabBackend(settings: scenario.backend, now: { clock.seconds }),
            target: .remote(remote), transports: (transport, transport), baseURL: remote.restBaseURL, tokens: initial,
            defaultMode: defaultMode, replay: replay, recordsLog: true, onChange: onChange,
            remote: RemoteSetup(
                graphQLEndpoint: remote.graphQLEndpoint, headers: options.headers, tokenSource: source, transport: transport,
                authFailure: options.authFailure, otlpAnchor: anchor, traceparent: options.sendsTraceparent ? Traceparent(anchor: anchor) : nil))
    }

    init(
        scenario: Scenario, store: TimelineStore, clock: VirtualClock, backend: LabBackend, target: LabTarget,
        transports: (graphQL: any GraphQLTransport, client: any ClientTransport), baseURL: URL, tokens initial: TokenPair,
        defaultMode: RunMode, replay: [RecordedCommand]?, recordsLog: Bool, onChange: @escaping @Sendable () -> Void,
        custom: CustomChain? = nil, remote: RemoteSetup? = nil,
        app: (provider: any InterceptorProvider, activity: AppActivity, host: String)? = nil
    ) {
        self.scenario = scenario
        self.otlpAnchor = remote?.otlpAnchor ?? .lab(scenario: scenario.name)
        let starts = Locked<(@Sendable (Int, Int) -> Void)?>(nil)
        let runtime = LabRuntime(
            scenario: scenario, store: store, clock: clock, backend: backend, target: target, baseURL: baseURL, tokens: initial,
            defaultMode: defaultMode, replay: replay, recordsLog: recordsLog, remote: remote, onChange: onChange,
            launch: { operation, request in starts.value?(operation, request) })
        self.runtime = runtime
        let launcher = Launcher(
            scenario: scenario, runtime: runtime, transports: transports, baseURL: baseURL, custom: custom, remote: remote, app: app,
            onChange: onChange)
        self.launcher = launcher
        if scenario.prefillCache, let first = scenario.operations.first {
            _ = try? runtime.cache.write(data: ["hero": ["id": "2001", "name": "R2-D2 (cached)"]], for: first.graphQLOperation)
        }
        starts.withLock { $0 = { [weak launcher] operation, request in launcher?.start(operation: operation, request: request) } }
        // A replay sets the rules it was recorded with itself.
        if replay == nil, !scenario.breakpoints.isEmpty { runtime.scheduler.submit(.setBreakRules(scenario.breakpoints)) }
    }
}
