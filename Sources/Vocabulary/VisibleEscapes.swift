/// Makes untrusted text safe to show on a terminal: control characters, DEL, C1 controls
/// and bidirectional overrides become visible escapes such as `\e`, `\x07` or `\u{202E}`.
public enum VisibleEscapes {
    /// `text` with every unsafe scalar replaced by a visible escape. Backslashes are kept as
    /// they are, so escaping is idempotent on safe text.
    public static func escape(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isUnsafe) else { return text }
        var result = ""
        result.unicodeScalars.reserveCapacity(text.unicodeScalars.count + 8)
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar) { result += escaped(scalar) } else { result.unicodeScalars.append(scalar) }
        }
        return result
    }

    /// Whether showing `scalar` raw could move the cursor, change terminal state or reorder text.
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F, 0x80...0x9F: true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// The escape shown for one scalar (`\n`, `\e`, `\x07`, `\u{202E}`).
    public static func escaped(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\n": return "\\n"
        case "\r": return "\\r"
        case "\t": return "\\t"
        case "\u{1B}": return "\\e"
        default:
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return scalar.value <= 0xFF
                ? "\\x" + String(repeating: "0", count: 2 - hex.count) + hex
                : "\\u{" + hex + "}"
        }
    }

    /// A phrase naming a scalar for error messages: `CR (\r)`, `space`, `"é"`.
    public static func describe(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\r": "CR (\\r)"
        case "\n": "LF (\\n)"
        case "\0": "NUL (\\x00)"
        case " ": "space"
        case "\t": "tab (\\t)"
        default: isUnsafe(scalar) ? "control character \(escaped(scalar))" : "character \"\(scalar)\""
        }
    }
}
