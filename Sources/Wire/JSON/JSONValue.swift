public import Foundation
import Vocabulary

/// A JSON document as a value: what GraphQL variables, results and errors are made of.
///
/// Objects keep their keys sorted when encoded so the same value always prints the same
/// bytes.
public enum JSONValue: Sendable, Hashable, CustomStringConvertible {
    case null
    case bool(Bool)
    case number(Double)
    /// A number with more significant digits than a `Double` keeps (a 64-bit id such as
    /// `9007199254740993`), held as its JSON text so that it is sent, shown and keyed exactly
    /// as it came. The parser makes it; ``numberValue`` reads it as the nearest `Double`.
    case exactNumber(String)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Parses a JSON document (RFC 8259; any top-level value unless `options` expect one).
    /// See ``JSONParser``.
    public init(parsing data: Data, options: JSONParser.Options = JSONParser.Options()) throws(JSONParser.Error) {
        self = try JSONParser.parse(data, options: options)
    }

    /// Parses a JSON document from a string.
    public init(parsing text: String, options: JSONParser.Options = JSONParser.Options()) throws(JSONParser.Error) {
        self = try JSONParser.parse(text, options: options)
    }

    /// Which characters of strings are written as `\u` escapes.
    public enum Escaping: Sendable {
        /// Also DEL, C1 controls and bidirectional overrides, so the text is safe to print
        /// on a terminal. What the client side writes.
        case terminalSafe
        /// Only what RFC 8259 requires (quote, backslash, U+0000–U+001F), as a typical server
        /// writes: a hostile server's bidi overrides then arrive raw.
        case minimal
        /// As Foundation's `JSONSerialization` writes with `.sortedKeys`, which is how Apollo
        /// iOS serializes request bodies (`JSONSerializationFormat`): RFC 8259's escapes and
        /// `/` as `\/`, and object keys in that option's order (case-insensitive, digit runs
        /// by their value: `a9` before `a10`), so a body's bytes, size and hash are an app's.
        case foundation
    }

    /// The value encoded as compact JSON with sorted keys.
    public var encoded: Data { encoded(escaping: .terminalSafe) }

    /// The value encoded as compact JSON with sorted keys, escaping strings as `escaping` says.
    public func encoded(escaping: Escaping) -> Data {
        // Written as bytes: appending to a `String` checks its form and capacity at every
        // piece, several times what copying the bytes costs. Room for a typical request body
        // from the start, instead of growing at 16, 32, 64 and 128 bytes.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        write(into: &bytes, escaping: escaping)
        return Data(bytes)
    }

    /// The value as compact JSON text with sorted keys, safe to print on a terminal.
    public var jsonString: String { jsonString(escaping: .terminalSafe) }

    /// Whether the encoded value is at most about `limit` bytes, found by a walk that stops as
    /// soon as the estimate passes the limit: cheap for small values, bounded for huge ones.
    /// Strings count their UTF-8 bytes plus quotes (escapes are not counted).
    package func isSmall(limit: Int) -> Bool {
        var budget = limit
        return fits(&budget)
    }

    /// Takes the value's estimated size out of `budget`; false once it is overdrawn.
    package func fits(_ budget: inout Int) -> Bool {
        switch self {
        case .null, .bool, .number: budget -= 8
        case .exactNumber(let text): budget -= text.utf8.count
        case .string(let value): budget -= value.utf8.count + 2
        case .array(let values):
            budget -= 2
            for value in values {
                guard budget >= 0, value.fits(&budget) else { return false }
                budget -= 1
            }
        case .object(let members):
            budget -= 2
            for (key, value) in members {
                budget -= key.utf8.count + 4
                guard budget >= 0, value.fits(&budget) else { return false }
            }
        }
        return budget >= 0
    }

    /// The value as compact JSON text with sorted keys. Numbers JSON cannot hold (NaN,
    /// infinity) are written as `null`, as JavaScript servers do.
    public func jsonString(escaping: Escaping) -> String {
        var out = ""
        write(into: &out, escaping: escaping)
        return out
    }

    public var description: String { jsonString }

    private func write<Output: JSONTextOutput>(into out: inout Output, escaping: Escaping) {
        switch self {
        case .null: out.write("null")
        case .bool(let value): out.write(value ? "true" : "false")
        case .number(let value):
            if !value.isFinite {
                out.write("null")
            } else if escaping == .foundation {
                // An integral number as an app's `Int` is written; any other as Foundation
                // writes a `Double`: its description without a trailing `.0`.
                let text = value.rounded() == value && abs(value) < 0x1p63 ? String(Int64(value)) : "\(value)"
                out.write(text.hasSuffix(".0") ? String(text.dropLast(2)) : text)
            } else if value.rounded() == value, abs(value) < 1e15 {
                out.write(String(Int64(value)))
            } else {
                out.write("\(value)")
            }
        case .exactNumber(let text): out.write(text)
        case .string(let value): JSONValue.write(string: value, into: &out, escaping: escaping)
        case .array(let values):
            out.write(ascii: UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { out.write(ascii: UInt8(ascii: ",")) }
                value.write(into: &out, escaping: escaping)
            }
            out.write(ascii: UInt8(ascii: "]"))
        case .object(let members):
            out.write(ascii: UInt8(ascii: "{"))
            // Sorting the pairs rather than the keys saves a hash lookup per member.
            let sorted = escaping == .foundation
                ? members.sorted { JSONValue.foundationOrders($0.key, before: $1.key) } : members.sorted { $0.key < $1.key }
            for (index, member) in sorted.enumerated() {
                if index > 0 { out.write(ascii: UInt8(ascii: ",")) }
                JSONValue.write(string: member.key, into: &out, escaping: escaping)
                out.write(ascii: UInt8(ascii: ":"))
                member.value.write(into: &out, escaping: escaping)
            }
            out.write(ascii: UInt8(ascii: "}"))
        }
    }

    /// Whether `key` comes before `other` in the order `JSONSerialization`'s `.sortedKeys`
    /// writes them: a numeric, case-insensitive comparison under the root locale's collation,
    /// with case breaking ties. Where both keys are ASCII letters up to the first letter that
    /// differs without case, which request bodies' keys mostly are, that letter decides, as it
    /// does for the collator; anything else asks the collator.
    static func foundationOrders(_ key: String, before other: String) -> Bool {
        var key = key, other = other
        let decided = key.withUTF8 { left in other.withUTF8 { right in letterOrder(left, right) } }
        if let decided { return decided }
        return key.compare(
            other, options: [.numeric, .caseInsensitive, .forcedOrdering], range: key.startIndex..<key.endIndex,
            locale: foundationCollation) == .orderedAscending
    }

    /// The order of two keys decided by their first letter that differs without case, when
    /// everything up to it is ASCII letters; nil when the collator must decide.
    private static func letterOrder(_ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>) -> Bool? {
        @inline(__always) func folded(_ byte: UInt8) -> UInt8? {
            let lower = byte | 0x20
            return lower >= 0x61 && lower <= 0x7A ? lower : nil
        }
        var index = 0
        while index < left.count, index < right.count {
            guard let a = folded(left[index]), let b = folded(right[index]) else { return nil }
            if a != b { return a < b }
            index += 1
        }
        // One is a prefix of the other: the shorter comes first when the longer goes on with a
        // letter; keys equal without case are the collator's to order.
        if index < right.count { return folded(right[index]) != nil ? true : nil }
        if index < left.count { return folded(left[index]) != nil ? false : nil }
        return nil
    }

    private static let foundationCollation = Locale(identifier: "")

    /// Appends `value` as a JSON string literal, escaping quotes, backslashes and controls.
    public static func writeString(_ value: String, into out: inout String, escaping: Escaping = .terminalSafe) {
        write(string: value, into: &out, escaping: escaping)
    }

    /// ``writeString(_:into:escaping:)`` into either kind of output.
    private static func write<Output: JSONTextOutput>(string value: String, into out: inout Output, escaping: Escaping) {
        // Printable ASCII other than quote and backslash is written as is under either
        // escaping, which covers most keys and values: append those whole.
        // Tested on the string's contiguous bytes where it has them: stepping through the UTF-8
        // view's iterator costs many times the test.
        @inline(__always) func isPlain(_ byte: UInt8) -> Bool { byte >= 0x20 && byte < 0x7F && byte != 0x22 && byte != 0x5C }
        // Foundation also escapes `/`. Each test has constant bytes only, which keeps its loop
        // as fast as it can be.
        @inline(__always) func isPlainForFoundation(_ byte: UInt8) -> Bool { isPlain(byte) && byte != 0x2F }
        let plain = if escaping == .foundation {
            value.utf8.withContiguousStorageIfAvailable { $0.allSatisfy(isPlainForFoundation) } ?? value.utf8.allSatisfy(isPlainForFoundation)
        } else {
            value.utf8.withContiguousStorageIfAvailable { $0.allSatisfy(isPlain) } ?? value.utf8.allSatisfy(isPlain)
        }
        let quote = UInt8(ascii: "\"")
        out.write(ascii: quote)
        if plain {
            out.write(value)
            out.write(ascii: quote)
            return
        }
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out.write("\\\"")
            case "\\": out.write("\\\\")
            case "/" where escaping == .foundation: out.write("\\/")
            case "\n": out.write("\\n")
            case "\r": out.write("\\r")
            case "\t": out.write("\\t")
            case "\u{08}": out.write("\\b")
            case "\u{0C}": out.write("\\f")
            default:
                if scalar.value < 0x20 || (escaping == .terminalSafe && VisibleEscapes.isUnsafe(scalar)) {
                    let hex = String(scalar.value, radix: 16)
                    out.write("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
                } else {
                    out.write(scalar)
                }
            }
        }
        out.write(ascii: quote)
    }

    /// The member `key` of an object, or nil.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The element at `index` of an array, or nil.
    public subscript(index: Int) -> JSONValue? {
        if case .array(let values) = self, values.indices.contains(index) { return values[index] }
        return nil
    }

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let values) = self { return values }
        return nil
    }

    public var objectValue: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }

    public var numberValue: Double? {
        switch self {
        case .number(let value): value
        case .exactNumber(let text): Double(text)
        default: nil
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByFloatLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

/// Where ``JSONValue`` writes its text: a `String` to show, or UTF-8 bytes to send. One writer
/// for both, so what is shown and what is sent are escaped alike.
protocol JSONTextOutput {
    mutating func write(_ text: String)
    /// One ASCII byte (punctuation, a quote).
    mutating func write(ascii byte: UInt8)
    mutating func write(_ scalar: Unicode.Scalar)
}

// `write(_: String)` is the standard library's, from `TextOutputStream`.
extension String: JSONTextOutput {
    mutating func write(ascii byte: UInt8) { unicodeScalars.append(Unicode.Scalar(byte)) }
    mutating func write(_ scalar: Unicode.Scalar) { unicodeScalars.append(scalar) }
}

extension Array: JSONTextOutput where Element == UInt8 {
    mutating func write(_ text: String) { append(contentsOf: text.utf8) }
    mutating func write(ascii byte: UInt8) { append(byte) }
    mutating func write(_ scalar: Unicode.Scalar) { UTF8.encode(scalar) { append($0) } }
}
