import TerminalUI
import Timeline
import InspectorModel
import InspectorView

extension Inspector {
    /// What a mouse report does, found in the map of the frame it was made on: a click
    /// focuses the pane under it and selects the request, hop or side there; a double
    /// click also opens it (as Enter); a click on a key hint runs that key; the wheel
    /// moves through the pane under the pointer without moving the focus. While an overlay
    /// is open only the help's wheel does something.
    static func handleMouse(_ event: MouseEvent, map: ScreenMap, _ state: inout InspectorState) -> [InspectorEffect] {
        let targets = map.targets(at: event.position)
        if let modal = state.modal {
            if case .help(let scroll) = modal, event.isWheel {
                state.modal = .help(scroll: max(0, min(scroll + (event.button == .wheelDown ? 3 : -3), helpScrollLimit(state))))
            }
            return []
        }
        if event.isWheel {
            guard event.button == .wheelUp || event.button == .wheelDown,
                let pane = targets.lazy.compactMap({ if case .pane(let pane) = $0 { pane } else { nil } }).first
            else { return [] }
            let focus = state.focus
            state.focus = pane
            for _ in 0..<(pane == .detail ? 3 : 1) { move(event.button == .wheelUp ? .up : .down, &state) }
            state.focus = focus
            return []
        }
        guard event.button == .left, event.kind == .press, let target = targets.first else { return [] }
        state.notice = nil
        switch target {
        case .hint(let action):
            if let reason = state.keys.disabledReason(action, in: state) {
                state.notice = reason
                return []
            }
            return perform(action, &state)
        case .pane(let pane):
            state.focus = pane
        case .request(let id):
            state.focus = targets.contains(.pane(.timeline)) ? .timeline : .requests
            select(request: id, &state)
        case .hop(let row, let side):
            state.focus = .chain
            state.followsToEnd = false
            state.selectedHop = min(row, max(0, state.chainRowCount - 1))
            if let side { state.selectedSide = side }
            state.detailScroll = 0
        case .sequenceEvent(let seq):
            state.focus = .chain
            guard let event = sequenceRows(state).lazy.compactMap(\.event).first(where: { $0.seq == seq }) else { return [] }
            selectSequenceEvent(event, &state)
        }
        guard event.clickCount >= 2 else { return [] }
        return perform(.open, &state)
    }
}
