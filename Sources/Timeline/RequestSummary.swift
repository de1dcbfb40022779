/// How one request ended, for the `requests` list of an export.
///
/// ```swift
/// RequestSummary(id: 1, operation: "HeroQuery", outcome: .success, attempts: 1, results: ["cache", "server"])
/// ```
public struct RequestSummary: Sendable, Hashable {
    public enum Outcome: String, Sendable, Hashable {
        case success
        /// The last result carried data and GraphQL errors: some fields are missing or null.
        case partial
        case failure
    }

    /// The request id (#1, #2…).
    public var id: Int
    /// The GraphQL operation name or REST operation id.
    public var operation: String
    public var outcome: Outcome
    /// Passes through the chain, from 1.
    public var attempts: Int
    /// The final error as text when the request failed.
    public var error: String?
    /// Where each delivered result came from, in order, such as `["cache", "server"]`.
    public var results: [String]
    /// `query`, `mutation` or `subscription` for a GraphQL operation; `nil` for a REST call.
    public var operationType: String?
    /// Every GraphQL error of the last result, as its message with its code.
    public var graphQLErrors: [String] = []
    /// The last result's `data` as JSON when it came with GraphQL errors: what the caller got.
    public var data: String?

    public init(
        id: Int, operation: String, outcome: Outcome, attempts: Int, error: String? = nil, results: [String] = [],
        operationType: String? = nil
    ) {
        self.id = id
        self.operation = operation
        self.outcome = outcome
        self.attempts = attempts
        self.error = error
        self.results = results
        self.operationType = operationType
    }
}
