public import Lab
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

    /// Draws the whole screen for `state` into `buffer`.
    public static func render(_ state: InspectorState, into buffer: inout Buffer) {
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
            return
        }
        let showTimeline = area.height >= 24
        let showDetail = area.height >= 14
        let statusRow = Rect(x: 0, y: area.height - 1, width: area.width, height: 1)
        let body = Rect(x: 0, y: 0, width: area.width, height: area.height - 1)
        let chainRows = state.hops.count + 3 + (state.selectedStop?.place == .refresh ? 1 : 0)
        var constraints: [Constraint] = [.length(min(max(chainRows, 7), showDetail ? body.height / 2 : body.height))]
        if showTimeline { constraints.append(.length(min(max(3, state.visibleRequests.count + 2), max(3, body.height / 5)))) }
        if showDetail { constraints.append(.fill) }
        let rows = Layout.vertical(constraints).split(body)
        let top = Layout.horizontal([.length(min(34, max(22, area.width / 3))), .fill]).split(rows[0])
        renderRequests(state, in: top[0], into: &buffer)
        renderChain(state, in: top[1], into: &buffer)
        if showTimeline { renderTimeline(state, in: rows[1], into: &buffer) }
        if showDetail { renderDetail(state, in: rows[rows.count - 1], into: &buffer) }
        renderStatus(state, in: statusRow, into: &buffer)
        if let modal = state.modal { renderModal(modal, state, in: body, into: &buffer) }
    }

    static func block(_ title: String, focused: Bool, _ state: InspectorState) -> Block {
        Block(title: title, symbols: state.symbols, borderStyle: focused ? focusStyle : .plain, titleStyle: focused ? focusStyle : .bold)
    }

    // MARK: - Requests

    static func stateSymbol(_ row: RequestRow) -> (String, Style) {
        switch row.state {
        case .succeeded: ("✓", good)
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

    static func requestLine(_ row: RequestRow) -> Line {
        let (symbol, style) = stateSymbol(row)
        let status: String = switch row.state {
        case .succeeded, .failed:
            [row.status.map(String.init), milliseconds(row.duration), row.attempt > 1 ? "×\(row.attempt)" : nil].compactMap { $0 }.joined(separator: " ")
        case .paused: "paused"
        case .blocked: "waits: refresh"
        case .retrying: "retry \(row.attempt)"
        case .running: "running"
        }
        return Line([Span(symbol + " ", style: style), Span("#\(row.id) \(row.operation)  "), Span(status, style: .dim)])
    }

    static func renderRequests(_ state: InspectorState, in area: Rect, into buffer: inout Buffer) {
        let rows = state.visibleRequests
        let title = state.filter.isEmpty ? "Requests" : "Requests · /\(state.filter)"
        let frame = block(title, focused: state.focus == .requests, state)
        frame.render(in: area, into: &buffer)
        let inner = frame.inner(area)
        if rows.isEmpty {
            Paragraph([Line(state.lab.requests.isEmpty ? "press n to start" : "no request matches", style: .dim)]).render(in: inner, into: &buffer)
            return
        }
        let selected = rows.firstIndex { $0.id == state.selectedRequest }
        List(rows.map(requestLine), selected: selected, highlightStyle: state.focus == .requests ? .reverse : .bold).render(in: inner, into: &buffer)
    }

    // MARK: - Chain

    /// What happened at each hop during the selected request's current attempt.
    struct HopStatus {
        var pre = Line("·", style: .dim)
        var post = Line("·", style: .dim)
    }

    static func hopStatuses(_ state: InspectorState) -> [HopStatus] {
        var statuses = Array(repeating: HopStatus(), count: state.hops.count)
        guard let request = state.selectedRequest, let row = state.selectedRow else { return statuses }
        let events = state.lab.store.events(request: request).filter { $0.attempt == row.attempt }
        var sendTime: [Int: Double] = [:]
        for event in events where statuses.indices.contains(event.hop) {
            switch event.phase {
            case .preflight:
                let diff = diffSummary(event.diff)
                statuses[event.hop].pre = Line([Span("✓", style: good)] + (diff.isEmpty ? [] : [Span(" " + diff, style: added)]))
            case .cacheHit: statuses[event.hop].pre = Line([Span("hit", style: good)])
            case .cacheMiss: statuses[event.hop].pre = Line("miss", style: .dim)
            case .send:
                sendTime[event.hop] = event.time
                statuses[event.hop].pre = Line([Span("✓ ", style: good), Span("\(event.method ?? "") \(URLComponents(string: event.url ?? "")?.path ?? "")")])
            case .receive:
                let elapsed = sendTime[event.hop].map { " · " + milliseconds(event.time - $0) } ?? ""
                let ok = event.status.map { (200..<300).contains($0) } ?? false
                statuses[event.hop].post = Line([Span("\(event.status.map(String.init) ?? "?")", style: ok ? good : bad), Span(elapsed, style: .dim)])
            case .postflight:
                if event.kind == .cache { break }
                let status = event.status.map { " \($0)" } ?? ""
                statuses[event.hop].post = Line([Span("✓" + status, style: good)] + (event.diff.isEmpty ? [] : [Span(" " + diffSummary(event.diff), style: added)]))
            case .error:
                let status = event.error.flatMap(shortError) ?? "error"
                if event.phase == .error, statuses[event.hop].pre.spans.first?.text == "·" {
                    statuses[event.hop].pre = Line("✕ " + status, style: bad)
                } else {
                    statuses[event.hop].post = Line("✕ " + status, style: bad)
                }
            case .retry: statuses[event.hop].post = Line("↻ retry", style: changed)
            default: break
            }
        }
        if let stop = state.selectedStop, case .hop(let hop, let position) = stop.place, statuses.indices.contains(hop) {
            let mark = Line(stop.held ? "⏸ held" : "… waiting its turn", style: held)
            if position == .pre { statuses[hop].pre = mark } else { statuses[hop].post = mark }
        }
        return statuses
    }

    static func shortError(_ text: String) -> String {
        if let range = text.range(of: #"HTTP \d{3}"#, options: .regularExpression) { return String(text[range]) }
        return String(text.split(separator: ":").first ?? Substring(text))
    }

    static func diffSummary(_ diff: HeaderDiff) -> String {
        (diff.added.map { "+" + $0 } + diff.changed.map { "~" + $0 } + diff.removed.map { "-" + $0 }).joined(separator: " ")
    }

    static func renderChain(_ state: InspectorState, in area: Rect, into buffer: inout Buffer) {
        var title = "Chain"
        if let row = state.selectedRow { title += " · #\(row.id) \(row.operation) · attempt \(row.attempt)" }
        if state.lab.stepMode { title += " · step mode" }
        let frame = block(title, focused: state.focus == .chain, state)
        frame.render(in: area, into: &buffer)
        let inner = frame.inner(area)
        guard !inner.isEmpty else { return }
        let hops = state.hops
        let nameWidth = min(max(20, (hops.map { $0.name.count }.max() ?? 0) + 6), max(10, inner.width / 2))
        let columnWidth = max(8, (inner.width - nameWidth) / 2)
        func row(_ name: Line, _ pre: Line, _ post: Line, y: Int, style: Style? = nil) {
            let x = inner.x
            _ = buffer.set(line: name, at: Position(x: x, y: y), clip: Rect(x: x, y: y, width: nameWidth - 1, height: 1))
            _ = buffer.set(line: pre, at: Position(x: x + nameWidth, y: y), clip: Rect(x: x + nameWidth, y: y, width: columnWidth - 1, height: 1))
            _ = buffer.set(line: post, at: Position(x: x + nameWidth + columnWidth, y: y), clip: Rect(x: x + nameWidth + columnWidth, y: y, width: inner.width - nameWidth - columnWidth, height: 1))
            if let style { buffer.setStyle(style, in: Rect(x: x, y: y, width: inner.width, height: 1)) }
        }
        row(Line("hop", style: .bold), Line("pre-flight ↓", style: .bold), Line("post-flight ↑", style: .bold), y: inner.y)
        let statuses = hopStatuses(state)
        let visible = inner.height - 1
        let offset = max(0, min(state.selectedHop - visible + 1, hops.count - visible))
        for (index, hop) in hops.enumerated().dropFirst(offset).prefix(max(0, visible)) {
            let pre = state.lab.breakpoints.contains(Scheduler.Breakpoint(hop: hop.index, position: .pre))
            let post = state.lab.breakpoints.contains(Scheduler.Breakpoint(hop: hop.index, position: .post))
            var label = hop.name
            if hop.kind == .cache, case .graphQL = state.lab.chain {
                let behavior = state.selectedRow.flatMap { _ in state.scenario.operations.first?.fetchBehavior }?.description ?? "CacheFirst"
                label = "cache (\(behavior))"
            }
            if label.count > nameWidth - 5 { label = String(label.prefix(max(1, nameWidth - 6))) + "…" }
            let name = Line([pre || post ? Span("●", style: bad) : Span(" "), Span(String(format: "%2d ", hop.index + 1), style: .dim), lintMark(hop.index, state), Span(label)])
            var preLine = statuses[index].pre, postLine = statuses[index].post
            if pre { preLine.spans.insert(Span("● ", style: bad), at: 0) }
            if post { postLine.spans.insert(Span("● ", style: bad), at: 0) }
            let highlight: Style? = index == state.selectedHop ? (state.focus == .chain ? .reverse : .bold) : nil
            row(name, preLine, postLine, y: inner.y + 1 + index - offset, style: highlight)
        }
        if let stop = state.selectedStop, stop.place == .refresh {
            let y = min(inner.maxY - 1, inner.y + 1 + min(hops.count, max(0, visible)))
            _ = buffer.set(line: Line([Span(stop.held ? "⏸ held at " : "… waiting at ", style: held), Span("TokenManager refresh", style: .bold), Span(" · POST /oauth/token not sent yet", style: .dim)]), at: Position(x: inner.x + 1, y: y), clip: inner)
        }
    }

    // MARK: - Timeline

    static func renderTimeline(_ state: InspectorState, in area: Rect, into buffer: inout Buffer) {
        let end = max(state.lab.clock, state.lab.requests.map(\.end).max() ?? 0)
        let frame = block("Timeline · lab clock \(String(format: "%.3f", end))s", focused: state.focus == .timeline, state)
        frame.render(in: area, into: &buffer)
        let inner = frame.inner(area)
        guard !inner.isEmpty else { return }
        let rows = state.visibleRequests
        let labelWidth = min(inner.width / 3, (rows.map { "#\($0.id)".count }.max() ?? 2) + 1)
        // Two columns stay free after the bar for the state mark (⏸, ⧗, ▏).
        let barWidth = inner.width - labelWidth - 4
        guard barWidth > 1 else { return }
        let scale = end > 0 ? Double(barWidth - 1) / end : 0
        // Follow the newest requests unless the pane is focused and scrolled.
        let first = state.focus == .timeline ? min(state.timelineScroll, max(0, rows.count - inner.height)) : max(0, rows.count - inner.height)
        for (offset, row) in rows.dropFirst(first).prefix(inner.height).enumerated() {
            let y = inner.y + offset
            _ = buffer.set(string: "#\(row.id)", at: Position(x: inner.x, y: y), style: row.id == state.selectedRequest ? .bold : .dim)
            let x0 = inner.x + labelWidth
            _ = buffer.set(string: "▏", at: Position(x: x0, y: y), style: .dim)
            let startColumn = Int(saturating: (row.start * scale).rounded(.down)), endColumn = max(startColumn, Int(saturating: (row.end * scale).rounded(.down)))
            let (_, style) = stateSymbol(row)
            for column in startColumn...endColumn {
                _ = buffer.set(string: "▇", at: Position(x: x0 + 1 + column, y: y), style: row.state == .failed ? bad : (row.state == .succeeded ? good : accent))
            }
            for mark in row.marks {
                let column = Int(saturating: (mark.time * scale).rounded(.down))
                _ = buffer.set(string: mark.kind == .retry ? "↻" : "✕", at: Position(x: x0 + 1 + column, y: y), style: mark.kind == .retry ? changed : bad)
            }
            let tail = row.state == .paused ? "⏸" : (row.state == .succeeded ? "▏" : (row.state == .blocked ? "⧗" : ""))
            if !tail.isEmpty, x0 + 2 + endColumn < inner.maxX {
                _ = buffer.set(string: tail, at: Position(x: x0 + 2 + endColumn, y: y), style: row.state == .paused ? held : style)
            }
        }
    }

    // MARK: - Detail

    /// The snapshot the Detail pane shows and how to title it.
    static func detailSource(_ state: InspectorState) -> (title: String, snapshot: HopSnapshot, diff: HeaderDiff, pending: Bool)? {
        guard let request = state.selectedRequest else { return nil }
        if let stop = state.selectedStop, stop.place == .refresh {
            return ("TokenManager · refresh stop · request\(stop.held ? " · held" : "")", stop.snapshot, .none, true)
        }
        guard state.hops.indices.contains(state.selectedHop) else { return nil }
        let hop = state.hops[state.selectedHop]
        let heading = "Hop \(hop.index + 1) \(hop.name)"
        if let stop = state.selectedStop, case .hop(hop.index, let position) = stop.place {
            let headers = stop.currentHeaders
            let snapshot = HopSnapshot(method: stop.snapshot.method, url: stop.snapshot.url, headers: headers, status: stop.pending.responseStatus ?? stop.snapshot.status, error: stop.snapshot.error, body: stop.snapshot.body)
            let diff = HeaderDiff(from: stop.snapshot.headers ?? HTTPFields(), to: headers)
            let side = position == .pre ? "pre-flight stop · request" : "post-flight stop · response"
            return ("\(heading) · \(side)\(stop.held ? " · held" : "")", snapshot, diff, true)
        }
        let attempt = state.selectedRow?.attempt ?? 1
        let events = state.lab.store.events(request: request).filter { $0.attempt == attempt && $0.hop == hop.index && $0.snapshot !== HopSnapshot.empty }
        guard let event = events.last(where: { [.preflight, .send, .cacheHit].contains($0.phase) }) ?? events.last else { return nil }
        let phase = switch event.phase {
        case .preflight: "pre-flight"
        case .postflight: "post-flight"
        default: event.phase.rawValue
        }
        return ("\(heading) · \(phase) · attempt \(attempt)", event.snapshot, event.diff, false)
    }

    static func renderDetail(_ state: InspectorState, in area: Rect, into buffer: inout Buffer) {
        guard let source = detailSource(state) else {
            let frame = block("Detail", focused: state.focus == .detail, state)
            frame.render(in: area, into: &buffer)
            Paragraph([Line("select a hop the request has reached", style: .dim)] + lintDetailLines(state), wrap: true).render(in: frame.inner(area), into: &buffer)
            return
        }
        let frame = block(source.title, focused: state.focus == .detail, state)
        frame.render(in: area, into: &buffer)
        let masking: SecretMasking = state.revealSecrets ? .revealed : .masked
        var lines: [Line] = []
        let snapshot = source.snapshot
        if let method = snapshot.method, let url = snapshot.url {
            lines.append(Line([Span(method + " ", style: .bold), Span(masking.url(url))]))
        }
        if let status = snapshot.status {
            lines.append(Line([Span("status ", style: .dim), Span("\(status)", style: (200..<300).contains(status) ? good : bad)]))
        }
        if let error = snapshot.error { lines.append(Line([Span("error ", style: bad), Span(masking.text(error))])) }
        if let headers = snapshot.headers {
            for (name, value) in masking.headers(headers) {
                let (mark, style): (String, Style) = source.diff.added.contains(where: { $0.caseInsensitiveCompare(name) == .orderedSame }) ? ("+ ", added)
                    : source.diff.changed.contains(where: { $0.caseInsensitiveCompare(name) == .orderedSame }) ? ("~ ", changed) : ("  ", .plain)
                lines.append(Line([Span(mark, style: style), Span(name, style: style == .plain ? .bold : style), Span(": " + value)]))
            }
            for name in source.diff.removed { lines.append(Line([Span("- ", style: removed), Span(name, style: removed)])) }
        }
        if let body = snapshot.body {
            let cut = body.isTruncated ? ", preview cut" : ""
            lines.append(Line("body (\(body.byteCount) bytes\(cut))", style: .dim))
            let shown = masking.body(body.text, contentType: snapshot.headers?["Content-Type"])
            lines.append(contentsOf: Line.lines(of: body.isTruncated ? shown : JSONIndent.pretty(shown) ?? shown))
        }
        if !state.revealSecrets { lines.append(Line("secrets masked · v to reveal", style: .dim)) }
        lines += lintDetailLines(state)
        Paragraph(lines, wrap: true, scroll: state.detailScroll).render(in: frame.inner(area), into: &buffer)
    }

    // MARK: - Status line

    /// The bindings that do something now, for the status line.
    public static func activeHints(_ state: InspectorState) -> [KeyBinding] {
        let held = state.heldStop
        return Keymap.bindings.filter { binding in
            guard binding.isHint else { return false }
            switch binding.action {
            case .step, .continueRequest, .fail: return held != nil
            case .editHeaders: return held.map { $0.capabilities.canEditRequest || $0.capabilities.canEditResponse } ?? false
            case .force401: return held?.capabilities.canForce401 ?? false
            case .forceRetry: return held.map { $0.capabilities.retryRefusal == nil } ?? false
            case .continueAll: return state.lab.parked.values.contains(where: \.held)
            default: return true
            }
        }
    }

    static func renderStatus(_ state: InspectorState, in area: Rect, into buffer: inout Buffer) {
        if let notice = state.notice {
            _ = buffer.set(string: " " + notice.text, at: area.origin, style: notice.isError ? bad : accent, clip: area)
            return
        }
        let hints = activeHints(state).map { StatusLine.Hint($0.keys[0].name, $0.name) }
        let findings = findingsSummary(state)
        StatusLine(hints, trailing: findings.isEmpty ? state.scenario.name : findings + " · " + state.scenario.name).render(in: area, into: &buffer)
    }
}
