import ChainKit
import Foundation
import Lab
package import TerminalUI
import Timeline
import Vocabulary
package import InspectorModel

/// The Detail pane: what the selected hop saw on the selected side during the shown attempt —
/// the request going down, the result, response or error coming up, the cache read, or the
/// refresh exchange — or what is waiting at the stop the request is held at.
extension Inspector {
    /// Detail's title and content.
    package struct DetailContent {
        package var title: String
        package var lines: [Line]

        init(title: String, lines: [Line]) {
            self.title = title
            self.lines = lines
        }
    }

    static func sideName(_ side: StopPosition) -> String { side == .pre ? "pre-flight" : "post-flight" }

    /// Detail's content, closed by a line that says whether secrets are masked or revealed.
    package static func detailContent(_ state: InspectorState) -> DetailContent? {
        guard var content = detailSource(state) else { return nil }
        content.lines.append(state.revealSecrets ? Line("⚠ secrets revealed · v to mask", style: bad) : Line("secrets masked · v to reveal", style: .dim))
        content.lines += lintDetailLines(state)
        return content
    }

    /// For a request with two lanes: which lane the stop keys act on, and where the other is.
    static func laneLines(_ state: InspectorState) -> [Line] {
        guard state.hasTwoLanes else { return [] }
        let other = state.selectedLane == .cache ? Lane.network : .cache
        let there = state.otherLaneStop.map { "\($0.held ? "held" : "waiting its turn") at \($0.place) of \($0.hopName)" } ?? "running"
        return [Line("lanes: \(state.selectedLane.rawValue) selected · \(other.rawValue) \(there) · \(state.keys.keyName(.switchLane)) switches", style: held)]
    }

    static func detailSource(_ state: InspectorState) -> DetailContent? {
        guard state.selectedRequest != nil else { return nil }
        let history = state.history
        let attemptText = "attempt \(state.shownAttempt) of \(state.attemptCount)"
        let masking: SecretMasking = state.revealSecrets ? .revealed : .masked
        // A watched query's delivery chosen in the sequence diagram: what it delivered.
        if state.chainView != .hops, let seq = state.sequenceSeq,
            let event = state.lab.timeline.events(request: state.selectedRequest!).first(where: { $0.seq == seq }),
            event.name == LabSession.watcherDeliveryEventName {
            return DetailContent(
                title: "\(event.name) · #\(event.request) delivered again",
                lines: [Line(VisibleEscapes.escape(event.detail ?? ""), style: .dim)] + snapshotLines(event.snapshot, diff: .none, masking: masking, state))
        }
        if state.selectsRefresh {
            return refreshDetail(state, history: history, attemptText: attemptText, masking: masking)
        }
        guard state.hops.indices.contains(state.selectedHop) else { return nil }
        let hop = state.hops[state.selectedHop]
        let heading = "Hop \(hop.index + 1) \(hop.name) · \(sideName(state.selectedSide))"
        if state.showsLatestAttempt, let stop = state.selectedStop, stop.place == .hop(hop.index, state.selectedSide) {
            let headers = stop.currentHeaders
            // A GraphQL request waiting at a stop shows its document and variables.
            let graphQLBody = state.selectedSide == .pre && (hop.kind == .graphql || hop.kind == .cache) ? stop.snapshot.body : nil
            let snapshot = HopSnapshot(method: stop.snapshot.method, url: stop.snapshot.url, headers: headers, status: stop.pending.responseStatus ?? stop.snapshot.status, error: stop.snapshot.error, body: graphQLBody == nil ? stop.snapshot.body : nil)
            let diff = HeaderDiff(from: stop.snapshot.headers ?? HTTPFields(), to: headers)
            let request = graphQLBody.map { graphQLBodyLines($0, title: "GraphQL request (what \(hop.name) receives)", masking: masking, state) } ?? []
            let lane = stop.lane.map { " · \($0.rawValue) lane" } ?? ""
            return DetailContent(
                title: "\(heading) stop\(stop.held ? " · held" : "")\(lane) · \(attemptText)",
                lines: laneLines(state) + snapshotLines(snapshot, diff: diff, masking: masking, state) + request)
        }
        let attempt = history.attempt(state.shownAttempt)
        guard let attempt, let event = attempt.main(hop: hop.index, side: state.selectedSide) else {
            let reached = state.showsLatestAttempt && !(state.selectedRow.map(\.isFinished) ?? false) ? "has not reached" : "did not reach"
            return DetailContent(title: "\(heading) · \(attemptText)", lines: [Line("attempt \(state.shownAttempt) \(reached) \(hop.name)'s \(sideName(state.selectedSide))", style: .dim)] + sideHint(state, attempt: attempt))
        }
        var lines = eventHeadline(event)
        for other in attempt.events(hop: hop.index, side: state.selectedSide) {
            switch other.phase {
            // The request has moved on from this stop, or this branch would not show it.
            case .paused: lines.append(Line("⏸ was held here (\((other.detail ?? "").components(separatedBy: " · ").first ?? "stop"))", style: held))
            case .injected, .edited: lines.append(Line([Span(markText(other, state) + " ", style: changed), Span((other.detail ?? "").components(separatedBy: " · ").first ?? "")]))
            case .log: lines.append(Line([Span("log ", style: .dim), Span(other.detail ?? "")]))
            default: break
            }
        }
        // A stream can carry several results up (CacheAndNetwork: the cache's, then the
        // server's): each one is shown, in order.
        let results = attempt.events(hop: hop.index, side: state.selectedSide).filter { $0.phase == event.phase }
        // Going down a GraphQL hop, the request's body is its document and variables, shown
        // as such below rather than as raw JSON.
        let graphQLDown = state.selectedSide == .pre && (hop.kind == .graphql || hop.kind == .cache)
        if graphQLDown {
            // The cache read's own body is the result it found; the request is the one the
            // GraphQL hop above handed down.
            let head = event.snapshot
            let request = event.phase == .preflight ? event : (0..<hop.index).reversed().lazy.compactMap { attempt.main(hop: $0, side: .pre) }.first { $0.phase == .preflight }
            let shown = event.phase == .preflight ? HopSnapshot(method: head.method, url: head.url, headers: head.headers, status: head.status, error: head.error) : head
            lines += snapshotLines(shown, diff: event.diff, masking: masking, state)
            lines += graphQLRequestLines(request, attempt, masking: masking, state)
        } else if results.count > 1 {
            for (index, result) in results.enumerated() {
                lines.append(Line("── \(phaseName(result.phase)) \(index + 1) of \(results.count) ──", style: .dim))
                lines += snapshotLines(result.snapshot, diff: result.diff, masking: masking, state)
            }
        } else {
            lines += snapshotLines(event.snapshot, diff: event.diff, masking: masking, state)
        }
        let phase = [.preflight, .postflight].contains(event.phase) ? "" : " · \(phaseName(event.phase))"
        return DetailContent(title: "\(heading)\(phase) · \(attemptText)", lines: lines)
    }

    /// The GraphQL request at a hop that sees it before it becomes HTTP: its document and
    /// variables as the hop handed them on (a run recorded before GraphQL hops kept a body:
    /// as the network step built them in that attempt).
    static func graphQLRequestLines(_ event: TimelineEvent?, _ attempt: RequestHistory.Attempt, masking: SecretMasking, _ state: InspectorState) -> [Line] {
        if let event, let body = event.body {
            return graphQLBodyLines(body, title: "GraphQL request (as \(event.name) handed it on)", masking: masking, state)
        }
        let built = attempt.down.keys.sorted().lazy.compactMap { attempt.main(hop: $0, side: .pre) }
            .first { ($0.kind == .http || $0.kind == .transport) && $0.body != nil }
        guard let built, let body = built.body else {
            return [Line("GraphQL request: this attempt did not build an HTTP body (answered before the network)", style: .dim)]
        }
        let contentType = built.headers?["Content-Type"]
        let text = masking.body(body.text, contentType: contentType)
        let lines = BodyView.graphQL(text, folded: state.detailFolded) ?? BodyView.lines(of: text, contentType: contentType, folded: state.detailFolded)
        return [Line("GraphQL request (as the network step built it in this attempt)", style: .dim)] + lines
    }

    /// A GraphQL request's body, as its operation, document and variables under `title`.
    static func graphQLBodyLines(_ body: BodyPreview, title: String, masking: SecretMasking, _ state: InspectorState) -> [Line] {
        let text = masking.body(body.text, contentType: "application/json")
        let lines = BodyView.graphQL(text, folded: state.detailFolded) ?? BodyView.lines(of: text, contentType: "application/json", folded: state.detailFolded)
        return [Line(title, style: .dim)] + lines
    }

    /// A pointer to the other side of the hop when only one was reached.
    static func sideHint(_ state: InspectorState, attempt: RequestHistory.Attempt?) -> [Line] {
        let other: StopPosition = state.selectedSide == .pre ? .post : .pre
        guard attempt?.reached(hop: state.selectedHop, side: other) == true else { return [] }
        return [Line("\(other == .pre ? "h" : "l") shows its \(sideName(other))", style: .dim)]
    }

    static func phaseName(_ phase: Phase) -> String {
        switch phase {
        case .preflight: "pre-flight"
        case .postflight: "post-flight"
        case .cacheHit: "cache hit"
        case .cacheMiss: "cache miss"
        case .send: "sent"
        case .receive: "received"
        default: phase.rawValue
        }
    }

    /// The first lines for an event: what kind of moment it was.
    static func eventHeadline(_ event: TimelineEvent) -> [Line] {
        switch event.phase {
        case .cacheHit: [Line([Span("cache read: ", style: .dim), Span("hit", style: good), Span(" — the result comes from the cache", style: .dim)])]
        case .cacheMiss: [Line([Span("cache read: ", style: .dim), Span("miss", style: .bold), Span(" — the request goes on to the network", style: .dim)])]
        case .postflight where event.kind == .cache: [Line([Span("cache write: ", style: .dim), Span("the records the parser made", style: .bold), Span(", key → fields", style: .dim)])]
        case .retry: [Line("↻ this hop started another attempt", style: changed)]
        case .error where isRetry(event.error): [Line("a retry on its way up: the chain starts again from the top", style: .dim)]
        default: []
        }
    }

    /// The token manager's refresh: the grant sent and the answer (or what waits at the stop).
    static func refreshDetail(_ state: InspectorState, history: RequestHistory, attemptText: String, masking: SecretMasking) -> DetailContent {
        if state.showsLatestAttempt, let stop = state.selectedStop, stop.place == .refresh {
            return DetailContent(title: "TokenManager refresh · stop\(stop.held ? " · held" : "") · \(attemptText)", lines: [Line("POST /oauth/token not sent yet", style: .dim)] + snapshotLines(stop.snapshot, diff: .none, masking: masking, state))
        }
        let events = history.attempt(state.shownAttempt)?.refresh ?? []
        var lines: [Line] = []
        if state.selectedSide == .pre {
            if let sent = events.last(where: { $0.phase == .send }) {
                lines += snapshotLines(sent.snapshot, diff: .none, masking: masking, state)
            } else {
                lines.append(Line("no refresh request was sent in this attempt", style: .dim))
            }
            for event in events where event.phase == .injected {
                lines.append(Line([Span(markText(event, state) + " ", style: changed), Span((event.detail ?? "").components(separatedBy: " · ").first ?? "")]))
            }
            return DetailContent(title: "TokenManager refresh · request sent · \(attemptText)", lines: lines)
        }
        guard let answer = events.last(where: { $0.phase == .refresh }) else {
            return DetailContent(title: "TokenManager refresh · answer · \(attemptText)", lines: [Line("no answer in this attempt", style: .dim)])
        }
        if let code = answer.error, answer.status != 200 {
            lines.append(Line([Span("the token endpoint refused the refresh: ", style: bad), Span(code, style: bad.patched(with: .bold))]))
        }
        lines += snapshotLines(answer.snapshot, diff: .none, masking: masking, state)
        return DetailContent(title: "TokenManager refresh · answer · \(attemptText)", lines: lines)
    }

    /// A snapshot as Detail lines: request line, status, error, headers with this hop's
    /// changes marked, and the body.
    static func snapshotLines(_ snapshot: HopSnapshot, diff: HeaderDiff, masking: SecretMasking, _ state: InspectorState) -> [Line] {
        var lines: [Line] = []
        if let method = snapshot.method, let url = snapshot.url {
            lines.append(Line([Span(method + " ", style: .bold), Span(masking.url(url))]))
        }
        if let status = snapshot.status {
            lines.append(Line([Span("status ", style: .dim), Span("\(status)", style: (200..<300).contains(status) ? good : bad)]))
        }
        if let error = snapshot.error {
            lines.append(isRetry(error) ? Line("↻ " + error, style: changed) : Line([Span("error ", style: bad), Span(error)]))
        }
        if let headers = snapshot.headers {
            // An aligned table: this hop's changes marked + added, ~ changed, - removed.
            let fields = masking.headers(headers)
            let width = (fields.map { TextWidth.of($0.name) } + diff.removed.map { TextWidth.of($0) }).max() ?? 0
            for (name, value) in fields {
                let (mark, style): (String, Style) = diff.added.contains(where: { $0.caseInsensitiveCompare(name) == .orderedSame }) ? ("+ ", added)
                    : diff.changed.contains(where: { $0.caseInsensitiveCompare(name) == .orderedSame }) ? ("~ ", changed) : ("  ", .plain)
                lines.append(Line([Span(mark, style: style), Span(name.padding(toLength: width, withPad: " ", startingAt: 0), style: style == .plain ? .bold : style), Span("  " + value)], hangingIndent: width + 4))
            }
            for name in diff.removed { lines.append(Line([Span("- ", style: removed), Span(name.padding(toLength: width, withPad: " ", startingAt: 0), style: removed), Span("  (removed)", style: .dim)])) }
        }
        if let body = snapshot.body {
            let cut = body.isTruncated ? ", preview cut" : ""
            lines.append(Line("body (\(body.byteCount) bytes\(cut))\(state.detailFolded ? " · folded (f unfolds)" : "")", style: .dim))
            let contentType = snapshot.headers?["Content-Type"]
            lines.append(contentsOf: BodyView.lines(of: masking.body(body.text, contentType: contentType), contentType: contentType, folded: state.detailFolded))
        }
        return lines
    }

    static let searchCurrent = Style(foreground: .black, background: .yellow)
    static let searchOther = Style(attributes: [.reverse])

    /// Where `needle` occurs in `lines`, case-insensitively: line index and character range.
    package static func searchMatches(in lines: [Line], for needle: String) -> [(line: Int, range: Range<Int>)] {
        guard !needle.isEmpty else { return [] }
        let lowered = Array(needle.lowercased())
        var matches: [(line: Int, range: Range<Int>)] = []
        for (index, line) in lines.enumerated() {
            let text = Array(line.spans.map(\.text).joined().lowercased())
            var start = 0
            while start + lowered.count <= text.count {
                if Array(text[start..<start + lowered.count]) == lowered {
                    matches.append((index, start..<start + lowered.count))
                    start += lowered.count
                } else {
                    start += 1
                }
            }
        }
        return matches
    }

    /// `line` with the characters in `range` laid over with `style`.
    static func highlighted(_ line: Line, range: Range<Int>, style: Style) -> Line {
        var spans: [Span] = []
        var offset = 0
        for span in line.spans {
            let characters = Array(span.text)
            let spanRange = offset..<offset + characters.count
            offset += characters.count
            let overlap = spanRange.clamped(to: range)
            guard !overlap.isEmpty else { spans.append(span); continue }
            let before = String(characters[0..<(overlap.lowerBound - spanRange.lowerBound)])
            let inside = String(characters[(overlap.lowerBound - spanRange.lowerBound)..<(overlap.upperBound - spanRange.lowerBound)])
            let after = String(characters[(overlap.upperBound - spanRange.lowerBound)...])
            if !before.isEmpty { spans.append(Span(before, style: span.style)) }
            spans.append(Span(inside, style: span.style.patched(with: style)))
            if !after.isEmpty { spans.append(Span(after, style: span.style)) }
        }
        return Line(spans)
    }

    /// Detail before a request is selected: a hint, and the rules that name the selected hop.
    static func emptyDetailLines(_ state: InspectorState) -> [Line] {
        [Line("select a hop the request has reached", style: .dim)] + lintDetailLines(state)
    }

    /// The rows Detail needs at `width` columns, borders included.
    static func detailRows(_ state: InspectorState, _ content: DetailContent?, width: Int) -> Int {
        let lines = content?.lines ?? emptyDetailLines(state)
        return Paragraph(lines, wrap: true).rowCount(width: max(1, width - 2)) + 2
    }

    /// How far Detail scrolls: its rows at the width it is drawn at, less the rows it shows.
    package static func detailScrollLimit(_ state: InspectorState) -> Int {
        guard let area = layout(state, body: bodyArea(state.size)).first(where: { $0.0 == .detail })?.1, area.width > 2 else { return 0 }
        let lines = detailContent(state)?.lines ?? emptyDetailLines(state)
        return max(0, Paragraph(lines, wrap: true).rowCount(width: area.width - 2) - (area.height - 2))
    }

    static func renderDetail(_ state: InspectorState, in area: Rect, into buffer: inout Buffer) {
        renderDetail(state, detailContent(state), in: area, into: &buffer)
    }

    /// Draws Detail with its content, `detailContent(state)`, already worked out.
    static func renderDetail(_ state: InspectorState, _ content: DetailContent?, in area: Rect, into buffer: inout Buffer) {
        guard let content else {
            let frame = block("Detail", focused: state.focus == .detail, state)
            frame.render(in: area, into: &buffer)
            Paragraph(emptyDetailLines(state), wrap: true).render(in: frame.inner(area), into: &buffer)
            return
        }
        let frame = block(content.title, focused: state.focus == .detail, state)
        frame.render(in: area, into: &buffer)
        let inner = frame.inner(area)
        var lines = content.lines
        var scroll = state.detailScroll
        let matches = searchMatches(in: lines, for: state.detailSearch)
        if !matches.isEmpty {
            let current = matches[state.detailMatch % matches.count]
            for (index, match) in matches.enumerated() {
                lines[match.line] = highlighted(lines[match.line], range: match.range, style: index == state.detailMatch % matches.count ? searchCurrent : searchOther)
            }
            // Scroll so the current match is in view, a row below the top.
            scroll = max(0, Paragraph(Array(lines[..<current.line]), wrap: true).rowCount(width: inner.width) - 1)
        }
        Paragraph(lines, wrap: true, scroll: scroll).render(in: inner, into: &buffer)
    }
}
