public import Lab
public import TerminalUI
import ChainKit
import Timeline

/// Runs the inspector on a terminal: reads keys, applies updates, performs effects, and
/// redraws when the state or the lab changed. Only changed cells reach the terminal.
public enum InspectorApp {
    /// How the run ended.
    public struct Outcome: Sendable {
        /// The commands that took effect, for `--record`.
        public var log: [RecordedCommand]
    }

    /// Whether the app goes on after an effect.
    public enum Continuation: Sendable, Hashable {
        case proceed, quit
    }

    /// Carries out one effect of an update against the lab.
    public static func perform(_ effect: InspectorEffect, session: LabSession, state: inout InspectorState) -> Continuation {
        switch effect {
        case .command(let command): session.submit(command)
        case .setBreakpoint(let breakpoint, let enabled): session.setBreakpoint(breakpoint, enabled: enabled)
        case .setStepMode(let on): session.setStepMode(on)
        case .setChain(let chain): session.setChain(chain)
        case .export(let format, let path):
            do {
                try AtomicFile.write(session.export(format.exportFormat, masking: .masked), to: path)
                _ = Inspector.update(&state, .exportFinished(path: path, error: nil))
            } catch {
                _ = Inspector.update(&state, .exportFinished(path: path, error: error.description))
            }
        case .quit: return .quit
        }
        return .proceed
    }

    /// Opens the inspector on `session` and returns when the person quits. The lab runs on
    /// its own tasks; this loop only reads from it, so the screen never waits on a request.
    ///
    /// Lab changes reach the state as messages: when the timeline's change notification
    /// fired or the session's ``Lab/LabSession/controlVersion`` moved, the loop builds a
    /// ``LabView`` (the timeline frozen at its last seq) and sends `.labChanged`; render
    /// then draws only that state.
    ///
    /// With `liveExport`, each operation's trace goes to an OTLP receiver once it ends; what
    /// that export reports shows in the status line.
    public static func run(
        session: LabSession, terminal: any Terminal, idleRedraw: Duration = .milliseconds(50),
        liveExport: OTLPLiveExport? = nil
    ) async -> Outcome {
        let builder = LabViewBuilder(session: session)
        var state = InspectorState(scenario: session.scenario, lab: builder.view(), size: terminal.size, symbols: terminal.symbols)
        _ = Inspector.update(&state, .labChanged(builder.view()))
        let labChanged = Locked(false)
        let watcher = Task {
            for await _ in session.timelineChanges() { labChanged.withLock { $0 = true } }
        }
        defer { watcher.cancel() }
        var controlVersion = session.controlVersion
        var needsDraw = true
        loop: while true {
            let version = session.controlVersion
            if labChanged.withLock({ changed in defer { changed = false }; return changed }) || version != controlVersion {
                controlVersion = version
                _ = Inspector.update(&state, .labChanged(builder.view()))
                liveExport?.poll()
                needsDraw = true
            }
            if let status = liveExport?.takeStatus() {
                _ = Inspector.update(&state, .otlpExportStatus(text: status.text, isError: status.isError))
                needsDraw = true
            }
            if needsDraw {
                terminal.draw { Inspector.render(state, into: &$0) }
                needsDraw = false
            }
            guard let key = terminal.readKey(timeout: idleRedraw) else { continue }
            needsDraw = true
            if key == .resize {
                _ = Inspector.update(&state, .resize(terminal.size))
                continue
            }
            for effect in Inspector.update(&state, .key(key)) {
                if perform(effect, session: session, state: &state) == .quit { break loop }
            }
        }
        let log = session.commandLog
        await session.shutDown()
        return Outcome(log: log)
    }
}
