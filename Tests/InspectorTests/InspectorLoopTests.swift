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
        // The keys gave one command; the request's own passes (its launch stop, reached before
        // or after the quit depending on how fast its task starts) are not the keys'.
        let commanded = outcome.log.map(\.command).filter { if case .pass = $0 { false } else { true } }
        #expect(commanded == [.launch(operation: 0)])
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
}
