import Testing
import Vocabulary

@Suite("VisibleEscapes")
struct VisibleEscapesTests {
    @Test("controls, DEL, C1 and bidi overrides become visible escapes")
    func escapes() {
        #expect(VisibleEscapes.escape("\u{1B}]2;PWNED\u{07}") == #"\e]2;PWNED\x07"#)
        #expect(VisibleEscapes.escape("a\u{7F}b\u{9B}c") == #"a\x7Fb\x9Bc"#)
        #expect(VisibleEscapes.escape("abc\u{202E}def") == #"abc\u{202E}def"#)
        #expect(VisibleEscapes.escape("line\r\nnext") == #"line\r\nnext"#)
        #expect(VisibleEscapes.escape("plain é ✓") == "plain é ✓")
    }
}
