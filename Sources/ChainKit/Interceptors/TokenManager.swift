/// An access token and the refresh token that renews it.
public struct TokenPair: Sendable, Hashable {
    public var accessToken: String
    public var refreshToken: String?

    public init(accessToken: String, refreshToken: String? = nil) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
    }
}

/// How a client reacts when the server rejects its access token. Three of the ways real
/// apps do it, so their bugs can be reproduced.
public enum RefreshStrategy: String, Sendable, Hashable, CaseIterable {
    /// Every rejection refreshes. Concurrent rejections start a refresh storm, and with
    /// rotating refresh tokens they present the same refresh token twice.
    case naive
    /// Concurrent rejections share one refresh; a rejection of an already replaced token
    /// just uses the new one. The fix.
    case singleFlight
    /// Refreshes, but the retry carries the token captured before the refresh, so it is
    /// rejected again until the retries run out.
    case staleToken
}

/// Errors of the token manager itself.
public enum TokenRefreshError: Error, Equatable, CustomStringConvertible {
    case noRefreshToken

    public var description: String {
        switch self {
        case .noRefreshToken: "the access token was rejected and there is no refresh token to renew it"
        }
    }
}

/// Holds the current tokens and renews them with a refresh call, following a
/// ``RefreshStrategy``.
///
/// The refresh call is injected: the lab points it at its OAuth token endpoint, a test at a
/// counter, an app at its own backend.
public actor TokenManager {
    /// Exchanges a refresh token for new tokens (an OAuth `refresh_token` grant).
    public typealias Refresher = @Sendable (_ refreshToken: String) async throws -> TokenPair

    /// Observers for the moments an operation waits on a refresh another operation started
    /// (``RefreshStrategy/singleFlight`` only). A scheduler that runs operations one at a
    /// time uses them to know the waiting operation cannot move until that refresh ends.
    package struct Hooks: Sendable {
        package var willAwaitSharedRefresh: @Sendable () async -> Void
        package var didAwaitSharedRefresh: @Sendable () async -> Void

        package init(
            willAwaitSharedRefresh: @escaping @Sendable () async -> Void = {},
            didAwaitSharedRefresh: @escaping @Sendable () async -> Void = {}
        ) {
            self.willAwaitSharedRefresh = willAwaitSharedRefresh
            self.didAwaitSharedRefresh = didAwaitSharedRefresh
        }
    }

    public nonisolated let strategy: RefreshStrategy
    private var tokens: TokenPair
    private let refresher: Refresher
    private let hooks: Hooks
    private var inFlight: Task<TokenPair, any Error>?
    /// Refresh calls made so far, successful or not.
    public private(set) var refreshCount = 0

    public init(tokens: TokenPair, strategy: RefreshStrategy, refresher: @escaping Refresher) {
        self.init(tokens: tokens, strategy: strategy, hooks: Hooks(), refresher: refresher)
    }

    /// A manager that tells `hooks` when an operation waits on another's refresh.
    package init(tokens: TokenPair, strategy: RefreshStrategy, hooks: Hooks, refresher: @escaping Refresher) {
        self.tokens = tokens
        self.strategy = strategy
        self.hooks = hooks
        self.refresher = refresher
    }

    /// The access token to send now.
    public var accessToken: String { tokens.accessToken }

    /// The current tokens.
    public var currentTokens: TokenPair { tokens }

    /// Replaces the tokens (a sign-in, or a lab expiring them by hand).
    public func setTokens(_ tokens: TokenPair) {
        self.tokens = tokens
    }

    /// Called when the server rejected `rejected`; refreshes as the strategy says and
    /// returns the access token now current.
    @discardableResult
    public func renew(afterRejectionOf rejected: String) async throws -> String {
        switch strategy {
        case .naive, .staleToken:
            return try await refreshNow().accessToken
        case .singleFlight:
            if tokens.accessToken != rejected { return tokens.accessToken }
            if let inFlight {
                await hooks.willAwaitSharedRefresh()
                let result = await inFlight.result
                await hooks.didAwaitSharedRefresh()
                return try result.get().accessToken
            }
            let task = Task { try await self.refreshNow() }
            inFlight = task
            defer { inFlight = nil }
            return try await task.value.accessToken
        }
    }

    private func refreshNow() async throws -> TokenPair {
        guard let refreshToken = tokens.refreshToken else { throw TokenRefreshError.noRefreshToken }
        refreshCount += 1
        let renewed = try await refresher(refreshToken)
        tokens = renewed
        return renewed
    }
}
