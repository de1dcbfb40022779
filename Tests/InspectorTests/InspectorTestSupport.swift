import ChainKit
import Foundation
import Inspector
import Lab
import TerminalUI
import Testing

/// Drives the inspector like the app does, without a terminal: keys in, effects carried
/// out against a real lab session, the view refreshed once the lab is settled.
final class Driver {
    let session: LabSession
    let builder: LabViewBuilder
    var state: InspectorState
    private(set) var effects: [InspectorEffect] = []

    init(_ scenario: String = "basics", size: Size = Size(width: 120, height: 40), stepMode: Bool = true) {
        session = LabSession(scenario: Catalog.scenario(named: scenario)!, defaultMode: stepMode ? .step : .run)
        builder = LabViewBuilder(session: session)
        state = InspectorState(scenario: session.scenario, lab: builder.view(), size: size)
    }

    /// Sends keys one by one; returns the effects of the last one.
    @discardableResult
    func press(_ keys: Key...) async -> [InspectorEffect] {
        for key in keys {
            effects = Inspector.update(&state, .key(key))
            for effect in effects { _ = InspectorApp.perform(effect, session: session, state: &state) }
            await refresh()
        }
        return effects
    }

    /// Waits until the lab is settled and hands the inspector a fresh view.
    func refresh() async {
        await session.waitUntilSettled()
        _ = Inspector.update(&state, .labChanged(builder.view()))
    }

    /// Steps request `request` until it is held at `place`.
    func step(until place: StopPlace, limit: Int = 50) async {
        for _ in 0..<limit where state.selectedStop?.place != place {
            await press(.char("s"))
        }
    }

    /// The screen as text.
    func screen() -> [String] {
        var buffer = Buffer(size: state.size)
        Inspector.render(state, into: &buffer)
        return buffer.lines
    }
}

/// Compares lines with a snapshot file next to the tests; `CHAINLAB_RECORD_SNAPSHOTS=1`
/// records it anew. A missing snapshot fails the test after recording it.
func expectSnapshot(_ lines: [String], named name: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("__Snapshots__")
    let path = folder.appendingPathComponent(name + ".txt").path
    let record = ProcessInfo.processInfo.environment["CHAINLAB_RECORD_SNAPSHOTS"] == "1"
    switch TextSnapshot.compare(lines, withFileAt: path, record: record) {
    case .matched: break
    case .recorded(let path):
        if !record { Issue.record("no snapshot existed; recorded \(path) — check it and run again", sourceLocation: sourceLocation) }
    case .mismatch(let report):
        Issue.record(Comment(rawValue: report), sourceLocation: sourceLocation)
    }
}
