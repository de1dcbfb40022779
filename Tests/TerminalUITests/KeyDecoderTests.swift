import CNcursesw
import Testing
import TerminalUI

@Suite struct KeyDecoderTests {
    @Test(arguments: [
        (RawKey.character(0x71), Key.char("q")),
        (.character(0x20), .char(" ")),
        (.character(0xE9), .char("é")),
        (.character(0x65E5), .char("日")),
        (.character(0x1F642), .char("🙂")),
        (.character(0x0D), .enter),
        (.character(0x0A), .enter),
        (.character(0x1B), .escape),
        (.character(0x09), .tab),
        (.character(0x7F), .backspace),
        (.character(0x08), .backspace),
        (.character(0x01), .ctrl("a")),
        (.character(0x03), .ctrl("c")),
        (.character(0x1A), .ctrl("z")),
        (.character(0x00), .ctrl("@")),
        (.character(0x1F), .ctrl("_")),
        (.character(0x9B), .unknown),
        (.character(0xD800), .unknown),
        (.keyCode(KeyDecoder.Code.up), .up),
        (.keyCode(KeyDecoder.Code.down), .down),
        (.keyCode(KeyDecoder.Code.left), .left),
        (.keyCode(KeyDecoder.Code.right), .right),
        (.keyCode(KeyDecoder.Code.pageUp), .pageUp),
        (.keyCode(KeyDecoder.Code.pageDown), .pageDown),
        (.keyCode(KeyDecoder.Code.home), .home),
        (.keyCode(KeyDecoder.Code.end), .end),
        (.keyCode(KeyDecoder.Code.backspace), .backspace),
        (.keyCode(KeyDecoder.Code.delete), .delete),
        (.keyCode(KeyDecoder.Code.enter), .enter),
        (.keyCode(KeyDecoder.Code.backTab), .backTab),
        (.keyCode(KeyDecoder.Code.resize), .resize),
        (.keyCode(KeyDecoder.Code.f0 + 1), .function(1)),
        (.keyCode(KeyDecoder.Code.f0 + 12), .function(12)),
        (.keyCode(0o777), .unknown),
    ])
    func decodes(raw: RawKey, key: Key) {
        #expect(KeyDecoder.decode(raw) == key)
    }

    @Test func codesMatchCursesHeader() {
        let pairs: [(Int32, Int32)] = [
            (KeyDecoder.Code.down, KEY_DOWN), (KeyDecoder.Code.up, KEY_UP), (KeyDecoder.Code.left, KEY_LEFT),
            (KeyDecoder.Code.right, KEY_RIGHT), (KeyDecoder.Code.home, KEY_HOME), (KeyDecoder.Code.end, KEY_END),
            (KeyDecoder.Code.backspace, KEY_BACKSPACE), (KeyDecoder.Code.delete, KEY_DC),
            (KeyDecoder.Code.pageDown, KEY_NPAGE), (KeyDecoder.Code.pageUp, KEY_PPAGE), (KeyDecoder.Code.enter, KEY_ENTER),
            (KeyDecoder.Code.backTab, KEY_BTAB), (KeyDecoder.Code.resize, KEY_RESIZE), (KeyDecoder.Code.f0, cn_key_f(0)),
        ]
        for (ours, header) in pairs {
            #expect(ours == header)
        }
    }

    @Test func keyNames() {
        #expect([Key.char("q"), .char(" "), .enter, .escape, .backTab, .pageDown, .ctrl("c"), .function(5), .up].map(\.name)
            == ["q", "Space", "Enter", "Esc", "Shift-Tab", "PgDn", "Ctrl-C", "F5", "Up"])
    }
}
