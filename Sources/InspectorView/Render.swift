import Lab
public import TerminalUI
import ChainKit
import Foundation
import Timeline
public import InspectorModel

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
        guard fitsPanes(buffer.area.size) else {
            renderEnlargeMessage(into: &buffer)
            return map
        }
        renderPanes(state, into: &buffer, map: &map)
        renderOverPanes(state, into: &buffer, map: &map)
        return map
    }

    /// Whether a screen of `size` has room for the panes.
    static func fitsPanes(_ size: Size) -> Bool {
        size.width >= minimumSize.width && size.height >= minimumSize.height
    }

    /// What a screen too small for the panes shows.
    static func renderEnlargeMessage(into buffer: inout Buffer) {
        let area = buffer.area
        let text = "enlarge the terminal (\(minimumSize.width)x\(minimumSize.height) or more)"
        var lines: [Line] = []
        var rest = Substring(text)
        while !rest.isEmpty, area.width > 0 {
            lines.append(Line(String(rest.prefix(area.width))))
            rest = rest.dropFirst(area.width)
        }
        Paragraph(lines).render(in: area, into: &buffer)
    }

    /// Draws the panes: everything but the status line and the overlay, and only what
    /// reads no more of `state` than ``InspectorState/panesRevision`` follows.
    static func renderPanes(_ state: InspectorState, into buffer: inout Buffer, map: inout ScreenMap) {
        let body = bodyArea(buffer.area.size)
        // Detail's content is worked out once a frame: the layout sizes Detail by it.
        let detail = state.maximized && state.focus != .detail ? nil : detailContent(state)
        for (pane, rect) in layout(state, body: body, detail: detail) {
            map.add(rect, .pane(pane))
            if pane == .detail {
                renderDetail(state, detail, in: rect, into: &buffer)
            } else {
                render(pane, state, in: rect, into: &buffer, map: &map)
            }
        }
    }

    /// Draws what goes over the panes: the status line, and the overlay when one is open.
    static func renderOverPanes(_ state: InspectorState, into buffer: inout Buffer, map: inout ScreenMap) {
        let area = buffer.area
        renderStatus(state, in: Rect(x: 0, y: area.height - 1, width: area.width, height: 1), into: &buffer, map: &map)
        if let modal = state.modal { renderModal(modal, state, in: bodyArea(area.size), into: &buffer) }
    }

    /// The rows above the status line, where the panes and overlays go.
    package static func bodyArea(_ size: Size) -> Rect {
        Rect(x: 0, y: 0, width: size.width, height: max(0, size.height - 1))
    }

    /// Where each pane goes on a screen of `state.size`, as ``render(_:into:)`` lays them out.
    package static func paneAreas(_ state: InspectorState) -> [(pane: InspectorState.Pane, area: Rect)] {
        layout(state, body: bodyArea(state.size)).map { (pane: $0.0, area: $0.1) }
    }

    /// Draws one pane in `area`: what ``render(_:into:)`` does for each pane of the layout.
    package static func render(_ pane: InspectorState.Pane, _ state: InspectorState, in area: Rect, into buffer: inout Buffer) {
        var map = ScreenMap()
        render(pane, state, in: area, into: &buffer, map: &map)
    }

    /// Draws the status line alone, on the last row of `buffer`.
    package static func renderStatusLine(_ state: InspectorState, into buffer: inout Buffer) {
        var map = ScreenMap()
        renderStatus(state, in: Rect(x: 0, y: buffer.height - 1, width: buffer.width, height: 1), into: &buffer, map: &map)
    }

    /// Draws the open overlay alone, over the body, as ``render(_:into:)`` does.
    package static func renderOverlay(_ state: InspectorState, into buffer: inout Buffer) {
        if let modal = state.modal { renderModal(modal, state, in: bodyArea(buffer.area.size), into: &buffer) }
    }

    static func render(_ pane: InspectorState.Pane, _ state: InspectorState, in area: Rect, into buffer: inout Buffer, map: inout ScreenMap) {
        switch pane {
        case .requests: renderRequests(state, in: area, into: &buffer, map: &map)
        case .chain: renderChain(state, in: area, into: &buffer, map: &map)
        case .timeline: renderTimeline(state, in: area, into: &buffer, map: &map)
        case .detail: renderDetail(state, in: area, into: &buffer)
        }
    }

    /// Terminals at least this wide put Detail beside the Chain pane.
    static let sideBySideWidth = 150

    /// Where each pane goes. `+` gives the focused pane the whole body. Otherwise panes share
    /// the height by content: the Timeline is sure of a row per request (with its axis and
    /// borders, four rows at least, a third of the body at most); the Chain pane takes the
    /// rows its hops or diagram need, and Detail what its content needs (beside the Chain on
    /// wide terminals, below the Timeline otherwise), as far as the Timeline's share allows.
    /// Rows nobody needs go to the Timeline.
    static func layout(_ state: InspectorState, body: Rect) -> [(InspectorState.Pane, Rect)] {
        layout(state, body: body, detail: state.maximized ? nil : detailContent(state))
    }

    /// ``layout(_:body:)`` with Detail's content, `detailContent(state)`, already worked out.
    static func layout(_ state: InspectorState, body: Rect, detail: DetailContent?) -> [(InspectorState.Pane, Rect)] {
        if state.maximized { return [(state.focus, body)] }
        let chainRows = max(chainPaneRowCount(state) + 3, 7)
        let requestsWidth = min(40, max(22, body.width / 3))
        let timelineRows = min(max(4, state.visibleRequests.count + 3), max(4, body.height / 3))
        if body.width >= sideBySideWidth {
            let detailWidth = body.width * 2 / 5
            let showTimeline = body.height - timelineRows >= chainRows
            let top = showTimeline ? min(max(chainRows, detailRows(state, detail, width: detailWidth)), body.height - timelineRows) : body.height
            let rows = Layout.vertical([.length(top), .fill]).split(body)
            let columns = Layout.horizontal([.length(requestsWidth), .fill, .length(detailWidth)]).split(rows[0])
            var panes: [(InspectorState.Pane, Rect)] = [(.requests, columns[0]), (.chain, columns[1]), (.detail, columns[2])]
            if showTimeline { panes.append((.timeline, rows[1])) }
            return panes
        }
        let showTimeline = body.height >= 20
        let showDetail = body.height >= 13
        let timelineHeight = showTimeline ? timelineRows : 0
        let chainHeight = min(chainRows, showDetail ? max(body.height / 2, body.height - timelineHeight - 8) : body.height)
        // Detail takes what its content needs; what it leaves goes to the Timeline.
        let detailHeight = showDetail ? max(3, min(detailRows(state, detail, width: body.width), body.height - chainHeight - timelineHeight)) : 0
        let rows = Layout.vertical([.length(chainHeight), .fill, .length(detailHeight)]).split(body)
        let top = Layout.horizontal([.length(requestsWidth), .fill]).split(rows[0])
        var panes: [(InspectorState.Pane, Rect)] = [(.requests, top[0]), (.chain, top[1])]
        if showTimeline, rows[1].height >= 3 { panes.append((.timeline, rows[1])) }
        if showDetail { panes.append((.detail, showTimeline ? rows[2] : Rect(x: body.x, y: rows[1].y, width: body.width, height: rows[1].height + rows[2].height))) }
        return panes
    }

    /// The rows the Chain pane asks for below its header: the hops (and refresh) of one
    /// attempt, or the sequence diagram's rows (the layout gives what it can; the diagram
    /// scrolls, and `+` gives it the whole screen).
    static func chainPaneRowCount(_ state: InspectorState) -> Int {
        state.chainView == .hops ? state.chainRowCount : sequenceRows(state).count
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
        return (candidates.first { $0.width <= width } ?? candidates[candidates.count - 1]).cut(to: width)
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
        let selected = state.selectedVisibleIndex
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

    /// Every key that acts now, in the order the status line offers them: the bindings
    /// ``KeyBindings/disabledReason(_:in:)`` lets through, by ``KeyBinding/Priority`` (the
    /// focused pane's own keys before other panes'), then keymap order; help last.
    public static func offeredKeys(_ state: InspectorState) -> [KeyBinding] {
        func rank(_ binding: KeyBinding) -> Int {
            if binding.action == .help { return Int.max }
            if binding.priority == .pane, binding.pane != state.focus { return KeyBinding.Priority.other.rawValue + 1 }
            return binding.priority.rawValue
        }
        let refused = state.keys.disabledReasons(in: state)
        return state.keys.bindings.enumerated()
            .filter { refused[$0.element.action] == nil }
            .sorted { (rank($0.element), $0.offset) < (rank($1.element), $1.offset) }
            .map(\.element)
    }

    /// The status line's hints for `width` columns: the keys that act, in the order
    /// ``offeredKeys(_:)`` gives, as many as fit; when some do not, `…` stands for them and
    /// `? help`, which lists every key, ends the line.
    public static func statusHints(_ state: InspectorState, width: Int) -> [StatusLine.Hint] {
        statusEntries(state, width: width).map(\.hint)
    }

    /// The status line's hints with the action each runs, for clicks on them (`…` opens help).
    static func statusEntries(_ state: InspectorState, width: Int) -> [(hint: StatusLine.Hint, action: Action)] {
        let offered = offeredKeys(state)
        let actions = Set(offered.map(\.action))
        // Down and up show as one hint, `j/k move`, where both act.
        let paired = actions.contains(.down) && actions.contains(.up)
        var entries: [(hint: StatusLine.Hint, action: Action)] = offered.compactMap { binding in
            let key = binding.keys.first?.name ?? ""
            switch binding.action {
            case .up where paired: return nil
            case .down where paired: return (StatusLine.Hint(key + "/" + state.keys.keyName(.up), "move"), .down)
            default: return (StatusLine.Hint(key, binding.name), binding.action)
            }
        }
        guard StatusLine.width(of: entries.map(\.hint)) > width, let help = entries.last, help.action == .help else { return entries }
        entries.removeLast()
        let more = (hint: StatusLine.Hint("…", ""), action: Action.help)
        // Each hint dropped takes its width and one separator (two columns) off the line.
        var used = StatusLine.width(of: entries.map(\.hint) + [more.hint, help.hint])
        while !entries.isEmpty, used > width { used -= entries.removeLast().hint.width + 2 }
        return entries + [more, help]
    }

    static func renderStatus(_ state: InspectorState, in area: Rect, into buffer: inout Buffer, map: inout ScreenMap) {
        // Quit? keeps its own keys on the line: every other key answers "stay".
        if let notice = state.notice, state.modal != .confirmQuit {
            // `? help` stays at the right end unless the notice needs the whole line (it is
            // gone at the next key).
            let help = [(hint: StatusLine.Hint(state.keys.keyName(.help), state.keys.binding(.help).name), action: Action.help)]
            let width = StatusLine.width(of: help.map(\.hint))
            let room = TextWidth.of(notice.text) + 1 + 2 + width <= area.width ? area.width - width - 2 : area.width
            _ = buffer.set(line: Line(" " + notice.text, style: notice.isError ? bad : accent).cut(to: room), at: area.origin, clip: area)
            if room < area.width, state.modal == nil { renderHints(help, trailing: nil, in: Rect(x: area.maxX - width, y: area.y, width: width, height: 1), into: &buffer, map: &map) }
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
        if let modal = state.modal {
            // The main keys do not act while an overlay is open: the line offers the overlay's.
            let hints = OverlayKeymap.hintPairs(modal.keymap).map { StatusLine.Hint($0.key, $0.label) }
            StatusLine(hints, trailing: state.scenario.name).render(in: line, into: &buffer)
            return
        }
        let findings = findingsSummary(state)
        let trailing = findings.isEmpty ? state.scenario.name : findings + " · " + state.scenario.name
        // The findings count and the scenario keep their place at the right of a line of 60
        // columns or more while the hints keep room for a few keys; below that, keys first.
        let room = line.width - TextWidth.of(trailing) - 2
        renderHints(statusEntries(state, width: line.width >= 60 && room >= 20 ? room : line.width), trailing: trailing, in: line, into: &buffer, map: &map)
    }

    /// Draws key hints and marks where each landed, so a click on one runs its key.
    static func renderHints(_ entries: [(hint: StatusLine.Hint, action: Action)], trailing: String?, in area: Rect, into buffer: inout Buffer, map: inout ScreenMap) {
        let line = StatusLine(entries.map(\.hint), trailing: trailing)
        line.render(in: area, into: &buffer)
        for (rect, entry) in zip(line.hintAreas(in: area), entries) { map.add(rect, .hint(entry.action)) }
    }

    /// The panes that can take the focus, in Tab order: those on screen (a small terminal
    /// leaves some out), or every pane while `+` shows the focused one alone.
    package static func shownPanes(_ state: InspectorState) -> [InspectorState.Pane] {
        guard !state.maximized else { return InspectorState.Pane.allCases }
        let shown = Set(layout(state, body: bodyArea(state.size)).map(\.0))
        return InspectorState.Pane.allCases.filter(shown.contains)
    }
}
