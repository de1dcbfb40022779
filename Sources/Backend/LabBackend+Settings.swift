extension LabBackend {
    /// How the backend misbehaves. Every field has the default a well-behaved server has,
    /// except ``hostile`` and the failure switches, which are off.
    ///
    /// ```swift
    /// var settings = LabBackend.Settings()
    /// settings.tokenTTL = 60
    /// settings.authFailureMode = .graphQLError200
    /// let backend = LabBackend(settings: settings, now: { clock.seconds })
    /// ```
    public struct Settings: Sendable, Hashable {
        /// Seconds an access token stays valid after it is issued (`expires_in`).
        public var tokenTTL: Double
        /// How `/graphql` reports a missing, expired or revoked access token.
        public var authFailureMode: AuthFailureMode
        /// Whether `/graphql` and the REST routes demand a valid bearer token.
        public var requireAuth: Bool
        /// Whether every refresh-token grant replaces the refresh token (the old one
        /// becomes used); without it the same refresh token is returned each time.
        public var rotateRefreshTokens: Bool
        /// Whether presenting a used refresh token revokes its whole token family; without
        /// it the reuse is refused and nothing else happens.
        public var reuseDetection: Bool
        /// A standing server failure for every request.
        public var serverErrorMode: ServerErrorMode
        /// How many upcoming requests are answered with ``failNextStatus`` instead of
        /// being served; counts down as they are.
        public var failNext: Int
        /// The 5xx status ``failNext`` answers with.
        public var failNextStatus: Int
        /// Seconds every response takes to arrive, reported in ``BackendResponse/latency``.
        public var latency: Double
        /// Whether responses carry ``HostilePayload``'s escape sequences in their headers
        /// and in every hero name.
        public var hostile: Bool
        /// Whether heroes in GraphQL answers leave out `name`, a field every lab query asks
        /// for: a server whose answers do not fit the operation (an older deployment, a
        /// gateway that trims fields). The client's parser fails them with `missingValue`.
        public var omitsHeroName: Bool

        public init(
            tokenTTL: Double = 300,
            authFailureMode: AuthFailureMode = .status401,
            requireAuth: Bool = true,
            rotateRefreshTokens: Bool = true,
            reuseDetection: Bool = true,
            serverErrorMode: ServerErrorMode = .none,
            failNext: Int = 0,
            failNextStatus: Int = 503,
            latency: Double = 0,
            hostile: Bool = false,
            omitsHeroName: Bool = false
        ) {
            self.tokenTTL = tokenTTL
            self.authFailureMode = authFailureMode
            self.requireAuth = requireAuth
            self.rotateRefreshTokens = rotateRefreshTokens
            self.reuseDetection = reuseDetection
            self.serverErrorMode = serverErrorMode
            self.failNext = failNext
            self.failNextStatus = failNextStatus
            self.latency = latency
            self.hostile = hostile
            self.omitsHeroName = omitsHeroName
        }
    }

    /// How a request without a usable access token is refused.
    public enum AuthFailureMode: String, Sendable, Hashable, CaseIterable {
        /// 401 with a JSON body whose first error has `extensions.code` `UNAUTHENTICATED`.
        case status401
        /// 200 with `"data": null` and the same `UNAUTHENTICATED` error, as many GraphQL
        /// servers do; a client must read the errors to notice. REST routes, which have no
        /// GraphQL errors, answer 401 as in ``status401``.
        case graphQLError200
        /// 401 with an empty body: the response that leaves an Apollo chain with no result.
        case emptyBody401
    }

    /// A server failure that lasts until it is switched off.
    public enum ServerErrorMode: Sendable, Hashable {
        case none
        /// Every request except `/_lab/` control requests is answered with `status`
        /// (kept within 500...599) and a JSON error body.
        case always(status: Int)
    }
}
