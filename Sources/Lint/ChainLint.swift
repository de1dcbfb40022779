import ChainKit
import Timeline

/// Rules over a chain as configured: what will go wrong before anything runs.
///
/// ```swift
/// let findings = ChainLint.check(chain)
/// for finding in findings { print(finding.rule.id, finding.message) }
/// ```
///
/// Each rule reads only what ``LintChain`` knows: hop order, each layer's ``LayerTraits``,
/// the operations' settings and the refresh setup. A layer whose traits are unknown never
/// makes a rule fire. To add a rule, add a ``Check`` to ``checks`` (its ``LintRule`` and a
/// function from the chain to its findings) and a test with a chain that triggers it and a
/// close one that must not.
public enum ChainLint {
    /// A rule and the function that finds where it applies.
    struct Check: Sendable {
        let rule: LintRule
        let find: @Sendable (LintChain) -> [(message: String, hops: [LintChain.Hop])]
    }

    /// Every rule, in the order findings are reported.
    public static var rules: [LintRule] { checks.map(\.rule) }

    /// The rule with `id`.
    public static func rule(_ id: String) -> LintRule? { rules.first { $0.id == id } }

    /// Every finding for `chain`, rule by rule, then by the first hop each names.
    public static func check(_ chain: LintChain) -> [LintFinding] {
        checks.flatMap { check in
            check.find(chain).map { LintFinding(rule: check.rule, message: $0.message, hops: $0.hops.map(\.index)) }
        }
    }

    static let checks: [Check] = [
        retryOutsideMaxRetry, maxRetryNotFirst, noMaxRetry, noResponseParser, errorCheckBeforeParse, httpInterceptorRetry,
        naiveRefreshRotation, staleTokenRetry, settingNeverApplies, retryInsideAuth, retrySinglePassBody,
        loggingOutsideRetry, loggingInsideRetry, cacheAndNetworkSingleResult, postflightChangesCachedData,
    ]
}

// MARK: - Retries

extension ChainLint {
    static let retryOutsideMaxRetry = Check(
        rule: LintRule(
            id: "retry-outside-max-retry", severity: .error, title: "a retrying interceptor outside MaxRetryInterceptor",
            why: "MaxRetryInterceptor ends the passes by throwing MaxRetriesError, which travels up through the error mappers of the interceptors above it. One that turns every error into RequestChain.Retry turns MaxRetriesError into another pass, so nothing limits the retries (Apollo iOS RequestChain/Interceptors/MaxRetryInterceptor.swift).",
            fix: "Put MaxRetryInterceptor first, above every interceptor that retries.",
            scenario: "retry-order"),
        find: { chain in
            guard let limit = chain.graphQL.first(where: { $0.has(.limitsRetries) }) else { return [] }
            return chain.graphQL.filter { $0.index < limit.index && $0.has(.retriesOnAnyError) }.map { retrier in
                ("\(retrier.label) turns every error into a retry from above \(limit.label), so MaxRetriesError becomes another retry", [retrier, limit])
            }
        })

    static let maxRetryNotFirst = Check(
        rule: LintRule(
            id: "max-retry-not-first", severity: .warning, title: "MaxRetryInterceptor is not the first interceptor",
            why: "The interceptors above MaxRetryInterceptor run on every pass outside its count and see MaxRetriesError in their error mappers; if one of them retries on it, the retries have no bound. Apollo's default provider puts MaxRetryInterceptor first (Apollo iOS RequestChain/Interceptors/InterceptorProvider.swift).",
            fix: "Make MaxRetryInterceptor element 0 of graphQLInterceptors(for:).",
            scenario: "retry-order"),
        find: { chain in
            let graphQL = chain.graphQL
            guard let limit = graphQL.first(where: { $0.has(.limitsRetries) }), limit.index > 0 else { return [] }
            let above = graphQL.filter { $0.index < limit.index }
            // A retrier above that retries on anything is the error retry-outside-max-retry reports.
            guard !above.contains(where: { $0.has(.retriesOnAnyError) }) else { return [] }
            return [("\(limit.label) is not first: \(above.map(\.label).joined(separator: ", ")) run outside its count", above + [limit])]
        })

    static let noMaxRetry = Check(
        rule: LintRule(
            id: "no-max-retry", severity: .warning, title: "a chain that can retry without MaxRetryInterceptor",
            why: "RequestChain has no retry limit of its own: a retry that fails the same way again (a refresh that keeps failing, a stale token, a persisted query the server never stores) restarts the chain for ever. The limit is MaxRetryInterceptor's (Apollo iOS RequestChain/RequestChain.swift, MaxRetryInterceptor.swift).",
            fix: "Add MaxRetryInterceptor as the first GraphQL interceptor.",
            scenario: nil),
        find: { chain in
            let graphQL = chain.graphQL
            let retriers = graphQL.filter { $0.has(.retries) }
            guard !retriers.isEmpty, !graphQL.contains(where: { $0.has(.limitsRetries) }) else { return [] }
            return [("\(retriers.map(\.label).joined(separator: ", ")) can retry, and no MaxRetryInterceptor limits the retries", retriers)]
        })

    static let httpInterceptorRetry = Check(
        rule: LintRule(
            id: "http-interceptor-retry", severity: .error, title: "an HTTP interceptor meant to retry",
            why: "HTTP interceptors see only the HTTP request and response, never the GraphQL request that RequestChain.Retry carries, so they cannot restart the chain; a retry there either cannot be written or re-sends below every GraphQL interceptor, outside MaxRetryInterceptor (apollo-ios #3611; Apollo iOS RequestChain/Interceptors/HTTPInterceptor.swift).",
            fix: "Throw an error from the HTTP interceptor and turn it into RequestChain.Retry in a GraphQL interceptor's mapErrors, below MaxRetryInterceptor.",
            scenario: nil),
        find: { chain in
            chain.hops.filter { $0.kind == .http && $0.has(.retries) }.map { hop in
                ("\(hop.label) is an HTTP interceptor meant to retry, and HTTP interceptors cannot throw RequestChain.Retry", [hop])
            }
        })
}

// MARK: - Parsing

extension ChainLint {
    static let noResponseParser = Check(
        rule: LintRule(
            id: "no-response-parser", severity: .error, title: "no response parser",
            why: "GraphQL errors arrive inside the JSON of a 200 response; only the response parser turns them into results with errors. Without one no interceptor sees them: AuthInterceptor never learns of UNAUTHENTICATED and the persisted-query retry never sees PersistedQueryNotFound (apollo-ios #1428).",
            fix: "Return JSONResponseParsingInterceptor (or a parser that reads errors) from responseParser(for:).",
            scenario: nil),
        find: { chain in
            chain.hops.filter { $0.kind == .parser && $0.traits != nil && !$0.has(.parsesResponses) }.map { hop in
                ("\(hop.label) is the response parser but does not parse GraphQL responses, so no interceptor sees GraphQL errors", [hop])
            }
        })

    static let errorCheckBeforeParse = Check(
        rule: LintRule(
            id: "error-check-before-parse", severity: .error, title: "a GraphQL-error check where errors are not parsed yet",
            why: "HTTP interceptors see the response as raw bytes on its way to the parser; GraphQL errors exist only once the parser has turned the body into results, so a check there never finds them (apollo-ios #1475).",
            fix: "Read the errors in a GraphQL interceptor's map, where results arrive parsed.",
            scenario: nil),
        find: { chain in
            let parser = chain.hops.first { $0.kind == .parser }
            return chain.hops.filter { $0.kind == .http && $0.has(.readsGraphQLErrors) }.map { hop in
                let after = parser.map { ", before \($0.label) has parsed them" } ?? ""
                return ("\(hop.label) reads GraphQL errors as an HTTP interceptor\(after)", [hop] + (parser.map { [$0] } ?? []))
            }
        })
}

// MARK: - Tokens

extension ChainLint {
    static let naiveRefreshRotation = Check(
        rule: LintRule(
            id: "naive-refresh-rotation", severity: .error, title: "naive refresh against rotating refresh tokens",
            why: "Concurrent 401s each send a refresh_token grant with the same refresh token. With rotation only the first use is valid: the next is refused with invalid_grant (RFC 6749 §5.2), and reuse detection revokes the whole token family, the new tokens included (RFC 6749 §10.4; apollo-kotlin #4053, Alamofire #3297, #3928, #3950).",
            fix: "Refresh single-flight: the first 401 refreshes and later 401s for the same token wait for it (refreshStrategy singleFlight).",
            scenario: "refresh-storm"),
        find: { chain in
            guard chain.refreshStrategy == .naive, chain.rotatesRefreshTokens == true else { return [] }
            return chain.hops.filter { $0.has(.refreshesTokens) }.map { hop in
                ("\(hop.label) refreshes on every 401 (naive) against a token endpoint that rotates refresh tokens", [hop])
            }
        })

    static let staleTokenRetry = Check(
        rule: LintRule(
            id: "stale-token-retry", severity: .error, title: "a retry with the token from before the refresh",
            why: "The refresh succeeds, but the retry carries the Authorization captured on the first pass; the server rejects that expired token again (RFC 6750 §3.1 invalid_token) on every attempt until the retries run out.",
            fix: "Read the token when each attempt is sent, after any refresh (refreshStrategy singleFlight).",
            scenario: "stale-token"),
        find: { chain in
            guard chain.refreshStrategy == .staleToken else { return [] }
            return chain.hops.filter { $0.has(.refreshesTokens) }.map { hop in
                ("\(hop.label) retries with the token captured before its refresh (staleToken)", [hop])
            }
        })
}

// MARK: - Operations and the cache

extension ChainLint {
    static let settingNeverApplies = Check(
        rule: LintRule(
            id: "setting-never-applies", severity: .warning, title: "a setting that can never take effect",
            why: "Automatic persisted queries and GET decide how the HTTP request is built; an operation that never reaches the network never builds one, and the GET-for-retry setting only acts on the retry after a PersistedQueryNotFound, which needs autoPersistQueries (Apollo iOS RequestChain/GraphQLRequest.swift, AutomaticPersistedQueryInterceptor.swift).",
            fix: "Drop the setting, or give the operation a fetch behaviour that fetches.",
            scenario: nil),
        find: { chain in
            chain.operations.compactMap { operation in
                let network = [
                    operation.autoPersistQueries ? "autoPersistQueries" : nil, operation.useGETForQueries ? "useGETForQueries" : nil,
                    operation.useGETForPersistedQueryRetry ? "useGETForPersistedQueryRetry" : nil,
                ].compactMap { $0 }
                if operation.fetchBehavior.networkFetch == .never, !network.isEmpty {
                    return ("\(operation.name) sets \(network.joined(separator: ", ")) with \(operation.fetchBehavior), which never reaches the network", [])
                }
                if operation.useGETForPersistedQueryRetry, !operation.autoPersistQueries {
                    return ("\(operation.name) sets useGETForPersistedQueryRetry without autoPersistQueries, so there is no persisted-query retry", [])
                }
                return nil
            }
        })

    static let cacheAndNetworkSingleResult = Check(
        rule: LintRule(
            id: "cache-and-network-single-result", severity: .warning, title: "CacheAndNetwork with an interceptor that assumes one result",
            why: "CacheAndNetwork yields the cached result and then the server's. An interceptor that acts on the first result only decides on the cached one and misreads or drops the server's (Apollo iOS RequestChain/RequestChain.swift, FetchBehavior).",
            fix: "Handle every result in map, or give that operation CacheFirst or NetworkOnly.",
            scenario: nil),
        find: { chain in
            let names = chain.operations.filter { $0.fetchBehavior == .CacheAndNetwork }.map(\.name)
            guard !names.isEmpty else { return [] }
            return chain.graphQL.filter { $0.has(.assumesSingleResult) }.map { hop in
                ("\(hop.label) handles one result, and \(names.joined(separator: ", ")) uses CacheAndNetwork, which yields two (cache, then server)", [hop])
            }
        })

    static let postflightChangesCachedData = Check(
        rule: LintRule(
            id: "postflight-changes-cached-data", severity: .warning, title: "a post-flight that changes data the cache does not keep",
            why: "The cache stores what the parser produced, not the result as post-flight interceptors changed it, so the same query answered later from the cache comes back without the change (Apollo iOS RequestChain/RequestChain.swift, the cache write).",
            fix: "Change the data in the parser or in the caller, not in a post-flight interceptor.",
            scenario: "cache-records"),
        find: { chain in
            let names = chain.operations.filter { $0.fetchBehavior.cacheRead != .never }.map(\.name)
            guard !names.isEmpty else { return [] }
            return chain.graphQL.filter { $0.has(.changesResultData) }.map { hop in
                ("\(hop.label) changes result data in its post-flight, and \(names.joined(separator: ", ")) later read the cache without that change", [hop])
            }
        })
}

// MARK: - Middleware

extension ChainLint {
    static let retryInsideAuth = Check(
        rule: LintRule(
            id: "retry-inside-auth", severity: .warning, title: "a retrying middleware below the auth middleware",
            why: "Middlewares run in array order: the auth middleware attaches the token once and the retrying middleware below it re-sends that same request, so a token that expired meanwhile (during a backoff) is sent again on every retry (swift-openapi-runtime Interface/UniversalClient.swift, the middleware fold).",
            fix: "Put the retrying middleware above the auth middleware, so every attempt passes through auth and carries the current token.",
            scenario: "openapi-middleware"),
        find: { chain in
            let middlewares = chain.middlewares
            guard let auth = middlewares.first(where: { $0.has(.attachesAuthorization) }) else { return [] }
            return middlewares.filter { $0.index > auth.index && $0.has(.retries) }.map { retrier in
                ("\(retrier.label) retries below \(auth.label): every retry re-sends the Authorization attached before the first attempt", [auth, retrier])
            }
        })

    static let retrySinglePassBody = Check(
        rule: LintRule(
            id: "retry-single-pass-body", severity: .warning, title: "a retrying middleware that does not buffer single-pass bodies",
            why: "A streamed request body (HTTPBody with iterationBehavior single) can be read once; a retry reads it again and fails instead of re-sending it (swift-openapi-generator #423; swift-openapi-runtime Interface/HTTPBody.swift).",
            fix: "Buffer single-pass bodies before retrying (RetryingMiddleware's bufferingSinglePassBodies), or send bodies that can be read more than once.",
            scenario: nil),
        find: { chain in
            chain.middlewares.filter { $0.has(.retries) && !$0.has(.buffersSinglePassBodies) }.map { hop in
                ("\(hop.label) calls next again without buffering the request body, so a single-pass body fails on the second attempt", [hop])
            }
        })

    static let loggingOutsideRetry = Check(
        rule: LintRule(
            id: "logging-outside-retry", severity: .info, title: "logging above a retrying middleware",
            why: "A middleware above a retrying one sees one call and its last response; the attempts in between never reach it (swift-openapi-runtime Interface/UniversalClient.swift, the middleware fold).",
            fix: "Nothing to fix for one line per call; put the logging middleware below the retrying one to log every attempt.",
            scenario: "openapi-middleware"),
        find: { chain in
            logging(chain, above: true) { logger, retrier in
                "\(logger.label) sits above \(retrier.label): it writes one line for all attempts of a call"
            }
        })

    static let loggingInsideRetry = Check(
        rule: LintRule(
            id: "logging-inside-retry", severity: .info, title: "logging below a retrying middleware",
            why: "A middleware below a retrying one is called once per attempt, so it logs every attempt, failed ones included (swift-openapi-runtime Interface/UniversalClient.swift, the middleware fold).",
            fix: "Nothing to fix for one line per attempt; put the logging middleware above the retrying one to log each call once.",
            scenario: nil),
        find: { chain in
            logging(chain, above: false) { logger, retrier in
                "\(logger.label) sits below \(retrier.label): it writes one line per attempt"
            }
        })

    /// Each logging middleware with the first retrying middleware below it (`above`) or above it.
    private static func logging(
        _ chain: LintChain, above: Bool, message: (LintChain.Hop, LintChain.Hop) -> String
    ) -> [(message: String, hops: [LintChain.Hop])] {
        let middlewares = chain.middlewares
        return middlewares.filter { $0.has(.logs) }.compactMap { logger in
            let retriers = middlewares.filter { $0.has(.retries) && (above ? $0.index > logger.index : $0.index < logger.index) }
            guard let retrier = above ? retriers.first : retriers.last else { return nil }
            return (message(logger, retrier), above ? [logger, retrier] : [retrier, logger])
        }
    }
}

extension LintChain {
    var graphQL: [Hop] { hops.filter { $0.kind == .graphql } }
    var middlewares: [Hop] { hops.filter { $0.kind == .middleware } }
}
