import ChainKit
import Foundation
import Lab
import TerminalUI
package import Timeline
import Vocabulary
package import InspectorModel

/// The Chain pane as a sequence diagram (`S`): the hops are columns, with the token manager's
/// refresh as a column at the side, and each event is a row in the order it happened — `↓`
/// where a hop handed the request down, `↑` where a response, result or error came up, the
/// cache read (`◇` miss, `◆` hit) and the parser where they happen, stops and edits on their
/// row, and each retry a new descent under a divider. `A` interleaves every request's events
/// on the same axis, numbered and coloured per request. The selected row is the selected
/// event: the Requests pane, the Timeline and Detail follow it.
extension Inspector {
    /// One row of the diagram.
    package enum SequenceRow {
        /// The line above the first event of a retry.
        case divider(request: Int, attempt: Int)
        case event(TimelineEvent)

        package var event: TimelineEvent? {
            if case .event(let event) = self { return event }
            return nil
        }
    }

    /// Whether an event gets a row: everything an attempt did but log lines and releases
    /// from a stop (a wake after another request's refresh keeps its row).
    static func drawsRow(_ event: TimelineEvent) -> Bool {
        guard event.attempt > 0 else { return false }
        switch event.phase {
        case .log: return false
        case .resumed: return isWake(event)
        default: return true
        }
    }

    /// The diagram's rows for the Chain pane's view, as far as the view has seen the events.
    package static func sequenceRows(_ state: InspectorState) -> [SequenceRow] {
        switch state.chainView {
        case .hops:
            return []
        case .sequence:
            guard let request = state.selectedRequest else { return [] }
            var rows: [SequenceRow] = []
            var attempt = 1
            for event in state.lab.events(of: request) where drawsRow(event) {
                if event.attempt > attempt {
                    attempt = event.attempt
                    rows.append(.divider(request: request, attempt: attempt))
                }
                rows.append(.event(event))
            }
            return rows
        case .allRequests:
            // A filter (`/`) keeps the requests it lets through, as in the Requests pane.
            let kept = state.filter == nil ? nil : state.filterMatches
            return state.lab.timeline.events().filter { drawsRow($0) && kept?.contains($0.request) != false }.map(SequenceRow.event)
        }
    }

    /// Where an event sits in the Chain pane: its hop and side, or the refresh row (one past
    /// the last hop) for the token manager's events — the grant sent before, the answer after.
    static func place(of event: TimelineEvent, hopCount: Int) -> (hop: Int, side: StopPosition) {
        if event.kind == .auth || event.hop == TimelineEvent.noHop { return (hopCount, event.phase == .refresh ? .post : .pre) }
        return (event.hop, RequestHistory.side(of: event) ?? .pre)
    }

    /// The selected row: the event last chosen in the diagram while it is still the selected
    /// request, attempt, hop and side; otherwise the latest row there; otherwise the last row.
    static func selectedSequenceRow(_ state: InspectorState, rows: [SequenceRow]) -> Int? {
        let hopCount = state.hops.count
        func isSelected(_ event: TimelineEvent) -> Bool {
            let place = place(of: event, hopCount: hopCount)
            return event.request == state.selectedRequest && event.attempt == state.shownAttempt && place.hop == state.selectedHop && place.side == state.selectedSide
        }
        if let seq = state.sequenceSeq, let index = rows.firstIndex(where: { $0.event?.seq == seq }), let event = rows[index].event, isSelected(event) {
            return index
        }
        return rows.lastIndex { $0.event.map(isSelected) ?? false } ?? rows.lastIndex { $0.event != nil }
    }

    /// Selects `event` everywhere: its request, attempt, hop and side.
    package static func selectSequenceEvent(_ event: TimelineEvent, _ state: inout InspectorState) {
        state.selectedRequest = event.request
        state.selectedAttempt = event.attempt >= state.attemptCount ? nil : event.attempt
        let place = place(of: event, hopCount: state.hops.count)
        state.selectedHop = place.hop
        state.selectedSide = place.side
        state.sequenceSeq = event.seq
        state.followedPlace = state.selectedStop?.place
        state.followsToEnd = false
        state.detailScroll = 0
    }

    /// j/k, pages, first and last over the diagram's events (dividers are passed over).
    package static func moveInSequence(_ action: Action, _ state: inout InspectorState) {
        let rows = sequenceRows(state)
        let events = rows.indices.filter { rows[$0].event != nil }
        guard !events.isEmpty else { return }
        let current = selectedSequenceRow(state, rows: rows).flatMap { events.firstIndex(of: $0) } ?? events.count - 1
        let page = max(1, state.size.height / 3)
        let target: Int = switch action {
        case .up: current - 1
        case .down: current + 1
        case .pageUp: current - page
        case .pageDown: current + page
        case .home: 0
        default: events.count - 1
        }
        if let event = rows[events[min(max(0, target), events.count - 1)]].event { selectSequenceEvent(event, &state) }
    }

    /// `S` and `A`: the sequence diagram of the selected request, of every request, or the hops.
    package static func toggleSequence(_ action: Action, _ state: inout InspectorState) {
        switch action {
        case .sequenceDiagram: state.chainView = state.chainView == .hops ? .sequence : .hops
        default: state.chainView = state.chainView == .allRequests ? .sequence : .allRequests
        }
        state.sequenceSeq = nil
        if state.chainView != .hops { state.focus = .chain }
    }

    /// The colours that tell requests apart when every request is drawn (`A`).
    static let requestColors: [Color] = [.cyan, .green, .magenta, .yellow, .blue, .red]

    static func requestStyle(_ request: Int) -> Style {
        Style(foreground: requestColors[(max(1, request) - 1) % requestColors.count])
    }

    /// The mark an event leaves in its column.
    static func sequenceGlyph(_ event: TimelineEvent) -> (String, Style) {
        switch event.phase {
        case .preflight, .send: ("↓", accent)
        case .cacheHit: ("◆", good)
        case .cacheMiss: ("◇", .dim)
        case .receive: ("↑", event.status.map { (200..<300).contains($0) } ?? false ? good : bad)
        case .postflight: ("↑", good)
        case .error: isRetry(event.error) ? ("↻", changed) : ("✕", bad)
        case .retry: ("↻", changed)
        case .paused: ("⏸", held)
        case .edited: ("✎", changed)
        case .injected: ("✱", changed)
        case .refresh: event.status == 200 ? ("✓", good) : ("✕", bad)
        case .resumed: ("⧗", changed)
        case .log: ("·", .dim)
        }
    }

    /// What a row says beside the diagram.
    static func sequenceText(_ event: TimelineEvent, _ state: InspectorState) -> Line {
        let name = event.kind == .auth || event.hop == TimelineEvent.noHop ? "refresh" : Fitting.hopName(event.name, width: 12)
        let path = URLComponents(string: event.url ?? "")?.path ?? ""
        let what = VisibleEscapes.escape((event.detail ?? "").components(separatedBy: " · ").first ?? "")
        switch event.phase {
        case .preflight:
            let diff = diffSummary(event.diff)
            return Line([Span("↓ " + name)] + (diff.isEmpty ? [] : [Span(" " + diff, style: added)]))
        case .cacheHit where event.name == LabSession.watcherDeliveryEventName:
            return Line([Span("watcher ", style: changed), Span("delivered again", style: good), Span(" — the store changed what it read", style: .dim)])
        case .cacheHit: return Line([Span("cache "), Span("hit", style: good), Span(" — answered from the cache", style: .dim)])
        case .cacheMiss: return Line([Span("cache "), Span("miss", style: .dim)])
        case .send where event.kind == .auth: return Line([Span("refresh ", style: changed), Span("\(event.method ?? "POST") \(VisibleEscapes.escape(path))")])
        case .send: return Line("send \(event.method ?? "") \(VisibleEscapes.escape(path))")
        case .receive: return Line([Span("received "), Span(event.status.map(String.init) ?? "?", style: sequenceGlyph(event).1)])
        case .postflight:
            let diff = diffSummary(event.diff)
            return Line([Span("↑ " + name + (event.status.map { " \($0)" } ?? ""))] + (diff.isEmpty ? [] : [Span(" " + diff, style: added)]))
        case .error:
            if isRetry(event.error) { return Line([Span("↑ " + name + " "), Span("↻ Retry", style: changed)]) }
            return Line([Span("↑ " + name + " "), Span("✕ " + (event.error.flatMap(shortError) ?? "error"), style: bad)])
        case .retry: return Line("↻ \(name) starts attempt \(event.attempt + 1)", style: changed)
        case .paused: return Line("⏸ held at \(name) (\(what))", style: held)
        case .edited, .injected: return Line([Span(markText(event, state) + " ", style: changed), Span(what)])
        case .refresh:
            let answer = [event.status.map(String.init), event.error.map(VisibleEscapes.escape)].compactMap { $0 }.joined(separator: " ")
            return Line([Span("refresh answer ", style: changed), Span(answer, style: event.status == 200 ? good : bad)])
        case .resumed: return Line("⧗ " + what, style: changed)
        case .log: return Line(what, style: .dim)
        }
    }

    static func sequenceTitle(_ state: InspectorState) -> String {
        if state.chainView == .allRequests { return "Sequence · every request (A: one) · S: hops" }
        var title = "Sequence"
        if let row = state.selectedRow { title += " · #\(row.id) \(row.operation) · \(row.attempt) attempt\(row.attempt == 1 ? "" : "s")" }
        return title + " · A: all · S: hops"
    }

    static func renderSequence(_ state: InspectorState, in area: Rect, into buffer: inout Buffer, map: inout ScreenMap) {
        let frame = block(sequenceTitle(state), focused: state.focus == .chain, state)
        frame.render(in: area, into: &buffer)
        let inner = frame.inner(area)
        guard inner.height >= 2, inner.width >= 10 else { return }
        let rows = sequenceRows(state)
        let all = state.chainView == .allRequests
        let hops = state.hops
        let columns = hops.count + 1
        let gutter = all ? "#\(state.lab.requests.last?.id ?? 1)".count + 1 : 0
        let width = max(2, min(12, (inner.width - gutter - 24) / columns))
        let textX = inner.x + gutter + width * columns + 1
        let textWidth = max(0, inner.maxX - textX)
        func center(_ column: Int) -> Int { inner.x + gutter + column * width + (width - 1) / 2 }

        // The header: hop numbers (names when the columns are wide), the refresh column.
        for (column, hop) in hops.enumerated() {
            let label = width >= 10 ? Fitting.hopName(hop.kind == .cache ? "cache" : hop.name, width: width - 1) : "\(hop.index + 1)"
            let x = width >= 10 ? inner.x + gutter + column * width : center(column) - (label.count - 1) / 2
            _ = buffer.set(string: label, at: Position(x: x, y: inner.y), style: .bold, clip: Rect(x: x, y: inner.y, width: max(0, min(width, inner.maxX - x)), height: 1))
        }
        let refreshLabel = width >= 8 ? "refresh" : "↻"
        let refreshX = width >= 8 ? inner.x + gutter + hops.count * width : center(hops.count)
        _ = buffer.set(string: refreshLabel, at: Position(x: refreshX, y: inner.y), style: changed, clip: inner)
        if textWidth > 0 {
            _ = buffer.set(line: Line(rows.isEmpty ? "no events yet" : all ? "#request · what happened" : "what happened", style: .dim).cut(to: textWidth), at: Position(x: textX, y: inner.y), clip: inner)
        }

        let visible = inner.height - 1
        let selected = selectedSequenceRow(state, rows: rows)
        let offset = max(0, min((selected ?? rows.count - 1) - visible / 2, rows.count - visible))
        // Each event is joined to the one before it of the same request, so a descent reads
        // as one line from hop to hop.
        var previousColumn: [Int: Int] = [:]
        for (index, row) in rows.enumerated().prefix(offset + visible) {
            let y = inner.y + 1 + index - offset
            let shown = index >= offset
            switch row {
            case .divider(_, let attempt):
                guard shown else { continue }
                buffer.fill(Rect(x: inner.x, y: y, width: inner.width, height: 1), with: "─", style: .dim)
                _ = buffer.set(string: " ↻ attempt \(attempt) ", at: Position(x: textX, y: y), style: changed, clip: inner)
            case .event(let event):
                let column = place(of: event, hopCount: hops.count).hop
                defer { previousColumn[event.request] = column }
                guard shown else { continue }
                map.add(Rect(x: inner.x, y: y, width: inner.width, height: 1), .sequenceEvent(event.seq))
                for lifeline in 0..<columns {
                    _ = buffer.set(string: lifeline == hops.count ? "┊" : "│", at: Position(x: center(lifeline), y: y), style: .dim, clip: inner)
                }
                let (glyph, look) = sequenceGlyph(event)
                let style = all ? requestStyle(event.request).patched(with: look.attributes.contains(.bold) ? .bold : .plain) : look
                if let from = previousColumn[event.request], from != column {
                    let (low, high) = (min(from, column), max(from, column))
                    let link = Rect(x: center(low) + 1, y: y, width: max(0, center(high) - center(low) - 1), height: 1)
                    buffer.fill(link, with: "─", style: all ? requestStyle(event.request) : .dim)
                }
                _ = buffer.set(string: glyph, at: Position(x: center(column), y: y), style: style, clip: inner)
                if all { _ = buffer.set(string: "#\(event.request)", at: Position(x: inner.x, y: y), style: requestStyle(event.request), clip: inner) }
                if textWidth > 0 {
                    _ = buffer.set(line: sequenceText(event, state).cut(to: textWidth), at: Position(x: textX, y: y), clip: Rect(x: textX, y: y, width: textWidth, height: 1))
                }
                if index == selected {
                    buffer.setStyle(state.focus == .chain ? .reverse : .bold, in: Rect(x: inner.x, y: y, width: inner.width, height: 1))
                }
            }
        }
    }
}
