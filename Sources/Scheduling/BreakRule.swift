public import Stops
public import Timeline
public import TimelineFilter
import Foundation
import Vocabulary

/// A breakpoint by rule: where to stop, and a filter the request must pass at that moment.
///
/// ```
///  rule  := where [ 'if' FILTER ]
///  where := 'pre@' HOP | 'post@' HOP | 'answer' | 'refresh'
/// ```
///
/// `pre@HOP` and `post@HOP` stop at the pre-flight or post-flight stop of every hop with that
/// name (compared without regard to case); `answer` at the transport's stop after it
/// received the response; `refresh` before the token manager's refresh. The filter
/// (``FilterExpression``) is evaluated when the request reaches the stop, on what it has
/// recorded so far and what is at the stop.
///
/// ```swift
/// let rule = try BreakRule(parsing: "post@AuthInterceptor if ~op HeroQuery & ~c 401")
/// ```
public struct BreakRule: Sendable, Hashable, CustomStringConvertible {
    public enum Place: Sendable, Hashable {
        case hop(name: String, StopPosition)
        case answer
        case refresh
    }

    public var place: Place
    public var condition: FilterExpression?
    /// A rule switched off stays listed but holds nothing.
    public var isEnabled = true

    public init(place: Place, condition: FilterExpression? = nil, isEnabled: Bool = true) {
        self.place = place
        self.condition = condition
        self.isEnabled = isEnabled
    }

    /// The rules a run may have at once.
    public static let maximumCount = 32

    static let expectedPlace = "expected where to stop: pre@HOP, post@HOP, answer or refresh"

    /// Parses a rule; positions in errors count from 1 at the start of `text`.
    public init(parsing text: String) throws(FilterSyntaxError) {
        let characters = Array(text)
        guard characters.count <= FilterExpression.maximumLength else {
            throw FilterSyntaxError(position: FilterExpression.maximumLength + 1, reason: "the rule has \(characters.count) characters; at most \(FilterExpression.maximumLength)")
        }
        var index = 0
        while index < characters.count, characters[index].isWhitespace { index += 1 }
        let start = index
        while index < characters.count, !characters[index].isWhitespace { index += 1 }
        let word = String(characters[start..<index])
        let shown = word.isEmpty ? "the end" : "'\(VisibleEscapes.escape(word))'"
        switch word {
        case "answer": place = .answer
        case "refresh": place = .refresh
        default:
            let parts = word.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, let position = StopPosition(rawValue: String(parts[0])) else {
                throw FilterSyntaxError(position: start + 1, reason: "\(Self.expectedPlace), found \(shown)")
            }
            let name = String(parts[1])
            guard !name.isEmpty, name.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil || "_-.".unicodeScalars.contains($0)) }) else {
                throw FilterSyntaxError(position: start + parts[0].count + 2, reason: "expected a hop name after \(parts[0])@, such as AuthInterceptor or transport, found \(name.isEmpty ? "the end" : "'\(VisibleEscapes.escape(name))'")")
            }
            place = .hop(name: name, position)
        }
        while index < characters.count, characters[index].isWhitespace { index += 1 }
        guard index < characters.count else {
            condition = nil
            return
        }
        let keywordStart = index
        while index < characters.count, !characters[index].isWhitespace { index += 1 }
        let keyword = String(characters[keywordStart..<index])
        guard keyword == "if" else {
            throw FilterSyntaxError(position: keywordStart + 1, reason: "expected 'if' and a filter, or the end, found '\(VisibleEscapes.escape(keyword))'")
        }
        let filterText = String(characters[index...])
        guard !filterText.allSatisfy(\.isWhitespace) else {
            throw FilterSyntaxError(position: characters.count + 1, reason: "expected a filter after 'if', such as ~op HeroQuery & ~c 401")
        }
        condition = try FilterExpression(parsing: filterText, base: index)
    }

    /// The rule as it is written: `post@AuthInterceptor if ~c 401`.
    public var description: String {
        let place: String = switch self.place {
        case .hop(let name, let position): "\(position.rawValue)@\(name)"
        case .answer: "answer"
        case .refresh: "refresh"
        }
        return condition.map { "\(place) if \($0.source.trimmingWhitespace)" } ?? place
    }

    /// Whether the rule is about `stop`'s place, before its filter is asked.
    public func isAbout(_ stop: ParkedStop) -> Bool {
        switch stop.place {
        case .hop(_, let side): isAbout(hopName: stop.hopName, kind: stop.hopKind, side: side)
        case .refresh: place == .refresh
        case .launch, .wake: false
        }
    }

    /// Whether the rule stops at the `side` of a hop named `hopName`.
    public func isAbout(hopName: String, kind: HopKind, side: StopPosition) -> Bool {
        switch place {
        case .hop(let name, let position): position == side && name.caseInsensitiveCompare(hopName) == .orderedSame
        case .answer: kind == .transport && side == .post
        case .refresh: false
        }
    }

    /// Why the rule cannot stop anywhere in a chain of these hops, or nil when it can.
    public func refusal(hopNames: [String]) -> String? {
        guard case .hop(let name, _) = place, !hopNames.contains(where: { $0.caseInsensitiveCompare(name) == .orderedSame }) else { return nil }
        return "no hop named '\(VisibleEscapes.escape(name))' in the chain; hops: \(hopNames.joined(separator: ", "))"
    }
}

private extension String {
    var trimmingWhitespace: String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
