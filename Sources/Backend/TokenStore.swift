import ChainKit

/// The backend's access and refresh tokens, grouped in families: a family is one sign-in
/// and every token refreshed from it, so reuse detection can revoke all of them at once.
///
/// Tokens are `at-<family>-<generation>` and `rt-<family>-<generation>`: the same run
/// issues the same tokens, so traces are byte-identical.
struct TokenStore {
    /// Why an access token is not accepted.
    enum AccessDenial: Equatable {
        case unknown
        case expired
        case revoked
    }

    /// Why a refresh-token grant is refused (each is `invalid_grant`, RFC 6749 §5.2).
    enum RefreshDenial: Error, Equatable {
        case unknown
        case revoked
        /// A rotated-out refresh token came back; `revokedFamily` when that revoked it.
        case reused(revokedFamily: Bool)

        var description: String {
            switch self {
            case .unknown: "the refresh token is not one this server issued"
            case .revoked: "the refresh token was revoked"
            case .reused(revokedFamily: true):
                "the refresh token was already used; every token from the same sign-in is now revoked"
            case .reused(revokedFamily: false): "the refresh token was already used"
            }
        }
    }

    private struct AccessToken {
        var family: Int
        var expiresAt: Double
        var expired = false
    }

    private enum RefreshState {
        case active
        case used
    }

    private struct Family {
        var generation = 1
        var revoked = false
        var tokens: [String] = []
    }

    /// How many tokens are kept; past it the oldest families are forgotten (their tokens
    /// become unknown), so a client signing in forever cannot exhaust memory.
    static let capacity = 100_000

    private var families: [Int: Family] = [:]
    private var accessTokens: [String: AccessToken] = [:]
    private var refreshTokens: [String: (family: Int, state: RefreshState)] = [:]
    private var nextFamily = 1
    private var oldestFamily = 1

    /// A new family's first tokens, as a password sign-in returns them.
    mutating func signIn(now: Double, ttl: Double) -> TokenPair {
        let family = nextFamily
        nextFamily += 1
        families[family] = Family()
        let pair = TokenPair(accessToken: "at-\(family)-1", refreshToken: "rt-\(family)-1")
        addAccess(pair.accessToken, family: family, expiresAt: now + ttl)
        addRefresh("rt-\(family)-1", family: family)
        evictIfFull()
        return pair
    }

    /// New tokens for `refreshToken`, or why not. Rotation replaces the refresh token and
    /// marks the old one used; reuse detection revokes the family of a used one.
    mutating func refresh(
        _ refreshToken: String, now: Double, ttl: Double, rotate: Bool, detectReuse: Bool
    ) -> Result<TokenPair, RefreshDenial> {
        guard let record = refreshTokens[refreshToken], var family = families[record.family] else {
            return .failure(.unknown)
        }
        guard !family.revoked else { return .failure(.revoked) }
        guard record.state == .active else {
            if detectReuse { revoke(family: record.family) }
            return .failure(.reused(revokedFamily: detectReuse))
        }
        family.generation += 1
        families[record.family] = family
        let generation = family.generation
        let access = "at-\(record.family)-\(generation)"
        addAccess(access, family: record.family, expiresAt: now + ttl)
        var refresh = refreshToken
        if rotate {
            refresh = "rt-\(record.family)-\(generation)"
            refreshTokens[refreshToken]?.state = .used
            addRefresh(refresh, family: record.family)
        }
        evictIfFull()
        return .success(TokenPair(accessToken: access, refreshToken: refresh))
    }

    /// Nil when `token` is an issued, unexpired, unrevoked access token.
    func check(accessToken token: String, now: Double) -> AccessDenial? {
        guard let record = accessTokens[token], let family = families[record.family] else { return .unknown }
        if family.revoked { return .revoked }
        if record.expired || now >= record.expiresAt { return .expired }
        return nil
    }

    /// Expires every access token issued so far; returns how many were still usable.
    mutating func expireAllAccessTokens(now: Double) -> Int {
        var expired = 0
        for token in accessTokens.keys {
            if check(accessToken: token, now: now) == nil { expired += 1 }
            accessTokens[token]?.expired = true
        }
        return expired
    }

    private mutating func revoke(family: Int) {
        families[family]?.revoked = true
    }

    private mutating func addAccess(_ token: String, family: Int, expiresAt: Double) {
        accessTokens[token] = AccessToken(family: family, expiresAt: expiresAt)
        families[family]?.tokens.append(token)
    }

    private mutating func addRefresh(_ token: String, family: Int) {
        refreshTokens[token] = (family, .active)
        families[family]?.tokens.append(token)
    }

    private mutating func evictIfFull() {
        while accessTokens.count + refreshTokens.count > TokenStore.capacity, oldestFamily < nextFamily - 1 {
            if let family = families.removeValue(forKey: oldestFamily) {
                for token in family.tokens {
                    accessTokens.removeValue(forKey: token)
                    refreshTokens.removeValue(forKey: token)
                }
            }
            oldestFamily += 1
        }
    }
}
