public import Timeline

/// One lint rule: what it is called, why the pattern goes wrong and how to fix it.
public struct LintRule: Sendable, Hashable {
    /// A stable id such as `retry-outside-max-retry`.
    public let id: String
    public let severity: FindingSeverity
    /// The pattern in a few words.
    public let title: String
    /// What goes wrong at run time, with the upstream reference.
    public let why: String
    public let fix: String
    /// The built-in scenario that shows it going wrong, where one does.
    public let scenario: String?
}

/// One place a rule applies to a chain.
public struct LintFinding: Sendable, Hashable {
    public let rule: LintRule
    /// One line naming the hops (`RetryOnErrorInterceptor (hop 1) …`).
    public let message: String
    /// The hops it names, by timeline index (0 is the top).
    public let hops: [Int]

    public init(rule: LintRule, message: String, hops: [Int]) {
        self.rule = rule
        self.message = message
        self.hops = hops
    }
}
