import Stops

/// What a dispatch round carries out before anyone's turn, in this order: the entries of a
/// replay, the queued commands (a person's, a scenario's launches), then the steps of the
/// scenario's script.
struct Agenda: Sendable {
    /// Commands queued by ``SchedulerCore/submit(_:)``, carried out in order.
    private(set) var commands: [LabCommand] = []
    /// Which requests move next while the script lasts.
    private var script: [ScriptStep]
    /// Recorded commands carried out instead of turns, until they run out or one diverges.
    private(set) var replay: [RecordedCommand]?
    private var replayIndex = 0

    init(script: [ScriptStep], replay: [RecordedCommand]?) {
        self.script = script
        self.replay = replay
    }

    /// Whether nothing is queued, scripted or replayed.
    var isEmpty: Bool {
        @inline(__always) get { commands.isEmpty && replay == nil && script.isEmpty }
    }

    var isReplaying: Bool { replay != nil }

    mutating func submit(_ command: LabCommand) {
        commands.append(command)
    }

    /// The next queued command, taken off the queue.
    mutating func nextCommand() -> LabCommand? {
        commands.isEmpty ? nil : commands.removeFirst()
    }

    /// The session ends: queued commands will not be carried out.
    mutating func dropCommands() {
        commands.removeAll()
    }

    /// The next replay entry and its number (from 1), taken; nil, and the replay over, when
    /// there is none.
    mutating func nextReplayEntry() -> (entry: RecordedCommand, step: Int)? {
        guard let replay else { return nil }
        guard replayIndex < replay.count else {
            self.replay = nil
            return nil
        }
        replayIndex += 1
        return (replay[replayIndex - 1], replayIndex)
    }

    /// The replay stops here (it diverged).
    mutating func endReplay() {
        replay = nil
    }

    /// The script's next step, still to do.
    var nextStep: ScriptStep? { script.first }

    /// The next step is done, or cannot be.
    mutating func dropStep() {
        script.removeFirst()
    }

    /// `request` stopped at `place`: a step leading it there is done. A person who moved the
    /// request made it, and the script must not move it on past where the step leads.
    mutating func stopped(request: Int, at place: StopPlace) {
        if let step = script.first, step.request == request, step.until == place { script.removeFirst() }
    }
}
