@testable import Lab
@testable import Scheduling
import Testing
import Timeline

/// What a dispatch round serves before turns, without the core.
@Suite("Agenda")
struct AgendaTests {
    @Test("queued commands come out in order, once; dropped, none is left")
    func commands() {
        var agenda = Agenda(script: [], replay: nil)
        #expect(agenda.isEmpty && !agenda.isReplaying)
        agenda.submit(.launch(operation: 1))
        agenda.submit(.expireTokens)
        #expect(!agenda.isEmpty)
        #expect(agenda.commands == [.launch(operation: 1), .expireTokens])
        #expect(agenda.nextCommand() == .launch(operation: 1))
        #expect(agenda.nextCommand() == .expireTokens)
        #expect(agenda.nextCommand() == nil)
        #expect(agenda.isEmpty)
        agenda.submit(.resumeAll)
        agenda.dropCommands()
        #expect(agenda.commands.isEmpty && agenda.isEmpty)
    }

    @Test("replay entries come out numbered from 1; past the last, the replay is over")
    func replay() {
        let entries = [RecordedCommand(command: .launch(operation: 0), place: nil), RecordedCommand(command: .pass(request: 1), place: .launch)]
        var agenda = Agenda(script: [], replay: entries)
        #expect(agenda.isReplaying && !agenda.isEmpty)
        #expect(agenda.nextReplayEntry()?.step == 1)
        let second = agenda.nextReplayEntry()
        #expect(second?.entry == entries[1] && second?.step == 2)
        #expect(agenda.isReplaying)
        #expect(agenda.nextReplayEntry() == nil)
        #expect(!agenda.isReplaying && agenda.replay == nil && agenda.isEmpty)

        var diverged = Agenda(script: [], replay: entries)
        _ = diverged.nextReplayEntry()
        diverged.endReplay()
        #expect(diverged.nextReplayEntry() == nil && !diverged.isReplaying)
    }

    @Test("a script step stays next until dropped, or until its request stops where the step leads")
    func script() {
        let steps = [Scenario.ScriptStep(request: 1, until: .refresh), Scenario.ScriptStep(request: 2), Scenario.ScriptStep(request: 2, until: .refresh)]
        var agenda = Agenda(script: steps, replay: nil)
        #expect(!agenda.isEmpty && agenda.nextStep == steps[0])
        agenda.stopped(request: 2, at: .refresh)
        agenda.stopped(request: 1, at: .hop(0, .pre))
        #expect(agenda.nextStep == steps[0])
        agenda.stopped(request: 1, at: .refresh)
        #expect(agenda.nextStep == steps[1])
        // A step without a stop to reach is done only when dropped.
        agenda.stopped(request: 2, at: .hop(0, .pre))
        #expect(agenda.nextStep == steps[1])
        agenda.dropStep()
        #expect(agenda.nextStep == steps[2])
        agenda.dropStep()
        #expect(agenda.nextStep == nil && agenda.isEmpty)
    }
}
