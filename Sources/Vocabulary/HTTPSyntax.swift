/// Byte-level rules of HTTP/1.1: the header token syntax `HTTPFields` validates with, and
/// the bytes the lab server's parser and response writer read and write.
public enum HTTPSyntax {
    public static let cr: UInt8 = 0x0D
    public static let lf: UInt8 = 0x0A
    public static let space: UInt8 = 0x20
    public static let tab: UInt8 = 0x09
    public static let colon: UInt8 = 0x3A

    /// RFC 9110 §5.6.2 `tchar`: what a header name or a method is made of.
    @inlinable
    public static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
             UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
             UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"): true
        default: false
        }
    }

    /// ``isTokenByte(_:)`` for a scalar of a `String`: only ASCII can be a `tchar`.
    @inlinable
    public static func isTokenCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && isTokenByte(UInt8(truncatingIfNeeded: scalar.value))
    }

    /// Whether `bytes` is a non-empty token.
    public static func isToken(_ bytes: some Collection<UInt8>) -> Bool {
        !bytes.isEmpty && bytes.allSatisfy(isTokenByte)
    }

    /// Whether `byte` is optional whitespace (RFC 9110 §5.6.3: space or tab).
    public static func isWhitespace(_ byte: UInt8) -> Bool { byte == space || byte == tab }

    /// Whether `byte` may stand in a field value or a reason phrase (RFC 9110 §5.5: visible
    /// characters, bytes past ASCII, space and tab; no other control byte).
    public static func isFieldContentByte(_ byte: UInt8) -> Bool { byte == tab || (byte >= space && byte != 0x7F) }

    /// `text` with every byte that may not stand in a field value made a space.
    public static func legalizedFieldContent(_ text: String) -> String {
        text.utf8.allSatisfy(isFieldContentByte) ? text : String(decoding: text.utf8.map { isFieldContentByte($0) ? $0 : space }, as: UTF8.self)
    }

    /// The elements of a comma-separated field value (`a, b ,c`), spaces and tabs around
    /// each removed, empty ones dropped: without Foundation, since proxies split such
    /// values for every message.
    public static func listElements(_ value: String) -> [Substring] {
        value.split(separator: ",").compactMap { element in
            let utf8 = element.utf8
            guard let first = utf8.firstIndex(where: { !isWhitespace($0) }), let last = utf8.lastIndex(where: { !isWhitespace($0) }) else { return nil }
            return element[first...last]
        }
    }

    /// `byte` with an ASCII capital letter made small; every other byte unchanged.
    public static func lowercased(_ byte: UInt8) -> UInt8 {
        (0x41...0x5A).contains(byte) ? byte + 0x20 : byte
    }

    /// Bytes as text a person can read in an error message: printable ASCII as is, a
    /// backslash doubled, any other byte as ``VisibleEscapes`` shows it (`\r`, `\e`, `\xNN`:
    /// a byte that is not ASCII is not decoded), cut after `limit` bytes.
    public static func visible(_ bytes: some Collection<UInt8>, limit: Int = 64) -> String {
        var text = ""
        for byte in bytes.prefix(limit) {
            switch byte {
            case UInt8(ascii: "\\"): text += "\\\\"
            case 0x20...0x7E: text.unicodeScalars.append(Unicode.Scalar(byte))
            default: text += VisibleEscapes.escaped(Unicode.Scalar(byte))
            }
        }
        if bytes.count > limit { text += "…" }
        return text
    }

    /// One byte named for an error message: `"("`, `a space`, `CR`, `NUL`, `byte 0xC3`.
    public static func describe(_ byte: UInt8) -> String {
        switch byte {
        case space: "a space"
        case tab: "a tab"
        case cr: "CR"
        case lf: "LF"
        case 0: "NUL"
        case 0x21...0x7E: "\"" + String(Unicode.Scalar(byte)) + "\""
        default: "byte 0x" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16, uppercase: true)
        }
    }

    /// The value of one hexadecimal digit, as percent-encoding (RFC 3986 §2.1) writes them
    /// in either case; nil for any other byte.
    public static func hexDigitValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
