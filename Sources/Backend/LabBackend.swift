public import ChainKit
import Synchronization

/// The in-process server the lab's chains talk to: a GraphQL endpoint, an OAuth token
/// endpoint and a small REST API, each able to misbehave in the ways that expose client
/// bugs (expiring and revoked tokens, refresh-token reuse, APQ misses, auth failures
/// reported three ways, 5xx, latency, hostile bytes).
///
/// Routes:
/// - `POST /graphql` (JSON `operationName`, `query`, `variables`,
///   `extensions.persistedQuery`) and `GET /graphql?operationName=&query=&variables=&extensions=`:
///   `HeroQuery`, `HeroDetailsQuery($id: ID!)` and the mutation `RenameHero($name: String!)`
///   (POST only; see ``LabOperations``), with an automatic-persisted-query store. Needs a
///   bearer token.
/// - `POST /oauth/token` (form-encoded): `grant_type=password` (`demo`/`demo`) and
///   `grant_type=refresh_token`, with rotation and reuse detection (RFC 6749 §5.1, §5.2).
/// - `GET /heroes`, `POST /heroes` (`{"name": "..."}` → 201) and `GET /heroes/{id}`
///   (404 when unknown): REST for the middleware stack. Needs a bearer token.
/// - `POST /_lab/expire-tokens`, `POST /_lab/auth-mode` (body `status401`,
///   `graphQLError200` or `emptyBody401`), `POST /_lab/fail-next` (body
///   `{"count": N, "status": 503}`), `GET /_lab/state` (counters and modes): control for
///   `serve` and tests; no token, faults or latency.
///
/// Any other path is 404; a known path with another method is 405 with `Allow`. Every
/// response names its `Content-Type`. Faults (``Settings/failNext``,
/// ``Settings/serverErrorMode``) are checked after routing, so 404 and 405 never use one.
///
/// ```swift
/// let clock = VirtualClock()
/// let backend = LabBackend(now: { clock.seconds })
/// let tokens = backend.issueTokens() // at-1-1, rt-1-1
/// let response = backend.handle(BackendRequest(
///     method: "POST", target: "/graphql",
///     headers: try HTTPFields(["Authorization": "Bearer \(tokens.accessToken)"]),
///     body: JSONValue.object(["operationName": "HeroQuery", "query": "query HeroQuery { hero { id name } }"]).encoded))
/// // 200 {"data":{"hero":{"id":"2001","name":"R2-D2"}}}
/// ```
///
/// Handling is synchronous and serialized by a mutex; it never sleeps (latency is
/// reported in ``BackendResponse/latency``) and never traps, whatever the input.
public final class LabBackend: Sendable {
    /// What the backend counts; ``counters`` reports each by its raw value.
    public enum Counter: String, Sendable, Hashable, CaseIterable {
        /// Requests that reached `/graphql`, answered or refused.
        case graphqlRequests
        /// `grant_type=refresh_token` requests received, accepted or not.
        case tokenRefreshes
        /// Refresh-token grants refused (`invalid_grant` or `invalid_request`).
        case refreshRejected
        /// `grant_type=password` requests received, accepted or not.
        case passwordGrants
        /// APQ requests with an unknown hash and no query (`PersistedQueryNotFound`).
        case apqMisses
        /// Queries newly stored in the APQ store.
        case apqRegistered
        /// Requests that reached `/heroes` or `/heroes/{id}`.
        case restRequests
        /// Requests refused for a missing, malformed, unknown, expired or revoked token.
        case unauthorized
        /// Requests answered by ``Settings/failNext`` or ``Settings/serverErrorMode``
        /// instead of their route (not counted by the route's counters).
        case injectedFailures
        /// Token families revoked because a used refresh token came back.
        case familiesRevoked
    }

    private let state: Mutex<BackendState>
    private let now: @Sendable () -> Double

    /// A backend with `settings`, reading the time in seconds from `now` (the lab clock in
    /// process; the wall clock for `serve`).
    public init(settings: Settings = Settings(), now: @escaping @Sendable () -> Double) {
        self.state = Mutex(BackendState(settings: settings))
        self.now = now
    }

    /// Answers one request. Safe to call from many threads at once.
    public func handle(_ request: BackendRequest) -> BackendResponse {
        let time = now()
        return state.withLock { state in
            var response = state.respond(to: request, now: time)
            if state.settings.hostile { HostilePayload.addHeaders(to: &response.headers) }
            return response
        }
    }

    /// Signs in as `demo` without a request: a new token family, as a successful
    /// `grant_type=password` returns it. Not counted as a password grant.
    public func issueTokens() -> TokenPair {
        let time = now()
        return state.withLock { $0.tokens.signIn(now: time, ttl: $0.settings.tokenTTL) }
    }

    /// Makes every access token issued so far expired; refresh tokens keep working.
    public func expireAllAccessTokens() {
        let time = now()
        state.withLock { _ = $0.tokens.expireAllAccessTokens(now: time) }
    }

    /// Switches how auth failures are answered from the next request on.
    public func setAuthFailureMode(_ mode: AuthFailureMode) {
        state.withLock { $0.settings.authFailureMode = mode }
    }

    /// Answers the next `n` non-control requests with `status`, replacing any failures
    /// still queued. `n` is kept within 0...10,000 and `status` within 500...599.
    public func injectFailures(_ n: Int, status: Int) {
        state.withLock { $0.injectFailures(n, status: status) }
    }

    /// The current settings (``Settings/failNext`` counts down as failures are served).
    public var settings: Settings {
        state.withLock { $0.settings }
    }

    /// Changes settings from the next request on; tokens and stores are kept.
    public func updateSettings(_ change: (inout Settings) -> Void) {
        state.withLock { state in
            var settings = state.settings
            change(&settings)
            state.settings = settings
            state.injectFailures(settings.failNext, status: settings.failNextStatus)
        }
    }

    /// Every ``Counter`` by its raw value, zero included.
    public var counters: [String: Int] {
        state.withLock { state in
            Dictionary(uniqueKeysWithValues: Counter.allCases.map { ($0.rawValue, state.counters[$0, default: 0]) })
        }
    }
}
