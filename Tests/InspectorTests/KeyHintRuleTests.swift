import Foundation
import Inspector
import Lab
import TerminalUI
import Testing

/// The rule docs/keys.md states: the status line offers every key that acts where you are (those
/// that do not fit behind `…`, with `?` last), and a key it does not offer says why when
/// pressed. No key does nothing silently.
@Suite("Key-hint rule")
struct KeyHintRuleTests {
    /// The main states: no requests, a request held at its first stop, held at the transport,
    /// finished — each with every pane focused.
    static func mainStates(size: Size = Size(width: 120, height: 40)) async -> [(name: String, state: InspectorState)] {
        var states: [(String, InspectorState)] = []
        func add(_ name: String, _ state: InspectorState) {
            for pane in InspectorState.Pane.allCases {
                var copy = state
                copy.focus = pane
                copy.notice = nil
                states.append(("\(name), \(pane) focused", copy))
            }
        }
        let driver = Driver(size: size)
        add("no requests", driver.state)
        await driver.press(.char("n"))
        add("held at its first stop", driver.state)
        await driver.step(until: .hop(5, .pre))
        add("held at the transport", driver.state)
        await driver.press(.char("c"))
        add("finished", driver.state)
        return states
    }

    /// Every overlay a key opens: over a request held at the transport, and (curl, compare)
    /// over a finished one.
    static func overlayStates(size: Size = Size(width: 120, height: 40)) async -> [(name: String, state: InspectorState)] {
        let driver = Driver(size: size)
        await driver.press(.char("n"))
        await driver.step(until: .hop(5, .pre))
        let held = driver.state
        await driver.press(.char("c"))
        let finished = driver.state
        var states: [(String, InspectorState)] = []
        let openers: [(String, InspectorState, Key)] = [
            ("help", held, .char("?")), ("filter", held, .char("/")), ("export", held, .char("w")), ("run findings", held, .char("F")),
            ("lint findings", held, .char("L")), ("about", held, .char("i")), ("rules", held, .ctrl("b")), ("search", held, .ctrl("f")),
            ("reorder", held, .char("o")), ("fail picker", held, .char("x")), ("header editor", held, .char("e")), ("quit?", held, .char("q")),
            ("curl", finished, .char("y")), ("compare", finished, .char("d")),
        ]
        for (name, base, key) in openers {
            var state = base
            _ = Inspector.update(&state, .key(key))
            state.notice = nil
            states.append((name, state))
        }
        return states
    }

    static func screen(_ state: InspectorState) -> Buffer {
        var buffer = Buffer(size: state.size)
        Inspector.render(state, into: &buffer)
        return buffer
    }

    @Test("in every pane and state, each key is offered and acts, or is not offered and says why")
    func everyKeyActsOrSaysWhy() async {
        for (name, state) in await Self.mainStates() {
            let offered = Inspector.offeredKeys(state).map(\.action)
            #expect(offered.last == .help, "\(name): ? ends the offer")
            let before = Self.screen(state)
            let reasons = state.keys.disabledReasons(in: state)
            for binding in state.keys.bindings {
                let reason = state.keys.disabledReason(binding.action, in: state)
                #expect(reasons[binding.action] == reason, "\(name): \(binding.action): the frame's answer is the key's")
                #expect(offered.contains(binding.action) == (reason == nil), "\(name): \(binding.action) offered exactly when it acts")
                var pressed = state
                let effects = Inspector.update(&pressed, .key(binding.keys[0]))
                if let reason {
                    #expect(effects == [], "\(name): \(binding.action)")
                    #expect(pressed.notice == reason, "\(name): \(binding.action) says why")
                } else {
                    let acted = !effects.isEmpty || pressed.notice != nil || Self.screen(pressed) != before
                    #expect(acted, "\(name): \(binding.action) is offered but does nothing")
                }
            }
        }
    }

    @Test("the status line shows the offered keys in order; those that do not fit stay behind … with ? last")
    func statusLineOffersEveryKey() async {
        for (name, state) in await Self.mainStates() {
            let offered = Inspector.offeredKeys(state).map(\.action)
            for width in [40, 80, 120, 400] {
                let hints = Inspector.statusHints(state, width: width)
                #expect(StatusLine.width(of: hints) <= width, "\(name) at \(width)")
                #expect(hints.last == StatusLine.Hint("?", "help"), "\(name) at \(width)")
                let keys = hints.map(\.key)
                if keys.contains("…") {
                    #expect(keys.suffix(2) == ["…", "?"], "\(name) at \(width)")
                } else {
                    // Up and down share one hint, `j/k move`.
                    #expect(hints.count == offered.count - (offered.contains(.up) && offered.contains(.down) ? 1 : 0), "\(name) at \(width)")
                }
            }
        }
    }

    @Test("with an overlay open, the status line offers the overlay's keys, and every key acts or says why")
    func overlays() async {
        for (name, state) in await Self.overlayStates() {
            guard let modal = state.modal else {
                Issue.record("\(name) did not open")
                continue
            }
            let screen = Self.screen(state)
            let hints = OverlayKeymap.hintPairs(modal.keymap).map { "\($0.key) \($0.label)" }.joined(separator: "  ")
            #expect(screen.lines[state.size.height - 1].hasPrefix(hints), "\(name): \(screen.lines[state.size.height - 1])")
            let keys = state.keys.bindings.map { $0.keys[0] } + OverlayKeymap.bindings(modal.keymap).flatMap(\.keys)
            for key in keys {
                var pressed = state
                let effects = Inspector.update(&pressed, .key(key))
                let acted = !effects.isEmpty || pressed.notice != nil || Self.screen(pressed) != screen
                #expect(acted, "\(name): \(key.name) does nothing and says nothing")
            }
        }
    }

    @Test("f where Detail shows no JSON to fold says so; where it does, it folds")
    func foldSaysWhy() async {
        let driver = Driver()
        await driver.press(.char("n"))
        #expect(await driver.press(.char("f")) == [])
        #expect(driver.state.notice == InspectorState.Notice(text: "no JSON body here to fold", isError: true))
        #expect(!driver.state.detailFolded)
    }
}
