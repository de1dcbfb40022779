import ChainKit
import Foundation
import Lab
import TerminalUI
import Timeline
import InspectorModel

/// The Chain pane: one row per hop of the shown attempt, its pre-flight ↓ and post-flight ↑,
/// and the token manager's refresh when the attempt made one.
extension Inspector {
    /// What one cell of the Chain pane says.
    struct HopCells {
        var pre = Line("·", style: .dim)
        var post = Line("·", style: .dim)
    }

    /// Who gave a command that took effect at a stop: the person at the keyboard, or the
    /// scenario's script (or the recording being replayed).
    static func who(_ event: TimelineEvent, _ state: InspectorState) -> String {
        let side: StopPosition = event.detail?.hasSuffix("post-flight") == true ? .post : .pre
        let place: StopPlace = event.hop == TimelineEvent.noHop ? .refresh : .hop(event.hop, side)
        return state.personActions.contains(PersonAction(request: event.request, attempt: event.attempt, place: place)) ? "you" : "scenario"
    }

    /// A forced or injected change, short: `⚡401 you`, `✎ you`.
    static func markText(_ event: TimelineEvent, _ state: InspectorState) -> String {
        let what = (event.detail ?? "").components(separatedBy: " · ").first ?? ""
        let short = switch what {
        case "force 401": "⚡401"
        case "force retry": "⚡retry"
        case let fail where fail.hasPrefix("fail: "): "⚡" + fail.dropFirst(6)
        case let delay where delay.hasPrefix("delay "): "⚡" + delay
        default: event.phase == .edited ? "✎" : "⚡"
        }
        return short + " " + who(event, state)
    }

    /// Whether a response is a failure the lab backend injected on purpose.
    static func injectedByServer(_ snapshot: HopSnapshot) -> Bool {
        guard let status = snapshot.status, status >= 500 else { return false }
        return snapshot.body?.text.contains("lab backend: injected") ?? false
    }

    /// The text of an error: a retry reads as a retry, not as a failure.
    static func isRetry(_ error: String?) -> Bool { error?.hasPrefix("Retry: ") ?? false }

    static func hopCells(_ state: InspectorState, history: RequestHistory) -> [HopCells] {
        var cells = Array(repeating: HopCells(), count: state.hops.count)
        guard let attempt = history.attempt(state.shownAttempt) else { return cells }
        for index in cells.indices {
            for side in [StopPosition.pre, .post] {
                let events = attempt.events(hop: index, side: side)
                var spans: [Span] = []
                if let event = attempt.main(hop: index, side: side) { spans = cellSpans(event, attempt: attempt) }
                for event in events where event.phase == .injected || event.phase == .edited {
                    spans.append(Span((spans.isEmpty ? "" : " ") + markText(event, state), style: changed))
                }
                guard !spans.isEmpty else { continue }
                if side == .pre { cells[index].pre = Line(spans) } else { cells[index].post = Line(spans) }
            }
        }
        guard state.showsLatestAttempt else { return cells }
        // A request with two lanes shows both stops, each named by its lane, the selected one
        // marked ◀ (the one the stop keys act on).
        for (stop, isSelected) in [(state.otherLaneStop, false), (state.selectedStop, true)] {
            guard let stop, case .hop(let hop, let position) = stop.place, cells.indices.contains(hop) else { continue }
            var text = stop.held ? "⏸ held" : "… waiting its turn"
            if let lane = stop.lane { text += " · \(lane.rawValue)" + (isSelected ? " ◀" : "") }
            let mark = Line(text, style: held)
            if position == .pre { cells[hop].pre = mark } else { cells[hop].post = mark }
        }
        return cells
    }

    static func cellSpans(_ event: TimelineEvent, attempt: RequestHistory.Attempt) -> [Span] {
        switch event.phase {
        case .preflight:
            let diff = diffSummary(event.diff)
            return [Span("✓", style: good)] + (diff.isEmpty ? [] : [Span(" " + diff, style: added)])
        case .cacheHit: return [Span("hit", style: good)]
        case .cacheMiss: return [Span("miss", style: .dim)]
        case .send:
            return [Span("✓ ", style: good), Span("\(event.method ?? "") \(URLComponents(string: event.url ?? "")?.path ?? "")")]
        case .receive:
            let sent = attempt.main(hop: event.hop, side: .pre).map(\.time)
            let elapsed = sent.map { " · " + milliseconds(event.time - $0) } ?? ""
            let ok = event.status.map { (200..<300).contains($0) } ?? false
            let server = injectedByServer(event.snapshot) ? [Span(" ⚡ server", style: changed)] : []
            return [Span("\(event.status.map(String.init) ?? "?")", style: ok ? good : bad), Span(elapsed, style: .dim)] + server
        case .postflight:
            let status = event.status.map { " \($0)" } ?? ""
            return [Span("✓" + status, style: good)] + (event.diff.isEmpty ? [] : [Span(" " + diffSummary(event.diff), style: added)])
        case .error:
            if isRetry(event.error) { return [Span("↻ Retry", style: changed)] }
            return [Span("✕ " + (event.error.flatMap(shortError) ?? "error"), style: bad)]
        case .retry: return [Span("↻ retry", style: changed)]
        default: return []
        }
    }

    /// The refresh row's cells: the grant sent, and the token endpoint's answer.
    static func refreshCells(_ state: InspectorState, history: RequestHistory) -> HopCells {
        var cells = HopCells()
        let events = history.attempt(state.shownAttempt)?.refresh ?? []
        if events.contains(where: { $0.phase == .send || $0.phase == .refresh }) {
            cells.pre = Line([Span("✓ ", style: good), Span("POST /oauth/token")])
        }
        if let answer = events.last(where: { $0.phase == .refresh }) {
            let ok = answer.status == 200
            let text = [answer.status.map(String.init), answer.error].compactMap { $0 }.joined(separator: " ")
            cells.post = Line(ok ? "✓ " + text : "✕ " + text, style: ok ? good : bad)
        }
        for event in events where event.phase == .injected {
            cells.pre.spans.append(Span(" " + markText(event, state), style: changed))
        }
        if state.showsLatestAttempt, let stop = state.selectedStop, stop.place == .refresh {
            cells.pre = Line(stop.held ? "⏸ held · not sent yet" : "… waiting its turn", style: held)
        }
        return cells
    }

    /// An error's cause, short, as the Requests pane names it: `invalid_grant`, `401`.
    static func shortError(_ text: String) -> String { RequestRow.cause(ofError: text, status: nil) }

    static func diffSummary(_ diff: HeaderDiff) -> String {
        (diff.added.map { "+" + $0 } + diff.changed.map { "~" + $0 } + diff.removed.map { "-" + $0 }).joined(separator: " ")
    }

    static func chainTitle(_ state: InspectorState) -> String {
        var title = "Chain"
        if let row = state.selectedRow {
            title += " · #\(row.id) \(row.operation) · attempt \(state.shownAttempt) of \(state.attemptCount)"
        }
        if state.hasTwoLanes { title += " · lanes cache+network, \(state.selectedLane.rawValue) selected" }
        if state.lab.stepMode { title += " · step mode" }
        let rules = state.lab.rules.filter(\.isEnabled).count
        if rules > 0 { title += " · ◆ \(rules) rule\(rules == 1 ? "" : "s")" }
        return title
    }

    static func renderChain(_ state: InspectorState, in area: Rect, into buffer: inout Buffer, map: inout ScreenMap) {
        guard state.chainView == .hops else { return renderSequence(state, in: area, into: &buffer, map: &map) }
        let frame = block(chainTitle(state), focused: state.focus == .chain, state)
        frame.render(in: area, into: &buffer)
        let inner = frame.inner(area)
        guard !inner.isEmpty else { return }
        let hops = state.hops
        let history = state.history
        let longest = hops.map { TextWidth.of($0.name) }.max() ?? 0
        // On a narrow pane the names give way first, so both sides keep a few columns.
        let nameWidth = min(longest + 5, max(14, inner.width * 2 / 5), max(6, inner.width - 8))
        let columnWidth = max(4, (inner.width - nameWidth) / 2)
        let columns = [
            Rect(x: inner.x, y: 0, width: nameWidth - 1, height: 1),
            Rect(x: inner.x + nameWidth, y: 0, width: columnWidth - 1, height: 1),
            Rect(x: inner.x + nameWidth + columnWidth, y: 0, width: inner.width - nameWidth - columnWidth, height: 1),
        ].map { Rect(x: $0.x, y: 0, width: max(0, min($0.width, inner.maxX - $0.x)), height: 1) }
        func draw(_ cells: [Line], y: Int) {
            for (cell, column) in zip(cells, columns) {
                _ = buffer.set(line: cell.cut(to: column.width), at: Position(x: column.x, y: y), clip: Rect(x: column.x, y: y, width: column.width, height: 1))
            }
        }
        draw([Line("hop", style: .bold), Line("pre-flight ↓", style: .bold), Line("post-flight ↑", style: .bold)], y: inner.y)
        var rows: [[Line]] = []
        let cells = hopCells(state, history: history)
        let lintFindings = state.lintFindings
        for (index, hop) in hops.enumerated() {
            let pre = state.lab.breakpoints.contains(Breakpoint(hop: hop.index, position: .pre))
            let post = state.lab.breakpoints.contains(Breakpoint(hop: hop.index, position: .post))
            var label = hop.name
            if hop.kind == .cache, case .graphQL = state.lab.chain {
                let behavior = state.selectedRow.flatMap { _ in state.scenario.operations.first?.fetchBehavior }?.description ?? "CacheFirst"
                label = "cache (\(behavior))"
            }
            // The name is shortened only by what the row leaves it: the lint mark takes its share.
            let lint = lintMark(hop.index, lintFindings)
            label = Fitting.hopName(label, width: nameWidth - 5 - TextWidth.of(lint.text))
            let rulePre = hasRule(hop, .pre, state), rulePost = hasRule(hop, .post, state)
            let mark = pre || post ? Span("●", style: bad) : rulePre || rulePost ? Span("◆", style: bad) : Span(" ")
            let name = Line([mark, Span(String(format: "%2d ", hop.index + 1), style: .dim), lint, Span(label)])
            var preLine = cells[index].pre, postLine = cells[index].post
            if rulePre { preLine.spans.insert(Span("◆ ", style: bad), at: 0) }
            if rulePost { postLine.spans.insert(Span("◆ ", style: bad), at: 0) }
            if pre { preLine.spans.insert(Span("● ", style: bad), at: 0) }
            if post { postLine.spans.insert(Span("● ", style: bad), at: 0) }
            rows.append([name, preLine, postLine])
        }
        if state.hasRefreshRow {
            let refresh = refreshCells(state, history: history)
            rows.append([Line([Span("    "), Span(nameWidth - 5 >= 22 ? "↻ TokenManager refresh" : "↻ refresh", style: changed)]), refresh.pre, refresh.post])
        }
        let visible = max(0, inner.height - 1)
        let offset = max(0, min(state.selectedHop - visible + 1, rows.count - visible))
        for (index, cells) in rows.enumerated().dropFirst(offset).prefix(visible) {
            let y = inner.y + 1 + index - offset
            draw(cells, y: y)
            map.add(Rect(x: inner.x, y: y, width: inner.width, height: 1), .hop(index, side: nil))
            map.add(Rect(x: columns[1].x, y: y, width: columns[2].x - columns[1].x, height: 1), .hop(index, side: .pre))
            map.add(Rect(x: columns[2].x, y: y, width: columns[2].width, height: 1), .hop(index, side: .post))
            guard index == state.selectedHop else { continue }
            let side = columns[state.selectedSide == .pre ? 1 : 2]
            if state.focus == .chain {
                buffer.setStyle(.reverse, in: Rect(x: columns[0].x, y: y, width: columns[0].width, height: 1))
                buffer.setStyle(.reverse, in: Rect(x: side.x, y: y, width: side.width, height: 1))
            } else {
                buffer.setStyle(.bold, in: Rect(x: inner.x, y: y, width: inner.width, height: 1))
                buffer.setStyle(.underline, in: Rect(x: side.x, y: y, width: side.width, height: 1))
            }
        }
    }
}
