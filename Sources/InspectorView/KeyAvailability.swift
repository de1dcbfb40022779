import Lab
import Timeline
public import InspectorModel

extension KeyBindings {
    /// Why `action` does nothing in `state`, or nil when it acts: the one answer the update,
    /// the status line's hints and the help overlay all use (the status line offers exactly
    /// the keys this lets through). The notice names the keys in force.
    /// ``disabledReason(_:in:)`` of every action, worked out together: what the status line
    /// and the help overlay read on every frame.
    public func disabledReasons(in state: InspectorState) -> [Action: InspectorState.Notice] {
        // Each movement key answers as the others of its direction do (see moveRefusal), and
        // Detail's answer lays out the screen: ask once per direction, not once per key.
        let back = disabledReason(.up, in: state), forward = disabledReason(.down, in: state)
        var reasons: [Action: InspectorState.Notice] = [:]
        for action in Action.allCases {
            let reason: InspectorState.Notice? = switch action {
            case .up, .pageUp, .home: back
            case .down, .pageDown, .end: forward
            default: disabledReason(action, in: state)
            }
            reasons[action] = reason
        }
        return reasons
    }

    public func disabledReason(_ action: Action, in state: InspectorState) -> InspectorState.Notice? {
        func refused(_ text: String) -> InspectorState.Notice { .init(text: text, isError: true) }
        let held = state.heldStop
        // Only the stop keys need this text: it is made when one asks.
        func notHeld() -> InspectorState.Notice { refused("\(state.selectedRequest.map { Refusal.notHeld(stop: "request #\($0)").description } ?? "no request is selected"); press \(keyName(.newOperation)) to start one, \(keyName(.toggleBreakpoint)) to set a breakpoint, \(keyName(.toggleStepMode)) for step mode") }
        switch action {
        case .step, .continueRequest:
            // A request between two stops will be held again in a moment: the command
            // waits for it, so keys typed quickly are not lost.
            return held != nil || Inspector.inFlightRequest(state) != nil ? nil : notHeld()
        case .fail:
            return held == nil ? notHeld() : nil
        case .switchLane:
            guard let request = state.selectedRequest else { return refused("no request is selected") }
            return state.hasTwoLanes ? nil : .init(text: "request #\(request) has one lane: two only while a CacheAndNetwork fetch overlaps the cached result's way up", isError: false)
        case .editHeaders:
            guard let held else { return notHeld() }
            return held.capabilities.canEditRequest || held.capabilities.canEditResponse ? nil : refused("no headers can be edited at \(held.place) of \(held.hopName)")
        case .force401 where held?.lane == .cache, .forceRetry where held?.lane == .cache:
            // The scheduler refuses it too: either would drop the network fetch still under way.
            return refused("request #\(held!.request)'s cached result cannot retry or answer 401 while its network fetch overlaps; step the network lane (\(keyName(.switchLane))) to its end first")
        case .force401:
            guard let held else { return notHeld() }
            return held.capabilities.canForce401 ? nil : refused(Refusal.no401(place: held.place, hop: held.hopName).description)
        case .forceRetry:
            guard let held else { return notHeld() }
            return held.capabilities.retryRefusal.map { refused($0.description) }
        case .continueAll:
            return state.lab.parked.values.contains(where: \.held) ? nil : .init(text: "no request is held", isError: false)
        case .expireTokens:
            return state.lab.hasLabControls ? nil : refused("this server has no lab controls: tokens cannot be expired from here")
        case .showCurl:
            return state.selectedRequest == nil ? refused("no request is selected") : nil
        case .toggleBreakpoint:
            return state.hops.indices.contains(state.selectedHop) ? nil : refused(state.selectedRequest == nil ? "no request is selected" : "select a hop in the Chain pane to set a breakpoint on it")
        case .previousAttempt, .nextAttempt:
            guard let request = state.selectedRequest else { return refused("no request is selected") }
            let count = state.attemptCount, shown = state.shownAttempt
            let target = shown + (action == .previousAttempt ? -1 : 1)
            return (1...count).contains(target) ? nil : .init(text: "request #\(request) made \(count) attempt\(count == 1 ? "" : "s"); this is attempt \(shown)", isError: false)
        case .preFlight, .postFlight:
            guard state.selectedRequest != nil else { return refused("no request is selected") }
            let side: StopPosition = action == .preFlight ? .pre : .post
            return state.selectedSide == side ? .init(text: "Detail shows the \(Inspector.sideName(side)) already; \(keyName(side == .pre ? .postFlight : .preFlight)) shows the other side", isError: false) : nil
        case .up, .down, .pageUp, .pageDown, .home, .end:
            return Inspector.moveRefusal(action, state).map { .init(text: $0, isError: false) }
        case .fold:
            return Inspector.foldsSomething(state) ? nil : refused("no JSON body here to fold")
        case .search:
            return state.selectedRequest == nil ? refused("no request is selected: Detail has nothing to search") : nil
        case .sequenceDiagram, .allRequests:
            return state.lab.requests.isEmpty ? refused("no requests yet to draw; press \(keyName(.newOperation)) to start one") : nil
        case .mark, .compareAttempts, .compareHop, .compareRequests, .compareMarked:
            guard state.selectedRequest != nil else { return refused("no request is selected") }
            if action == .compareMarked, state.marked == nil { return refused("no event is marked: \(keyName(.mark)) marks the selected one") }
            if action == .compareAttempts, state.shownAttempt < 2 { return refused("attempt 1 has no previous attempt to compare with") }
            return nil
        case .zoomIn:
            guard state.selectedRequest != nil else { return refused("no request is selected to zoom around") }
            return state.waterfallZoom < Inspector.maximumZoom ? nil : .init(text: "the waterfall is zoomed in all the way; \(keyName(.zoomOut)) zooms out", isError: false)
        case .zoomOut:
            return state.waterfallZoom > 0 ? nil : .init(text: "the waterfall shows the whole run already", isError: false)
        case .open:
            switch state.focus {
            case .requests, .timeline: return nil
            case .chain:
                return Inspector.shownPanes(state).contains(.detail) ? nil : .init(text: "Detail has no room on a terminal this small; \(keyName(.maximize)) gives the focused pane the whole screen", isError: false)
            case .detail: return .init(text: "Detail is the last pane; \(keyName(.back)) goes back to the Chain", isError: false)
            }
        case .back:
            return (state.focus == .requests || state.focus == .timeline) && state.filter == nil ? .init(text: "nothing to go back from: no overlay is open and no filter to clear", isError: false) : nil
        default:
            return nil
        }
    }
}

extension Inspector {
    /// The selected request when it is neither finished nor waiting at a stop: it is moving
    /// between two stops.
    package static func inFlightRequest(_ state: InspectorState) -> Int? {
        guard let row = state.selectedRow, !row.isFinished, row.state != .blocked,
            state.selectedStop?.held != true
        else { return nil }
        return row.id
    }

    /// Why `action`, a movement key, would move nothing in `state`, or nil when it moves.
    static func moveRefusal(_ action: Action, _ state: InspectorState) -> String? {
        let back = [.up, .pageUp, .home].contains(action)
        // Worked out from where the selection is, not by moving a copy: the status line asks
        // this for six keys on every frame, with thousands of requests.
        func atEnd(_ index: Int, of count: Int) -> Bool { back ? index <= 0 : index >= count - 1 }
        switch state.focus {
        case .requests, .timeline:
            let rows = state.visibleRequests
            guard !rows.isEmpty else {
                return state.lab.requests.isEmpty ? "no requests yet: press \(state.keys.keyName(.newOperation)) to start one" : "no request matches the filter"
            }
            let index = state.selectedVisibleIndex
            guard let index, atEnd(index, of: rows.count) else { return nil }
            return back ? "the first request is selected" : "the last request is selected"
        case .chain where state.chainView == .hops:
            // Before any request, the Chain pane lists the chain's hops: breakpoints go on them.
            guard atEnd(state.selectedHop, of: state.chainRowCount) else { return nil }
            return back ? "the first row of the Chain pane is selected" : "the last row of the Chain pane is selected"
        case .chain:
            var moved = state
            moveInSequence(action, &moved)
            let rows = sequenceRows(state)
            guard selectedSequenceRow(moved, rows: rows) == selectedSequenceRow(state, rows: rows) else { return nil }
            return back ? "the first event of the diagram is selected" : "the last event of the diagram is selected"
        case .detail:
            // At the top, going up needs no layout.
            if back { return state.detailScroll > 0 ? nil : "Detail shows its first line" }
            let limit = detailScrollLimit(state)
            guard limit > 0 else { return "Detail fits its pane: nothing to scroll" }
            return state.detailScroll >= limit ? "Detail shows its last line" : nil
        }
    }

    /// Whether `f` changes Detail: folding leaves fewer lines only where a JSON object or
    /// array sits below the top two levels.
    static func foldsSomething(_ state: InspectorState) -> Bool {
        var folded = state, unfolded = state
        folded.detailFolded = true
        unfolded.detailFolded = false
        return (detailSource(folded)?.lines.count ?? 0) < (detailSource(unfolded)?.lines.count ?? 0)
    }
}
