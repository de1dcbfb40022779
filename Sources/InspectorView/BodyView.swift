import Foundation
import TerminalUI
import Vocabulary

/// Bodies made readable for Detail: JSON pretty-printed in colour (in the order it came,
/// objects and arrays below the top two levels folded on request), forms as a field table,
/// a GraphQL request as its document and variables. Text that is none of these is shown as
/// it came. The text handed in is already masked.
enum BodyView {
    static let keyStyle = Style(foreground: .cyan)
    static let stringStyle = Style(foreground: .green)
    static let numberStyle = Style(foreground: .magenta)
    static let literalStyle = Style(foreground: .yellow)
    static let punctuation = Style.dim

    /// A JSON value with its members in the order they were written.
    indirect enum Node {
        case scalar(String, Style)
        case array([Node])
        case object([(key: String, value: Node)])
    }

    /// Parses JSON text, keeping member order and each scalar's text as written; nil when the
    /// text is not one whole JSON value.
    static func parse(_ text: String) -> Node? {
        var parser = Parser(characters: Array(text.unicodeScalars))
        guard let node = parser.value() else { return nil }
        parser.skipSpace()
        return parser.index == parser.characters.count ? node : nil
    }

    struct Parser {
        let characters: [Unicode.Scalar]
        var index = 0

        mutating func skipSpace() {
            while index < characters.count, [" ", "\n", "\r", "\t"].contains(characters[index]) { index += 1 }
        }

        mutating func value(depth: Int = 0) -> Node? {
            skipSpace()
            guard index < characters.count, depth < 64 else { return nil }
            switch characters[index] {
            case "{":
                index += 1
                var members: [(key: String, value: Node)] = []
                skipSpace()
                if index < characters.count, characters[index] == "}" { index += 1; return .object(members) }
                while true {
                    skipSpace()
                    guard let key = string(), expect(":"), let member = value(depth: depth + 1) else { return nil }
                    members.append((key, member))
                    skipSpace()
                    if expect(",") { continue }
                    return expect("}") ? .object(members) : nil
                }
            case "[":
                index += 1
                var items: [Node] = []
                skipSpace()
                if index < characters.count, characters[index] == "]" { index += 1; return .array(items) }
                while true {
                    guard let item = value(depth: depth + 1) else { return nil }
                    items.append(item)
                    skipSpace()
                    if expect(",") { continue }
                    return expect("]") ? .array(items) : nil
                }
            case "\"":
                return string().map { .scalar($0, stringStyle) }
            default:
                let start = index
                while index < characters.count, !",]} \n\r\t".unicodeScalars.contains(characters[index]) { index += 1 }
                let token = String(String.UnicodeScalarView(characters[start..<index]))
                if ["true", "false", "null"].contains(token) { return .scalar(token, literalStyle) }
                return Double(token) != nil ? .scalar(token, numberStyle) : nil
            }
        }

        mutating func expect(_ character: Unicode.Scalar) -> Bool {
            skipSpace()
            guard index < characters.count, characters[index] == character else { return false }
            index += 1
            return true
        }

        /// A string token as written, quotes included, except that a `\u` escape of a
        /// control or bidi character reads as everywhere else on screen (`\e`, `\x07`,
        /// `\u{202E}`), not in JSON's form (`\u001b`).
        mutating func string() -> String? {
            guard index < characters.count, characters[index] == "\"" else { return nil }
            var token = String.UnicodeScalarView([characters[index]])
            index += 1
            while index < characters.count, characters[index] != "\"" {
                guard characters[index] == "\\", index + 1 < characters.count else {
                    token.append(characters[index])
                    index += 1
                    continue
                }
                if characters[index + 1] == "u", index + 6 <= characters.count,
                   let value = UInt32(String(String.UnicodeScalarView(characters[index + 2..<index + 6])), radix: 16),
                   let scalar = Unicode.Scalar(value), VisibleEscapes.isUnsafe(scalar) {
                    token.append(contentsOf: VisibleEscapes.escaped(scalar).unicodeScalars)
                    index += 6
                } else {
                    token.append(contentsOf: characters[index...index + 1])
                    index += 2
                }
            }
            guard index < characters.count else { return nil }
            token.append(characters[index])
            index += 1
            return String(token)
        }
    }

    /// `node` as indented, coloured lines; with `folded`, objects and arrays deeper than
    /// two levels are one line (`{…2}`, `[…3]`).
    static func lines(_ node: Node, folded: Bool) -> [Line] {
        var lines: [Line] = []
        func emit(_ node: Node, prefix: [Span], depth: Int, trailingComma: Bool) {
            let indent = Span(String(repeating: "  ", count: depth))
            let comma = trailingComma ? [Span(",", style: punctuation)] : []
            switch node {
            case .scalar(let text, let style):
                lines.append(Line([indent] + prefix + [Span(text, style: style)] + comma))
            case .array(let items):
                if items.isEmpty || (folded && depth >= 2) {
                    let text = items.isEmpty ? "[]" : "[…\(items.count)]"
                    lines.append(Line([indent] + prefix + [Span(text, style: punctuation)] + comma))
                    return
                }
                lines.append(Line([indent] + prefix + [Span("[", style: punctuation)]))
                for (offset, item) in items.enumerated() { emit(item, prefix: [], depth: depth + 1, trailingComma: offset < items.count - 1) }
                lines.append(Line([indent, Span("]", style: punctuation)] + comma))
            case .object(let members):
                if members.isEmpty || (folded && depth >= 2) {
                    let text = members.isEmpty ? "{}" : "{…\(members.count)}"
                    lines.append(Line([indent] + prefix + [Span(text, style: punctuation)] + comma))
                    return
                }
                lines.append(Line([indent] + prefix + [Span("{", style: punctuation)]))
                for (offset, member) in members.enumerated() {
                    emit(member.value, prefix: [Span(member.key, style: keyStyle), Span(": ", style: punctuation)], depth: depth + 1, trailingComma: offset < members.count - 1)
                }
                lines.append(Line([indent, Span("}", style: punctuation)] + comma))
            }
        }
        emit(node, prefix: [], depth: 0, trailingComma: false)
        return lines
    }

    /// A form body (`a=1&b=2`) as an aligned table of decoded fields.
    static func form(_ text: String) -> [Line]? {
        let pairs = text.split(separator: "&", omittingEmptySubsequences: true).map { pair -> (String, String) in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ part: Substring?) -> String {
                let text = String(part ?? "").replacingOccurrences(of: "+", with: " ")
                return text.removingPercentEncoding ?? text
            }
            return (decode(parts.first), decode(parts.count > 1 ? parts[1] : nil))
        }
        guard !pairs.isEmpty else { return nil }
        let width = pairs.map { TextWidth.of($0.0) }.max() ?? 0
        return pairs.map { Line([Span($0.0.padding(toLength: width, withPad: " ", startingAt: 0), style: keyStyle), Span("  "), Span($0.1)]) }
    }

    /// A GraphQL-over-HTTP body's document and variables, when it is one.
    static func graphQL(_ text: String, folded: Bool) -> [Line]? {
        guard case .object(let members)? = parse(text) else { return nil }
        let fields = Dictionary(members.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
        guard fields["\"query\""] != nil || fields["\"extensions\""] != nil else { return nil }
        var lines: [Line] = []
        if case .scalar(let name, _)? = fields["\"operationName\""] {
            lines.append(Line([Span("operation ", style: .dim), Span(unquoted(name), style: .bold)]))
        }
        if case .scalar(let query, _)? = fields["\"query\""] {
            lines.append(Line("document", style: .dim))
            lines += unquoted(query).split(separator: "\n", omittingEmptySubsequences: false).map { Line("  " + $0) }
        } else {
            lines.append(Line("document: not sent (persisted query: the hash only)", style: .dim))
        }
        if let variables = fields["\"variables\""] {
            lines.append(Line("variables", style: .dim))
            lines += self.lines(variables, folded: folded).map { Line([Span("  ")] + $0.spans) }
        }
        if let extensions = fields["\"extensions\""] {
            lines.append(Line("extensions", style: .dim))
            lines += self.lines(extensions, folded: folded).map { Line([Span("  ")] + $0.spans) }
        }
        return lines
    }

    /// A JSON string token's text without its quotes, with `\n`, `\t`, `\"`, `\/` and `\\`
    /// decoded; other escapes (`\e`, `\x07`) stay visible as they are.
    static func unquoted(_ token: String) -> String {
        guard token.count >= 2 else { return token }
        var out = "", escaped = false
        for character in token.dropFirst().dropLast() {
            if escaped {
                switch character {
                case "n": out.append("\n")
                case "t": out.append("  ")
                case "\"", "\\", "/": out.append(character)
                default: out += "\\" + String(character)
                }
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                out.append(character)
            }
        }
        return out
    }

    /// A body as Detail shows it.
    static func lines(of text: String, contentType: String?, folded: Bool) -> [Line] {
        let type = contentType?.lowercased() ?? ""
        if type.contains("x-www-form-urlencoded"), let form = form(text) { return form }
        if let graphQL = graphQL(text, folded: folded) { return graphQL }
        if let node = parse(text), type.isEmpty || type.contains("json") {
            return lines(node, folded: folded)
        }
        return Line.lines(of: text)
    }
}
