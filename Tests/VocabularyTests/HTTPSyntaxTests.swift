import Testing
import Vocabulary

@Suite("HTTPSyntax")
struct HTTPSyntaxTests {
    @Test("a token character is a tchar byte, whether read from bytes or from a String (RFC 9110 §5.6.2)")
    func oneTokenRule() {
        let tchars = Set("!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
        for byte in UInt8.min...UInt8.max {
            #expect(HTTPSyntax.isTokenByte(byte) == tchars.contains(byte), "byte \(byte)")
        }
        for value: UInt32 in 0...0x7F {
            #expect(HTTPSyntax.isTokenCharacter(Unicode.Scalar(value)!) == tchars.contains(UInt8(value)))
        }
        #expect(!HTTPSyntax.isTokenCharacter("é"))
        #expect(!HTTPSyntax.isTokenCharacter("\u{0141}"))  // Ł: its low byte is 0x41, "A"
        #expect(HTTPSyntax.isToken(Array("X-Request-Id".utf8)))
        #expect(!HTTPSyntax.isToken([UInt8]()))
    }

    @Test("bytes in an error message: printable ASCII as is, a backslash doubled, the rest as VisibleEscapes shows them")
    func visibleBytes() {
        #expect(HTTPSyntax.visible(Array("GET /a\\b\r\n".utf8)) == #"GET /a\\b\r\n"#)
        #expect(HTTPSyntax.visible([0x1B, 0x5D, 0x00, 0x7F, 0xC3, 0xA9]) == #"\e]\x00\x7F\xC3\xA9"#)
        #expect(HTTPSyntax.visible(Array(repeating: UInt8(ascii: "a"), count: 5), limit: 3) == "aaa…")
    }

    @Test("hex digits in either case have their value; any other byte has none (RFC 3986 §2.1)")
    func hexDigits() {
        #expect(Array("09afAF".utf8).map(HTTPSyntax.hexDigitValue) == [0, 9, 10, 15, 10, 15])
        #expect(Array("gG/:@`".utf8).map(HTTPSyntax.hexDigitValue) == [nil, nil, nil, nil, nil, nil])
    }
}
