public import Timeline
import Foundation
import Wire

/// A filter expression over requests, in the style of mitmproxy's: `~op HeroQuery & ~c 401`.
///
/// ```
///  expression  := or
///  or          := and ('|' and)*
///  and         := not ('&' not)*                  precedence: ! binds tightest, then &, then |
///  not         := '!' not | primary
///  primary     := '(' or ')' | test
///  test        := '~op' TEXT | '~c' CODE | '~m' TEXT | '~u' TEXT | '~h' TEXT | '~b' TEXT
///               | '~hop' TEXT | '~retry' | '~refresh' | '~err' | '~held' | '~edited'
///               | '~cache' | '~finding'
///  TEXT        := a word (no spaces, quotes, parentheses, & or |) | "quoted \"text\"" | 'quoted'
///  CODE        := three characters, digits or x: 401, 4xx, 50x
/// ```
///
/// Text arguments are regular expressions (``FilterPattern``: no backtracking, so a search
/// takes time linear in the text), searched case-insensitively (`~m` compares the whole
/// method). An expression is parsed once (``init(parsing:)``) and evaluated against
/// many requests (``matches(_:)``); it compares by its source text.
///
/// ```swift
/// let filter = try FilterExpression(parsing: "~op Hero & !(~c 2xx | ~cache)")
/// filter.matches(subject) // true for a HeroQuery that never got a 2xx and no cache hit
/// ```
public struct FilterExpression: Sendable, Hashable, CustomStringConvertible {
    /// The text it was parsed from.
    public let source: String
    let root: FilterNode

    /// The longest expression accepted, in characters.
    public static let maximumLength = 1024
    /// The longest regular expression one test accepts, in characters.
    public static let maximumPatternLength = 256

    /// Parses `text`, or throws a ``FilterSyntaxError`` saying where and what was expected.
    public init(parsing text: String) throws(FilterSyntaxError) {
        try self.init(parsing: text, base: 0)
    }

    /// Parses `text` that starts `base` characters into a longer text: error positions count
    /// from the start of that text.
    public init(parsing text: String, base: Int) throws(FilterSyntaxError) {
        source = text
        root = try FilterParser.parse(text, base: base)
    }

    public var description: String { source }

    public static func == (lhs: FilterExpression, rhs: FilterExpression) -> Bool { lhs.source == rhs.source }
    public func hash(into hasher: inout Hasher) { hasher.combine(source) }

    /// Whether the request `subject` describes passes the filter.
    public func matches(_ subject: FilterSubject) -> Bool {
        root.matches(subject)
    }
}

/// What a filter reads about one request: its operation, the events recorded so far, and
/// how it ended. Secrets are compared with their real values; a filter only answers yes or
/// no, so nothing of them is shown.
public struct FilterSubject: Sendable {
    public var operation: String
    /// The request's events so far, in order.
    public var events: [TimelineEvent]
    /// Whether the request ended in failure (false while it runs).
    public var failed: Bool
    /// Where its delivered results came from, such as `["cache", "server"]`.
    public var results: [String]
    /// Whether a run finding cites it.
    public var hasFinding: Bool

    public init(operation: String, events: [TimelineEvent], failed: Bool = false, results: [String] = [], hasFinding: Bool = false) {
        self.operation = operation
        self.events = events
        self.failed = failed
        self.results = results
        self.hasFinding = hasFinding
    }
}

/// A status pattern of `~c`: three characters, each a digit or `x` for any digit.
struct StatusPattern: Sendable, Hashable {
    /// The digit each position must have; nil for `x`.
    let digits: [Int?]

    init?(_ text: String) {
        let characters = Array(text.lowercased())
        guard characters.count == 3, characters.allSatisfy({ $0 == "x" || $0.isASCII && $0.isNumber }),
            characters[0] != "x", characters[0] != "0"
        else { return nil }
        digits = characters.map { $0 == "x" ? nil : $0.wholeNumberValue }
    }

    func matches(_ status: Int) -> Bool {
        guard (100...999).contains(status) else { return false }
        let actual = [status / 100, status / 10 % 10, status % 10]
        return zip(digits, actual).allSatisfy { expected, digit in expected.map { $0 == digit } ?? true }
    }
}

/// One node of a parsed filter.
indirect enum FilterNode: Sendable, Hashable {
    case not(FilterNode)
    case and(FilterNode, FilterNode)
    case or(FilterNode, FilterNode)
    case operation(FilterPattern)
    case status(StatusPattern)
    case method(String)
    case url(FilterPattern)
    case header(FilterPattern)
    case body(FilterPattern)
    case hop(FilterPattern)
    case flag(FilterFlag)

    func matches(_ subject: FilterSubject) -> Bool {
        switch self {
        case .not(let inner): !inner.matches(subject)
        case .and(let left, let right): left.matches(subject) && right.matches(subject)
        case .or(let left, let right): left.matches(subject) || right.matches(subject)
        case .operation(let pattern): pattern.search(subject.operation)
        case .status(let pattern): subject.events.contains { $0.status.map(pattern.matches) ?? false }
        case .method(let method): subject.events.contains { $0.method?.caseInsensitiveCompare(method) == .orderedSame }
        case .url(let pattern): subject.events.contains { $0.url.map(pattern.search) ?? false }
        case .header(let pattern):
            subject.events.contains { event in
                event.headers?.contains { pattern.search("\($0.name): \($0.value)") } ?? false
            }
        case .body(let pattern): subject.events.contains { $0.body.map { pattern.search($0.text) } ?? false }
        case .hop(let pattern): subject.events.contains { $0.hop != TimelineEvent.noHop && pattern.search($0.name) }
        case .flag(let flag): flag.matches(subject)
        }
    }
}

/// The tests without an argument.
enum FilterFlag: String, Sendable, Hashable, CaseIterable {
    /// Made more than one attempt.
    case retry
    /// Refreshed the access token, or waited for another request's refresh.
    case refresh
    /// A hop reported an error, or the request failed.
    case err
    /// Was held at a stop for a person (step mode, a breakpoint or a rule).
    case held
    /// Had its request or response edited at a stop.
    case edited
    /// Read the cache and found a result there.
    case cache
    /// A run finding cites it.
    case finding

    func matches(_ subject: FilterSubject) -> Bool {
        switch self {
        case .retry: subject.events.contains { $0.attempt > 1 }
        case .refresh: subject.events.contains { $0.kind == .auth }
        case .err: subject.failed || subject.events.contains { $0.phase == .error }
        case .held: subject.events.contains { $0.phase == .paused }
        case .edited: subject.events.contains { $0.phase == .edited }
        case .cache: subject.results.contains("cache") || subject.events.contains { $0.phase == .cacheHit }
        case .finding: subject.hasFinding
        }
    }
}
