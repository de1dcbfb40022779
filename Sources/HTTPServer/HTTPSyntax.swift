/// Byte-level rules of HTTP/1.1 shared by the parser and the response writer.
enum HTTPSyntax {
    static let cr: UInt8 = 0x0D
    static let lf: UInt8 = 0x0A
    static let space: UInt8 = 0x20
    static let tab: UInt8 = 0x09
    static let colon: UInt8 = 0x3A

    /// RFC 9110 §5.6.2 `tchar`.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
             UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
             UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"): true
        default: false
        }
    }

    static func isToken(_ bytes: some Collection<UInt8>) -> Bool {
        !bytes.isEmpty && bytes.allSatisfy(isTokenByte)
    }

    static func isWhitespace(_ byte: UInt8) -> Bool { byte == space || byte == tab }

    static func lowercased(_ byte: UInt8) -> UInt8 {
        (0x41...0x5A).contains(byte) ? byte + 0x20 : byte
    }

    /// Bytes as text a person can read in an error message: printable ASCII as is,
    /// anything else as `\r`, `\n`, `\t` or `\xNN`, cut after `limit` bytes.
    static func visible(_ bytes: some Collection<UInt8>, limit: Int = 64) -> String {
        var text = ""
        for byte in bytes.prefix(limit) {
            switch byte {
            case cr: text += "\\r"
            case lf: text += "\\n"
            case tab: text += "\\t"
            case UInt8(ascii: "\\"): text += "\\\\"
            case 0x20...0x7E: text.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                text += "\\x" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        if bytes.count > limit { text += "…" }
        return text
    }

    /// One byte named for an error message: `"("`, `a space`, `CR`, `NUL`, `byte 0xC3`.
    static func describe(_ byte: UInt8) -> String {
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
}
