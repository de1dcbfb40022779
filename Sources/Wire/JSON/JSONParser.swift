import Vocabulary
public import Foundation

/// A strict RFC 8259 parser producing ``JSONValue``, with errors that say where the input
/// went wrong (line, column, byte offset and the JSON path of the value being read) and a
/// nesting limit so hostile input cannot exhaust the stack.
///
/// Options let a decoder of a document with a known shape refuse the wrong top-level type at
/// its first byte (before reading megabytes of it) and refuse duplicate keys:
///
/// ```swift
/// let options = JSONParser.Options(expecting: .object, rejectsDuplicateKeys: true)
/// try JSONParser.parse(Array(#"{"a":{"b":1,"b":2}}"#.utf8), options: options)
/// // throws: not valid JSON at line 1, column 13: duplicate key "b" at a.b
/// ```
///
/// The parser reads the bytes in place, once, and does as little per byte as it can: the
/// `json.parse.*` figures of `chainlab-bench` hold it to at least the speed of Foundation's
/// `JSONSerialization` on the same bytes.
public struct JSONParser {
    /// What was wrong and where.
    public struct Error: Swift.Error, Equatable, CustomStringConvertible {
        /// What was wrong; a duplicate key's reason names its path.
        public var reason: String { namesPath ? "\(baseReason) at \(path)" : baseReason }
        private let baseReason: String
        private var namesPath = false
        public let offset: Int
        public let line: Int
        public let column: Int
        /// Where in the document the error is, as scenario files name places: `""` for the
        /// top-level value, `operations[1].name` for a member of an element.
        public var path: String { JSONParser.Component.path(reversedComponents.reversed()) }
        /// Filled while the error unwinds, innermost first.
        fileprivate var reversedComponents: [Component] = []

        public var description: String { "not valid JSON at line \(line), column \(column): \(reason)" }

        fileprivate init(reason: String, offset: Int, line: Int, column: Int) {
            baseReason = reason
            self.offset = offset
            self.line = line
            self.column = column
        }

        /// An error that names its path in its reason, starting from the key where it is.
        fileprivate static func naming(_ key: String, _ error: Error) -> Error {
            var named = error
            named.namesPath = true
            named.reversedComponents = [.key(key)]
            return named
        }
    }

    /// The kinds of JSON value, for ``Options/expecting``.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case object, array, string, number, boolean, null

        var described: String {
            switch self {
            case .object: "an object"
            case .array: "an array"
            case .string: "a string"
            case .number: "a number"
            case .boolean: "a boolean"
            case .null: "null"
            }
        }

        /// The kind of value starting with `byte`, nil when no value starts with it.
        init?(firstByte byte: UInt8) {
            switch byte {
            case UInt8(ascii: "{"): self = .object
            case UInt8(ascii: "["): self = .array
            case UInt8(ascii: "\""): self = .string
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): self = .number
            case UInt8(ascii: "t"), UInt8(ascii: "f"): self = .boolean
            case UInt8(ascii: "n"): self = .null
            default: return nil
            }
        }
    }

    /// What to accept beyond RFC 8259's grammar.
    public struct Options: Sendable, Hashable {
        /// The kind the top-level value must be; checked at its first byte.
        public var expecting: Kind?
        /// Whether an object may name a key twice; when it may, the last value wins.
        public var rejectsDuplicateKeys: Bool

        public init(expecting: Kind? = nil, rejectsDuplicateKeys: Bool = false) {
            self.expecting = expecting
            self.rejectsDuplicateKeys = rejectsDuplicateKeys
        }
    }

    /// The deepest nesting of arrays and objects accepted.
    public static let maximumDepth = 512

    private let bytes: UnsafeBufferPointer<UInt8>
    private let rejectsDuplicateKeys: Bool
    private var index = 0
    private var depth = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>, options: Options) {
        self.bytes = bytes
        rejectsDuplicateKeys = options.rejectsDuplicateKeys
    }

    /// Parses one JSON value that must fill the whole input (surrounding whitespace allowed).
    public static func parse(_ bytes: [UInt8], options: Options = Options()) throws(Error) -> JSONValue {
        try bytes.withUnsafeBufferPointer { buffer throws(Error) in try parse(buffer: buffer, options: options) }
    }

    /// Parses one JSON value that must fill the whole of `data`, read in place.
    public static func parse(_ data: Data, options: Options = Options()) throws(Error) -> JSONValue {
        let result = data.withUnsafeBytes { raw in
            Result { () throws(Error) in try parse(buffer: raw.bindMemory(to: UInt8.self), options: options) }
        }
        return try result.get()
    }

    /// Parses one JSON value that must fill the whole of `text`, read in place when the
    /// string's storage is contiguous UTF-8.
    public static func parse(_ text: String, options: Options = Options()) throws(Error) -> JSONValue {
        var text = text
        let result = text.withUTF8 { buffer in
            Result { () throws(Error) in try parse(buffer: buffer, options: options) }
        }
        return try result.get()
    }

    private static func parse(buffer: UnsafeBufferPointer<UInt8>, options: Options) throws(Error) -> JSONValue {
        var parser = JSONParser(buffer, options: options)
        parser.skipWhitespace()
        if let expected = options.expecting, parser.index < buffer.count, Kind(firstByte: buffer[parser.index]) != expected {
            let found = Kind(firstByte: buffer[parser.index]).map(\.described) ?? parser.describeByte(buffer[parser.index])
            throw parser.error("expected \(expected.described) at the top, found \(found)")
        }
        let value = try parser.parseValue()
        parser.skipWhitespace()
        guard parser.index == buffer.count else { throw parser.error("unexpected text after the JSON value") }
        return value
    }

    /// One step of a path into a document.
    fileprivate enum Component: Equatable {
        case key(String)
        case element(Int)

        static func path(_ components: some Sequence<Component>) -> String {
            var path = ""
            for component in components {
                switch component {
                case .element(let index): path += "[\(index)]"
                case .key(let key) where key.utf8.allSatisfy(Component.isPlain) && !key.isEmpty:
                    path += path.isEmpty ? key : ".\(key)"
                case .key(let key): path += "[\(JSONValue.string(key).jsonString)]"
                }
            }
            return path
        }

        /// Letters, digits, `_` and `-`: a key written bare in a path.
        private static func isPlain(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"): true
            default: false
            }
        }
    }

    private func error(_ reason: String, at offset: Int? = nil) -> Error {
        let offset = min(offset ?? index, bytes.count)
        var line = 1, column = 1
        for byte in UnsafeBufferPointer(rebasing: bytes[..<offset]) {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return Error(reason: reason, offset: offset, line: line, column: column)
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    private mutating func parseValue() throws(Error) -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end of input, expected a value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected character \(describeByte(bytes[index])), expected a value")
        }
    }

    private func describeByte(_ byte: UInt8) -> String {
        (0x21..<0x7F).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(Error) {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count,
              memcmp(bytes.baseAddress! + index, literal.utf8Start, count) == 0
        else { throw error("invalid literal, expected \(literal)") }
        index += count
    }

    private mutating func enter() throws(Error) {
        depth += 1
        guard depth <= JSONParser.maximumDepth else { throw error("nesting deeper than \(JSONParser.maximumDepth) levels") }
    }

    private mutating func parseObject() throws(Error) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a string key in object") }
            let keyOffset = index
            let key = try parseString()
            if rejectsDuplicateKeys, members[key] != nil {
                throw Error.naming(key, error("duplicate key \(JSONValue.string(key).jsonString)", at: keyOffset))
            }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':' after object key \"\(VisibleEscapes.escape(key))\"") }
            index += 1
            skipWhitespace()
            do {
                members[key] = try parseValue()
            } catch {
                throw error.within(.key(key))
            }
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input in object, expected ',' or '}'") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
            throw error("expected ',' or '}' in object, found \(describeByte(bytes[index]))")
        }
    }

    private mutating func parseArray() throws(Error) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var values: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(values) }
        while true {
            skipWhitespace()
            do {
                values.append(try parseValue())
            } catch {
                throw error.within(.element(values.count))
            }
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input in array, expected ',' or ']'") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(values) }
            throw error("expected ',' or ']' in array, found \(describeByte(bytes[index]))")
        }
    }

    /// A string without escapes is decoded straight from the input; one with escapes is
    /// assembled by ``parseEscapedString(from:)``.
    private mutating func parseString() throws(Error) -> String {
        let start = index
        index += 1
        let contents = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[contents..<index - 1]), as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") { return try parseEscapedString(from: start) }
            if byte < 0x20 { throw error("unescaped control character in string") }
            index += 1
        }
        throw error("unterminated string", at: start)
    }

    /// Goes on from the first backslash of the string whose quote is at `start`. Escapes are
    /// written into the bytes as UTF-8 and the whole decoded once at the end (invalid UTF-8
    /// in the input becomes U+FFFD, as it would decoded run by run: an escape always writes
    /// whole characters).
    private mutating func parseEscapedString(from start: Int) throws(Error) -> String {
        var utf8: [UInt8] = []
        utf8.reserveCapacity(index - start + 16)
        utf8.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start + 1..<index]))
        func append(_ scalar: Unicode.Scalar) {
            UTF8.encode(scalar) { utf8.append($0) }
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return String(decoding: utf8, as: UTF8.self)
            }
            if byte < 0x20 { throw error("unescaped control character in string") }
            guard byte == UInt8(ascii: "\\") else {
                utf8.append(byte)
                index += 1
                continue
            }
            index += 1
            guard index < bytes.count else { break }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
            case UInt8(ascii: "b"): utf8.append(0x08)
            case UInt8(ascii: "f"): utf8.append(0x0C)
            case UInt8(ascii: "n"): utf8.append(0x0A)
            case UInt8(ascii: "r"): utf8.append(0x0D)
            case UInt8(ascii: "t"): utf8.append(0x09)
            case UInt8(ascii: "u"):
                var code = try parseHex4()
                if (0xD800..<0xDC00).contains(code), index + 1 < bytes.count,
                   bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") {
                    index += 2
                    let low = try parseHex4()
                    if (0xDC00..<0xE000).contains(low) {
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    } else {
                        append("\u{FFFD}")
                        code = low
                    }
                }
                append(Unicode.Scalar(code) ?? "\u{FFFD}")
            default:
                // Only printable ASCII is quoted as is: the message may be shown on a terminal.
                let shown = (0x21..<0x7F).contains(escape) ? "'\\\(Character(Unicode.Scalar(escape)))'" : "'\\' followed by byte 0x\(String(escape, radix: 16))"
                throw error("invalid escape \(shown) in string", at: index - 2)
            }
        }
        throw error("unterminated string", at: start)
    }

    private mutating func parseHex4() throws(Error) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("invalid hex digit in \\u escape")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// Powers of ten a `Double` holds exactly.
    private static let exactPowersOfTen: [Double] = (0...22).map { exponent in
        (0..<exponent).reduce(1.0) { value, _ in value * 10 }
    }

    private mutating func parseNumber() throws(Error) -> JSONValue {
        let start = index
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        // The digits, up to 19 of them, as one integer; `digitCount` counts them all.
        var mantissa: UInt64 = 0
        var digitCount = 0
        func digits(_ parser: inout JSONParser, into mantissa: inout UInt64, count digitCount: inout Int) -> Int {
            let begin = parser.index
            while parser.index < parser.bytes.count {
                let digit = parser.bytes[parser.index] &- UInt8(ascii: "0")
                guard digit < 10 else { break }
                if digitCount < 19 { mantissa = mantissa &* 10 &+ UInt64(digit) }
                digitCount += 1
                parser.index += 1
            }
            return parser.index - begin
        }
        let integerDigits = digits(&self, into: &mantissa, count: &digitCount)
        guard integerDigits > 0 else { throw error("expected digits in number", at: start) }
        if integerDigits > 1, bytes[index - integerDigits] == UInt8(ascii: "0") { throw error("leading zero in number", at: start) }
        var fractionDigits = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            fractionDigits = digits(&self, into: &mantissa, count: &digitCount)
            guard fractionDigits > 0 else { throw error("expected digits after decimal point", at: start) }
        }
        var exponent = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            var negativeExponent = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                negativeExponent = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            let begin = index
            while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 {
                // Beyond any Double's range either way; capped so it cannot overflow.
                if exponent < 100_000 { exponent = exponent * 10 + Int(bytes[index] &- UInt8(ascii: "0")) }
                index += 1
            }
            guard index > begin else { throw error("expected digits in exponent", at: start) }
            if negativeExponent { exponent = -exponent }
        }
        // Up to 15 digits and a power of ten up to 22 are both exact in a Double, so one
        // multiplication or division rounds correctly (Clinger's fast path); anything else
        // goes to the standard library's full conversion.
        let scale = exponent - fractionDigits
        if digitCount <= 15, scale >= -22, scale <= 22 {
            let magnitude = scale >= 0
                ? Double(mantissa) * JSONParser.exactPowersOfTen[scale]
                : Double(mantissa) / JSONParser.exactPowersOfTen[-scale]
            return .number(negative ? -magnitude : magnitude)
        }
        // Double(_:) reads an exponent beyond its range as ±infinity, which JSON cannot write back.
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw error("number out of range", at: start)
        }
        // Up to 15 significant digits survive a Double and back; more may not (an id of
        // 9007199254740993 would become ...992), so such a number keeps its text. Zeros
        // before the first other digit or after the last are not significant: the Double's
        // own text (4880444444464000.0) must read back as that Double.
        return Self.significantDigits(in: bytes[start..<index]) > 15 ? .exactNumber(text) : .number(value)
    }

    /// The digits of a number's mantissa from its first digit that is not zero to its last.
    private static func significantDigits(in number: UnsafeBufferPointer<UInt8>.SubSequence) -> Int {
        var count = 0, pendingZeros = 0, started = false
        for byte in number {
            if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") { break }
            guard byte &- UInt8(ascii: "0") < 10 else { continue }
            if byte == UInt8(ascii: "0") {
                if started { pendingZeros += 1 }
            } else {
                count += pendingZeros + 1
                pendingZeros = 0
                started = true
            }
        }
        return count
    }
}

extension JSONParser.Error {
    /// This error as seen from the value that holds the one it happened in.
    fileprivate func within(_ component: JSONParser.Component) -> JSONParser.Error {
        var outer = self
        outer.reversedComponents.append(component)
        return outer
    }
}
