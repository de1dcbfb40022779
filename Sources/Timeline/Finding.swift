/// How much a finding matters, for lint findings and run findings alike.
public enum FindingSeverity: String, Sendable, Hashable, CaseIterable, Comparable {
    /// Worth knowing; nothing went wrong.
    case info
    /// Goes wrong under some conditions.
    case warning
    /// Goes wrong whenever the condition is met.
    case error

    public static func < (lhs: FindingSeverity, rhs: FindingSeverity) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    /// SARIF's name for the level (`note` for info).
    public var sarifLevel: String { self == .info ? "note" : rawValue }
}

/// A fact a recorded run proves, such as a refresh storm, with the events that prove it.
///
/// ```swift
/// Finding(id: "stale-token-retry", severity: .error,
///         message: "#1 attempt 2 (seq 16) sent the Authorization that got 401 at seq 7", events: [7, 16], requests: [1])
/// ```
public struct Finding: Sendable, Hashable {
    /// The detector's id, such as `refresh-storm`.
    public var id: String
    public var severity: FindingSeverity
    /// One line that cites the events by seq.
    public var message: String
    /// The seqs of the events it cites, ascending.
    public var events: [Int]
    /// The requests involved.
    public var requests: [Int]

    public init(id: String, severity: FindingSeverity, message: String, events: [Int], requests: [Int]) {
        self.id = id
        self.severity = severity
        self.message = message
        self.events = events
        self.requests = requests
    }
}
