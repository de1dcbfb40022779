import Testing
import TerminalUI

/// Mouse reports as xterm sends them with modes 1000/1002 and SGR coordinates (1006):
/// `ESC [ < Cb ; Cx ; Cy M` (press, drag, wheel) or `m` (release), coordinates from 1.
@Suite struct MouseInputTests {
    @Test(arguments: [
        ("\u{1B}[<0;12;5M", MouseEvent(.left, .press, at: Position(x: 11, y: 4))),
        ("\u{1B}[<0;12;5m", MouseEvent(.left, .release, at: Position(x: 11, y: 4))),
        ("\u{1B}[<1;1;1M", MouseEvent(.middle, .press, at: Position(x: 0, y: 0))),
        ("\u{1B}[<2;80;24M", MouseEvent(.right, .press, at: Position(x: 79, y: 23))),
        ("\u{1B}[<32;40;10M", MouseEvent(.left, .drag, at: Position(x: 39, y: 9))),
        ("\u{1B}[<35;40;10M", MouseEvent(.none, .drag, at: Position(x: 39, y: 9))),
        ("\u{1B}[<64;3;2M", MouseEvent(.wheelUp, .press, at: Position(x: 2, y: 1))),
        ("\u{1B}[<65;3;2M", MouseEvent(.wheelDown, .press, at: Position(x: 2, y: 1))),
        ("\u{1B}[<20;7;8M", MouseEvent(.left, .press, at: Position(x: 6, y: 7), shift: true, control: true)),
        ("\u{1B}[<8;300;200M", MouseEvent(.left, .press, at: Position(x: 299, y: 199), alt: true)),
    ])
    func decodesSGRReports(sequence: String, event: MouseEvent) {
        #expect(MouseDecoder.decode(sequence) == event)
    }

    @Test(arguments: [
        "\u{1B}[<0;12M",          // two numbers
        "\u{1B}[<0;12;5;1M",      // four numbers
        "\u{1B}[<0;0;5M",         // columns count from 1
        "\u{1B}[<0;12;5",         // unfinished
        "\u{1B}[<0;12;5Mx",       // something after the end
        "\u{1B}[<;12;5M",         // an empty number
        "\u{1B}[<128;1;1M",       // buttons 8 and up are not reported
        "\u{1B}[M !!",            // the old X10 form is not asked for
        "\u{1B}[A",
    ])
    func refusesWhatIsNotAReport(sequence: String) {
        #expect(MouseDecoder.decode(sequence) == nil)
    }

    /// Feeds `text` one scalar at a time, as curses hands it over once KEY_MOUSE is off.
    func feed(_ text: String, into input: inout InputAssembler, at time: Duration = .zero) -> [Key] {
        text.unicodeScalars.flatMap { input.feed(.character($0.value), at: time) }
    }

    @Test("a report read character by character becomes one mouse key; keys around it stay keys")
    func assemblesReports() {
        var input = InputAssembler()
        #expect(feed("n\u{1B}[<0;12;5Mq", into: &input) == [.char("n"), .mouse(MouseEvent(.left, at: Position(x: 11, y: 4))), .char("q")])
        #expect(!input.isWaiting)
    }

    @Test("an Esc that starts no report is an Esc, and what followed it is kept")
    func escapeIsKept() {
        var input = InputAssembler()
        #expect(feed("\u{1B}", into: &input) == [])
        #expect(input.isWaiting)
        #expect(input.flush() == [.escape])
        #expect(feed("\u{1B}x", into: &input) == [.escape, .char("x")])
        #expect(feed("\u{1B}[<0;1", into: &input) == [])
        #expect(input.feed(.keyCode(KeyDecoder.Code.up), at: .zero) == [.escape, .char("["), .char("<"), .char("0"), .char(";"), .char("1"), .up])
        #expect(feed("\u{1B}[<0;1;2\u{1B}", into: &input) == [.escape, .char("["), .char("<"), .char("0"), .char(";"), .char("1"), .char(";"), .char("2")])
        #expect(input.flush() == [.escape], "the second Esc waits for what follows it")
    }

    @Test("a second left press at the same cell within 400 ms is a double click")
    func doubleClicks() {
        var input = InputAssembler()
        let press = "\u{1B}[<0;5;5M", release = "\u{1B}[<0;5;5m"
        func clicks(_ keys: [Key]) -> [Int] { keys.compactMap { if case .mouse(let event) = $0, event.kind == .press { event.clickCount } else { nil } } }
        #expect(clicks(feed(press + release, into: &input, at: .milliseconds(1000))) == [1])
        #expect(clicks(feed(press + release, into: &input, at: .milliseconds(1300))) == [2])
        #expect(clicks(feed(press, into: &input, at: .milliseconds(1800))) == [1], "500 ms after the last press")
        #expect(clicks(feed("\u{1B}[<0;6;5M", into: &input, at: .milliseconds(1900))) == [1], "another cell")
        #expect(clicks(feed("\u{1B}[<2;6;5M", into: &input, at: .milliseconds(2000))) == [1], "the right button")
    }

    @Test("key names read back as the keys they name; config spellings in any case")
    func keyNames() {
        let keys: [Key] = [.char("s"), .char("?"), .char(" "), .enter, .escape, .tab, .backTab, .up, .down, .left, .right,
                           .pageUp, .pageDown, .home, .end, .backspace, .delete, .ctrl("b"), .function(5), .char("é")]
        for key in keys { #expect(Key(name: key.name) == key, "\(key.name)") }
        #expect(Key(name: "space") == .char(" "))
        #expect(Key(name: "ctrl-B") == .ctrl("b"))
        #expect(Key(name: "PGDN") == .pageDown)
        #expect(Key(name: "esc") == .escape)
        #expect(Key(name: "spce") == nil)
        #expect(Key(name: "") == nil)
        #expect(Key(name: "\u{07}") == nil)
        #expect(Key(name: "ctrl-1") == nil)
        #expect(Key(name: "F64") == nil)
    }
}

@Suite struct PaletteTests {
    @Test("xterm colours' RGB: the cube, the grey ramp, the basic sixteen")
    func rgb() {
        #expect(Color.indexed(16).rgb! == (0, 0, 0))
        #expect(Color.indexed(196).rgb! == (255, 0, 0))
        #expect(Color.indexed(28).rgb! == (0, 135, 0))
        #expect(Color.indexed(231).rgb! == (255, 255, 255))
        #expect(Color.indexed(244).rgb! == (128, 128, 128))
        #expect(Color.indexed(255).rgb! == (238, 238, 238))
        #expect(Color.green.rgb! == (0, 205, 0))
        #expect(Color.default.rgb == nil)
    }

    @Test("contrast ratios per WCAG: white on black 21:1, equal colours 1:1")
    func contrast() throws {
        #expect(try #require(Color.indexed(231).contrastRatio(with: .indexed(16))) == 21)
        #expect(try #require(Color.indexed(46).contrastRatio(with: .indexed(46))) == 1)
        // #767676 on white is the classic 4.54:1.
        let grey = try #require(Color.indexed(243).contrastRatio(with: .indexed(231)))
        #expect((grey * 100).rounded() / 100 == 4.54, "\(grey)")
    }

    @Test("high contrast: every colour text is drawn in keeps 7:1 against the palette's black")
    func highContrastIsAAA() throws {
        let palette = Palette.highContrast
        #expect(palette.background == .indexed(16))
        #expect(palette.textColors.count == 8)
        for color in palette.textColors {
            let ratio = try #require(color.contrastRatio(with: palette.background))
            #expect(ratio >= 7, "\(color) is \(ratio):1")
        }
    }

    @Test("light: every colour it draws with keeps 4.5:1 against white")
    func lightIsAA() throws {
        for color in Set(Palette.light.colors.values) {
            let ratio = try #require(color.contrastRatio(with: .indexed(231)))
            #expect(ratio >= 4.5, "\(color) is \(ratio):1")
        }
    }

    @Test("a palette maps roles, the default colours and dim text")
    func apply() {
        #expect(Palette.light.apply(Style(foreground: .green)) == Style(foreground: .indexed(28)))
        #expect(Palette.light.apply(Style(foreground: .yellow, attributes: .bold)) == Style(foreground: .indexed(130), attributes: .bold))
        #expect(Palette.light.apply(.dim) == .dim)
        #expect(Palette.highContrast.apply(.plain) == Style(foreground: .indexed(231), background: .indexed(16)))
        #expect(Palette.highContrast.apply(.dim) == Style(foreground: .indexed(250), background: .indexed(16)))
        #expect(Palette.highContrast.apply(Style(foreground: .red, attributes: .reverse)) == Style(foreground: .indexed(210), background: .indexed(16), attributes: .reverse))
        #expect(Palette.terminal.apply(Style(foreground: .red)) == Style(foreground: .red))
        // A highlight (Detail's current search match) stays readable in high contrast.
        let match = Palette.highContrast.apply(Style(foreground: .black, background: .yellow))
        #expect(match == Style(foreground: .indexed(16), background: .indexed(226)))
        #expect((match.foreground.contrastRatio(with: match.background) ?? 0) >= 7)
    }

    @Test("ASCII display: borders, arrows and symbols become ASCII, a wide character ? and a space")
    func asciiDisplay() {
        var buffer = Buffer(width: 14, height: 3)
        Block(title: "✓ ↓ ⏸", symbols: .unicode).render(in: buffer.area, into: &buffer)
        buffer.set(string: "日✕…", at: Position(x: 1, y: 1))
        let shown = buffer.displayed(in: Display(asciiOnly: true))
        #expect(shown.lines == ["+ + v = -----+", "|? x.        |", "+------------+"])
        #expect(shown.lines.joined().utf8.allSatisfy { $0 < 0x80 })
    }

    @Test("the status line says where each hint that fits was drawn")
    func hintAreas() {
        let line = StatusLine([.init("s", "step"), .init("Tab", "pane"), .init("q", "quit")])
        #expect(line.hintAreas(in: Rect(x: 2, y: 9, width: 20, height: 1)) == [
            Rect(x: 2, y: 9, width: 6, height: 1), Rect(x: 10, y: 9, width: 8, height: 1),
        ])
    }
}
