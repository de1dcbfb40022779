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

    /// The most keys handled between two frames.
    static let keysPerFrame = 256

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
    /// Every key waiting when the loop wakes is handled before the next frame is drawn, so a
    /// burst of keys costs one frame, not one frame each: a key is on screen within a frame
    /// of arriving however busy the lab is (`input.latency.1k`).
    ///
    /// With `liveExport`, each operation's trace goes to an OTLP receiver once it ends; what
    /// that export reports shows in the status line.
    public static func run(
        session: LabSession, terminal: any Terminal, idleRedraw: Duration = .milliseconds(50),
        liveExport: OTLPLiveExport? = nil
    ) async -> Outcome {
        let loop = InspectorLoop(session: session, size: terminal.size, symbols: terminal.symbols, liveExport: liveExport)
        let labChanged = Locked(false)
        let watcher = Task {
            for await _ in session.store.changes() { labChanged.withLock { $0 = true } }
        }
        defer { watcher.cancel() }
        func refresh() -> Bool {
            loop.refresh(labChanged: labChanged.withLock { changed in defer { changed = false }; return changed })
        }
        var needsDraw = true
        loop: while true {
            if refresh() { needsDraw = true }
            if needsDraw {
                terminal.draw { Inspector.render(loop.state, into: &$0) }
                needsDraw = false
            }
            var next = terminal.readKey(timeout: idleRedraw)
            var handled = 0
            while let key = next {
                needsDraw = true
                if loop.handle(key, size: terminal.size) == .quit { break loop }
                handled += 1
                // A flood of keys still sees a frame now and then.
                guard handled < Self.keysPerFrame, let waiting = terminal.readKey(timeout: .zero) else { break }
                // Each key acts on the lab as the keys before it left it (`q` after `n` asks).
                _ = refresh()
                next = waiting
            }
        }
        let log = session.scheduler.log
        await session.shutDown()
        return Outcome(log: log)
    }
}

/// What the inspector does between two frames, without a terminal: the state, the lab's
/// changes read into it, and keys handled with their effects. ``InspectorApp/run`` drives
/// one on a terminal; `chainlab-bench` times one for `input.latency.1k`.
public final class InspectorLoop {
    public private(set) var state: InspectorState
    public let session: LabSession
    private let builder: LabViewBuilder
    private let liveExport: OTLPLiveExport?
    private var schedulerVersion: Int

    public init(session: LabSession, size: Size, symbols: Symbols, liveExport: OTLPLiveExport? = nil) {
        self.session = session
        self.liveExport = liveExport
        builder = LabViewBuilder(session: session)
        schedulerVersion = session.scheduler.version
        state = InspectorState(scenario: session.scenario, lab: builder.view(), size: size, symbols: symbols)
        _ = Inspector.update(&state, .labChanged(builder.view()))
    }

    /// Reads what changed since the last call into the state: the lab's view when its store
    /// (`labChanged`) or its scheduler moved or findings read in the background arrived, and
    /// the live export's status. Whether the screen needs drawing.
    public func refresh(labChanged: Bool) -> Bool {
        var changed = false
        let version = session.scheduler.version
        if labChanged || version != schedulerVersion || builder.hasNewFindings {
            schedulerVersion = version
            _ = Inspector.update(&state, .labChanged(builder.view()))
            liveExport?.poll()
            changed = true
        }
        if let status = liveExport?.takeStatus() {
            _ = Inspector.update(&state, .otlpExportStatus(text: status.text, isError: status.isError))
            changed = true
        }
        return changed
    }

    /// Handles one key (a resize takes the terminal's new `size`) and carries out its effects.
    public func handle(_ key: Key, size: Size) -> InspectorApp.Continuation {
        if key == .resize {
            _ = Inspector.update(&state, .resize(size))
            return .proceed
        }
        for effect in Inspector.update(&state, .key(key)) {
            if InspectorApp.perform(effect, session: session, state: &state) == .quit { return .quit }
        }
        return .proceed
    }
}
