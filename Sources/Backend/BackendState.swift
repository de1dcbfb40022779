import ChainKit
import Foundation

/// Everything the backend remembers. It lives in ``LabBackend``'s mutex; every method runs
/// with the lock held and does work bounded by the size of the request.
struct BackendState {
    var settings: LabBackend.Settings
    var tokens = TokenStore()
    var heroes = HeroStore()
    var persistedQueries = PersistedQueryStore()
    var counters: [LabBackend.Counter: Int] = [:]

    init(settings: LabBackend.Settings) {
        self.settings = settings
        injectFailures(settings.failNext, status: settings.failNextStatus)
    }

    mutating func count(_ counter: LabBackend.Counter) {
        counters[counter, default: 0] += 1
    }

    /// Routes `request`, applies faults and latency, and answers it.
    mutating func respond(to request: BackendRequest, now: Double) -> BackendResponse {
        let parts = request.target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = parts.first ?? ""
        let query = parts.count > 1 ? parts[1] : nil
        guard path.hasPrefix("/") else {
            return .restError(400, error: "bad_request", message: "the request target must be a path starting with /")
        }
        guard let route = BackendRoute(path: path) else {
            return .restError(404, error: "not_found", message: "no route for \(path)")
        }
        guard route.allowedMethods.contains(request.method) else {
            let allow = route.allowedMethods.joined(separator: ", ")
            return .restError(
                405, error: "method_not_allowed", message: "\(path) allows \(allow)", extraHeaders: [("Allow", allow)])
        }
        switch route {
        case .control(let control):
            return serveControl(control, request: request, now: now)
        case .api(let api):
            var response = takeInjectedFailure() ?? serve(api, request: request, query: query, now: now)
            response.latency = max(0, settings.latency)
            return response
        }
    }

    private mutating func serve(
        _ route: BackendRoute.APIRoute, request: BackendRequest, query: Substring?, now: Double
    ) -> BackendResponse {
        switch route {
        case .graphQL: serveGraphQL(request, query: query, now: now)
        case .oauthToken: serveToken(request, now: now)
        case .heroes: serveHeroes(request, now: now)
        case .hero(let id): serveHero(id: id, request: request, now: now)
        }
    }

    /// A pending ``LabBackend/Settings/failNext`` failure, else the standing server error.
    private mutating func takeInjectedFailure() -> BackendResponse? {
        let status: Int
        if settings.failNext > 0 {
            settings.failNext -= 1
            status = settings.failNextStatus
        } else if case .always(let standing) = settings.serverErrorMode {
            status = standing
        } else {
            return nil
        }
        count(.injectedFailures)
        let clamped = min(599, max(500, status))
        return .graphQLError(
            clamped, message: "lab backend: injected \(clamped) \(BackendState.reason(forServerError: clamped))",
            code: "INTERNAL_SERVER_ERROR")
    }

    static func reason(forServerError status: Int) -> String {
        switch status {
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: "Server Error"
        }
    }

    /// Nil when the request may proceed; otherwise the refusal ``LabBackend/Settings/authFailureMode`` calls for.
    mutating func authorize(_ request: BackendRequest, now: Double, graphQL: Bool) -> BackendResponse? {
        guard settings.requireAuth else { return nil }
        let reason: String
        if let authorization = request.headers["Authorization"] {
            guard let token = BackendState.bearerToken(authorization) else {
                return refuse("the Authorization header does not hold a bearer token", tokenPresented: true, graphQL: graphQL)
            }
            switch tokens.check(accessToken: token, now: now) {
            case nil: return nil
            case .unknown: reason = "unknown access token"
            case .expired: reason = "access token expired"
            case .revoked: reason = "access token revoked"
            }
            return refuse(reason, tokenPresented: true, graphQL: graphQL)
        }
        return refuse("missing bearer token", tokenPresented: false, graphQL: graphQL)
    }

    private mutating func refuse(_ reason: String, tokenPresented: Bool, graphQL: Bool) -> BackendResponse {
        count(.unauthorized)
        // RFC 6750 §3: no error code when the request carried no credentials at all.
        let challenge = tokenPresented
            ? "Bearer realm=\"lab\", error=\"invalid_token\", error_description=\"\(reason)\""
            : "Bearer realm=\"lab\""
        switch settings.authFailureMode {
        case .graphQLError200 where graphQL:
            return .graphQLError(200, message: reason, code: "UNAUTHENTICATED", nullData: true)
        case .status401, .graphQLError200:
            return .graphQLError(401, message: reason, code: "UNAUTHENTICATED", extraHeaders: [("WWW-Authenticate", challenge)])
        case .emptyBody401:
            // A JSON type with no bytes, as the frameworks that produce this edge case send it.
            return BackendResponse(
                status: 401, headers: BackendResponse.fields([("Content-Type", "application/json"), ("WWW-Authenticate", challenge)]))
        }
    }

    /// The token of a `Bearer <token>` credential (the scheme is case-insensitive).
    static func bearerToken(_ authorization: String) -> String? {
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }
}
