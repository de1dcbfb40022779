import Lab
import TerminalUI
import Timeline
import InspectorModel
import InspectorView
import TimelineFilter

extension Inspector {
    /// What a filter reads about `row`: the events the view has seen, its outcome and the
    /// findings that cite it.
    static func filterSubject(_ row: RequestRow, _ lab: LabView) -> FilterSubject {
        FilterSubject(
            operation: row.operation, events: lab.timeline.events(request: row.id),
            failed: row.state == .failed, results: row.results,
            hasFinding: lab.findings?.contains { $0.requests.contains(row.id) } ?? false)
    }

    /// Works out which requests the filter lets through, after the filter or the lab changed,
    /// and keeps a visible request selected. When the matches were worked out for the same
    /// filter on the view the builder made before this one, with the same findings, only the
    /// requests the builder made again are read: with 10,000 requests, reading every one's
    /// events took longer than a frame.
    static func refreshFilter(_ state: inout InspectorState) {
        guard let filter = state.filter else {
            state.filterMatches = []
            state.filterBasis = nil
            return
        }
        let lab = state.lab
        if let basis = state.filterBasis, let origin = lab.origin, basis.source == filter.source,
           basis.origin == LabView.Origin(builder: origin.builder, number: origin.number - 1), basis.findings == lab.findings {
            for id in lab.remade {
                guard let index = lab.index(of: id) else { continue }
                if filter.matches(filterSubject(lab.requests[index], lab)) {
                    state.filterMatches.insert(id)
                } else {
                    state.filterMatches.remove(id)
                }
            }
        } else {
            state.filterMatches = Set(lab.requests.filter { filter.matches(filterSubject($0, lab)) }.map(\.id))
        }
        state.filterBasis = lab.origin.map { InspectorState.FilterBasis(source: filter.source, origin: $0, findings: lab.findings) }
        if let origin = lab.origin { state.filteredRows = (origin, lab.requests.filter { state.filterMatches.contains($0.id) }) }
        let visible = state.visibleRequests
        if let first = visible.first, !visible.contains(where: { $0.id == state.selectedRequest }) {
            state.selectedRequest = first.id
        }
    }

    /// Keys on the `/` line: Enter applies a valid expression (an empty one clears the
    /// filter) or shows where it is wrong and keeps the filter in force; Esc clears it.
    static func handleFilterKey(_ prompt: FilterPrompt, _ key: Key, _ state: inout InspectorState) {
        var prompt = prompt
        switch OverlayKeymap.action(for: key, in: .filter) {
        case .clear:
            state.modal = nil
            clearFilter(&state)
        case .apply:
            let text = prompt.input.text
            guard !text.allSatisfy(\.isWhitespace) else {
                state.modal = nil
                clearFilter(&state)
                return
            }
            do {
                state.filter = try FilterExpression(parsing: text)
                state.modal = nil
                refreshFilter(&state)
                state.notice = .init(text: "filter \(text): \(state.visibleRequests.count) of \(state.lab.requests.count) requests · Esc clears", isError: false)
            } catch {
                prompt.error = error
                state.modal = .filter(prompt)
            }
        default:
            _ = prompt.input.handle(key)
            state.modal = .filter(prompt)
        }
    }

    static func clearFilter(_ state: inout InspectorState) {
        guard state.filter != nil else { return }
        state.filter = nil
        refreshFilter(&state)
        state.notice = .init(text: "filter cleared", isError: false)
    }
}
