import Findings
import Foundation
import Inspector
import Lab
import TerminalUI
import Testing
import Timeline

/// The app's loop on an in-memory terminal, and what keeps a key within a frame when many
/// requests ran (`input.latency.1k`).
@Suite("Inspector loop")
struct InspectorLoopTests {
    @Test("every key is drawn before the next is read, and acts on the lab as that frame showed it")
    func eachKeyIsAFrame() async throws {
        let session = LabSession(scenario: try #require(Catalog.scenario(named: "basics")), defaultMode: .step)
        // A launch, then q: the new request is held, so q asks (had it acted on the view of
        // before the launch, it would have quit at once and left y unread), and y quits.
        let terminal = TestBackend(width: 120, height: 40, keys: [.char("n"), .char("j"), .char("k"), .char("q"), .char("y")])
        let outcome = await InspectorApp.run(session: session, terminal: terminal, idleRedraw: .milliseconds(1))
        // The first frame, then one after each key but the last.
        #expect(terminal.writes.count == 5)
        // The keys' commands: one launch. The request's own passes are left aside, as how far
        // it got before the quit depends on its thread, not on the keys.
        let keyCommands = outcome.log.map(\.command).filter { if case .pass = $0 { false } else { true } }
        #expect(keyCommands == [.launch(operation: 0)])
        #expect(terminal.pendingKeys.isEmpty)
    }

    @Test("characters waiting while a text field is open go in as one paste and one frame")
    func pasteIsOneFrame() async throws {
        let session = LabSession(scenario: try #require(Catalog.scenario(named: "basics")), defaultMode: .step)
        let pasted = Array(repeating: Key.char("a"), count: 2_000)
        let terminal = TestBackend(width: 120, height: 40, keys: [.char("/")] + pasted + [.escape, .char("q")])
        _ = await InspectorApp.run(session: session, terminal: terminal, idleRedraw: .milliseconds(1))
        // The first frame, one after /, and one after the 2,000 characters and the Esc read
        // behind them (q then quits): drawn after each character, there would be 2,003.
        #expect(terminal.writes.count == 3)
        #expect(terminal.pendingKeys.isEmpty)
    }

    @Test("findings of a store past the synchronous limit are read on their own task: the same findings, one view later")
    func findingsReadInTheBackgroundAreTheSame() async throws {
        let session = LabSession(scenario: try #require(Catalog.scenario(named: "refresh-storm")))
        let result = await session.runHeadless()
        let expected = RunFindings.detect(events: result.events, requests: result.requests)
        #expect(expected.map(\.id) == ["refresh-storm"])

        let inline = LabViewBuilder(session: session)
        #expect(inline.view().findings == expected)

        let background = LabViewBuilder(session: session, synchronousFindingsLimit: 0)
        // The first view starts the reading and shows what was read before: nothing yet.
        #expect(background.view().findings == [])
        let deadline = ContinuousClock.now + .seconds(60)
        while !background.hasNewFindings, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(background.hasNewFindings)
        #expect(background.view().findings == expected)
        #expect(!background.hasNewFindings)
        // Nothing new happened, so nothing is read again.
        #expect(background.view().findings == expected)
        #expect(!background.hasNewFindings)
    }

    @Test("the key loop waits for keys outside every task, so it holds no thread of the pool the lab's tasks run on")
    func waitingForAKeyLeavesThePoolToTheLab() async throws {
        let session = LabSession(scenario: try #require(Catalog.scenario(named: "basics")), defaultMode: .run)
        let finished: @Sendable () -> Bool = { !session.summaries.isEmpty }
        // After the launch the key loop blocks in `readKey` until the request finished; the
        // deadline only keeps a failing run from hanging.
        let deadline = ContinuousClock.now + .seconds(60)
        let terminal = BlockingKeys(
            TestBackend(width: 120, height: 40, keys: [.char("n")]),
            then: [.char("q"), .char("y")], when: { finished() || ContinuousClock.now >= deadline })
        let outcome = await InspectorApp.run(session: session, terminal: terminal, idleRedraw: .milliseconds(1))
        // Inside a task, a blocking `readKey` would hold one of the cooperative pool's threads
        // (two on a two-core machine) for the inspector's whole life.
        #expect(terminal.readsInsideATask == 0)
        #expect(terminal.reads == 3)
        // The launch, then the request passing each of its thirteen stops, all before the quit.
        #expect(outcome.log.map(\.command) == [.launch(operation: 0)] + Array(repeating: .pass(request: 1), count: 13))
        #expect(session.summaries[1]?.outcome == .success)
    }
}

/// A terminal whose keys run out into last keys that `readKey` waits for, blocking its
/// thread (as curses' `getch` does) until `when` holds.
private final class BlockingKeys: Terminal {
    let backend: TestBackend
    var last: [Key]
    let when: () -> Bool
    private var waited = false

    init(_ backend: TestBackend, then last: [Key], when: @escaping () -> Bool) {
        self.backend = backend
        self.last = last
        self.when = when
    }

    var size: Size { backend.size }
    var symbols: Symbols { backend.symbols }
    func draw(_ buffer: Buffer) { backend.draw(buffer) }
    func restore() { backend.restore() }

    private(set) var reads = 0
    private(set) var readsInsideATask = 0

    func readKey(timeout: Duration?) -> Key? {
        reads += 1
        if withUnsafeCurrentTask(body: { $0 != nil }) { readsInsideATask += 1 }
        if let key = backend.readKey(timeout: timeout) { return key }
        if !waited {
            while !when() { usleep(1_000) }
            waited = true
        }
        return last.isEmpty ? nil : last.removeFirst()
    }
}
