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
        case .command(let command): session.scheduler.submit(command)
        case .setBreakpoint(let breakpoint, let enabled): session.scheduler.setBreakpoint(breakpoint, enabled: enabled)
        case .setStepMode(let on): session.scheduler.setDefaultMode(on ? .step : .run)
        case .setChain(let chain): session.setChain(chain)
        case .export(let format, let path):
            let events = session.store.events()
            let summaries = session.summaries
            let text = switch format {
            case .json:
                TraceJSON.encode(TraceDocument(scenario: session.scenario.name, requests: summaries.keys.sorted().map { summaries[$0]! }, events: events, backend: session.backend.counters), masking: .masked)
            case .har: HARExport.archive(events: events, masking: .masked, anchor: session.otlpAnchor)
            case .otlp:
                OTLPExport.document(
                    requests: summaries.keys.sorted().map { summaries[$0]! }, events: events,
                    options: OTLPExport.Options(anchor: session.otlpAnchor, masking: .masked))
            }
            do {
                try AtomicFile.write(text, to: path)
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
    /// With `liveExport`, each operation's trace goes to an OTLP receiver once it ends; what
    /// that export reports shows in the status line. `config` gives the keys in force and
    /// the export format offered first.
    public static func run(
        session: LabSession, terminal: any Terminal, idleRedraw: Duration = .milliseconds(50),
        liveExport: OTLPLiveExport? = nil, config: InspectorConfig = InspectorConfig()
    ) async -> Outcome {
        let builder = LabViewBuilder(session: session)
        var state = InspectorState(scenario: session.scenario, lab: builder.view(), size: terminal.size, symbols: terminal.symbols)
        state.keys = config.keys
        state.exportFormat = config.exportFormat ?? .json
        // Where the frame on screen put things, for the mouse.
        var map = ScreenMap()
        _ = Inspector.update(&state, .labChanged(builder.view()))
        let labChanged = Locked(false)
        let watcher = Task {
            for await _ in session.store.changes() { labChanged.withLock { $0 = true } }
        }
        defer { watcher.cancel() }
        var schedulerVersion = session.scheduler.version
        var needsDraw = true
        loop: while true {
            let version = session.scheduler.version
            if labChanged.withLock({ changed in defer { changed = false }; return changed }) || version != schedulerVersion {
                schedulerVersion = version
                _ = Inspector.update(&state, .labChanged(builder.view()))
                liveExport?.poll()
                needsDraw = true
            }
            if let status = liveExport?.takeStatus() {
                _ = Inspector.update(&state, .otlpExportStatus(text: status.text, isError: status.isError))
                needsDraw = true
            }
            if needsDraw {
                terminal.draw { map = Inspector.render(state, into: &$0) }
                needsDraw = false
            }
            guard let key = terminal.readKey(timeout: idleRedraw) else { continue }
            needsDraw = true
            if key == .resize {
                _ = Inspector.update(&state, .resize(terminal.size))
                continue
            }
            let message: InspectorMessage = if case .mouse(let event) = key { .mouse(event, map) } else { .key(key) }
            for effect in Inspector.update(&state, message) {
                if perform(effect, session: session, state: &state) == .quit { break loop }
            }
        }
        let log = session.scheduler.log
        await session.shutDown()
        return Outcome(log: log)
    }
}
