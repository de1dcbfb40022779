import Lab
import TerminalUI
import InspectorModel

/// The about overlay (`i`): what the scenario teaches, told as what to look at on this screen,
/// and the lab backend's counters as they stand.
extension Inspector {
    /// The about overlay's lines.
    static func aboutLines(_ state: InspectorState) -> [Line] {
        var lines = [Line(state.scenario.onScreen ?? state.scenario.teaches)]
        if state.scenario.onScreen != nil {
            lines += [Line(""), Line("Why: " + state.scenario.teaches, style: .dim)]
        }
        lines += [Line(""), Line([Span("Lab backend now ", style: .bold), Span("(also in the Timeline title): ", style: .dim), Span(state.lab.hasLabControls ? backendSummary(state.lab) : "not a ChainLab lab (no counters)")])]
        let counters = state.lab.backend.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: " · ")
        if !counters.isEmpty { lines.append(Line(counters, style: .dim)) }
        lines += [Line(""), Line("any key closes", style: .dim)]
        return lines
    }
}
