import ChainKit
import Foundation
import Lab
import Timeline
public import TerminalUI
public import InspectorModel

extension Inspector {
    /// The help overlay's lines with the standard keys, as `chainlab keys` prints them.
    public static var helpLines: [Line] { helpLines(keys: .standard) }

    /// The help overlay's lines: the reference tables (panes, symbols, filters), every key
    /// in force and each overlay's keys. With a state, a key that does nothing there says why.
    public static func helpLines(keys: KeyBindings, state: InspectorState? = nil) -> [Line] {
        func section(_ title: String) -> Line { Line(title, style: accent.patched(with: .bold)) }
        func table(_ table: HelpTable) -> [Line] {
            let width = (table.rows.map(\.term.count).max() ?? 0) + 2
            return [section(table.title)] + table.rows.map { row in
                Line([Span(row.term.padding(toLength: width, withPad: " ", startingAt: 0), style: .bold), Span(row.text)], hangingIndent: width)
            }
        }
        var lines = Array(HelpTable.reference.map(table).joined(separator: [Line("")]))
        lines += [Line(""), section("Keys")]
        let width = keys.bindings.map(\.keyNames.count).max() ?? 0
        let refused = state.map { keys.disabledReasons(in: $0) } ?? [:]
        lines += keys.bindings.map { binding in
            var spans = [Span(binding.keyNames.padding(toLength: width + 2, withPad: " ", startingAt: 0), style: .bold), Span(binding.name, style: accent), Span(" — " + binding.summary)]
            if let reason = refused[binding.action] { spans.append(Span(" (not now: \(reason.text))", style: .dim)) }
            return Line(spans, hangingIndent: width + 2)
        }
        for overlay in OverlayKeymap.Overlay.allCases {
            lines += [Line("")] + table(HelpTable.keys(of: overlay))
        }
        return lines
    }

    /// How far the help overlay scrolls at `state.size`: its last line at the bottom.
    package static func helpScrollLimit(_ state: InspectorState) -> Int {
        let body = bodyArea(state.size)
        let width = min(body.width - 2, modalWidth) - 2
        return max(0, Paragraph(helpLines(keys: state.keys, state: state), wrap: true).rowCount(width: max(1, width)) - max(1, body.height - 4))
    }

    /// The widest an overlay gets.
    static let modalWidth = 96

    static func renderModal(_ modal: Overlay, _ state: InspectorState, in area: Rect, into buffer: inout Buffer) {
        let wide = min(area.width - 2, modalWidth)
        func show(_ title: String, _ lines: [Line], height: Int? = nil, wrap: Bool = true, scroll: Int = 0) {
            var paragraph = Paragraph(lines, wrap: wrap)
            let rows = height ?? min(area.height - 2, paragraph.rowCount(width: wide - 2) + 2)
            // Scrolling stops at the last line.
            paragraph.scroll = min(scroll, max(0, paragraph.rowCount(width: wide - 2) - (rows - 2)))
            Modal(title: title, width: wide, height: max(3, rows), symbols: state.symbols, borderStyle: focusStyle, content: paragraph)
                .render(in: area, into: &buffer)
        }
        switch modal {
        case .help(let scroll):
            show("Help (j/k PgUp/PgDn scroll, any other key closes)", helpLines(keys: state.keys, state: state), height: area.height - 2, wrap: true, scroll: scroll)
        case .compare(let comparison):
            renderCompare(comparison, state, in: area, into: &buffer)
        case .confirmQuit:
            let open = state.lab.requests.filter { !$0.isFinished }.count
            show("Quit?", [Line("\(open) request\(open == 1 ? " is" : "s are") paused or running; quitting cancels \(open == 1 ? "it" : "them")."), Line(OverlayKeymap.hints(.confirmQuit), style: .dim)])
        case .scenarioInfo:
            show("\(state.scenario.name) · \(state.scenario.summary)", aboutLines(state))
        case .curl(let title, let command):
            show(title, Line.lines(of: command) + [Line(""), Line(state.revealSecrets ? "secrets revealed" : "secrets masked · v to reveal, then y again", style: .dim)], wrap: true)
        case .failPicker(let request):
            show("Fail request #\(request) here", [Line(OverlayKeymap.hints(.failPicker))])
        case .filter(let prompt):
            renderFilterPrompt(prompt, in: area, into: &buffer)
        case .breakRules(let editor):
            renderBreakRules(editor, state, in: area, into: &buffer)
        case .search(let input):
            let box = Rect(x: area.x, y: area.maxY - 1, width: area.width, height: 1)
            buffer.fill(box)
            let matches = detailContent(state).map { searchMatches(in: $0.lines, for: state.detailSearch).count } ?? 0
            let label = "search Detail: "
            _ = buffer.set(string: label, at: box.origin, style: accent, clip: box)
            let count = state.detailSearch.isEmpty ? "" : matches == 0 ? "no match" : "\(state.detailMatch % matches + 1) of \(matches)"
            let help = "  \(count) · " + OverlayKeymap.hints(.search)
            let helpWidth = min(TextWidth.of(help), max(0, box.width - label.count - 10))
            input.render(in: Rect(x: box.x + label.count, y: box.y, width: box.width - label.count - helpWidth, height: 1), into: &buffer)
            _ = buffer.set(line: Line(help, style: .dim).cut(to: helpWidth), at: Position(x: box.maxX - helpWidth, y: box.y), clip: box)
        case .reorder(let reorder):
            var lines = [Line(OverlayKeymap.hints(.reorder), style: .dim)]
            var names = reorder.names
            var graphQLCount = Int.max
            if case .graphQL(let graphQL, _) = reorder.chain {
                graphQLCount = graphQL.count
                names.insert("── cache step ──", at: graphQL.count)
            }
            for (index, name) in names.enumerated() {
                let layerIndex = index > graphQLCount ? index - 1 : index
                let isDivider = index == graphQLCount
                lines.append(Line(isDivider ? "   " + name : " \(layerIndex + 1) " + name, style: !isDivider && layerIndex == reorder.selected ? .reverse : (isDivider ? .dim : .plain)))
            }
            show("Reorder the chain", lines)
        case .export(let prompt):
            let box = Modal(title: "Export the timeline", width: wide, height: prompt.onlyShown == nil ? 6 : 7, symbols: state.symbols, borderStyle: focusStyle)
            box.render(in: area, into: &buffer)
            let inner = box.contentArea(in: area)
            guard inner.height >= 3 else { return }
            var hintRow = inner.y + 2
            if let onlyShown = prompt.onlyShown, inner.height >= 4 {
                let shown = "\(state.filterMatches.count) SHOWN", all = "ALL \(state.lab.requests.count)"
                _ = buffer.set(line: Line([
                    Span("requests ", style: .dim), Span(onlyShown ? "[\(shown)] \(all)" : "\(shown) [\(all)]", style: .bold),
                    Span("   Ctrl-T switches", style: .dim),
                ]), at: Position(x: inner.x, y: inner.y + 2), clip: inner)
                hintRow += 1
            }
            _ = buffer.set(line: Line([Span("format ", style: .dim), Span(ExportFormat.inInspector.map { $0 == prompt.format ? "[\($0.id.uppercased())]" : $0.id.uppercased() }.joined(separator: " "), style: .bold), Span("   Tab switches", style: .dim)]), at: inner.origin, clip: inner)
            _ = buffer.set(string: "file   ", at: Position(x: inner.x, y: inner.y + 1), style: .dim, clip: inner)
            prompt.path.render(in: Rect(x: inner.x + 7, y: inner.y + 1, width: inner.width - 7, height: 1), into: &buffer)
            _ = buffer.set(line: Line(OverlayKeymap.hints(.export), style: .dim).cut(to: inner.width), at: Position(x: inner.x, y: hintRow), clip: inner)
        case .editor(let editor):
            renderEditor(editor, state, in: area, into: &buffer)
        case .findings(let list):
            renderFindings(list, state, in: area, into: &buffer)
        }
    }

    static func renderEditor(_ editor: HeaderEditor, _ state: InspectorState, in area: Rect, into buffer: inout Buffer) {
        let errorRows = editor.errors.count
        let height = min(area.height - 2, editor.rows.count + errorRows + 4)
        let title = "Edit \(editor.target == .request ? "request" : "response") headers · request #\(editor.request)"
        let box = Modal(title: title, width: min(area.width - 2, modalWidth), height: height, symbols: state.symbols, borderStyle: focusStyle)
        box.render(in: area, into: &buffer)
        let inner = box.contentArea(in: area)
        guard inner.height > 0 else { return }
        let nameWidth = min(28, inner.width / 3)
        var y = inner.y
        for (index, row) in editor.rows.enumerated() where y < inner.maxY - 1 {
            row.name.render(in: Rect(x: inner.x, y: y, width: nameWidth, height: 1), into: &buffer)
            _ = buffer.set(string: ":", at: Position(x: inner.x + nameWidth, y: y), style: .dim, clip: inner)
            let valueArea = Rect(x: inner.x + nameWidth + 2, y: y, width: inner.width - nameWidth - 2, height: 1)
            if !editor.revealsSecrets, SecretMasking.isSecretHeader(row.name.text), !row.value.text.isEmpty {
                // Masked as everywhere on screen; typing still edits the real value.
                let cursor = row.value.isFocused ? [Span("▏", style: accent)] : []
                _ = buffer.set(line: Line([Span(SecretMasking.masked.header(name: row.name.text, value: row.value.text), style: .dim)] + cursor), at: valueArea.origin, clip: valueArea)
            } else {
                row.value.render(in: valueArea, into: &buffer)
            }
            if index == editor.row { _ = buffer.set(string: "›", at: Position(x: inner.x - 1, y: y), style: accent) }
            y += 1
            if let error = editor.errors[index], y < inner.maxY - 1 {
                _ = buffer.set(line: Line("  ✕ " + error, style: bad).cut(to: inner.width), at: Position(x: inner.x, y: y), clip: inner)
                y += 1
            }
        }
        let secrets = editor.revealsSecrets ? Span("⚠ secrets revealed · Ctrl-R masks · ", style: bad) : Span("secrets masked · Ctrl-R reveals · ", style: .dim)
        _ = buffer.set(line: Line([secrets, Span(OverlayKeymap.hints(.editor), style: .dim)]).cut(to: inner.width), at: Position(x: inner.x, y: inner.maxY - 1), clip: inner)
    }
}
