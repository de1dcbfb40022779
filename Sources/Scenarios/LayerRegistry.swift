import Instrumentation
import Scheduling
public import ChainKit
import Foundation
public import Lint

/// What the lab hands a layer when it builds it for one operation.
package struct LayerEnvironment: Sendable {
    package var clock: VirtualClock
    package var store: CacheStore
    package var tokens: TokenManager
    /// What tells the auth layers that the server refused the token (`--auth-failure`).
    package var authFailure = AuthFailure()
    package var request: Int
    /// Where logging layers write: the timeline, as `log` events of `name`.
    package var log: @Sendable (_ name: String, _ line: String) -> Void

    package init(
        clock: VirtualClock, store: CacheStore, tokens: TokenManager, authFailure: AuthFailure = AuthFailure(), request: Int,
        log: @escaping @Sendable (_ name: String, _ line: String) -> Void
    ) {
        self.clock = clock
        self.store = store
        self.tokens = tokens
        self.authFailure = authFailure
        self.request = request
        self.log = log
    }
}

/// The interceptors and middlewares a scenario can name, with their settings.
public enum LayerRegistry {
    /// Where a layer can go.
    public enum Place: String, Sendable, Hashable {
        case graphQL = "GraphQL interceptor"
        case http = "HTTP interceptor"
        case middleware = "middleware"
    }

    /// The type a setting must have.
    public enum SettingType: String, Sendable, Hashable {
        case nonNegativeInteger = "a whole number ≥ 0"
        case positiveInteger = "a whole number ≥ 1"
        case nonNegativeNumber = "a number ≥ 0"
        case boolean = "true or false"
        case string = "a string"
        case statusList = "an array of HTTP status codes (100...599)"
        case statusCode = "an HTTP status code (100...599)"
    }

    /// A layer the lab can build: its name, its settings, what lint knows of it, and how
    /// it is made for one operation. Adding a layer is adding one of these.
    public struct Definition: Sendable {
        public var name: String
        public var settings: [String: SettingType]
        public var summary: String
        /// What ``ChainLint`` knows the layer does (see ``LayerTraits``).
        public var traits: LayerTraits
        let make: Make

        /// Where the layer goes, as its maker says.
        public var place: Place {
            switch make {
            case .graphQL: .graphQL
            case .http: .http
            case .middleware: .middleware
            }
        }
    }

    /// How a definition's layer is made, one case a place.
    enum Make: Sendable {
        case graphQL(@Sendable (Scenario.Layer, LayerEnvironment) -> any ChainInterceptor)
        case http(@Sendable (Scenario.Layer) -> any ChainHTTPInterceptor)
        case middleware(@Sendable (Scenario.Layer, LayerEnvironment) -> any ClientMiddleware)
    }

    public static let definitions: [Definition] = [
        Definition(
            name: "MaxRetryInterceptor", settings: ["maxRetries": .nonNegativeInteger, "backoffSeconds": .nonNegativeNumber, "jitter": .boolean],
            summary: "1 + maxRetries passes through itself, then MaxRetriesError", traits: [.limitsRetries],
            make: .graphQL { layer, environment in
                let retries = layer.int("maxRetries") ?? MaxRetryInterceptor.defaultMaxRetries
                let backoff = layer.number("backoffSeconds").map { seconds in
                    MaxRetryInterceptor.Backoff(baseDelay: .milliseconds(Int64(saturating: seconds * 1000)), jitter: layer.bool("jitter") ?? false)
                }
                let jitter = SeededJitter(seed: UInt64(environment.request))
                return MaxRetryInterceptor(maxRetries: retries, backoff: backoff, clock: environment.clock, jitterSource: { jitter.next() })
            }),
        Definition(
            name: "AuthInterceptor", settings: [:],
            summary: "attaches the bearer token; on 401 or UNAUTHENTICATED renews it and retries",
            traits: [.retries, .attachesAuthorization, .refreshesTokens, .readsGraphQLErrors],
            make: .graphQL { _, environment in
                let log = environment.log
                return AuthInterceptor(manager: environment.tokens, failure: environment.authFailure) { log("AuthInterceptor", $0) }
            }),
        Definition(
            name: "StaticAuthInterceptor", settings: ["authorization": .string], summary: "a fixed Authorization header",
            traits: [.attachesAuthorization],
            make: .graphQL { layer, _ in
                // The codec validated the value, so this cannot fail for a decoded scenario.
                if let interceptor = try? StaticAuthInterceptor(authorization: layer.string("authorization") ?? "") { return interceptor }
                return PassThroughInterceptor()
            }),
        Definition(
            name: "AutomaticPersistedQueryInterceptor", settings: [:], summary: "retries with the query text after PersistedQueryNotFound",
            traits: [.retries, .readsGraphQLErrors], make: .graphQL { _, _ in AutomaticPersistedQueryInterceptor() }),
        Definition(
            name: "FallbackToCacheOnFailureInterceptor", settings: [:], summary: "answers from the cache when anything below fails",
            traits: [], make: .graphQL { _, environment in FallbackToCacheOnFailureInterceptor(store: environment.store) }),
        Definition(
            name: "RetryOnErrorInterceptor", settings: [:], summary: "retries on every error, with no limit of its own",
            traits: [.retries, .retriesOnAnyError], make: .graphQL { _, _ in RetryOnErrorInterceptor() }),
        Definition(
            name: "LoggingInterceptor", settings: [:], summary: "writes a line per operation and per result into the timeline",
            traits: [.logs],
            make: .graphQL { _, environment in
                let log = environment.log
                return LoggingInterceptor { log("LoggingInterceptor", $0) }
            }),
        Definition(
            name: "RedactFieldInterceptor", settings: ["field": .string],
            summary: "replaces every value of one field (appearsIn by default) in results on their way up", traits: [.changesResultData],
            make: .graphQL { layer, _ in RedactFieldInterceptor(field: layer.string("field") ?? RedactFieldInterceptor.defaultField) }),
        Definition(
            name: "ResponseCodeInterceptor", settings: [:], summary: "fails non-2xx responses with ResponseCodeError",
            traits: [], make: .http { _ in ResponseCodeInterceptor() }),
        // Re-sending once after renewing a rejected token is its refresh, not a retry policy,
        // so it is not listed as retrying.
        Definition(
            name: "AuthenticationMiddleware", settings: ["authorization": .string],
            summary: "bearer token, renewed once on 401 or the --auth-failure statuses (or a fixed authorization)", traits: [.attachesAuthorization, .refreshesTokens],
            make: .middleware { layer, environment in
                if let fixed = layer.string("authorization"), let middleware = try? AuthenticationMiddleware(authorization: fixed) {
                    return middleware
                }
                let tokens = environment.tokens
                let log = environment.log
                // The statuses of --auth-failure; its GraphQL error codes say nothing of a REST answer.
                let rejected = environment.authFailure.statuses
                return TokenlessAwareAuthentication(
                    base: AuthenticationMiddleware(
                        token: { await tokens.accessToken },
                        refresh: { rejected in try await tokens.renew(afterRejectionOf: rejected) },
                        rejectedStatuses: rejected),
                    tokens: tokens, rejectedStatuses: rejected, note: { log("AuthenticationMiddleware", $0) })
            }),
        Definition(
            name: "LoggingMiddleware", settings: [:], summary: "writes a line per request and per response into the timeline",
            traits: [.logs],
            make: .middleware { _, environment in
                let log = environment.log
                return LoggingMiddleware { log("LoggingMiddleware", $0) }
            }),
        Definition(
            name: "RetryingMiddleware",
            settings: ["statuses": .statusList, "retryErrors": .boolean, "maxAttempts": .positiveInteger, "delaySeconds": .nonNegativeNumber, "bufferBodies": .boolean],
            summary: "calls next again on chosen statuses or errors", traits: [.retries, .buffersSinglePassBodies],
            make: .middleware { layer, environment in
                var signals: Set<RetryingMiddleware.Signal> = Set((layer.ints("statuses") ?? [429, 500, 502, 503, 504]).map { .code($0) })
                if layer.bool("retryErrors") ?? true { signals.insert(.errorThrown) }
                let delay = layer.number("delaySeconds").map { RetryingMiddleware.Delay.constant(.milliseconds(Int64(saturating: $0 * 1000))) } ?? .none
                return RetryingMiddleware(
                    signals: signals, maxAttempts: max(1, layer.int("maxAttempts") ?? 3), delay: delay,
                    bufferingSinglePassBodies: layer.bool("bufferBodies") ?? true ? 1 << 20 : nil, clock: environment.clock)
            }),
        Definition(
            name: "FaultInjectionMiddleware", settings: ["failStatus": .statusCode, "failCount": .nonNegativeInteger],
            summary: "answers the first failCount calls with failStatus", traits: [],
            make: .middleware { layer, environment in
                let middleware = FaultInjectionMiddleware(clock: environment.clock)
                middleware.enqueue(.status(.init(code: layer.int("failStatus") ?? 503), body: #"{"error":"injected fault"}"#), count: layer.int("failCount") ?? 1)
                return middleware
            }),
    ]

    /// The definition named `name`, if any.
    public static func definition(named name: String) -> Definition? {
        definitions.first { $0.name == name }
    }

    /// The names that can go in `place`, for error messages.
    public static func names(for place: Place) -> [String] {
        definitions.filter { $0.place == place }.map(\.name)
    }

    /// The GraphQL interceptor `layer` names; one that fails every request, saying why, when
    /// no GraphQL interceptor has that name (a scenario built in code: files are checked).
    package static func graphQLInterceptor(_ layer: Scenario.Layer, _ environment: LayerEnvironment) -> any ChainInterceptor {
        guard case .graphQL(let make)? = definition(named: layer.name)?.make else { return UnknownLayer(name: layer.name, place: .graphQL) }
        return make(layer, environment)
    }

    /// The HTTP interceptor `layer` names, or one that fails every request, saying why.
    package static func httpInterceptor(_ layer: Scenario.Layer) -> any ChainHTTPInterceptor {
        guard case .http(let make)? = definition(named: layer.name)?.make else { return UnknownLayer(name: layer.name, place: .http) }
        return make(layer)
    }

    /// The middleware `layer` names, or one that fails every call, saying why.
    package static func middleware(_ layer: Scenario.Layer, _ environment: LayerEnvironment) -> any ClientMiddleware {
        guard case .middleware(let make)? = definition(named: layer.name)?.make else { return UnknownLayer(name: layer.name, place: .middleware) }
        return make(layer, environment)
    }
}

/// What a scenario built in code gets for a layer name the lab does not know: every request
/// through it fails with ``UnknownLayerError``, so the mistake is seen where it is.
struct UnknownLayer: ChainInterceptor, ChainHTTPInterceptor, ClientMiddleware {
    let name: String
    let place: LayerRegistry.Place

    var error: UnknownLayerError { UnknownLayerError(name: name, place: place, known: LayerRegistry.names(for: place)) }

    func intercept(request: ChainRequest, next: ChainNext) async throws -> ChainResultStream { throw error }
    func intercept(request: NetworkRequest, next: ChainHTTPNext) async throws -> NetworkResponse { throw error }
    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String, next: MiddlewareNext
    ) async throws -> (HTTPResponse, HTTPBody?) { throw error }
}

/// A scenario names a layer the lab cannot build where it stands.
public struct UnknownLayerError: Error, Hashable, CustomStringConvertible {
    public let name: String
    public let place: LayerRegistry.Place
    public let known: [String]

    public var description: String {
        "no \(place.rawValue) named \(name); known: \(known.joined(separator: ", "))"
    }
}

/// Retries on every error and has no limit of its own: placed before `MaxRetryInterceptor`
/// it retries forever, which is the lesson of the `retry-order` scenario.
public struct RetryOnErrorInterceptor: ChainInterceptor {
    public init() {}

    public func intercept(request: ChainRequest, next: ChainNext) async throws -> ChainResultStream {
        await next(request).mapErrors { error in
            if error is ChainRunner.Retry || error is LabSafetyCapError { throw error }
            throw ChainRunner.Retry(request: request)
        }
    }
}

/// Replaces every value of one field in the results that pass it on their way up with
/// `"[redacted]"`: a post-flight that changes data. The `cache-records` scenario shows that
/// the caller gets the change and the cache does not, since the cache keeps the parser's records.
public struct RedactFieldInterceptor: ChainInterceptor {
    public static let defaultField = "appearsIn"
    public let field: String

    public init(field: String = RedactFieldInterceptor.defaultField) {
        self.field = field
    }

    public func intercept(request: ChainRequest, next: ChainNext) async throws -> ChainResultStream {
        let field = self.field
        return await next(request).map { response in
            guard let data = response.data else { return response }
            var redacted = response
            redacted.data = Self.redact(field, in: data)
            return redacted
        }
    }

    static func redact(_ field: String, in value: JSONValue) -> JSONValue {
        switch value {
        case .object(let members):
            .object(Dictionary(uniqueKeysWithValues: members.map { name, member in
                (name, name == field ? .string("[redacted]") : redact(field, in: member))
            }))
        case .array(let elements): .array(elements.map { redact(field, in: $0) })
        default: value
        }
    }
}

/// Hands the request on unchanged.
struct PassThroughInterceptor: ChainInterceptor {
    func intercept(request: ChainRequest, next: ChainNext) async throws -> ChainResultStream {
        await next(request)
    }
}

/// A small deterministic generator (SplitMix64) so jitter is the same in every run.
final class SeededJitter: Sendable {
    private let state: Locked<UInt64>

    init(seed: UInt64) {
        state = Locked(seed &+ 0x9E37_79B9_7F4A_7C15)
    }

    /// A value in [0, 1).
    func next() -> Double {
        let value = state.withLock { state -> UInt64 in
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        return Double(value >> 11) / Double(1 << 53)
    }
}

extension Scenario.Layer {
    package func int(_ key: String) -> Int? { settings[key]?.numberValue.map { Int(saturating: $0) } }
    package func number(_ key: String) -> Double? { settings[key]?.numberValue }
    package func string(_ key: String) -> String? { settings[key]?.stringValue }
    package func bool(_ key: String) -> Bool? {
        if case .bool(let value) = settings[key] { return value }
        return nil
    }
    package func ints(_ key: String) -> [Int]? { settings[key]?.arrayValue?.compactMap { $0.numberValue.map { Int(saturating: $0) } } }
}

/// `AuthenticationMiddleware` as the lab runs it: with no access token at all it attaches
/// nothing and says so, instead of sending `Authorization: Bearer ` with an empty token; a
/// refusal (`rejectedStatuses`, 401 by default) then gets a token (a `client_credentials`
/// grant where configured) and one more try.
struct TokenlessAwareAuthentication: ClientMiddleware, WrappingMiddleware {
    let base: AuthenticationMiddleware
    let tokens: TokenManager
    let rejectedStatuses: Set<Int>
    let note: @Sendable (String) -> Void

    var wrappedMiddlewareName: String { base.layerName }

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String, next: MiddlewareNext
    ) async throws -> (HTTPResponse, HTTPBody?) {
        guard await tokens.accessToken.isEmpty else {
            return try await base.intercept(request, body: body, baseURL: baseURL, operationID: operationID, next: next)
        }
        note("no access token: Authorization not attached")
        let (response, responseBody) = try await next(request, body, baseURL)
        guard rejectedStatuses.contains(response.status.code) else { return (response, responseBody) }
        try await tokens.renew(afterRejectionOf: "")
        return try await base.intercept(request, body: body, baseURL: baseURL, operationID: operationID, next: next)
    }
}
