import Wire

/// The notes (event details) of the token manager's `auth` events: what the lab
/// writes and what the findings detectors read, in one place.
package enum RefreshNote {
    package static let grantPrefix = "refresh_token grant, refresh token "
    /// A refresh_token grant sent with the session's `refreshToken`-th distinct refresh token;
    /// `stored`: the one the person gave and keeps, which a rotation spends.
    package static func grant(refreshToken number: Int, stored: Bool = false) -> String {
        grantPrefix + String(number) + (stored ? storedSuffix : "")
    }
    package static let storedSuffix = ", the one you gave"
    /// A request waited for another request's refresh (single-flight), which has ended, and
    /// goes on (an `auth`/`resumed` event).
    package static let released = "woke after the shared refresh"

    /// Which refresh token a grant event presented, if it is one.
    package static func refreshToken(of detail: String?) -> Int? {
        guard let detail, detail.hasPrefix(grantPrefix) else { return nil }
        return Int(detail.dropFirst(grantPrefix.count).prefix { $0.isNumber })
    }

    /// Whether a grant event presented the refresh token the person gave (``grant(refreshToken:stored:)``).
    package static func presentsStored(_ detail: String?) -> Bool {
        refreshToken(of: detail) != nil && detail?.hasSuffix(storedSuffix) == true
    }
}

/// Numbers refresh tokens in the order a session first presents them, so events can tell
/// them apart without recording them.
package final class RefreshTokenNumbers: Sendable {
    package init() {}

    private let numbers = Locked<[String: Int]>([:])

    package func number(of token: String) -> Int {
        numbers.withLock { numbers in
            if let number = numbers[token] { return number }
            numbers[token] = numbers.count + 1
            return numbers.count
        }
    }
}
