import Lab
import TerminalUI
import Timeline
import InspectorModel

extension Inspector {
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
