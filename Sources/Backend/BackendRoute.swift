/// The backend's routes, by path.
enum BackendRoute: Equatable {
    /// A route clients use; faults and latency apply to it.
    case api(APIRoute)
    /// A `/_lab/` route that controls the backend; no fault or latency touches it.
    case control(ControlRoute)

    enum APIRoute: Equatable {
        case graphQL
        case oauthToken
        case heroes
        case hero(id: String)
    }

    enum ControlRoute: String, CaseIterable {
        case expireTokens = "/_lab/expire-tokens"
        case authMode = "/_lab/auth-mode"
        case failNext = "/_lab/fail-next"
        case state = "/_lab/state"
    }

    /// The route for `path` (no query), or nil.
    init?(path: Substring) {
        switch path {
        case "/graphql": self = .api(.graphQL)
        case "/oauth/token": self = .api(.oauthToken)
        case "/heroes": self = .api(.heroes)
        default:
            if let control = ControlRoute(rawValue: String(path)) {
                self = .control(control)
                return
            }
            let prefix = "/heroes/"
            guard path.hasPrefix(prefix) else { return nil }
            let id = path.dropFirst(prefix.count)
            guard !id.isEmpty, !id.contains("/"), let decoded = FormURLEncoding.decode(id, plusIsSpace: false) else {
                return nil
            }
            self = .api(.hero(id: decoded))
        }
    }

    /// The methods the route answers, for `Allow`.
    var allowedMethods: [String] {
        switch self {
        case .api(.graphQL), .api(.heroes): ["GET", "POST"]
        case .api(.oauthToken): ["POST"]
        case .api(.hero): ["GET"]
        case .control(.state): ["GET"]
        case .control(.expireTokens), .control(.authMode), .control(.failNext): ["POST"]
        }
    }
}
