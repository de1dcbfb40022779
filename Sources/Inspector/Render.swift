import Lab
public import TerminalUI
import ChainKit
import Foundation
import Timeline

extension Inspector {
    /// The smallest screen the inspector draws; below it, a short message asks for more room.
    public static let minimumSize = Size(width: 40, height: 8)

    static let accent = Style(foreground: .cyan)
    static let good = Style(foreground: .green)
    static let bad = Style(foreground: .red)
    static let held = Style(foreground: .yellow, attributes: .bold)
    static let added = Style(foreground: .green)
    static let changed = Style(foreground: .yellow)
    static let removed = Style(foreground: .red)
    static let focusStyle = Style(foreground: .cyan, attributes: .bold)

    /// Draws the whole screen for `state` into `buffer`, and says where it put what a click
    /// can reach.
    @discardableResult
    public static func render(_ state: InspectorState, into buffer: inout Buffer) -> ScreenMap {
        var map = ScreenMap()
        let area = buffer.area
        guard area.width >= minimumSize.width, area.height >= minimumSize.height else {
            let text = "enlarge the terminal (\(minimumSize.width)x\(minimumSize.height) or more)"
            var lines: [Line] = []
            var rest = Substring(text)
            while !rest.isEmpty, area.width > 0 {
                lines.append(Line(String(rest.prefix(area.width))))
                rest = rest.dropFirst(area.width)
            }
            Paragraph(lines).render(in: area, into: &buffer)
            return map
        }
        let statusRow = Rect(x: 0, y: area.height - 1, width: area.width, height: 1)
        let body = Rect(x: 0, y: 0, width: area.width, height: area.height - 1)
        for (pane, rect) in layout(state, body: body) {
            map.add(rect, .pane(pane))
            switch pane {
            case .requests: renderRequests(state, in: rect, into: &buffer, map: &map)
            case .chain: renderChain(state, in: rect, into: &buffer, map: &map)
            case .timeline: renderTimeline(state, in: rect, into: &buffer, map: &map)
            case .detail: renderDetail(state, in: rect, into: &buffer)
            }
        }
        renderStatus(state, in: statusRow, into: &buffer, map: &map)
        if let modal = state.modal { renderModal(modal, state, in: body, into: &buffer) }
        return map
    }

    /// Terminals at least this wide put Detail beside the Chain pane.
    static let sideBySideWidth = 150

    /// Where each pane goes. `+` gives the focused pane the whole body. Otherwise the Chain
    /// pane takes the rows its hops need and Detail the rows its content needs (beside the
    /// Chain on wide terminals, below the Timeline otherwise); the Timeline takes the rest.
    static func layout(_ state: InspectorState, body: Rect) -> [(InspectorState.Pane, Rect)] {
        if state.maximized { return [(state.focus, body)] }
        let chainRows = max(state.chainPaneRowCount + 3, 7)
        let requestsWidth = min(40, max(22, body.width / 3))
        if body.width >= sideBySideWidth {
            let detailWidth = body.width * 2 / 5
            let top = min(max(chainRows, detailRows(state, width: detailWidth)), max(chainRows, body.height - 5))
            let rows = Layout.vertical([.length(min(top, body.height)), .fill]).split(body)
            let columns = Layout.horizontal([.length(requestsWidth), .fill, .length(detailWidth)]).split(rows[0])
            var panes: [(InspectorState.Pane, Rect)] = [(.requests, columns[0]), (.chain, columns[1]), (.detail, columns[2])]
            if rows[1].height >= 3 { panes.append((.timeline, rows[1])) }
            return panes
        }
        let showTimeline = body.height >= 20
        let showDetail = body.height >= 13
        let chainHeight = min(chainRows, showDetail ? body.height / 2 : body.height)
        let rest = body.height - chainHeight
        // The Timeline keeps its axis and a few rows; it grows with the requests.
        let timelineMinimum = showTimeline ? min(max(4, state.visibleRequests.count + 3), 6) : 0
        let detailHeight = showDetail ? min(max(3, detailRows(state, width: body.width)), rest - timelineMinimum) : 0
        let rows = Layout.vertical([.length(chainHeight), .fill, .length(detailHeight)]).split(body)
        let top = Layout.horizontal([.length(requestsWidth), .fill]).split(rows[0])
        var panes: [(InspectorState.Pane, Rect)] = [(.requests, top[0]), (.chain, top[1])]
        if showTimeline, rows[1].height >= 3 { panes.append((.timeline, rows[1])) }
        if showDetail { panes.append((.detail, showTimeline ? rows[2] : Rect(x: body.x, y: rows[1].y, width: body.width, height: rows[1].height + rows[2].height))) }
        return panes
    }

    static func block(_ title: String, focused: Bool, _ state: InspectorState) -> Block {
        Block(title: title, symbols: state.symbols, borderStyle: focused ? focusStyle : .plain, titleStyle: focused ? focusStyle : .bold)
    }

    // MARK: - Requests

    static func stateSymbol(_ row: RequestRow) -> (String, Style) {
        switch row.state {
        case .succeeded: ("✓", good)
        case .partial: ("!", changed)
        case .failed: ("✕", bad)
        case .paused: ("⏸", held)
        case .blocked: ("⧗", changed)
        case .retrying: ("↻", changed)
        case .running: ("…", .plain)
        }
    }

    static func milliseconds(_ seconds: Double) -> String {
        "\(Int(saturating: seconds * 1000))ms"
    }

    /// A request's line in at most `width` columns: the duration goes first when it does not
    /// fit, then the attempt count, then the operation's name, so the outcome and its cause
    /// stay readable.
    static func requestLine(_ row: RequestRow, width: Int = .max) -> Line {
        let (symbol, style) = stateSymbol(row)
        let parts: [String?] = switch row.state {
        case .succeeded, .partial, .failed: [row.cause, milliseconds(row.duration), row.attempt > 1 ? "×\(row.attempt)" : nil]
        case .paused: ["paused"]
        case .blocked: ["waits: refresh"]
        case .retrying: ["retry \(row.attempt)"]
        case .running: ["running"]
        }
        func line(_ parts: [String?], operation: Bool = true) -> Line {
            Line([Span(symbol + " ", style: style), Span("#\(row.id) " + (operation ? row.operation + " " : "")), Span(parts.compactMap { $0 }.joined(separator: " "), style: .dim)])
        }
        var candidates = [line(parts)]
        if parts.count == 3 { candidates += [line([parts[0], parts[2]]), line([parts[0]]), line([parts[0]], operation: false)] }
        return Fitting.cut(candidates.first { $0.width <= width } ?? candidates[candidates.count - 1], to: width)
    }

    static func renderRequests(_ state: InspectorState, in area: Rect, into buffer: inout Buffer, map: inout ScreenMap) {
        let rows = state.visibleRequests
        let title = state.filter.map { "Requests · \($0)" } ?? "Requests"
        let frame = block(title, focused: state.focus == .requests, state)
        frame.render(in: area, into: &buffer)
        let inner = frame.inner(area)
        if rows.isEmpty {
            Paragraph([Line(state.lab.requests.isEmpty ? "press n to start" : "no request matches", style: .dim)]).render(in: inner, into: &buffer)
            return
        }
        // Only the rows around the selection are made into lines: a run can hold thousands.
        let selected = state.filter == nil ? state.selectedRequest.flatMap { state.lab.index(of: $0) } : rows.firstIndex { $0.id == state.selectedRequest }
        let first = max(0, min((selected ?? 0) - inner.height + 1, rows.count - inner.height))
        let window = rows[first..<min(rows.count, first + inner.height)]
        List(window.map { requestLine($0, width: inner.width) }, selected: selected.map { $0 - first }, highlightStyle: state.focus == .requests ? .reverse : .bold).render(in: inner, into: &buffer)
        for (offset, row) in window.enumerated() { map.add(Rect(x: inner.x, y: inner.y + offset, width: inner.width, height: 1), .request(row.id)) }
    }

    // MARK: - Timeline

    /// The lab backend's counters that explain auth bugs, short: `2 refreshes (1 refused) ·
    /// 1 family revoked · 2×401 · 3 requests`.
    static func backendSummary(_ lab: LabView) -> String {
        let counters = lab.backend
        func count(_ name: String) -> Int { counters[name] ?? 0 }
        let refreshes = count("tokenRefreshes"), refused = count("refreshRejected")
        var parts = ["\(refreshes) refresh\(refreshes == 1 ? "" : "es")" + (refused > 0 ? " (\(refused) refused)" : "")]
        if count("familiesRevoked") > 0 { parts.append("\(count("familiesRevoked")) family revoked") }
        if count("unauthorized") > 0 { parts.append("\(count("unauthorized"))×401") }
        if count("injectedFailures") > 0 { parts.append("\(count("injectedFailures")) injected") }
        let requests = count("graphqlRequests") + count("restRequests")
        parts.append("\(requests) request\(requests == 1 ? "" : "s")")
        return parts.joined(separator: " · ")
    }

    // MARK: - Status line

    /// The bindings that do something now, for the status line: the hints the keymap
    /// offers that ``KeyBindings/disabledReason(_:in:)`` lets through.
    public static func activeHints(_ state: InspectorState) -> [KeyBinding] {
        state.keys.bindings.filter { $0.isHint && state.keys.disabledReason($0.action, in: state) == nil }
    }

    /// The status line's hints for `width` columns: navigation, help and quit always; the
    /// actions that apply now as room allows, the lower-ranked ones dropped first; shown in
    /// keymap order, navigation last.
    public static func statusHints(_ state: InspectorState, width: Int) -> [StatusLine.Hint] {
        statusEntries(state, width: width).map(\.hint)
    }

    /// The status line's hints with the action each runs, for clicks on them.
    static func statusEntries(_ state: InspectorState, width: Int) -> [(hint: StatusLine.Hint, action: Action)] {
        func hint(_ binding: KeyBinding) -> StatusLine.Hint {
            binding.action == .down && binding.keys.first == .char("j") && state.keys.binding(.up).keys.first == .char("k")
                ? StatusLine.Hint("j/k", "move") : StatusLine.Hint(binding.keys.first?.name ?? "", binding.name)
        }
        func columns(_ hints: [StatusLine.Hint]) -> Int {
            hints.reduce(0) { $0 + TextWidth.of($1.key) + 1 + TextWidth.of($1.action) } + max(0, hints.count - 1) * 2
        }
        let active = activeHints(state)
        let essential = active.filter { $0.rank == 0 }
        var chosen = Set(essential.map(\.action))
        for binding in active.filter({ $0.rank > 0 }).enumerated().sorted(by: { ($0.element.rank, $0.offset) < ($1.element.rank, $1.offset) }).map(\.element) {
            let candidate = active.filter { chosen.contains($0.action) || $0.action == binding.action }
            if columns(candidate.map(hint)) <= width { chosen.insert(binding.action) }
        }
        let shown = active.filter { chosen.contains($0.action) }
        return (shown.filter { $0.rank > 0 } + shown.filter { $0.rank == 0 }).map { (hint($0), $0.action) }
    }

    static func renderStatus(_ state: InspectorState, in area: Rect, into buffer: inout Buffer, map: inout ScreenMap) {
        if case .confirmQuit = state.modal {
            // Every other key answers "stay": the main keys would promise what they do not do.
            let hints = OverlayKeymap.hintPairs(.confirmQuit).map { StatusLine.Hint($0.key, $0.label) }
            StatusLine(hints, trailing: state.scenario.name).render(in: area, into: &buffer)
            return
        }
        if let notice = state.notice {
            // Navigation, help and quit stay at the right end unless the notice needs the
            // whole line (it is gone at the next key).
            let essential = statusEntries(state, width: 0)
            let width = essential.reduce(0) { $0 + TextWidth.of($1.hint.key) + 1 + TextWidth.of($1.hint.action) } + max(0, essential.count - 1) * 2
            let room = TextWidth.of(notice.text) + 1 + 2 + width <= area.width ? area.width - width - 2 : area.width
            _ = buffer.set(line: Fitting.cut(Line(" " + notice.text, style: notice.isError ? bad : accent), to: room), at: area.origin, clip: area)
            if room < area.width { renderHints(essential, trailing: nil, in: Rect(x: area.maxX - width, y: area.y, width: width, height: 1), into: &buffer, map: &map) }
            return
        }
        var line = area
        // Whenever secrets are on screen unmasked, or certificates go unchecked, the line
        // says so first.
        for (shown, warning) in [(state.lab.tlsUnverified, "⚠ TLS not verified  "), (state.revealSecrets, "⚠ secrets revealed  ")] where shown {
            _ = buffer.set(string: warning, at: line.origin, style: bad, clip: line)
            let used = TextWidth.of(warning)
            line = Rect(x: line.x + used, y: line.y, width: max(0, line.width - used), height: 1)
        }
        let findings = findingsSummary(state)
        renderHints(statusEntries(state, width: line.width), trailing: findings.isEmpty ? state.scenario.name : findings + " · " + state.scenario.name, in: line, into: &buffer, map: &map)
    }

    /// Draws key hints and marks where each landed, so a click on one runs its key.
    static func renderHints(_ entries: [(hint: StatusLine.Hint, action: Action)], trailing: String?, in area: Rect, into buffer: inout Buffer, map: inout ScreenMap) {
        let line = StatusLine(entries.map(\.hint), trailing: trailing)
        line.render(in: area, into: &buffer)
        for (rect, entry) in zip(line.hintAreas(in: area), entries) { map.add(rect, .hint(entry.action)) }
    }
}
