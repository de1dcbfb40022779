import Scheduling
import Backend
import ChainKit

/// The built-in scenarios, each making one rule or one real bug visible.
public enum Catalog {
    static func chain(_ graphQL: [Scenario.Layer]) -> Scenario.Chain {
        .graphQL(graphQL: graphQL, http: [Scenario.Layer("ResponseCodeInterceptor")])
    }

    static let maxRetry = Scenario.Layer("MaxRetryInterceptor", ["maxRetries": 3])
    static let auth = Scenario.Layer("AuthInterceptor")
    static let apq = Scenario.Layer("AutomaticPersistedQueryInterceptor")
    /// Apollo's default chain with an auth interceptor: MaxRetry, Auth, APQ; ResponseCode.
    static let defaultChain = chain([maxRetry, auth, apq])
    static let heroQuery = Scenario.Operation(name: "HeroQuery") { $0.fetchBehavior = .CacheFirst }
    static let latency = 0.012
    /// Each of the five requests in turn runs until the token manager is about to refresh for
    /// it, so all five 401s happen before any refresh is sent.
    static let everyRequestToRefresh = (1...5).map { Scenario.ScriptStep(request: $0, until: .refresh) }

    /// The refresh storm's setup: five HeroQueries on an expired token, each run until it is
    /// about to refresh, with the token manager's `strategy`; the storm scenarios differ only
    /// in it.
    static func refreshStorm(_ strategy: RefreshStrategy) -> (inout Scenario) -> Void {
        { scenario in
            expiredToken(strategy)(&scenario)
            scenario.launch = [0, 0, 0, 0, 0]
            scenario.script = everyRequestToRefresh
        }
    }

    /// A client whose access token has already expired, refreshing with `strategy`, against
    /// `backend`: the setup of every lesson about a refresh.
    static func expiredToken(_ strategy: RefreshStrategy, backend: LabBackend.Settings = LabBackend.Settings(latency: latency)) -> (inout Scenario) -> Void {
        { scenario in
            scenario.backend = backend
            scenario.token = .expired
            scenario.refreshStrategy = strategy
        }
    }

    /// Every built-in scenario, in the order a newcomer should try them, each with what to
    /// look for in the inspector.
    public static let scenarios: [Scenario] = lessons.map { lesson in
        var scenario = lesson
        scenario.onScreen = onScreen[lesson.name]
        return scenario
    }

    /// What to look for on screen in the inspector, by scenario: keys to press and what the
    /// screen then shows.
    static let onScreen: [String: String] = [
        "basics": "Press n, then s to step: the Chain pane fills in top-down (pre-flight ↓), the cache reads miss, the transport answers 200, and the post-flights fill in bottom-up (↑). Select a hop with j/k and h/l: Detail shows what that hop saw on the way down or up.",
        "token-expiry": "Step #1: the transport answers 401, the ✕ travels up to AuthInterceptor, the TokenManager refresh row appears under the hops, and AuthInterceptor's post-flight reads ↻ Retry. [ and ] move between attempt 1 (the 401) and attempt 2 (the 200 with the new token).",
        "refresh-storm": "Start #1 and #2 (n n) and step each to the TokenManager refresh row: both hold the same refresh token. Release #1, then #2: #2's refresh row answers ✕ 400 invalid_grant and the Requests pane says ✕ #2 … invalid_grant. The Timeline title counts the backend's refreshes, refusals and revoked families.",
        "refresh-storm-fixed": "Start #1 and #2 and step them: #2 shows ⧗ waits: refresh instead of sending its own grant. When #1's refresh ends both retry; the backend count stays at 1 refresh. #2's second attempt may be answered from the cache (✓ … cache) because #1 has just written the result.",
        "stale-token": "Each attempt refreshes (✓ 200 on the refresh row), yet the transport's pre-flight sends the same Authorization every time: compare attempts with [ and ]. The request ends ✕ … MaxRetries(3).",
        "retry-order": "RetryOnErrorInterceptor sits above MaxRetryInterceptor, so every error, MaxRetriesError included, becomes another attempt: the attempt count in the Chain title keeps climbing until the lab's safety cap stops it.",
        "apq": "Attempt 1 sends only the hash; the server answers PersistedQueryNotFound and the APQ interceptor's post-flight reads ↻ Retry. Attempt 2's request carries the query text.",
        "cache-fallback": "The transport answers 503 (⚡ server: the backend injects it), ResponseCodeInterceptor fails it, and the cache step answers instead: the request ends ✓ … cache.",
        "graphql-errors-200": "The transport answers 200, but the result carries UNAUTHENTICATED: AuthInterceptor's post-flight turns it into a refresh and ↻ Retry.",
        "empty-401": "The transport answers 401 with an empty body: no chunk reaches ResponseCodeInterceptor, so no error is raised and the request ends ✕ … noResults.",
        "openapi-middleware": "FaultInjectionMiddleware answers the first call with 503 before the transport; RetryingMiddleware calls next again, and the second call reaches the server.",
        "watcher": "B turns step mode off and n n n runs #1 HeroQuery, #2 RenameHero and #3 RenameHero, which gets a 401, refreshes and retries. A shows every request's events: after #2's and #3's cache writes come #1's deliveries (◆ watcher delivered again), and Detail shows the hero as each rename left it.",
        "hostile-server": "Headers and the body carry terminal escapes and bidi overrides: every one is drawn as a visible escape (\\e, \\x07, \\u{202E}).",
    ]

    static let lessons: [Scenario] = [
        Scenario(
            name: "basics",
            summary: "One HeroQuery through Apollo's default chain with an auth interceptor.",
            teaches: "The onion: each GraphQL interceptor's pre-flight runs top-down, then the cache is read (CacheFirst: the empty cache misses), then the HTTP interceptors and the transport; results come back up through the post-flights in reverse, and the cache is written at the top. Look at AuthInterceptor's pre-flight: it adds Authorization.",
            chain: defaultChain,
            operations: [heroQuery]
        ) {
            $0.backend = LabBackend.Settings(latency: latency)
        },
        Scenario(
            name: "token-expiry",
            summary: "The access token has expired: Auth refreshes once and retries.",
            teaches: "The server answers 401; ResponseCodeInterceptor turns it into a ResponseCodeError, which travels up to AuthInterceptor's error mapper. Auth asks the token manager for a new token (one refresh_token grant) and throws RequestChain.Retry: attempt 2 starts at the top and succeeds. MaxRetryInterceptor counts that second pass.",
            chain: defaultChain,
            operations: [heroQuery],
            expiredToken(.singleFlight)),
        Scenario(
            name: "refresh-storm",
            summary: "Five queries on an expired token with a naive refresh: a storm and a reused refresh token.",
            teaches: "Every 401 starts its own refresh. The script runs each request in turn until it is about to refresh, so all five read the same refresh token before any refresh is sent. The backend rotates refresh tokens and detects reuse: the second use is answered 400 invalid_grant and revokes the whole token family — even the token the first refresh just got. Watch the auth/refresh events and the backend's refreshRejected counter.",
            chain: defaultChain,
            operations: [heroQuery],
            refreshStorm(.naive)),
        Scenario(
            name: "refresh-storm-fixed",
            summary: "The same storm with a single-flight token manager: one refresh, every query succeeds.",
            teaches: "With singleFlight, the first 401 starts the refresh and every later 401 for the same token waits for it instead of starting another. Requests #2 to #5 are blocked (not held) until #1's refresh ends, then every request retries with the new token. Exactly one refresh_token grant reaches the backend.",
            chain: defaultChain,
            operations: [heroQuery],
            refreshStorm(.singleFlight)),
        Scenario(
            name: "stale-token",
            summary: "Auth refreshes but retries with the token it captured before: 401 until MaxRetry gives up.",
            teaches: "The staleToken strategy reproduces a common bug: the interceptor keeps the token it read on the first pass. Each refresh succeeds, yet every retry carries the old token (compare Authorization in the transport's send events), so the server keeps answering 401 until MaxRetryInterceptor throws MaxRetriesError after 1 + 3 passes.",
            chain: defaultChain,
            operations: [heroQuery],
            expiredToken(.staleToken)),
        Scenario(
            name: "retry-order",
            summary: "A retrying interceptor placed before MaxRetry retries without bound.",
            teaches: "MaxRetryInterceptor counts passes through itself, so it only limits retries that restart above it. Here RetryOnErrorInterceptor sits first and turns every error — including MaxRetriesError — into another retry. The server fails every request (503), the passes never stop, and the lab's safety cap cuts the request after 20 attempts. Move MaxRetryInterceptor to the top (o in the inspector) to fix it.",
            chain: chain([Scenario.Layer("RetryOnErrorInterceptor"), Scenario.Layer("MaxRetryInterceptor", ["maxRetries": 2]), auth]),
            operations: [heroQuery]
        ) {
            $0.backend = LabBackend.Settings(serverErrorMode: .always(status: 503), latency: latency)
        },
        Scenario(
            name: "apq",
            summary: "Automatic persisted queries: the hash alone, PersistedQueryNotFound, then the query text.",
            teaches: "With autoPersistQueries the first request carries only extensions.persistedQuery.sha256Hash. The backend does not know the hash and answers 200 with PersistedQueryNotFound; AutomaticPersistedQueryInterceptor throws a Retry whose request carries the query text and the hash, with NetworkOnly. The backend stores the query, and attempt 2 succeeds. Compare the two send events' bodies.",
            chain: defaultChain,
            operations: [Scenario.Operation(name: "HeroQuery") { $0.fetchBehavior = .CacheFirst; $0.autoPersistQueries = true }]
        ) {
            $0.backend = LabBackend.Settings(latency: latency)
        },
        Scenario(
            name: "cache-fallback",
            summary: "NetworkFirst with a failing server: the cache answers.",
            teaches: "NetworkFirst reads the cache only when the network step fails. The server answers 503, ResponseCodeInterceptor fails the response, and the chain falls back to the cache, which already holds HeroQuery's result: the request succeeds with a result from the cache, and no GraphQL interceptor ever sees the error.",
            chain: defaultChain,
            operations: [Scenario.Operation(name: "HeroQuery") { $0.fetchBehavior = .NetworkFirst }]
        ) {
            $0.backend = LabBackend.Settings(serverErrorMode: .always(status: 503), latency: latency)
            $0.prefillCache = true
        },
        Scenario(
            name: "cache-and-network",
            summary: "CacheAndNetwork on a warm cache: the network fetch overlaps the cached result's way up, and the caller gets two results.",
            teaches: "The cache step hits and hands the cached result up at once, and — as upstream's chain runs each layer in its own task — the network fetch starts in a second lane while that result is still climbing. Events of the two lanes say which lane they ran in (cache or network) and interleave: the cached result passes one post-flight, the network lane one stop, in turn. The cache lane reaches the caller first; the server's result then climbs the same post-flights and is written to the cache. In the inspector both stops are shown; u switches the lane that s and c act on.",
            chain: defaultChain,
            operations: [Scenario.Operation(name: "HeroQuery") { $0.fetchBehavior = .CacheAndNetwork }]
        ) {
            $0.backend = LabBackend.Settings(latency: latency)
            $0.prefillCache = true
        },
        Scenario(
            name: "cache-records",
            summary: "Two queries share the hero's cache record: a rename through a mutation shows in both, read from the cache.",
            teaches: "The parser turns each result into normalized records, and the top of the chain writes those records: QUERY_ROOT points to Hero:2001, whose fields HeroQuery and HeroDetailsQuery both read (the cache step's post-flight shows the records written, key → fields). #1 HeroQuery and #2 HeroDetailsQuery miss (hero and hero(id:2001) are different fields of QUERY_ROOT) and fetch; #3 RenameHero writes name Artoo-Detoo into Hero:2001; #4 and #5 are answered from the cache with the new name and never reach the transport. RedactFieldInterceptor replaces appearsIn on the way up: the caller gets [redacted], but the cache keeps the parser's records, so the cache hit of #5 still holds the films.",
            chain: chain([maxRetry, auth, Scenario.Layer("RedactFieldInterceptor"), apq]),
            operations: [
                heroQuery,
                Scenario.Operation(name: "HeroDetailsQuery") { $0.fetchBehavior = .CacheFirst; $0.variables = ["id": "2001"] },
                Scenario.Operation(name: "RenameHero") { $0.variables = ["name": "Artoo-Detoo"] },
            ]
        ) {
            $0.backend = LabBackend.Settings(latency: latency)
            $0.launch = [0, 1, 2, 0, 1]
            $0.script = (1...4).flatMap { [Scenario.ScriptStep(request: $0, until: .hop(0, .post)), Scenario.ScriptStep(request: $0)] }
        },
        Scenario(
            name: "watcher",
            summary: "A watched HeroQuery follows two renames: one by a mutation, one by a mutation that must refresh and retry first.",
            teaches: "Upstream's GraphQLQueryWatcher: once #1 HeroQuery has a result, every write to the records it read (QUERY_ROOT.hero, Hero:2001.id, Hero:2001.name) delivers it again, read from the cache, without a request. #2 RenameHero names the hero Artoo-Detoo; its cache write at the top of the chain is followed by #1's GraphQLQueryWatcher event with the new name. By #3 the access token has expired: 401, a refresh, Retry, and only attempt 2's write renames the hero back to R2-D2 and reaches the watcher — how a refresh and a mutation reach an app's screen.",
            chain: defaultChain,
            operations: [
                Scenario.Operation(name: "HeroQuery") { $0.fetchBehavior = .CacheFirst; $0.watch = true },
                Scenario.Operation(name: "RenameHero") { $0.variables = ["name": "Artoo-Detoo"] },
                Scenario.Operation(name: "RenameHero") { $0.variables = ["name": "R2-D2"] },
            ]
        ) {
            $0.backend = LabBackend.Settings(tokenTTL: 0.02, latency: latency)
            $0.launch = [0, 1, 2]
            $0.script = (1...3).flatMap { [Scenario.ScriptStep(request: $0, until: .hop(0, .post)), Scenario.ScriptStep(request: $0)] }
        },
        Scenario(
            name: "graphql-errors-200",
            summary: "The server reports an expired token as 200 with an UNAUTHENTICATED error.",
            teaches: "Many GraphQL servers answer auth failures with HTTP 200 and an error whose extensions.code is UNAUTHENTICATED. ResponseCodeInterceptor lets a 200 through, so AuthInterceptor must read the result's errors in its map: it refreshes once and retries, and attempt 2 succeeds.",
            chain: defaultChain,
            operations: [heroQuery],
            expiredToken(.singleFlight, backend: LabBackend.Settings(authFailureMode: .graphQLError200, latency: latency))),
        Scenario(
            name: "empty-401",
            summary: "A 401 with an empty body ends in noResults, not an auth refresh.",
            teaches: "ResponseCodeInterceptor raises its error on the response's first body chunk. An empty body has no chunk, so no error is raised, the parser yields nothing and the chain fails with noResults — AuthInterceptor never learns the token expired. This is upstream Apollo iOS behaviour worth knowing when a server sends bare 401s.",
            chain: defaultChain,
            operations: [heroQuery],
            expiredToken(.singleFlight, backend: LabBackend.Settings(authFailureMode: .emptyBody401, latency: latency))),
        Scenario(
            name: "openapi-middleware",
            summary: "A REST call through swift-openapi-runtime middlewares: auth, logging, retrying, fault injection.",
            teaches: "Middlewares run in array order on the way out and in reverse on the way back. FaultInjectionMiddleware answers the first call with 503 without reaching the server; RetryingMiddleware, above it, sees the 503 and calls next again; the second call reaches the transport and the server. AuthenticationMiddleware at the top attached the bearer token once for both, and LoggingMiddleware wrote one request and one response line into the timeline (log events), because it sits above the retry.",
            chain: .middleware([
                Scenario.Layer("AuthenticationMiddleware"),
                Scenario.Layer("LoggingMiddleware"),
                Scenario.Layer("RetryingMiddleware", ["statuses": [503], "maxAttempts": 3]),
                Scenario.Layer("FaultInjectionMiddleware", ["failStatus": 503, "failCount": 1]),
            ]),
            operations: [Scenario.Operation(name: "getHero") { $0.method = "GET"; $0.path = "/heroes/2001" }]
        ) {
            $0.backend = LabBackend.Settings(latency: latency)
        },
        Scenario(
            name: "defer",
            summary: "A query with a @defer fragment: the films arrive 80 ms after the hero, as a second result.",
            teaches: "The server answers multipart/mixed;deferSpec=20220824. The transport receives the head, then each part as it arrives (receive events part 1, part 2). The parser yields one result per part: first the hero without appearsIn (hasNext true), then, 80 ms later on the lab clock, the same result with the incremental films merged in at path [\"hero\"]. Every GraphQL post-flight runs once per result, and the cache is written after each. Launch it again (n in the inspector): CacheFirst now answers from the cache with the merged result.",
            chain: defaultChain,
            operations: [Scenario.Operation(name: "HeroDeferQuery") { $0.fetchBehavior = .CacheFirst }]
        ) {
            $0.backend = LabBackend.Settings(latency: latency)
        },
        Scenario(
            name: "subscription",
            summary: "A subscription over HTTP: three events and a heartbeat in one multipart answer, then the server closes it.",
            teaches: "Subscriptions over HTTP use multipart/mixed;subscriptionSpec=1.0: one long answer whose parts arrive 100 ms apart on the lab clock. Each event's payload becomes a result that climbs every post-flight on its own; the heartbeat ({}) is received as a part but yields no result. When the server ends the stream (--graphql--), the operation finishes with three results.",
            chain: defaultChain,
            operations: [Scenario.Operation(name: "HeroNameChanged") { $0.fetchBehavior = .NetworkOnly }]
        ) {
            $0.backend = LabBackend.Settings(latency: latency)
        },
        Scenario(
            name: "hostile-server",
            summary: "A server that puts terminal escape sequences and bidi overrides in headers and bodies.",
            teaches: "Headers and the hero's name carry an OSC title change, an OSC 52 clipboard write, a screen clear and bidirectional overrides. ChainLab shows every one of them as a visible escape (\\e, \\x07, \\u{202E}) on screen and in every export, and never sends them to your terminal.",
            chain: defaultChain,
            operations: [heroQuery]
        ) {
            $0.backend = LabBackend.Settings(latency: latency, hostile: true)
        },
        Scenario(
            name: "partial-data",
            summary: "The server's answer leaves out a field the query asks for: parsing fails as Apollo's executor fails it.",
            teaches: "HeroQuery asks for hero { id name }; the server answers 200 with {\"hero\":{\"id\":\"2001\"}}. Apollo executes the selection set on every result, so the parser fails with GraphQLExecutionError — Error at path \"hero.name)\": missingValue, upstream's text to the character. The error climbs through every interceptor's mapErrors: AuthInterceptor's sees it (one that refreshed on any error would refresh here for nothing; this one passes it on, since it is neither a 401 nor UNAUTHENTICATED), MaxRetryInterceptor lets it through, and nothing is written to the cache. Under NetworkFirst the failed fetch would fall back to the cache instead, and with the cache empty the request would end in noResults, the error never seen above the cache step.",
            chain: defaultChain,
            operations: [heroQuery]
        ) {
            $0.backend = LabBackend.Settings(latency: latency, omitsHeroName: true)
        },
    ]

    /// The built-in scenario named `name`.
    public static func scenario(named name: String) -> Scenario? {
        scenarios.first { $0.name == name }
    }

    /// The built-in names, for messages and completion.
    public static var names: [String] { scenarios.map(\.name) }
}
