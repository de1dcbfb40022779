import Foundation
import Inspector
import Lab
import TerminalUI
import Testing

@Suite("Key bindings")
struct KeyBindingTests {
    @Test("at a stop where no 401 can be forced, 4 is hidden, refused with the reason, and ? says why")
    func force401Reason() async {
        let driver = Driver()
        await driver.press(.char("n"))
        let reason = InspectorState.Notice(text: "a 401 cannot be forced at hop 1 pre of MaxRetryInterceptor: force it at the transport or at a post-flight stop", isError: true)
        #expect(driver.state.keys.disabledReason(.force401, in: driver.state) == reason)
        #expect(await driver.press(.char("4")) == [])
        #expect(driver.state.notice == reason)
        let help = Inspector.helpLines(keys: driver.state.keys, state: driver.state).map { $0.spans.map(\.text).joined() }
        #expect(help.contains("4          force 401 — force a 401 here (not now: \(reason.text))"))
        #expect(help.contains("s          step — step the selected request one hop"))
    }

    @Test("rebinding step to Space: Space steps, s does nothing, hints, notices and help name Space")
    func rebind() async throws {
        let keys = try KeyBindings.standard.rebinding([.step: [.char(" ")]])
        let driver = Driver(size: Size(width: 80, height: 24))
        driver.state.keys = keys
        #expect(await driver.press(.char(" ")) == [])
        #expect(driver.state.notice?.text == "no request is selected; press n to start one, b to set a breakpoint, B for step mode")
        await driver.press(.char("n"))
        #expect(await driver.press(.char(" ")) == [.command(.step(request: 1))])
        #expect(await driver.press(.char("s")) == [], "s is no longer bound")
        #expect(driver.state.notice == nil)
        #expect(driver.screen()[23].hasPrefix("Space step  c continue  n new"))
        #expect(Inspector.helpLines(keys: keys).map { $0.spans.map(\.text).joined() }.contains("Space      step — step the selected request one hop"))
        let moved = try KeyBindings.standard.rebinding([.newOperation: [.char("a")], .toggleBreakpoint: [.ctrl("k")]])
        driver.state.keys = moved
        _ = Inspector.update(&driver.state, .key(.char("]")))
        driver.state.selectedRequest = nil
        _ = Inspector.update(&driver.state, .key(.char("c")))
        #expect(driver.state.notice?.text == "no request is selected; press a to start one, Ctrl-K to set a breakpoint, B for step mode")
    }

    @Test("a key bound twice is refused, naming both actions")
    func doubleBinding() {
        #expect(throws: DoubleBinding(key: .char("n"), first: .newOperation, second: .step)) {
            try KeyBindings.standard.rebinding([.step: [.char("n")]])
        }
        #expect(throws: DoubleBinding(key: .char("s"), first: .step, second: .newOperation)) {
            try KeyBindings.standard.rebinding([.newOperation: [.char("s")]])
        }
        #expect(DoubleBinding(key: .char("n"), first: .newOperation, second: .step).description == "key n is bound twice: to newOperation and to step")
        // Swapping two keys is fine: each ends up once.
        let swapped = try? KeyBindings.standard.rebinding([.step: [.char("c")], .continueRequest: [.char("s")]])
        #expect(swapped?.action(for: .char("c")) == .step)
        #expect(swapped?.action(for: .char("s")) == .continueRequest)
    }

    @Test("overlays have their own tables: no key twice in one, every overlay action used, help lists them")
    func overlayTables() {
        var used = Set<OverlayAction>()
        for overlay in OverlayKeymap.Overlay.allCases {
            let rows = OverlayKeymap.bindings(overlay)
            let keys = rows.flatMap(\.keys)
            #expect(Set(keys).count == keys.count, "\(overlay)")
            #expect(rows.filter(\.keys.isEmpty).count <= 1, "\(overlay)")
            used.formUnion(rows.map(\.action))
        }
        #expect(used == Set(OverlayAction.allCases))
        #expect(OverlayKeymap.action(for: .char("y"), in: .confirmQuit) == .confirm)
        #expect(OverlayKeymap.action(for: .char("n"), in: .confirmQuit) == .close)
        #expect(OverlayKeymap.action(for: .char("x"), in: .findingEvent) == nil)
        let help = Inspector.helpLines.map { $0.spans.map(\.text).joined() }
        #expect(help.contains("Choosing a failure (x)"))
        #expect(help.contains("t           fail with a timeout"))
        #expect(help.contains("other keys  back, failing nothing"))
    }

    @Test("the overlays' updates follow their tables")
    func overlaysFollowTables() async {
        let driver = Driver()
        await driver.press(.char("n"), .char("x"))
        #expect(driver.state.modal == .failPicker(request: 1))
        #expect(await driver.press(.char("t")) == [.command(.fail(request: 1, fault: .timeout))])
        await driver.press(.char("?"), .char("j"), .char("j"))
        #expect(driver.state.modal == .help(scroll: 2))
        await driver.press(.pageDown, .char("k"))
        #expect(driver.state.modal == .help(scroll: 11))
        await driver.press(.char("z"))
        #expect(driver.state.modal == nil)
    }
}

@Suite("Config file")
struct ConfigTests {
    @Test("a whole config file is read")
    func reads() throws {
        let config = try InspectorConfig.parse(#"{"theme": "high-contrast", "mouse": false, "ascii": true, "stepMode": false, "exportFormat": "har", "keys": {"step": "space", "continueRequest": ["c", "F5"]}}"#)
        #expect(config.theme == .highContrast)
        #expect(config.mouse == false)
        #expect(config.ascii == true)
        #expect(config.stepMode == false)
        #expect(config.exportFormat == .har)
        #expect(config.keys.action(for: .char(" ")) == .step)
        #expect(config.keys.binding(.continueRequest).keys == [.char("c"), .function(5)])
        #expect(config.keys.action(for: .function(5)) == .continueRequest)
        #expect(config.keys.action(for: .char("s")) == nil)
        #expect(try InspectorConfig.parse("{}") == InspectorConfig())
        #expect(try InspectorConfig.parse(#"{"maskHeaders": ["X-Tenant-Signature", "x-sig"]}"#).maskHeaders == ["X-Tenant-Signature", "x-sig"])
    }

    @Test(arguments: [
        ("[1]", "", "expected a JSON object at the top"),
        (#"{"colour": "dark"}"#, "colour", "unknown setting; valid: theme, mouse, ascii, stepMode, exportFormat, keys, maskHeaders, traceparent"),
        (#"{"maskHeaders": "X-Sig"}"#, "maskHeaders", #"expected an array of header names, as ["X-Tenant-Signature"]"#),
        (#"{"maskHeaders": ["X-Sig", "bad name"]}"#, "maskHeaders[1]", #"expected a header name (letters, digits and !#$%&'*+-.^_`|~), got "bad name""#),
        (#"{"theme": "blue"}"#, "theme", #"expected one of dark, light, high-contrast, got "blue""#),
        (#"{"theme": 1}"#, "theme", "expected one of dark, light, high-contrast, got 1"),
        (#"{"mouse": "no"}"#, "mouse", #"expected true or false, got "no""#),
        (#"{"ascii": null}"#, "ascii", "expected true or false, got null"),
        (#"{"stepMode": 0}"#, "stepMode", "expected true or false, got 0"),
        (#"{"exportFormat": "xml"}"#, "exportFormat", #"expected one of json, har, otlp, got "xml""#),
        (#"{"keys": ["s"]}"#, "keys", #"expected an object of action names and keys, as {"step": "space"}"#),
        (#"{"keys": {"stpe": "s"}}"#, "keys.stpe", "no such action; valid: " + Action.allCases.map(\.rawValue).joined(separator: ", ")),
        (#"{"keys": {"step": 3}}"#, "keys.step", "expected a key name or a non-empty array of them, got 3"),
        (#"{"keys": {"step": []}}"#, "keys.step", "expected a key name or a non-empty array of them, got []"),
        (#"{"keys": {"step": "spce"}}"#, "keys.step", #""spce" is not a key; write one character (s, ?), or Space, Enter, Esc, Tab, Shift-Tab, Up, Down, Left, Right, PgUp, PgDn, Home, End, Backspace, Delete, Ctrl-A to Ctrl-Z but for Ctrl-C, H, I, J, M, Q, S and Z, F1 to F63"#),
        (#"{"keys": {"step": ["s", 5]}}"#, "keys.step[1]", #"5 is not a key; write one character (s, ?), or Space, Enter, Esc, Tab, Shift-Tab, Up, Down, Left, Right, PgUp, PgDn, Home, End, Backspace, Delete, Ctrl-A to Ctrl-Z but for Ctrl-C, H, I, J, M, Q, S and Z, F1 to F63"#),
        (#"{"keys": {"step": "n"}}"#, "keys.step", "key n is bound twice: to newOperation and to step"),
        (#"{"keys": {"quit": "Ctrl-K", "toggleBreakpoint": "ctrl-k"}}"#, "keys.quit", "key Ctrl-K is bound twice: to toggleBreakpoint and to quit"),
        (#"{"keys": {"continueRequest": ["c", "Enter"]}}"#, "keys.continueRequest", "key Enter is bound twice: to open and to continueRequest"),
        (#"{"keys": {"quit": "Ctrl-I"}}"#, "keys.quit", "Ctrl-I arrives as Tab (terminals send the same byte); bind Tab instead"),
        (#"{"keys": {"step": "ctrl-m"}}"#, "keys.step", "Ctrl-M arrives as Enter (terminals send the same byte); bind Enter instead"),
        (#"{"keys": {"step": ["s", "Ctrl-J"]}}"#, "keys.step[1]", "Ctrl-J arrives as Enter (terminals send the same byte); bind Enter instead"),
        (#"{"keys": {"step": "Ctrl-H"}}"#, "keys.step", "Ctrl-H arrives as Backspace (terminals send the same byte); bind Backspace instead"),
        (#"{"keys": {"quit": "Ctrl-C"}}"#, "keys.quit", "Ctrl-C always quits: the terminal turns it into an interrupt, never a key"),
        (#"{"keys": {"step": "Ctrl-Z"}}"#, "keys.step", "Ctrl-Z suspends the program in the terminal; it never arrives as a key"),
        (#"{"keys": {"step": "Ctrl-S"}}"#, "keys.step", "the terminal keeps Ctrl-S and Ctrl-Q for flow control; they never arrive as keys"),
        (#"{"keys": {"quit": ["q", "Ctrl-Q"]}}"#, "keys.quit[1]", "the terminal keeps Ctrl-S and Ctrl-Q for flow control; they never arrive as keys"),
        (#"{"keys": {"step": "q"}}"#, "keys.step", "q always quits; choose another key"),
        (#"{"keys": {"step": "\u202E"}}"#, "keys.step", "\\u{202E} does not show as itself (an invisible, zero-width, bidirectional or combining character); choose a visible key"),
        (#"{"keys": {"step": "\u200B"}}"#, "keys.step", "\\u{200B} does not show as itself (an invisible, zero-width, bidirectional or combining character); choose a visible key"),
        (#"{"keys": {"step": "\u00A0"}}"#, "keys.step", "\\xA0 does not show as itself (an invisible, zero-width, bidirectional or combining character); choose a visible key"),
        (#"{"keys": {"step": "\u0301"}}"#, "keys.step", "\\u{301} does not show as itself (an invisible, zero-width, bidirectional or combining character); choose a visible key"),
    ])
    func refuses(text: String, path: String, reason: String) {
        #expect(throws: ConfigError(path: path, reason: reason)) { try InspectorConfig.parse(text) }
    }

    @Test("q stays a quit key whatever quit is bound to")
    func qAlwaysQuits() throws {
        let config = try InspectorConfig.parse(#"{"keys": {"quit": ["F10", "Ctrl-K"]}}"#)
        #expect(config.keys.binding(.quit).keys == [.char("q"), .function(10), .ctrl("k")])
        #expect(config.keys.action(for: .char("q")) == .quit)
    }

    @Test("a setting given twice is refused, as in scenario files")
    func duplicateKeys() {
        #expect(throws: ConfigError(path: "", reason: #"not valid JSON at line 1, column 19: duplicate key "theme" at theme"#)) {
            try InspectorConfig.parse(#"{"theme": "dark", "theme": "light"}"#)
        }
        #expect(throws: ConfigError(path: "", reason: #"not valid JSON at line 1, column 24: duplicate key "step" at keys.step"#)) {
            try InspectorConfig.parse(#"{"keys": {"step": "s", "step": "x"}}"#)
        }
    }

    @Test("text that is not JSON is refused with where it broke")
    func notJSON() {
        #expect(throws: ConfigError(path: "", reason: "not valid JSON at line 1, column 11: unexpected character '}', expected a value")) { try InspectorConfig.parse(#"{"theme": }"#) }
    }

    @Test("the file's place: XDG_CONFIG_HOME, else ~/.config")
    func place() {
        #expect(InspectorConfig.defaultPath(environment: ["XDG_CONFIG_HOME": "/x", "HOME": "/h"]) == "/x/chainlab/config.json")
        #expect(InspectorConfig.defaultPath(environment: ["XDG_CONFIG_HOME": "", "HOME": "/h"]) == "/h/.config/chainlab/config.json")
        #expect(InspectorConfig.defaultPath(environment: [:]) == nil)
    }

    @Test("the default theme follows COLORFGBG's background, else dark", arguments: [
        ("15;0", Theme.dark), ("0;15", .light), ("0;7", .light), ("15;default;0", .dark), ("0;default;15", .light),
        ("12;8", .dark), ("", .dark), ("garbage", .dark),
    ])
    func colorFGBG(value: String, theme: Theme) {
        #expect(Theme.following(colorFGBG: value) == theme)
        #expect(Theme.following(colorFGBG: nil) == .dark)
    }

    @Test("w offers the config's export format first")
    func exportFormat() async {
        let driver = Driver()
        driver.state.exportFormat = .otlp
        await driver.press(.char("w"))
        guard case .export(let prompt) = driver.state.modal else {
            Issue.record("no export prompt")
            return
        }
        #expect(prompt.format == .otlp)
        #expect(prompt.path.text == "chainlab-basics.otlp.json")
    }
}
