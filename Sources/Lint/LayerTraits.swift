/// What a layer of a chain does, as far as lint rules care: whether it retries, limits
/// retries, refreshes tokens, reads GraphQL errors…
///
/// The lab's own layers are described in their definitions (Lab's `LayerRegistry`, read as
/// `LayerTraits.builtIn`). An app's interceptor or middleware says what it does by conforming
/// to ``LintDescribed``; a layer that says nothing has no traits, and no rule guesses about it.
public struct LayerTraits: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Starts another attempt: throws `ChainRunner.Retry`, or calls `next` again.
    public static let retries = LayerTraits(rawValue: 1 << 0)
    /// Turns every error it sees into a retry, including `MaxRetriesError`.
    public static let retriesOnAnyError = LayerTraits(rawValue: 1 << 1)
    /// Counts passes and stops them (`MaxRetryInterceptor`).
    public static let limitsRetries = LayerTraits(rawValue: 1 << 2)
    /// Puts the Authorization header on the request.
    public static let attachesAuthorization = LayerTraits(rawValue: 1 << 3)
    /// Renews the access token when the server rejects it.
    public static let refreshesTokens = LayerTraits(rawValue: 1 << 4)
    /// Reads the `errors` of GraphQL results (UNAUTHENTICATED, PersistedQueryNotFound…).
    public static let readsGraphQLErrors = LayerTraits(rawValue: 1 << 5)
    /// Turns the HTTP response into GraphQL results, errors included.
    public static let parsesResponses = LayerTraits(rawValue: 1 << 6)
    /// Writes a line per request and per response.
    public static let logs = LayerTraits(rawValue: 1 << 7)
    /// Buffers a single-pass request body before calling `next` more than once.
    public static let buffersSinglePassBodies = LayerTraits(rawValue: 1 << 8)
    /// Handles only the first result of an operation (e.g. finishes or counts on it).
    public static let assumesSingleResult = LayerTraits(rawValue: 1 << 9)
    /// Changes result data in its post-flight.
    public static let changesResultData = LayerTraits(rawValue: 1 << 10)
}

/// A layer that tells ``ChainLint`` what it does, so rules can reason about it.
///
/// ```swift
/// struct RetryOn503: ChainHTTPInterceptor, LintDescribed {
///     var lintTraits: LayerTraits { [.retries] }
///     …
/// }
/// ```
public protocol LintDescribed {
    var lintTraits: LayerTraits { get }
}
