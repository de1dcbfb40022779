public import ChainKit
import Vocabulary

/// A GraphQL document from a user's `.graphql` file: its operations, each with its kind and
/// name, read far enough to pick one and send it with only the fragments it uses.
///
/// ```swift
/// let document = try GraphQLDocument(text: "query Me { me { id } } mutation Rename { rename }")
/// document.operations.map(\.name)                  // ["Me", "Rename"]
/// try document.operation(named: "Rename").kind     // .mutation
/// ```
///
/// It is a reader, not a validator: it follows the grammar's lexical rules (comments,
/// strings, block strings, punctuation) and the nesting of braces, parentheses and
/// brackets, and finds each top-level definition; what is inside a selection set is left to
/// the server.
public struct GraphQLDocument: Sendable, Hashable {
    /// One executable operation of the document.
    public struct Operation: Sendable, Hashable {
        /// nil for an anonymous operation (`{ me { id } }` or `query { … }`).
        public var name: String?
        public var kind: ChainOperation.Kind

        public init(name: String?, kind: ChainOperation.Kind) {
            self.name = name
            self.kind = kind
        }
    }

    /// Why a document cannot be used, with the line and column (from 1) of the problem.
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        public let line: Int
        public let column: Int
        public let reason: String
        public var description: String { "line \(line), column \(column): \(reason)" }
    }

    /// A top-level definition's text and the fragments it spreads (`...Name`).
    private struct Definition: Sendable, Hashable {
        var text: String
        var spreads: [String]
    }

    public let text: String
    public let operations: [Operation]
    /// Each operation's definition, in the order of ``operations``.
    private let operationDefinitions: [Definition]
    /// The fragments by name, and their names in document order.
    private let fragments: [String: Definition]
    private let fragmentOrder: [String]

    public init(text: String) throws(ParseError) {
        self.text = text
        var scanner = Scanner(scalars: Array(text.unicodeScalars))
        var operations: [Operation] = []
        var operationDefinitions: [Definition] = []
        var fragments: [String: Definition] = [:]
        var fragmentOrder: [String] = []
        func definition(from start: Scanner.Token, spreads: [String]) -> Definition {
            Definition(text: scanner.text(from: start), spreads: spreads)
        }
        while let token = try scanner.nextToken() {
            switch token.text {
            case "{":
                operations.append(Operation(name: nil, kind: .query))
                operationDefinitions.append(definition(from: token, spreads: try scanner.skipNested(from: token)))
            case "query", "mutation", "subscription":
                let kind = ChainOperation.Kind(rawValue: token.text)!
                var name: String?
                var next = try scanner.nextToken()
                if let candidate = next, candidate.isName {
                    name = candidate.text
                    next = try scanner.nextToken()
                }
                let spreads = try scanner.skipToSelectionSet(after: next, definition: token)
                operations.append(Operation(name: name, kind: kind))
                operationDefinitions.append(definition(from: token, spreads: spreads))
            case "fragment":
                let name = try scanner.nextToken()
                let spreads = try scanner.skipToSelectionSet(after: name, definition: token)
                if let name, name.isName, fragments[name.text] == nil {
                    fragments[name.text] = definition(from: token, spreads: spreads)
                    fragmentOrder.append(name.text)
                }
            default:
                throw ParseError(line: token.line, column: token.column, reason: "expected an operation (query, mutation, subscription or '{') or a fragment, found '\(VisibleEscapes.escape(token.text))'")
            }
        }
        guard !operations.isEmpty else {
            throw ParseError(line: scanner.line, column: scanner.column, reason: "the document has no operation")
        }
        self.operations = operations
        self.operationDefinitions = operationDefinitions
        self.fragments = fragments
        self.fragmentOrder = fragmentOrder
    }

    /// The operation to send: the one named `name`, or the only one when `name` is nil.
    /// - Throws: a message naming the operations there are, when `name` is missing from a
    ///   document with several or is not in it.
    public func operation(named name: String?) throws(OperationChoiceError) -> Operation {
        if let name {
            guard let found = operations.first(where: { $0.name == name }) else {
                throw OperationChoiceError(reason: "the document has no operation named '\(VisibleEscapes.escape(name))'; it has: \(listing)")
            }
            return found
        }
        guard operations.count == 1 else {
            throw OperationChoiceError(reason: "the document has \(operations.count) operations (\(listing)); pick one with --operation-name")
        }
        return operations[0]
    }

    private var listing: String {
        operations.map { "\($0.kind.rawValue) \($0.name.map(VisibleEscapes.escape) ?? "(anonymous)")" }.joined(separator: ", ")
    }

    /// ``operation(named:)``, refusing an anonymous operation: the chain sends
    /// `operationName` with every request, and servers look up that name.
    public func namedOperation(_ name: String?) throws(OperationChoiceError) -> (operation: Operation, name: String) {
        let chosen = try operation(named: name)
        guard let found = chosen.name else {
            throw OperationChoiceError(reason: "the \(chosen.kind.rawValue) is anonymous; name it (\(chosen.kind.rawValue) Name { … }): every request carries its operationName")
        }
        return (chosen, found)
    }

    /// The text sent for `operation`: its definition, then the fragments it uses, directly or
    /// through other fragments, in document order — as generated code sends it. Servers that
    /// validate the whole document refuse other operations' variables and unused fragments.
    public func document(of operation: Operation) -> String {
        guard let index = operations.firstIndex(of: operation) else { return text }
        let definition = operationDefinitions[index]
        var used: Set<String> = []
        var pending = definition.spreads
        while let name = pending.popLast() {
            guard let fragment = fragments[name], used.insert(name).inserted else { continue }
            pending.append(contentsOf: fragment.spreads)
        }
        return ([definition.text] + fragmentOrder.filter(used.contains).map { fragments[$0]!.text }).joined(separator: "\n\n")
    }

    /// A document operation as the chain sends it: ``document(of:)``, with `operationName`.
    public func graphQLOperation(_ operation: Operation, variables: [String: JSONValue]?) -> ChainOperation {
        ChainOperation(name: operation.name ?? "", kind: operation.kind, document: document(of: operation), variables: variables)
    }
}

/// Which operation of a document to run could not be decided.
public struct OperationChoiceError: Error, Sendable, Hashable, CustomStringConvertible {
    public let reason: String
    public init(reason: String) { self.reason = reason }
    public var description: String { reason }
}

/// The lexical side of ``GraphQLDocument``: tokens with their positions.
private struct Scanner {
    struct Token {
        var text: String
        var line: Int
        var column: Int
        var isName: Bool
        /// Where the token starts, in scalars.
        var start = 0
    }

    let scalars: [Unicode.Scalar]
    var index = 0
    var line = 1
    var column = 1

    init(scalars: [Unicode.Scalar]) {
        self.scalars = scalars
    }

    private static let punctuators: Set<Unicode.Scalar> = ["!", "$", "&", "(", ")", ":", "=", "@", "[", "]", "{", "|", "}"]

    private static func isNameStart(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "_" || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
    }

    private static func isNameContinue(_ scalar: Unicode.Scalar) -> Bool {
        isNameStart(scalar) || ("0"..."9").contains(scalar)
    }

    private mutating func advance() {
        if scalars[index] == "\n" {
            line += 1
            column = 1
        } else {
            column += 1
        }
        index += 1
    }

    /// The text from `start` up to where the scanner is.
    func text(from start: Token) -> String {
        String(String.UnicodeScalarView(scalars[start.start..<index]))
    }

    private func error(_ reason: String, line: Int? = nil, column: Int? = nil) -> GraphQLDocument.ParseError {
        GraphQLDocument.ParseError(line: line ?? self.line, column: column ?? self.column, reason: reason)
    }

    private func starts(with text: String) -> Bool {
        let wanted = Array(text.unicodeScalars)
        return index + wanted.count <= scalars.count && Array(scalars[index..<index + wanted.count]) == wanted
    }

    /// The next token, skipping whitespace, commas, comments and the byte order mark; nil
    /// at the end.
    mutating func nextToken() throws(GraphQLDocument.ParseError) -> Token? {
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" || scalar == "," || scalar == "\u{FEFF}" {
                advance()
            } else if scalar == "#" {
                while index < scalars.count, scalars[index] != "\n", scalars[index] != "\r" { advance() }
            } else {
                break
            }
        }
        guard index < scalars.count else { return nil }
        let (startLine, startColumn, start) = (line, column, index)
        let scalar = scalars[index]
        if Self.isNameStart(scalar) {
            while index < scalars.count, Self.isNameContinue(scalars[index]) { advance() }
            return Token(text: String(String.UnicodeScalarView(scalars[start..<index])), line: startLine, column: startColumn, isName: true, start: start)
        }
        if starts(with: "\"\"\"") {
            for _ in 0..<3 { advance() }
            while !starts(with: "\"\"\"") {
                guard index < scalars.count else { throw error("unterminated block string", line: startLine, column: startColumn) }
                if starts(with: "\\\"\"\"") { for _ in 0..<3 { advance() } }
                advance()
            }
            for _ in 0..<3 { advance() }
            return Token(text: "\"\"\"", line: startLine, column: startColumn, isName: false, start: start)
        }
        if scalar == "\"" {
            advance()
            while true {
                guard index < scalars.count, scalars[index] != "\n", scalars[index] != "\r" else {
                    throw error("unterminated string", line: startLine, column: startColumn)
                }
                if scalars[index] == "\\" { advance() } else if scalars[index] == "\"" { break }
                if index < scalars.count { advance() }
            }
            advance()
            return Token(text: "\"", line: startLine, column: startColumn, isName: false, start: start)
        }
        if starts(with: "...") {
            for _ in 0..<3 { advance() }
            return Token(text: "...", line: startLine, column: startColumn, isName: false, start: start)
        }
        if Self.punctuators.contains(scalar) {
            advance()
            return Token(text: String(scalar), line: startLine, column: startColumn, isName: false, start: start)
        }
        if scalar == "-" || ("0"..."9").contains(scalar) {
            advance()
            while index < scalars.count, Self.isNameContinue(scalars[index]) || scalars[index] == "." || scalars[index] == "-" || scalars[index] == "+" { advance() }
            return Token(text: String(String.UnicodeScalarView(scalars[start..<index])), line: startLine, column: startColumn, isName: false, start: start)
        }
        throw error("unexpected character '\(VisibleEscapes.escape(String(scalar)))'")
    }

    /// Skips past the selection set that `open` (a `{`) starts, with everything nested in it;
    /// returns the names of the fragments it spreads (`...Name`, not `... on Type`).
    @discardableResult
    mutating func skipNested(from open: Token) throws(GraphQLDocument.ParseError) -> [String] {
        var stack: [Token] = [open]
        var spreads: [String] = []
        var previous = open
        let closing: [String: String] = ["{": "}", "(": ")", "[": "]"]
        while let last = stack.last {
            guard let token = try nextToken() else {
                throw error("'\(last.text)' opened at line \(last.line), column \(last.column) is never closed")
            }
            defer { previous = token }
            if previous.text == "...", token.isName, token.text != "on" { spreads.append(token.text) }
            if closing[token.text] != nil {
                stack.append(token)
            } else if ["}", ")", "]"].contains(token.text) {
                guard closing[last.text] == token.text else {
                    throw error("'\(token.text)' does not close '\(last.text)' opened at line \(last.line), column \(last.column)", line: token.line, column: token.column)
                }
                stack.removeLast()
            }
        }
        return spreads
    }

    /// Skips a definition's variables and directives up to its selection set, and that set;
    /// returns the fragments the set spreads.
    mutating func skipToSelectionSet(after first: Token?, definition: Token) throws(GraphQLDocument.ParseError) -> [String] {
        var token = first
        while let current = token {
            if current.text == "{" {
                return try skipNested(from: current)
            }
            if current.text == "(" || current.text == "[" {
                try skipNested(from: current)
            } else if current.text == "}" || current.text == ")" || current.text == "]" {
                throw error("unexpected '\(current.text)'", line: current.line, column: current.column)
            }
            token = try nextToken()
        }
        throw error("the \(definition.text) at line \(definition.line), column \(definition.column) has no selection set ('{ … }')")
    }
}
