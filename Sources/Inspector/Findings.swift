import Lab
import TerminalUI
import Timeline
import InspectorModel
import InspectorView
import Exports

extension Inspector {
    /// Keys in the findings overlay (`L`, `F`): Up/Down select, Enter jumps to the hop or opens
    /// the events a finding cites; in an opened event, the next and previous cited ones.
    static func handleFindingsKey(_ list: FindingsList, _ key: Key, _ state: inout InspectorState) -> [InspectorEffect] {
        let entries = findingEntries(list, state)
        var list = list
        if let open = list.openEvent, entries.indices.contains(list.selected) {
            let cited = entries[list.selected].cited
            switch OverlayKeymap.action(for: key, in: .findingEvent) {
            case .next: list.openEvent = min(open + 1, max(0, cited.count - 1))
            case .previous: list.openEvent = max(0, open - 1)
            case .back: list.openEvent = nil
            case .jump:
                state.modal = nil
                if cited.indices.contains(open) { go(to: cited[open], &state) }
                return []
            default: break
            }
            state.modal = .findings(list)
            return []
        }
        switch OverlayKeymap.action(for: key, in: .findings) {
        case .selectDown: list.selected = min(list.selected + 1, max(0, entries.count - 1))
        case .selectUp: list.selected = max(0, list.selected - 1)
        case .open:
            guard entries.indices.contains(list.selected) else {
                state.modal = nil
                return []
            }
            let entry = entries[list.selected]
            if !entry.cited.isEmpty {
                list.openEvent = 0
            } else {
                state.modal = nil
                go(to: entry.request, hop: entry.hop, &state)
                return []
            }
        default:
            state.modal = nil
            return []
        }
        state.modal = .findings(list)
        return []
    }

    /// Selects the cited event itself — its request, attempt, hop and side — so the Chain pane
    /// and Detail show what the finding points at, not the request's latest attempt.
    private static func go(to event: TimelineEvent, _ state: inout InspectorState) {
        guard state.lab.requests.contains(where: { $0.id == event.request }) else { return }
        selectSequenceEvent(event, &state)
        state.focus = .chain
    }

    /// Selects `request` (when it is listed) and `hop` (when the event belongs to one) in the Chain pane.
    private static func go(to request: Int?, hop: Int?, _ state: inout InspectorState) {
        if let request, state.lab.requests.contains(where: { $0.id == request }) { state.selectedRequest = request }
        if let hop, hop >= 0 { state.selectedHop = hop }
        state.focus = .chain
    }
}
