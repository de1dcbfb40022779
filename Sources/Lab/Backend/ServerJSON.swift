import ChainKit
import Foundation

/// JSON as a typical server writes it: sorted keys, compact, and only the escapes RFC 8259
/// requires (quote, backslash, U+0000–U+001F).
///
/// ChainKit's encoder also escapes DEL, C1 controls and bidirectional overrides, which is
/// right for what the client writes but not for what a server sends: a hostile server's
/// bidi overrides arrive raw, and the client's display must cope with them.
enum ServerJSON {
    static func encode(_ value: JSONValue) -> Data {
        var out = ""
        write(value, into: &out)
        return Data(out.utf8)
    }

    private static func write(_ value: JSONValue, into out: inout String) {
        switch value {
        case .null: out += "null"
        case .bool(let flag): out += flag ? "true" : "false"
        case .number(let number):
            // JSON has no NaN or infinity; null is what JavaScript servers send for them.
            if !number.isFinite {
                out += "null"
            } else if number.rounded() == number, abs(number) < 1e15 {
                out += String(Int64(number))
            } else {
                out += "\(number)"
            }
        case .string(let text): writeString(text, into: &out)
        case .array(let elements):
            out += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { out += "," }
                write(element, into: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (index, member) in members.sorted(by: { $0.key < $1.key }).enumerated() {
                if index > 0 { out += "," }
                writeString(member.key, into: &out)
                out += ":"
                write(member.value, into: &out)
            }
            out += "}"
        }
    }

    private static func writeString(_ text: String, into out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case "\u{00}"..."\u{1F}":
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
