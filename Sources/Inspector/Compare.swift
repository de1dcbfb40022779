import Lab
import TerminalUI
import Timeline
import InspectorModel
import InspectorView

extension Inspector {
    /// `m`, `=`, `p`, `d` and `#`.
    static func performCompare(_ action: Action, _ state: inout InspectorState) {
        func say(_ text: String, error: Bool = true) { state.notice = .init(text: text, isError: error) }
        guard let selected = selectedEvent(state) else {
            return say("nothing to compare here: select a hop and side the request reached")
        }
        func open(_ other: TimelineEvent) {
            state.modal = .compare(other.seq < selected.seq ? Comparison(left: other, right: selected) : Comparison(left: selected, right: other))
        }
        switch action {
        case .mark:
            state.marked = selected
            say("marked \(eventLabel(selected)) · select another event and press = to compare", error: false)
        case .compareMarked:
            guard let marked = state.marked else { return say("no event is marked: m marks the selected one") }
            guard marked.seq != selected.seq else { return say("this is the marked event: select another one to compare with it") }
            open(marked)
        case .compareAttempts:
            guard state.shownAttempt > 1 else { return say("attempt 1 has no previous attempt to compare with") }
            guard let previous = event(request: selected.request, attempt: state.shownAttempt - 1, hop: state.selectedHop, side: state.selectedSide, state) else {
                return say("attempt \(state.shownAttempt - 1) did not reach this side of this hop")
            }
            open(previous)
        case .compareHop:
            guard state.selectedHop < state.hops.count else { return say("the refresh row is not a hop: mark its grant with m and compare with =") }
            // What the hop received: on the way down, what the hop above handed on; on the
            // way up, what came up from the hop below.
            let neighbours = state.selectedSide == .pre ? Array((0..<state.selectedHop).reversed()) : Array((state.selectedHop + 1)..<state.hops.count)
            let view = state
            guard let received = neighbours.lazy.compactMap({ event(request: selected.request, attempt: view.shownAttempt, hop: $0, side: view.selectedSide, view) }).first else {
                return say(state.selectedSide == .pre ? "the top hop received the operation as it was started: nothing above it to compare with" : "nothing came up to this hop from below in this attempt")
            }
            open(received)
        case .compareRequests:
            let ids = state.lab.requests.map(\.id)
            let marked = state.marked?.request
            let index = ids.firstIndex(of: selected.request) ?? 0
            var other: Int?
            if let marked, marked != selected.request {
                other = marked
            } else if index > 0 {
                other = ids[index - 1]
            } else if ids.count > 1 {
                other = ids[1]
            }
            guard let other else { return say("there is no other request to compare with: n starts one") }
            let attempts = state.lab.requests.first { $0.id == other }?.attempt ?? 1
            guard let match = event(request: other, attempt: min(state.shownAttempt, attempts), hop: state.selectedHop, side: state.selectedSide, state) else {
                return say("request #\(other) did not reach this side of this hop")
            }
            open(match)
        default:
            break
        }
    }

    /// Keys in the compare overlay: j/k and pages scroll, v reveals or masks, anything else closes.
    static func handleCompareKey(_ comparison: Comparison, _ key: Key, _ state: inout InspectorState) {
        var comparison = comparison
        let limit = compareLayout(comparison, state, in: bodyArea(state.size)).scrollLimit
        switch OverlayKeymap.action(for: key, in: .compare) {
        case .scrollDown: comparison.scroll = min(comparison.scroll + 1, limit)
        case .scrollUp: comparison.scroll = max(0, comparison.scroll - 1)
        case .pageDown: comparison.scroll = min(comparison.scroll + 10, limit)
        case .pageUp: comparison.scroll = max(0, comparison.scroll - 10)
        case .reveal: state.revealSecrets.toggle()
        default:
            state.modal = nil
            return
        }
        state.modal = .compare(comparison)
    }
}
