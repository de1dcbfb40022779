import ChainKit
import Foundation
package import Lab
package import TerminalUI
package import Timeline
import Vocabulary
package import InspectorModel

/// The compare overlay (`=`, `p`, `d`, `#`): two events side by side, the older on the left.
extension Inspector {
    /// The event that says what the selected hop saw on the selected side of the shown
    /// attempt (the grant sent or the answer on the refresh row).
    package static func selectedEvent(_ state: InspectorState) -> TimelineEvent? {
        guard let request = state.selectedRequest else { return nil }
        return event(request: request, attempt: state.shownAttempt, hop: state.selectedHop, side: state.selectedSide, state)
    }

    package static func event(request: Int, attempt: Int, hop: Int, side: StopPosition, _ state: InspectorState) -> TimelineEvent? {
        let history = RequestHistory(events: state.lab.timeline.events(request: request))
        guard let shown = history.attempt(attempt) else { return nil }
        if hop >= state.hops.count { return shown.refresh.last { $0.phase == (side == .pre ? .send : .refresh) } }
        return shown.main(hop: hop, side: side)
    }

    /// How the compare names an event: `#1 attempt 2 · Hop 6 transport · sent`.
    package static func eventLabel(_ event: TimelineEvent) -> String {
        let place = event.kind == .auth || event.hop == TimelineEvent.noHop ? "TokenManager refresh" : "Hop \(event.hop + 1) \(VisibleEscapes.escape(event.name))"
        return "#\(event.request) attempt \(event.attempt) · \(place) · \(phaseName(event.phase))"
    }

    /// The compare's lines for `width` columns: what each side is, notes on what stayed the
    /// same where it matters (a credential across a refresh), the request line and status,
    /// the headers side by side, and the bodies as a diff of their pretty-printed lines.
    static func comparisonLines(_ left: TimelineEvent, _ right: TimelineEvent, _ state: InspectorState, width: Int) -> [Line] {
        let masking: SecretMasking = state.revealSecrets ? .revealed : .masked
        var lines = [
            Line([Span("A ", style: removed.patched(with: .bold)), Span(eventLabel(left)), Span(" · \(clockLabel(left.time))", style: .dim)]),
            Line([Span("B ", style: added.patched(with: .bold)), Span(eventLabel(right)), Span(" · \(clockLabel(right.time))", style: .dim)]),
        ]
        lines += sameSecretNotes(left, right, state)
        let nameWidth = min(22, max(8, ((left.headers.map(Array.init) ?? []) + (right.headers.map(Array.init) ?? [])).map { TextWidth.of($0.name) }.max() ?? 0))
        let valueWidth = max(4, (width - 2 - nameWidth - 5) / 2)
        func row(_ mark: String, _ style: Style, _ name: String, _ a: String, _ b: String) -> Line {
            let cellA = Line(a).cut(to: valueWidth), cellB = Line(b).cut(to: valueWidth)
            let pad = String(repeating: " ", count: max(0, valueWidth - cellA.width))
            return Line([Span(mark + " ", style: style), Span(Line(name).cut(to: nameWidth).spans.map(\.text).joined().padding(toLength: nameWidth, withPad: " ", startingAt: 0), style: style == .plain ? .bold : style),
                         Span("  ")] + cellA.spans.map { Span($0.text, style: style == .plain ? .dim : style) } + [Span(pad + " │ ", style: .dim)] + cellB.spans.map { Span($0.text, style: style == .plain ? .dim : style) })
        }
        func compared(_ name: String, _ a: String?, _ b: String?) -> Line {
            let (mark, style): (String, Style) = a == b ? ("=", .plain) : a == nil ? ("+", added) : b == nil ? ("-", removed) : ("~", changed)
            return row(mark, style, name, a ?? "—", b ?? "—")
        }
        lines.append(Line(""))
        lines.append(row(" ", .dim, "", "A", "B"))
        if left.method != nil || right.method != nil {
            func request(_ event: TimelineEvent) -> String? { event.method.map { "\($0) \(masking.url(event.url ?? ""))" } }
            lines.append(compared("request", request(left), request(right)))
        }
        if left.status != nil || right.status != nil { lines.append(compared("status", left.status.map(String.init), right.status.map(String.init))) }
        if left.error != nil || right.error != nil { lines.append(compared("error", left.error.map(VisibleEscapes.escape), right.error.map(VisibleEscapes.escape))) }
        var names: [String] = []
        for field in (left.headers.map(Array.init) ?? []) + (right.headers.map(Array.init) ?? []) where !names.contains(where: { $0.caseInsensitiveCompare(field.name) == .orderedSame }) {
            names.append(field.name)
        }
        for name in names {
            func value(_ event: TimelineEvent) -> String? { event.headers?[name].map { masking.header(name: name, value: $0) } }
            lines.append(compared(name, value(left), value(right)))
        }
        if left.headers == nil, right.headers == nil { lines.append(Line("  no headers on either side", style: .dim)) }
        lines.append(Line(""))
        lines += bodyDiffLines(left, right, masking: masking)
        lines.append(Line(""))
        lines.append(Line([Span("= ", style: .bold), Span("same  "), Span("~ ", style: changed), Span("differs  "), Span("- ", style: removed), Span("only in A  "), Span("+ ", style: added), Span("only in B  · j/k scroll · v "), Span(state.revealSecrets ? "masks" : "reveals"), Span(" · any other key closes")]))
        return lines
    }

    /// The bodies as a line diff of what Detail shows of them (pretty-printed, masked).
    static func bodyDiffLines(_ left: TimelineEvent, _ right: TimelineEvent, masking: SecretMasking) -> [Line] {
        func text(_ event: TimelineEvent) -> [String]? {
            guard let body = event.body else { return nil }
            let contentType = event.headers?["Content-Type"] ?? (event.kind == .graphql || event.kind == .cache ? "application/json" : nil)
            let shown = masking.body(body.text, contentType: contentType)
            return (BodyView.graphQL(shown, folded: false) ?? BodyView.lines(of: shown, contentType: contentType, folded: false)).map { $0.spans.map(\.text).joined() }
        }
        let a = text(left), b = text(right)
        guard a != nil || b != nil else { return [Line("no body on either side", style: .dim)] }
        let edits = LineDiff.edits(a ?? [], b ?? [])
        let changes = edits.filter { if case .same = $0 { return false } else { return true } }.count
        var lines = [Line(changes == 0 ? "bodies: the same (\(a?.count ?? 0) lines)" : "bodies: \(changes) line\(changes == 1 ? "" : "s") differ\(changes == 1 ? "s" : "")" + (a == nil ? " (A has none)" : b == nil ? " (B has none)" : ""), style: .bold)]
        for edit in edits {
            switch edit {
            case .same(let line): lines.append(Line("  " + line, style: .dim))
            case .removed(let line): lines.append(Line("- " + line, style: removed))
            case .added(let line): lines.append(Line("+ " + line, style: added))
            }
        }
        return lines
    }

    /// Credentials that did not change between two events, said out loud (values stay
    /// masked): the same Authorization on a retry after a refresh succeeded in between is a
    /// stale token; the same refresh token sent twice is a reused one.
    static func sameSecretNotes(_ left: TimelineEvent, _ right: TimelineEvent, _ state: InspectorState) -> [Line] {
        var notes: [Line] = []
        for name in Set((left.headers.map(Array.init) ?? []).map(\.name)).sorted() where SecretMasking.isSecretHeader(name) {
            guard let a = left.headers?[name], a == right.headers?[name] else { continue }
            let refreshed = left.seq < right.seq
                ? state.lab.timeline.events(request: right.request).first { $0.kind == .auth && $0.phase == .refresh && $0.status == 200 && $0.seq > left.seq && $0.seq < right.seq }
                : nil
            if let refreshed {
                notes.append(Line("⚠ \(name) did not change, though a refresh succeeded between them (at \(clockLabel(refreshed.time))): B still sends the token A sent", style: bad))
            } else {
                notes.append(Line("= \(name) is the same in both", style: changed))
            }
        }
        func fields(_ event: TimelineEvent) -> [String: String] {
            guard let text = event.body?.text, event.headers?["Content-Type"]?.contains("x-www-form-urlencoded") ?? text.contains("=") else { return [:] }
            var fields: [String: String] = [:]
            for pair in text.split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
            }
            return fields
        }
        let a = fields(left), b = fields(right)
        for name in a.keys.sorted() where SecretMasking.isSecretField(name) && a[name] == b[name] {
            notes.append(Line("⚠ the same \(VisibleEscapes.escape(name)) in both: one \(VisibleEscapes.escape(name)) presented twice", style: bad))
        }
        return notes
    }

    /// The compare's lines in `area` (the whole body of the screen: the header table is laid
    /// out for its width, notes and body lines wrap), its height, and how far it scrolls.
    package static func compareLayout(_ comparison: Comparison, _ state: InspectorState, in area: Rect) -> (content: Paragraph, rows: Int, scrollLimit: Int) {
        let content = Paragraph(comparisonLines(comparison.left, comparison.right, state, width: area.width - 2), wrap: true)
        let needed = content.rowCount(width: area.width - 2)
        let rows = max(3, min(area.height, needed + 2))
        return (content, rows, max(0, needed - (rows - 2)))
    }

    static func renderCompare(_ comparison: Comparison, _ state: InspectorState, in area: Rect, into buffer: inout Buffer) {
        var (content, rows, limit) = compareLayout(comparison, state, in: area)
        content.scroll = min(comparison.scroll, limit)
        Modal(title: "Compare A ⇄ B (j/k scroll, any other key closes)", width: area.width, height: rows, symbols: state.symbols, borderStyle: focusStyle, content: content)
            .render(in: area, into: &buffer)
    }
}
