/// What an operation selects, read from its document: the shape the normalized cache writes
/// a result in and reads it back by (the role of Apollo's generated selection sets).
///
/// ```swift
/// let selections = try SelectionSet(document: "query Q($id: ID!) { hero(id: $id) { id name } }", operationName: "Q")
/// ```
///
/// It reads fields, aliases, arguments (variables and literals), inline fragments, fragment
/// spreads and the `@skip`/`@include`/`@defer` directives; it does not validate against a schema.
public struct SelectionSet: Sendable, Hashable {
    /// An argument's value as written in the document.
    public indirect enum InputValue: Sendable, Hashable {
        case variable(String)
        case value(JSONValue)
        case list([InputValue])
        case object([String: InputValue])
    }

    /// A field: `alias: name(arguments) @directives { selections }`.
    public struct Field: Sendable, Hashable {
        public var alias: String?
        public var name: String
        public var arguments: [String: InputValue]
        /// `@skip`/`@include` conditions: the field counts only when every one holds.
        var conditions: [Condition]
        /// Nil for a leaf.
        public var selections: SelectionSet?

        /// The key of the field in the result: its alias, or its name.
        public var responseKey: String { alias ?? name }
    }

    /// A fragment, inline or spread: its fields apply to objects of `typeCondition` (nil: any).
    struct Fragment: Sendable, Hashable {
        var typeCondition: String?
        var conditions: [Condition]
        /// Under `@defer` the fields may arrive later, so a read does not require them.
        var isDeferred: Bool
        var selections: SelectionSet
        /// For a spread until it is resolved: where its name is in the document.
        var spreadOffset: Int?
    }

    /// `@include(if:)` (`expected` true) or `@skip(if:)` (false).
    struct Condition: Sendable, Hashable {
        var value: InputValue
        var expected: Bool

        func holds(_ variables: [String: JSONValue]?) -> Bool {
            let actual: JSONValue? = switch value {
            case .variable(let name): variables?[name]
            case .value(let value): value
            case .list, .object: nil
            }
            return (actual == .bool(true)) == expected
        }
    }

    enum Item: Sendable, Hashable {
        case field(Field)
        case fragment(Fragment)
    }

    var items: [Item]

    /// The selections of the operation named `operationName` in `document` (the only operation
    /// when there is one and the name does not match), with fragment spreads resolved.
    public init(document: String, operationName: String?) throws(SelectionParseError) {
        var parser = SelectionParser(text: document)
        self = try parser.operationSelections(named: operationName)
    }

    init(items: [Item]) {
        self.items = items
    }

    /// One field of an object as the cache sees it: every selection of the same response key
    /// merged, and whether a read needs it.
    struct CollectedField {
        var field: Field
        var key: String
        var isRequired: Bool
        var selections: [SelectionSet]
    }

    /// The fields of `sets` (the selections one object is reached with) that apply to an
    /// object of type `typename` (nil: unknown), in document order. A fragment whose type
    /// condition names another type is left out when the type is known; when it is unknown,
    /// its fields are kept but not required, as are deferred ones.
    static func collectFields(_ sets: [SelectionSet], typename: String?, variables: [String: JSONValue]?) -> [CollectedField] {
        var collected: [CollectedField] = []
        var index: [String: Int] = [:]
        func collect(_ set: SelectionSet, required: Bool) {
            for item in set.items {
                switch item {
                case .field(let field):
                    guard field.conditions.allSatisfy({ $0.holds(variables) }) else { continue }
                    if let at = index[field.responseKey] {
                        collected[at].isRequired = collected[at].isRequired || required
                        if let sub = field.selections { collected[at].selections.append(sub) }
                    } else {
                        index[field.responseKey] = collected.count
                        collected.append(CollectedField(
                            field: field, key: CacheFieldKey.format(field: field, variables: variables),
                            isRequired: required, selections: field.selections.map { [$0] } ?? []))
                    }
                case .fragment(let fragment):
                    guard fragment.conditions.allSatisfy({ $0.holds(variables) }) else { continue }
                    var applies = required && !fragment.isDeferred
                    if let condition = fragment.typeCondition {
                        if let typename, typename != condition { continue }
                        if typename == nil { applies = false }
                    }
                    collect(fragment.selections, required: applies)
                }
            }
        }
        for set in sets { collect(set, required: true) }
        return collected
    }
}

/// How the cache keys a field in a record: the name, then the arguments in name order when it
/// has any (`hero(episode:JEDI)`, `hero([nested:bar:null,foo:1])`), as Apollo's
/// `CacheKeyForField` formats them.
public enum CacheFieldKey {
    /// The key of `field` with its arguments' values under `variables`; an argument whose
    /// variable was not given is left out.
    public static func format(field: SelectionSet.Field, variables: [String: JSONValue]?) -> String {
        var values: [String: JSONValue] = [:]
        for (name, argument) in field.arguments {
            if let value = evaluate(argument, variables) { values[name] = value }
        }
        return format(name: field.name, arguments: values)
    }

    /// `name` alone, or `name(arguments)` with the arguments in an order-independent form.
    public static func format(name: String, arguments: [String: JSONValue]) -> String {
        let key = orderIndependentKey(arguments)
        return key.isEmpty ? name : "\(name)(\(key))"
    }

    private static func orderIndependentKey(_ object: [String: JSONValue]) -> String {
        object.keys.sorted().map { name in
            switch object[name]! {
            case .object(let members):
                return "[\(name):\(orderIndependentKey(members))]"
            case .array(let values) where values.allSatisfy({ $0.objectValue != nil }):
                return "\(name):[" + values.map { orderIndependentKey($0.objectValue!) }.joined(separator: ",") + "]"
            case .array(let values):
                return "\(name):[" + values.map(plain).joined(separator: ", ") + "]"
            case let value:
                return "\(name):\(plain(value))"
            }
        }.joined(separator: ",")
    }

    /// A value as Swift prints it: strings without quotes, whole numbers without a fraction.
    private static func plain(_ value: JSONValue) -> String {
        switch value {
        case .string(let string): string
        case .array(let values): "[" + values.map(plain).joined(separator: ", ") + "]"
        default: value.jsonString
        }
    }

    static func evaluate(_ value: SelectionSet.InputValue, _ variables: [String: JSONValue]?) -> JSONValue? {
        switch value {
        case .variable(let name): variables?[name]
        case .value(let value): value
        case .list(let values): .array(values.compactMap { evaluate($0, variables) })
        case .object(let members): .object(members.compactMapValues { evaluate($0, variables) })
        }
    }
}

/// Why a document's selections could not be read, with the offset (in Unicode scalars) of the
/// problem.
public struct SelectionParseError: Error, Sendable, Hashable, CustomStringConvertible {
    public let offset: Int
    public let reason: String
    public var description: String { "at offset \(offset): \(reason)" }
}

/// A recursive-descent reader of the executable parts of a GraphQL document.
private struct SelectionParser {
    enum Token: Equatable {
        case punctuator(String)
        case name(String)
        case number(String)
        case string(String)
    }

    /// How deep selection sets, lists and fragment spreads may nest: a document is bounded by
    /// the scenario-file limit, and this keeps recursion bounded too.
    static let depthLimit = 64

    let scalars: [Unicode.Scalar]
    var position = 0
    var lookahead: (token: Token, offset: Int)?
    /// Where the last token taken started (the end of the text once it has run out).
    var lastOffset = 0
    var fragments: [String: SelectionSet.Fragment] = [:]

    init(text: String) {
        scalars = Array(text.unicodeScalars)
    }

    mutating func operationSelections(named operationName: String?) throws(SelectionParseError) -> SelectionSet {
        var operations: [(name: String?, selections: SelectionSet)] = []
        while let token = try peek() {
            switch token {
            case .punctuator("{"):
                operations.append((nil, try selectionSet(depth: 0)))
            case .name("query"), .name("mutation"), .name("subscription"):
                _ = try next()
                var name: String?
                if case .name(let candidate) = try peek() { name = candidate; _ = try next() }
                if try peek() == .punctuator("(") { try skipBalanced() }
                _ = try directives(depth: 0)
                operations.append((name, try selectionSet(depth: 0)))
            case .name("fragment"):
                _ = try next()
                let name = try expectName()
                guard try next() == .name("on") else { throw error("expected 'on' after fragment \(name)") }
                let type = try expectName()
                let (conditions, deferred) = try directives(depth: 0)
                fragments[name] = SelectionSet.Fragment(typeCondition: type, conditions: conditions, isDeferred: deferred, selections: try selectionSet(depth: 0))
            default:
                throw error("expected an operation or a fragment")
            }
        }
        let chosen = operations.first { $0.name == operationName } ?? (operations.count == 1 ? operations.first : nil)
        guard let chosen else { throw error("the document has no operation named \(operationName ?? "(anonymous)")") }
        return try resolveSpreads(chosen.selections, depth: 0)
    }

    /// Replaces every fragment spread with the fragment it names.
    private func resolveSpreads(_ set: SelectionSet, depth: Int) throws(SelectionParseError) -> SelectionSet {
        guard depth < Self.depthLimit else { throw error("fragments nest deeper than \(Self.depthLimit)") }
        var items: [SelectionSet.Item] = []
        for item in set.items {
            switch item {
            case .field(var field):
                if let sub = field.selections { field.selections = try resolveSpreads(sub, depth: depth + 1) }
                items.append(.field(field))
            case .fragment(var fragment):
                if fragment.typeCondition?.hasPrefix("...") == true {
                    let name = String(fragment.typeCondition!.dropFirst(3))
                    guard let definition = fragments[name] else {
                        throw SelectionParseError(offset: fragment.spreadOffset ?? 0, reason: "no fragment named \(name)")
                    }
                    fragment.typeCondition = definition.typeCondition
                    fragment.conditions += definition.conditions
                    fragment.isDeferred = fragment.isDeferred || definition.isDeferred
                    fragment.selections = definition.selections
                }
                fragment.spreadOffset = nil
                fragment.selections = try resolveSpreads(fragment.selections, depth: depth + 1)
                items.append(.fragment(fragment))
            }
        }
        return SelectionSet(items: items)
    }

    private mutating func selectionSet(depth: Int) throws(SelectionParseError) -> SelectionSet {
        guard depth < Self.depthLimit else { throw error("selection sets nest deeper than \(Self.depthLimit)") }
        guard try next() == .punctuator("{") else { throw error("expected '{'") }
        var items: [SelectionSet.Item] = []
        while try peek() != .punctuator("}") {
            switch try next() {
            case .punctuator("..."):
                items.append(.fragment(try fragment(depth: depth)))
            case .name(let first):
                var alias: String?, name = first
                if try peek() == .punctuator(":") {
                    _ = try next()
                    alias = first
                    name = try expectName()
                }
                let arguments = try peek() == .punctuator("(") ? try argumentList(depth: depth) : [:]
                let (conditions, _) = try directives(depth: depth)
                let selections = try peek() == .punctuator("{") ? try selectionSet(depth: depth + 1) : nil
                items.append(.field(SelectionSet.Field(alias: alias, name: name, arguments: arguments, conditions: conditions, selections: selections)))
            case nil:
                throw error("the selection set is not closed")
            default:
                throw error("expected a field or a fragment")
            }
        }
        _ = try next()
        return SelectionSet(items: items)
    }

    /// After `...`: an inline fragment, or a spread (its name kept as `...Name` until resolved).
    private mutating func fragment(depth: Int) throws(SelectionParseError) -> SelectionSet.Fragment {
        var typeCondition: String?
        if case .name(let name) = try peek() {
            _ = try next()
            if name == "on" {
                typeCondition = try expectName()
            } else {
                let offset = lastOffset
                let (conditions, deferred) = try directives(depth: depth)
                return SelectionSet.Fragment(
                    typeCondition: "..." + name, conditions: conditions, isDeferred: deferred, selections: SelectionSet(items: []), spreadOffset: offset)
            }
        }
        let (conditions, deferred) = try directives(depth: depth)
        return SelectionSet.Fragment(typeCondition: typeCondition, conditions: conditions, isDeferred: deferred, selections: try selectionSet(depth: depth + 1))
    }

    /// Directives: the `@skip`/`@include` conditions, and whether `@defer` is among them.
    private mutating func directives(depth: Int) throws(SelectionParseError) -> ([SelectionSet.Condition], Bool) {
        var conditions: [SelectionSet.Condition] = []
        var deferred = false
        while try peek() == .punctuator("@") {
            _ = try next()
            let name = try expectName()
            let arguments = try peek() == .punctuator("(") ? try argumentList(depth: depth) : [:]
            switch name {
            case "skip", "include":
                if let value = arguments["if"] { conditions.append(SelectionSet.Condition(value: value, expected: name == "include")) }
            case "defer":
                deferred = true
            default:
                break
            }
        }
        return (conditions, deferred)
    }

    private mutating func argumentList(depth: Int) throws(SelectionParseError) -> [String: SelectionSet.InputValue] {
        _ = try next()
        return try members(until: ")", of: "argument", depth: depth)
    }

    /// `name: value` pairs up to and including the `closing` punctuator.
    private mutating func members(until closing: String, of what: String, depth: Int) throws(SelectionParseError) -> [String: SelectionSet.InputValue] {
        var members: [String: SelectionSet.InputValue] = [:]
        while try peek() != .punctuator(closing) {
            let name = try expectName()
            guard try next() == .punctuator(":") else { throw error("expected ':' after \(what) \(name)") }
            members[name] = try value(depth: depth + 1)
        }
        _ = try next()
        return members
    }

    private mutating func value(depth: Int) throws(SelectionParseError) -> SelectionSet.InputValue {
        guard depth < Self.depthLimit else { throw error("values nest deeper than \(Self.depthLimit)") }
        switch try next() {
        case .punctuator("$"): return .variable(try expectName())
        case .number(let text): return .value((try? JSONValue(parsing: text)) ?? .number(0))
        case .string(let text): return .value(.string(text))
        case .name("true"): return .value(.bool(true))
        case .name("false"): return .value(.bool(false))
        case .name("null"): return .value(.null)
        case .name(let enumValue): return .value(.string(enumValue))
        case .punctuator("["):
            var values: [SelectionSet.InputValue] = []
            while try peek() != .punctuator("]") { values.append(try value(depth: depth + 1)) }
            _ = try next()
            return .list(values)
        case .punctuator("{"):
            return .object(try members(until: "}", of: "field", depth: depth))
        default:
            throw error("expected a value")
        }
    }

    /// Skips a parenthesized list (variable definitions), nesting included.
    private mutating func skipBalanced() throws(SelectionParseError) {
        var depth = 0
        repeat {
            switch try next() {
            case .punctuator("("): depth += 1
            case .punctuator(")"): depth -= 1
            case nil: throw error("the variable definitions are not closed")
            default: break
            }
        } while depth > 0
    }

    private mutating func expectName() throws(SelectionParseError) -> String {
        guard case .name(let name) = try next() else { throw error("expected a name") }
        return name
    }

    private func error(_ reason: String) -> SelectionParseError {
        SelectionParseError(offset: lookahead?.offset ?? lastOffset, reason: reason)
    }

    // MARK: Lexing

    private mutating func peek() throws(SelectionParseError) -> Token? {
        if lookahead == nil { lookahead = try lex() }
        return lookahead?.token
    }

    private mutating func next() throws(SelectionParseError) -> Token? {
        let token = try peek()
        lastOffset = lookahead?.offset ?? position
        lookahead = nil
        return token
    }

    private mutating func lex() throws(SelectionParseError) -> (token: Token, offset: Int)? {
        while position < scalars.count {
            let scalar = scalars[position]
            if scalar == "#" {
                while position < scalars.count, scalars[position] != "\n", scalars[position] != "\r" { position += 1 }
            } else if scalar == "," || scalar == "\u{FEFF}" || scalar.properties.isWhitespace {
                position += 1
            } else {
                break
            }
        }
        guard position < scalars.count else { return nil }
        let start = position
        let scalar = scalars[position]
        if scalar == ".", position + 2 < scalars.count, scalars[position + 1] == ".", scalars[position + 2] == "." {
            position += 3
            return (.punctuator("..."), start)
        }
        if "{}()[]:$@!=|&".unicodeScalars.contains(scalar) {
            position += 1
            return (.punctuator(String(scalar)), start)
        }
        if Self.isNameScalar(scalar), !("0"..."9").contains(scalar) {
            while position < scalars.count, Self.isNameScalar(scalars[position]) { position += 1 }
            return (.name(String(String.UnicodeScalarView(scalars[start..<position]))), start)
        }
        if scalar == "-" || ("0"..."9").contains(scalar) {
            position += 1
            while position < scalars.count, ("0"..."9").contains(scalars[position]) || ".eE+-".unicodeScalars.contains(scalars[position]) { position += 1 }
            return (.number(String(String.UnicodeScalarView(scalars[start..<position]))), start)
        }
        if scalar == "\"" { return (.string(try string()), start) }
        throw SelectionParseError(offset: start, reason: "unexpected character U+\(String(scalar.value, radix: 16, uppercase: true))")
    }

    private static func isNameScalar(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "_" || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
    }

    /// A string or block string, with escapes read.
    private mutating func string() throws(SelectionParseError) -> String {
        let start = position
        if position + 2 < scalars.count, scalars[position + 1] == "\"", scalars[position + 2] == "\"" {
            position += 3
            var text = String.UnicodeScalarView()
            while position + 2 < scalars.count {
                if scalars[position] == "\"", scalars[position + 1] == "\"", scalars[position + 2] == "\"" {
                    position += 3
                    return String(text)
                }
                text.append(scalars[position])
                position += 1
            }
            throw SelectionParseError(offset: start, reason: "the block string is not closed")
        }
        position += 1
        var text = String.UnicodeScalarView()
        while position < scalars.count {
            let scalar = scalars[position]
            position += 1
            switch scalar {
            case "\"": return String(text)
            case "\n", "\r": throw SelectionParseError(offset: start, reason: "the string is not closed on its line")
            case "\\":
                guard position < scalars.count else { break }
                let escaped = scalars[position]
                position += 1
                switch escaped {
                case "n": text.append("\n")
                case "t": text.append("\t")
                case "r": text.append("\r")
                case "b": text.append("\u{08}")
                case "f": text.append("\u{0C}")
                case "u":
                    let hex = position + 4 <= scalars.count ? String(String.UnicodeScalarView(scalars[position..<position + 4])) : ""
                    guard let code = UInt32(hex, radix: 16), let decoded = Unicode.Scalar(code) else {
                        throw SelectionParseError(offset: position, reason: "a \\u escape needs four hex digits")
                    }
                    text.append(decoded)
                    position += 4
                default: text.append(escaped)
                }
            default:
                text.append(scalar)
            }
        }
        throw SelectionParseError(offset: start, reason: "the string is not closed")
    }
}
