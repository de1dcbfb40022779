import Lab
import Timeline
import TerminalUI
import InspectorModel
import InspectorView
import TimelineFilter

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
}
