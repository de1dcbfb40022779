import Foundation
import Lab
import TerminalUI
import Timeline
package import InspectorModel

/// The Timeline pane: a waterfall on the lab clock. One row per request; each attempt is a
/// run of segments whose shape and colour say what it was doing — in the chain `─`, waiting
/// on the transport `█`, refreshing the token `▓`, held at a stop `▒`, waiting (its turn,
/// another request's refresh, a backoff) `░`, and where a hop itself took time (a delay at
/// its stop): GraphQL pre-flight `━`, cache `┉`, HTTP interceptors `═`, parsing `▄`,
/// post-flight `┅` — with `↻` where a retry began, `⏸` where it is held, and its end (`▏`
/// success, `✕` failure, `⧗` blocked). A refresh another request waited for
/// is joined to the waiter's row with `┆`. A time axis with ticks and the scale sits on top;
/// `z`/`Z` zoom around the selected request; only the rows in view read their events.
extension Inspector {
    enum SegmentKind: Hashable {
        case chain, preflight, cache, http, transport, parse, postflight, held, refresh, waiting
    }

    /// What a request was doing in the time before `next`, its next event, when neither the
    /// transport nor a refresh was under way: held at a stop since `previous`; the work of a
    /// hop where a delay at its stop ends; otherwise waiting.
    static func gapKind(after previous: TimelineEvent?, before next: TimelineEvent) -> SegmentKind {
        if next.phase == .injected, next.detail?.hasPrefix("delay ") == true {
            let up = RequestHistory.side(of: next) == .post
            switch next.kind {
            case .graphql, .middleware: return up ? .postflight : .preflight
            case .cache: return .cache
            case .http, .transport: return up ? .postflight : .http
            case .parser: return .parse
            case .auth: return .refresh
            }
        }
        return previous?.phase == .paused ? .held : .waiting
    }

    struct Segment: Hashable {
        var start: Double
        var end: Double
        var kind: SegmentKind
    }

    /// What one request's row draws.
    struct WaterfallRow {
        var segments: [Segment] = []
        /// Times where an attempt after the first began.
        var retries: [Double] = []
        /// Its refreshes, and the waits that ended when another request's refresh woke it.
        var refreshes: [Segment] = []
        var waits: [Segment] = []
    }

    /// Whether `event` is a request waking after another request's refresh it waited for.
    static func isWake(_ event: TimelineEvent) -> Bool {
        event.kind == .auth && event.phase == .resumed && event.detail?.hasPrefix("woke") == true
    }

    static func waterfallRow(_ events: [TimelineEvent]) -> WaterfallRow {
        var row = WaterfallRow()
        var attemptSpan: [Int: (Double, Double)] = [:]
        var sent: Double?, refreshSent: Double?
        var last: Double?
        var previous: TimelineEvent?
        // A watched query's deliveries come after it ended, and draw nothing of its own.
        for event in events where event.name != LabSession.watcherDeliveryEventName {
            // Time that passed with neither the transport nor a refresh under way.
            if let last, event.time > last, sent == nil, refreshSent == nil {
                let gap = Segment(start: last, end: event.time, kind: gapKind(after: previous, before: event))
                row.segments.append(gap)
                // Only a wake joins: any other wait also ends when the clock moves, which
                // may be at another request's refresh.
                if gap.kind == .waiting, isWake(event) { row.waits.append(gap) }
            }
            last = max(last ?? event.time, event.time)
            previous = event
            let span = attemptSpan[event.attempt] ?? (event.time, event.time)
            attemptSpan[event.attempt] = (min(span.0, event.time), max(span.1, event.time))
            switch (event.kind, event.phase) {
            case (.transport, .send): sent = event.time
            case (.transport, .receive):
                if let start = sent { row.segments.append(Segment(start: start, end: event.time, kind: .transport)) }
                sent = nil
            case (.auth, .send): refreshSent = event.time
            case (.auth, .refresh):
                let refresh = Segment(start: refreshSent ?? event.time, end: event.time, kind: .refresh)
                row.segments.append(refresh)
                row.refreshes.append(refresh)
                refreshSent = nil
            default: break
            }
        }
        for attempt in attemptSpan.keys.sorted() {
            let span = attemptSpan[attempt]!
            row.segments.insert(Segment(start: span.0, end: span.1, kind: .chain), at: 0)
            if attempt > 1 { row.retries.append(span.0) }
        }
        return row
    }

    /// A tick step on the lab clock of at least `minimum` seconds: 1, 2 or 5 times a power of ten.
    static func tickStep(atLeast minimum: Double) -> Double {
        let power = pow(10, floor(log10(max(minimum, 1e-9))))
        return [1.0, 2, 5, 10].map { $0 * power }.first { $0 >= minimum } ?? 10 * power
    }

    static func segmentLook(_ kind: SegmentKind) -> (Character, Style) {
        switch kind {
        case .chain: ("─", accent)
        case .preflight: ("━", accent)
        case .cache: ("┉", Style(foreground: .magenta))
        case .http: ("═", Style(foreground: .blue))
        case .transport: ("█", Style(foreground: .blue))
        case .parse: ("▄", good)
        case .postflight: ("┅", good)
        case .held: ("▒", held)
        case .refresh: ("▓", changed)
        case .waiting: ("░", Style(foreground: .yellow, attributes: .dim))
        }
    }

    /// The lab-clock window the waterfall shows: everything at zoom 0, half as much at each
    /// `z`, centred on the selected request.
    static func waterfallWindow(_ state: InspectorState) -> (start: Double, end: Double) {
        let total = max(state.lab.clock, state.lab.latestRequestEnd, 0.001)
        let span = total / pow(2, Double(state.waterfallZoom))
        guard state.waterfallZoom > 0, let row = state.selectedRow else { return (0, total) }
        let center = (row.start + row.end) / 2
        let start = min(max(0, center - span / 2), total - span)
        return (start, start + span)
    }

    /// Milliseconds without trailing zeros: `12ms`, `0.5ms`, `1.2s`.
    static func clockLabel(_ seconds: Double) -> String {
        if seconds >= 1 { return String(format: "%.1fs", seconds) }
        let ms = seconds * 1000
        return ms.rounded() == ms || ms >= 10 ? "\(Int(ms.rounded()))ms" : String(format: "%.1fms", ms)
    }

    static func renderTimeline(_ state: InspectorState, in area: Rect, into buffer: inout Buffer, map: inout ScreenMap) {
        let window = waterfallWindow(state)
        let zoom = state.waterfallZoom > 0 ? " · zoom ×\(1 << state.waterfallZoom)" : ""
        let frame = block("Timeline · lab clock \(String(format: "%.3f", state.lab.clock))s\(zoom) · backend: \(state.lab.hasLabControls ? backendSummary(state.lab) : "not a ChainLab lab")", focused: state.focus == .timeline, state)
        frame.render(in: area, into: &buffer)
        let inner = frame.inner(area)
        guard inner.height >= 2 else { return }
        let rows = state.visibleRequests
        guard !rows.isEmpty else {
            // No scale to give: nothing has happened on the clock yet, or the filter hides it all.
            Paragraph([Line(state.lab.requests.isEmpty ? "no events yet" : "no request matches the filter", style: .dim)]).render(in: inner, into: &buffer)
            return
        }
        let labelWidth = (rows.last.map { "#\($0.id)".count } ?? 2) + 1
        let x0 = inner.x + labelWidth + 1
        // Two columns stay free after the bar for the end mark.
        let barWidth = inner.width - labelWidth - 3
        guard barWidth > 4 else { return }
        let scale = Double(barWidth - 1) / (window.end - window.start)
        func column(_ time: Double) -> Int { Int(((time - window.start) * scale).rounded(.down)) }
        func visible(_ column: Int) -> Bool { column >= 0 && column < barWidth }

        if state.lab.clock > 0 || rows.contains(where: { $0.end > 0 }) {
            // The axis: a tick and a label every round step (1, 2, 5 × 10ⁿ) of ten columns or more.
            var axis = Array(repeating: Character(" "), count: barWidth + 2)
            let step = tickStep(atLeast: 10 / scale)
            var time = (window.start / step).rounded(.up) * step
            let scaleText = "1 col ≈ \(clockLabel(1 / scale))"
            while column(time) + clockLabel(time).count + 2 < barWidth - scaleText.count {
                let at = column(time), label = Array(clockLabel(time))
                if at >= 0, at + 1 + label.count < axis.count {
                    axis[at] = "┬"
                    for (offset, character) in label.enumerated() { axis[at + 1 + offset] = character }
                }
                time += step
            }
            _ = buffer.set(string: String(axis), at: Position(x: x0, y: inner.y), style: .dim, clip: inner)
            _ = buffer.set(string: scaleText, at: Position(x: inner.maxX - TextWidth.of(scaleText), y: inner.y), style: .dim, clip: inner)
        } else {
            // No time has passed: a scale would only say `1 col ≈ 0.0ms`.
            _ = buffer.set(line: Line("no time has passed on the lab clock yet", style: .dim).cut(to: inner.width - labelWidth - 1), at: Position(x: x0, y: inner.y), clip: inner)
        }

        // Rows: keep the selected request in view.
        let height = inner.height - 1
        let selectedIndex = state.selectedVisibleIndex ?? max(0, rows.count - 1)
        let first = min(max(0, selectedIndex - height / 2), max(0, rows.count - height))
        var drawn: [Int: (y: Int, row: WaterfallRow)] = [:]
        for (offset, request) in rows.dropFirst(first).prefix(height).enumerated() {
            let y = inner.y + 1 + offset
            map.add(Rect(x: inner.x, y: y, width: inner.width, height: 1), .request(request.id))
            let isSelected = request.id == state.selectedRequest
            _ = buffer.set(string: "#\(request.id)", at: Position(x: inner.x, y: y), style: isSelected ? .bold : .dim)
            _ = buffer.set(string: "▏", at: Position(x: x0 - 1, y: y), style: .dim)
            let waterfall = waterfallRow(state.lab.events(of: request.id))
            drawn[request.id] = (y, waterfall)
            for segment in waterfall.segments {
                let (glyph, style) = segmentLook(segment.kind)
                let from = max(0, column(segment.start)), to = min(barWidth - 1, max(column(segment.start), column(segment.end)))
                // One fill per segment: a waterfall of thousands of rows is drawn in runs.
                if from <= to { buffer.fill(Rect(x: x0 + from, y: y, width: to - from + 1, height: 1), with: glyph, style: style) }
            }
            for retry in waterfall.retries where visible(column(retry)) {
                _ = buffer.set(string: "↻", at: Position(x: x0 + column(retry), y: y), style: changed)
            }
            let endColumn = column(request.end) + 1
            let tail: (String, Style)? = switch request.state {
            case .succeeded: ("▏", good)
            case .partial: ("!", changed)
            case .failed: ("✕", bad)
            case .paused: ("⏸", held)
            case .blocked: ("⧗", changed)
            case .retrying, .running: nil
            }
            if let tail, endColumn >= 0, endColumn <= barWidth {
                _ = buffer.set(string: tail.0, at: Position(x: x0 + endColumn, y: y), style: tail.1)
            }
            if isSelected { buffer.setStyle(.bold, in: Rect(x: inner.x, y: y, width: labelWidth, height: 1)) }
        }
        // A wait that ended when another row's refresh ended is joined to that refresh: `┆`
        // on the wait's last column (the next column is where the waiter moved on, often its
        // `↻`), and on the blank cells of the rows between the two.
        for (_, waiter) in drawn {
            for wait in waiter.row.waits {
                guard let refresher = drawn.values.first(where: { $0.row.refreshes.contains { abs($0.end - wait.end) < 1e-9 } && $0.y != waiter.y }) else { continue }
                let x = max(column(wait.start), column(wait.end) - 1)
                guard visible(x) else { continue }
                _ = buffer.set(string: "┆", at: Position(x: x0 + x, y: waiter.y), style: changed)
                let (top, bottom) = (min(refresher.y, waiter.y), max(refresher.y, waiter.y))
                for y in (top + 1)..<bottom where buffer[x0 + x, y].symbol == " " {
                    _ = buffer.set(string: "┆", at: Position(x: x0 + x, y: y), style: changed)
                }
            }
        }
    }

    /// The highest zoom of the waterfall: 2¹² times the whole run.
    package static let maximumZoom = 12
}
