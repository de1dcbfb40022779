public import Lab
public import TerminalUI
import ChainKit
import Foundation
import Timeline
public import InspectorModel
import InspectorView

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
        case .commands(let commands): session.submit(commands)
        case .setBreakpoint(let breakpoint, let enabled): session.setBreakpoint(breakpoint, enabled: enabled)
        case .setStepMode(let on): session.setStepMode(on)
        case .setChain(let chain): session.setChain(chain)
        case .export(let format, let path, let requests):
            do {
                try AtomicFile.write(session.export(format, masking: .masked, requests: requests), to: path)
                _ = Inspector.update(&state, .exportFinished(path: path, error: nil, requests: requests?.count))
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
    /// Each key is drawn before the next is read, so a key acts on the lab as the screen showed
    /// it (twelve quick `s` presses step twelve times); a frame costs the same however many
    /// requests ran (`input.latency.1k`).
    ///
    /// With `liveExport`, each operation's trace goes to an OTLP receiver once it ends; what
    /// that export reports shows in the status line. `config` gives the keys in force and
    /// the export format offered first.
    public static func run(
        session: LabSession, terminal: any Terminal, idleRedraw: Duration = .milliseconds(50),
        liveExport: OTLPLiveExport? = nil, config: InspectorConfig = InspectorConfig()
    ) async -> Outcome {
        let loop = InspectorLoop(session: session, size: terminal.size, symbols: terminal.symbols, liveExport: liveExport, config: config)
        let labChanged = Locked(false)
        let watcher = Task {
            for await _ in session.timelineChanges() { labChanged.withLock { $0 = true } }
        }
        defer { watcher.cancel() }
        // The key loop blocks in `readKey`, so it runs on a thread of its own: on the
        // cooperative pool it would hold one of its threads for the inspector's whole life,
        // and the lab's tasks (two per operation) would have one thread left.
        let keyLoop = KeyLoop(loop: loop, terminal: terminal, labChanged: labChanged, idleRedraw: idleRedraw)
        await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
            let thread = Thread {
                keyLoop.run()
                finished.resume()
            }
            thread.name = "chainlab.inspector.keys"
            thread.start()
        }
        let log = session.commandLog
        await session.shutDown()
        return Outcome(log: log)
    }
}

/// The inspector's key loop: draws when the state or the lab changed, reads a key, handles it.
///
/// `@unchecked Sendable`: the loop and the terminal are handed to the one thread that runs
/// ``run()``, and the caller does not touch them until that thread has finished; the lab's
/// change flag is behind its own lock.
private final class KeyLoop: @unchecked Sendable {
    let loop: InspectorLoop
    let terminal: any Terminal
    let labChanged: Locked<Bool>
    let idleRedraw: Duration

    init(loop: InspectorLoop, terminal: any Terminal, labChanged: Locked<Bool>, idleRedraw: Duration) {
        self.loop = loop
        self.terminal = terminal
        self.labChanged = labChanged
        self.idleRedraw = idleRedraw
    }

    func run() {
        var needsDraw = true
        while true {
            if loop.refresh(labChanged: labChanged.withLock { changed in defer { changed = false }; return changed }) {
                needsDraw = true
            }
            if needsDraw {
                terminal.draw(loop.frame(size: terminal.size))
                needsDraw = false
            }
            guard let key = terminal.readKey(timeout: idleRedraw) else { continue }
            needsDraw = true
            guard case .char(let first) = key, loop.state.modal?.takesText == true else {
                if loop.handle(key, size: terminal.size) == .quit { return }
                continue
            }
            // In a text field, characters already waiting behind this one (a paste) go in as
            // one message and one frame: drawn after each, a long paste took time quadratic in
            // its length. Elsewhere each key is drawn before the next is read.
            var typed = String(first)
            var count = 1
            var following: Key?
            while count < Self.pasteBatch, let next = terminal.readKey(timeout: .zero) {
                guard case .char(let character) = next else {
                    following = next
                    break
                }
                typed.append(character)
                count += 1
            }
            if loop.handle(paste: typed) == .quit { return }
            if let following, loop.handle(following, size: terminal.size) == .quit { return }
        }
    }

    /// The most characters taken as one paste before the screen is drawn again.
    static let pasteBatch = 1 << 16
}

/// What the inspector does between two frames, without a terminal: the state, the lab's
/// changes read into it, and keys handled with their effects. ``InspectorApp/run`` drives
/// one on a terminal; `chainlab-bench` times one for `input.latency.1k`.
public final class InspectorLoop {
    public private(set) var state: InspectorState
    public let session: LabSession
    private let builder: LabViewBuilder
    private let liveExport: OTLPLiveExport?
    private var controlVersion: Int
    /// Where the frame on screen put things, for the mouse.
    public var map = ScreenMap()
    private var paneCache = PaneCache()

    public init(session: LabSession, size: Size, symbols: Symbols, liveExport: OTLPLiveExport? = nil, config: InspectorConfig = InspectorConfig()) {
        self.session = session
        self.liveExport = liveExport
        builder = LabViewBuilder(session: session)
        controlVersion = session.controlVersion
        state = InspectorState(scenario: session.scenario, lab: builder.view(), size: size, symbols: symbols)
        state.keys = config.keys
        state.exportFormat = config.exportFormat ?? .json
        _ = Inspector.update(&state, .labChanged(builder.view()))
    }

    /// Returns once findings being read in the background, if any, are ready.
    package func findingsSettled() async {
        await builder.findingsSettled()
    }

    /// Reads what changed since the last call into the state: the lab's view when its timeline
    /// (`labChanged`) or its control moved or findings read in the background arrived, and the
    /// live export's status. Whether the screen needs drawing.
    public func refresh(labChanged: Bool) -> Bool {
        var changed = false
        let version = session.controlVersion
        if labChanged || version != controlVersion || builder.hasNewFindings {
            controlVersion = version
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

    /// The frame of the state on a screen of `size`, as ``Inspector/render(_:into:)`` draws
    /// it into a blank buffer; its map becomes ``map``.
    package func frame(size: Size) -> Buffer {
        let frame = paneCache.frame(state, size: size)
        map = frame.map
        return frame.buffer
    }

    /// Handles one key (a resize takes the terminal's new `size`) and carries out its effects.
    public func handle(_ key: Key, size: Size) -> InspectorApp.Continuation {
        if key == .resize {
            _ = Inspector.update(&state, .resize(size))
            return .proceed
        }
        let message: InspectorMessage = if case .mouse(let event) = key { .mouse(event, map) } else { .key(key) }
        return handle(message)
    }

    /// Handles characters read together (a paste) as one message, and carries out its effects.
    public func handle(paste text: String) -> InspectorApp.Continuation {
        handle(.paste(text))
    }

    private func handle(_ message: InspectorMessage) -> InspectorApp.Continuation {
        for effect in Inspector.update(&state, message) {
            if InspectorApp.perform(effect, session: session, state: &state) == .quit { return .quit }
        }
        return .proceed
    }
}
