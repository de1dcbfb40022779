import Vocabulary

/// Why a filter expression was refused: where (a 1-based character position) and what was
/// expected there.
///
/// ```swift
/// do { _ = try FilterExpression(parsing: "~c 4") } catch { print(error) }
/// // at 4: expected a status code such as 401 or 4xx after ~c, found '4'
/// ```
public struct FilterSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// 1-based position of the character the problem starts at (one past the end for a
    /// missing piece).
    public let position: Int
    /// What was expected there, or what is wrong.
    public let reason: String

    public init(position: Int, reason: String) {
        self.position = position
        self.reason = reason
    }

    public var description: String { "at \(position): \(reason)" }
}

/// The hand-written lexer and recursive-descent parser behind ``FilterExpression``.
enum FilterParser {
    enum TokenKind: Equatable {
        case test(String)
        case not, and, or, open, close
        case text(String)
        case end
    }

    struct Token {
        var kind: TokenKind
        /// 0-based character offset.
        var offset: Int
        var length: Int
        /// How it reads in an error message.
        var shown: String
    }

    /// Every test's name, the argument it takes (nil for none), in the order help lists them.
    static let tests: [(name: String, argument: String?)] = [
        ("op", "an operation name"), ("c", "a status code such as 401 or 4xx"), ("m", "a method such as POST"),
        ("u", "a URL pattern"), ("h", "a header pattern"), ("b", "a body pattern"), ("hop", "a hop name"),
        ("retry", nil), ("refresh", nil), ("err", nil), ("held", nil), ("edited", nil), ("cache", nil), ("finding", nil),
    ]

    static let expectedFilter = "expected a filter such as ~op NAME or ~c 401, or ! or ("

    /// Parses `text`; positions count from `base` + 1, for an expression that starts `base`
    /// characters into a longer text (a breakpoint rule's `if`).
    static func parse(_ text: String, base: Int = 0) throws(FilterSyntaxError) -> FilterNode {
        let characters = Array(text)
        guard characters.count <= FilterExpression.maximumLength else {
            throw FilterSyntaxError(position: base + FilterExpression.maximumLength + 1, reason: "the expression has \(characters.count) characters; at most \(FilterExpression.maximumLength)")
        }
        var parser = Parser(tokens: try tokenize(characters, base: base))
        let node = try parser.or()
        let next = parser.peek
        guard next.kind == .end else {
            if next.kind == .close { throw FilterSyntaxError(position: next.offset + 1, reason: "found ')' without a matching '('") }
            throw FilterSyntaxError(position: next.offset + 1, reason: "expected &, | or the end, found \(next.shown)")
        }
        return node
    }

    static func tokenize(_ characters: [Character], base: Int) throws(FilterSyntaxError) -> [Token] {
        var tokens: [Token] = []
        var index = 0
        func isWordCharacter(_ character: Character) -> Bool {
            !character.isWhitespace && !"()&|\"'".contains(character)
        }
        while index < characters.count {
            let character = characters[index]
            let start = index
            switch character {
            case _ where character.isWhitespace:
                index += 1
                continue
            case "!": tokens.append(Token(kind: .not, offset: start, length: 1, shown: "'!'")); index += 1
            case "&": tokens.append(Token(kind: .and, offset: start, length: 1, shown: "'&'")); index += 1
            case "|": tokens.append(Token(kind: .or, offset: start, length: 1, shown: "'|'")); index += 1
            case "(": tokens.append(Token(kind: .open, offset: start, length: 1, shown: "'('")); index += 1
            case ")": tokens.append(Token(kind: .close, offset: start, length: 1, shown: "')'")); index += 1
            case "\"", "'":
                var value = ""
                index += 1
                var closed = false
                while index < characters.count {
                    let next = characters[index]
                    if next == character { closed = true; index += 1; break }
                    if next == "\\", index + 1 < characters.count, characters[index + 1] == character || characters[index + 1] == "\\" {
                        value.append(characters[index + 1])
                        index += 2
                        continue
                    }
                    value.append(next)
                    index += 1
                }
                guard closed else {
                    throw FilterSyntaxError(position: base + characters.count + 1, reason: "expected \(character) to close the quoted text at \(base + start + 1)")
                }
                tokens.append(Token(kind: .text(value), offset: start, length: index - start, shown: "\(character)\(VisibleEscapes.escape(value))\(character)"))
            default:
                while index < characters.count, isWordCharacter(characters[index]) { index += 1 }
                let word = String(characters[start..<index])
                let shown = "'\(VisibleEscapes.escape(word))'"
                if word.hasPrefix("~") {
                    tokens.append(Token(kind: .test(String(word.dropFirst())), offset: start, length: index - start, shown: shown))
                } else {
                    tokens.append(Token(kind: .text(word), offset: start, length: index - start, shown: shown))
                }
            }
        }
        tokens.append(Token(kind: .end, offset: characters.count, length: 0, shown: "the end"))
        return tokens.map { token in
            var shifted = token
            shifted.offset += base
            return shifted
        }
    }

    struct Parser {
        let tokens: [Token]
        var position = 0

        var peek: Token { tokens[position] }

        mutating func take() -> Token {
            defer { position = min(position + 1, tokens.count - 1) }
            return tokens[position]
        }

        mutating func or() throws(FilterSyntaxError) -> FilterNode {
            var node = try and()
            while peek.kind == .or {
                _ = take()
                node = .or(node, try and())
            }
            return node
        }

        mutating func and() throws(FilterSyntaxError) -> FilterNode {
            var node = try not()
            while peek.kind == .and {
                _ = take()
                node = .and(node, try not())
            }
            return node
        }

        mutating func not() throws(FilterSyntaxError) -> FilterNode {
            if peek.kind == .not {
                _ = take()
                return .not(try not())
            }
            return try primary()
        }

        mutating func primary() throws(FilterSyntaxError) -> FilterNode {
            let token = take()
            switch token.kind {
            case .open:
                let node = try or()
                let close = peek
                guard close.kind == .close else {
                    throw FilterSyntaxError(position: close.offset + 1, reason: "expected ')' to close the '(' at \(token.offset + 1), found \(close.shown)")
                }
                _ = take()
                return node
            case .test(let name):
                return try test(name, at: token)
            default:
                throw FilterSyntaxError(position: token.offset + 1, reason: "\(FilterParser.expectedFilter), found \(token.shown)")
            }
        }

        mutating func test(_ name: String, at token: Token) throws(FilterSyntaxError) -> FilterNode {
            guard let test = FilterParser.tests.first(where: { $0.name == name }) else {
                let known = FilterParser.tests.map { "~" + $0.name }.joined(separator: ", ")
                throw FilterSyntaxError(position: token.offset + 1, reason: "unknown filter \(token.shown); expected one of \(known)")
            }
            guard let expected = test.argument else {
                return .flag(FilterFlag(rawValue: name)!)
            }
            let argument = take()
            guard case .text(let value) = argument.kind, !value.isEmpty else {
                throw FilterSyntaxError(position: argument.offset + 1, reason: "expected \(expected) after ~\(name), found \(argument.shown)")
            }
            let at = argument.offset + 1
            switch name {
            case "c":
                guard let pattern = StatusPattern(value) else {
                    throw FilterSyntaxError(position: at, reason: "expected \(expected) after ~c, found \(argument.shown)")
                }
                return .status(pattern)
            case "m":
                guard value.unicodeScalars.allSatisfy(HTTPSyntax.isTokenCharacter) else {
                    throw FilterSyntaxError(position: at, reason: "expected \(expected) after ~m, found \(argument.shown)")
                }
                return .method(value)
            default:
                let pattern = try Self.pattern(value, at: at)
                switch name {
                case "op": return .operation(pattern)
                case "u": return .url(pattern)
                case "h": return .header(pattern)
                case "b": return .body(pattern)
                default: return .hop(pattern)
                }
            }
        }

        static func pattern(_ value: String, at position: Int) throws(FilterSyntaxError) -> FilterPattern {
            guard value.count <= FilterExpression.maximumPatternLength else {
                throw FilterSyntaxError(position: position, reason: "the pattern has \(value.count) characters; at most \(FilterExpression.maximumPatternLength)")
            }
            do {
                return try FilterPattern(value)
            } catch {
                throw FilterSyntaxError(position: position, reason: "expected a regular expression, found '\(VisibleEscapes.escape(value))': \(VisibleEscapes.escape(error.reason))")
            }
        }
    }
}
