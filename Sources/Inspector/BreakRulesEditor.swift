import Lab
import TerminalUI
import Timeline
import InspectorModel

extension Inspector {
    /// Keys in the breakpoints overlay: typing edits the new rule, Enter adds it and closes, Up/Down
    /// select a rule, Ctrl-T switches it on or off, Ctrl-D deletes it, Esc closes.
    static func handleBreakRulesKey(_ editor: BreakRulesEditor, _ key: Key, _ state: inout InspectorState) -> [InspectorEffect] {
        var editor = editor
        var rules = state.lab.rules
        let action = OverlayKeymap.action(for: key, in: .breakRules)
        switch action {
        case .close:
            state.modal = nil
            return []
        case .selectUp: editor.selected = max(0, editor.selected - 1)
        case .selectDown: editor.selected = min(max(0, rules.count - 1), editor.selected + 1)
        case .toggle, .deleteRow:
            guard rules.indices.contains(editor.selected) else {
                editor.error = "no rule to \(action == .toggle ? "switch" : "delete"); type one and press Enter"
                break
            }
            if action == .toggle {
                rules[editor.selected].isEnabled.toggle()
            } else {
                rules.remove(at: editor.selected)
                editor.selected = min(editor.selected, max(0, rules.count - 1))
            }
            editor.error = nil
            return setRules(rules, editor, &state)
        case .apply:
            let text = editor.input.text
            guard !text.allSatisfy(\.isWhitespace) else { break }
            do {
                let rule = try BreakRule(parsing: text)
                if let refusal = rule.refusal(hopNames: state.lab.chainHops.map(\.name)) {
                    editor.error = refusal
                } else if rules.count >= BreakRule.maximumCount {
                    editor.error = "at most \(BreakRule.maximumCount) rules; delete one first (Ctrl-D)"
                } else {
                    // Closing puts the next key back on the main keys: `n` right after
                    // the rule starts a request instead of typing into the field.
                    rules.append(rule)
                    state.lab.rules = rules
                    state.modal = nil
                    state.notice = .init(text: "rule added: \(rule.description) (\(state.keys.keyName(.breakRules)) lists the rules)", isError: false)
                    return [.command(.setBreakRules(rules))]
                }
            } catch {
                editor.error = error.description
            }
        default:
            _ = editor.input.handle(key)
        }
        state.modal = .breakRules(editor)
        return []
    }

    private static func setRules(_ rules: [BreakRule], _ editor: BreakRulesEditor, _ state: inout InspectorState) -> [InspectorEffect] {
        state.lab.rules = rules
        state.modal = .breakRules(editor)
        return [.command(.setBreakRules(rules))]
    }

    /// Whether an enabled rule stops at `side` of `hop`: the Chain pane marks it ◆.
    static func hasRule(_ hop: HopInfo, _ side: StopPosition, _ state: InspectorState) -> Bool {
        state.lab.rules.contains { $0.isEnabled && $0.isAbout(hopName: hop.name, kind: hop.kind, side: side) }
    }

    static func renderBreakRules(_ editor: BreakRulesEditor, _ state: InspectorState, in area: Rect, into buffer: inout Buffer) {
        let rules = state.lab.rules
        let height = min(area.height - 2, max(rules.count, 1) + 6)
        let box = Modal(title: "Breakpoints by rule", width: min(area.width - 2, modalWidth), height: height, symbols: state.symbols, borderStyle: focusStyle)
        box.render(in: area, into: &buffer)
        let inner = box.contentArea(in: area)
        guard inner.height >= 4 else { return }
        var y = inner.y
        if rules.isEmpty {
            _ = buffer.set(line: Line("no rules yet: type one below, such as post@AuthInterceptor if ~op HeroQuery & ~c 401", style: .dim).cut(to: inner.width), at: inner.origin, clip: inner)
            y += 1
        }
        for (index, rule) in rules.enumerated() where y < inner.maxY - 3 {
            let line = Line([Span(rule.isEnabled ? "◆ " : "◇ ", style: rule.isEnabled ? bad : .dim), Span(rule.description, style: rule.isEnabled ? .plain : .dim)] + (rule.isEnabled ? [] : [Span("  (off)", style: .dim)]))
            _ = buffer.set(line: line.cut(to: inner.width), at: Position(x: inner.x, y: y), clip: inner)
            if index == editor.selected { buffer.setStyle(.reverse, in: Rect(x: inner.x, y: y, width: inner.width, height: 1)) }
            y += 1
        }
        let inputRow = inner.maxY - 3
        _ = buffer.set(string: "add ", at: Position(x: inner.x, y: inputRow), style: accent, clip: inner)
        editor.input.render(in: Rect(x: inner.x + 4, y: inputRow, width: inner.width - 4, height: 1), into: &buffer)
        if let error = editor.error {
            _ = buffer.set(line: Line("✕ " + error, style: bad).cut(to: inner.width), at: Position(x: inner.x, y: inputRow + 1), clip: inner)
        } else {
            _ = buffer.set(line: Line("pre@HOP · post@HOP · answer · refresh, then optionally: if FILTER", style: .dim).cut(to: inner.width), at: Position(x: inner.x, y: inputRow + 1), clip: inner)
        }
        _ = buffer.set(line: Line(OverlayKeymap.hints(.breakRules), style: .dim).cut(to: inner.width), at: Position(x: inner.x, y: inner.maxY - 1), clip: inner)
    }
}
