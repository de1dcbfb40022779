import Findings
import ChainKit
import Lab
package import TerminalUI
package import Timeline
import Exports
package import InspectorModel

extension InspectorState {
    /// The lint findings that name hop `index`.
    func lintFindings(naming index: Int) -> [LintFinding] {
        lintFindings.filter { $0.hops.contains(index) }
    }
}

extension Inspector {
    /// `⚠` before a hop one of `findings` (the chain's lint findings) names.
    static func lintMark(_ hop: Int, _ findings: [LintFinding]) -> Span {
        findings.contains { $0.hops.contains(hop) } ? Span("⚠ ", style: changed) : Span("")
    }

    /// Detail's lines for the rules that name the selected hop.
    static func lintDetailLines(_ state: InspectorState) -> [Line] {
        guard let hop = state.hops.indices.contains(state.selectedHop) ? state.hops[state.selectedHop] : nil else { return [] }
        return state.lintFindings(naming: hop.index).flatMap { finding in
            [
                Line(""), Line([Span("⚠ \(finding.rule.severity.rawValue) \(finding.rule.id): ", style: changed), Span(finding.message)]),
                Line([Span("why ", style: .dim), Span(finding.rule.why)]), Line([Span("fix ", style: .dim), Span(finding.rule.fix)]),
            ]
        }
    }

    /// The status line's findings summary: `⚠ 1 lint (L) · 2 findings (F)`; empty when there
    /// are none.
    static func findingsSummary(_ state: InspectorState) -> String {
        var parts: [String] = []
        let lint = state.lintFindings.count
        if lint > 0 { parts.append("\(lint) lint (L)") }
        if let findings = state.lab.findings, !findings.isEmpty {
            parts.append(findings.count == 1 ? "1 finding (F)" : "\(findings.count) findings (F)")
        }
        return parts.isEmpty ? "" : "⚠ " + parts.joined(separator: " · ")
    }

    /// The run findings: live when the view has them, otherwise read from the view's timeline now.
    static func runFindings(_ state: InspectorState) -> [Finding] {
        state.lab.findings ?? RunFindings.detect(events: state.lab.timeline.events(), requests: state.lab.summaries)
    }

    /// One entry of the overlay: its lines and where Enter jumps (request, hop).
    package static func findingEntries(_ list: FindingsList, _ state: InspectorState) -> [(lines: [Line], request: Int?, hop: Int?, cited: [TimelineEvent])] {
        switch list.kind {
        case .lint:
            return state.lintFindings.map { finding in
                let lines = [
                    Line([Span("\(finding.rule.severity.rawValue) \(finding.rule.id): ", style: finding.rule.severity == .error ? bad : changed), Span(finding.message)]),
                    Line("   fix: " + finding.rule.fix, style: .dim),
                ]
                return (lines, nil, finding.hops.first, [])
            }
        case .run:
            let events = Dictionary(state.lab.timeline.events().map { ($0.seq, $0) }, uniquingKeysWith: { first, _ in first })
            return runFindings(state).map { finding in
                let cited = finding.events.compactMap { events[$0] }
                let lines = [Line([Span("\(finding.severity.rawValue) \(finding.id): ", style: finding.severity == .error ? bad : changed), Span(finding.message)])]
                    + cited.prefix(6).map { Line("   seq \($0.seq) " + TextTrace.line(for: $0, masking: state.revealSecrets ? .revealed : .masked), style: .dim) }
                let first = cited.first
                return (lines, first?.request, first?.hop, cited)
            }
        }
    }

    static func renderFindings(_ list: FindingsList, _ state: InspectorState, in area: Rect, into buffer: inout Buffer) {
        let entries = findingEntries(list, state)
        if let open = list.openEvent, entries.indices.contains(list.selected), entries[list.selected].cited.indices.contains(open) {
            return renderCitedEvent(entries[list.selected].cited, open, state, in: area, into: &buffer)
        }
        let what = list.kind == .lint ? "Lint findings of the chain" : "Findings of the run"
        var lines = [Line(OverlayKeymap.hints(.findings), style: .dim)]
        if entries.isEmpty { lines.append(Line(list.kind == .lint ? "no lint rule applies to this chain" : "the events prove no finding yet", style: .dim)) }
        for (index, entry) in entries.enumerated() {
            lines.append(contentsOf: index == list.selected ? entry.lines.map { Line($0.spans.map { Span($0.text, style: .reverse) }) } : entry.lines)
        }
        let paragraph = Paragraph(lines, wrap: true)
        let width = min(area.width - 2, 110)
        Modal(title: "\(what) · \(entries.count)", width: width, height: max(3, min(area.height - 2, paragraph.rowCount(width: width - 2) + 2)), symbols: state.symbols, borderStyle: focusStyle, content: paragraph)
            .render(in: area, into: &buffer)
    }

    /// One cited event as the hop saw it, masked unless secrets are revealed.
    static func renderCitedEvent(_ cited: [TimelineEvent], _ index: Int, _ state: InspectorState, in area: Rect, into buffer: inout Buffer) {
        let event = cited[index]
        let masking: SecretMasking = state.revealSecrets ? .revealed : .masked
        var lines = [
            Line(OverlayKeymap.hints(.findingEvent), style: .dim),
            Line(TextTrace.line(for: event, masking: masking)),
        ]
        if let method = event.method, let url = event.url { lines.append(Line([Span(method + " ", style: .bold), Span(masking.url(url))])) }
        if let status = event.status { lines.append(Line([Span("status ", style: .dim), Span("\(status)")])) }
        if let error = event.error { lines.append(Line([Span("error ", style: bad), Span(error)])) }
        if let headers = event.headers {
            for header in masking.headers(headers) { lines.append(Line([Span(header.name, style: .bold), Span(": " + header.value)])) }
        }
        if let body = event.body {
            lines.append(Line("body (\(body.byteCount) bytes\(body.isTruncated ? ", preview cut" : ""))", style: .dim))
            lines.append(contentsOf: Line.lines(of: masking.body(body.text, contentType: event.headers?["Content-Type"])))
        }
        let paragraph = Paragraph(lines, wrap: true)
        let width = min(area.width - 2, 110)
        Modal(title: "Event seq \(event.seq) · \(index + 1) of \(cited.count) cited", width: width, height: max(3, min(area.height - 2, paragraph.rowCount(width: width - 2) + 2)), symbols: state.symbols, borderStyle: focusStyle, content: paragraph)
            .render(in: area, into: &buffer)
    }
}
