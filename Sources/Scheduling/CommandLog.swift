import Stops
import Timeline

/// What became of the commands: those that took effect, in order, as `--record` writes them
/// and a replay reads them (kept only when asked), and those refused, with why.
///
/// A command names its lane only while its request has two, so a recording of a request with
/// one reads as it did before requests had lanes.
struct CommandLog: Sendable {
    /// Whether the commands that took effect are kept (off for benchmarks of the bare overhead).
    let keepsEntries: Bool
    private(set) var entries: [RecordedCommand] = []
    private(set) var refusals: [CommandRefusal] = []

    init(keepsEntries: Bool) {
        self.keepsEntries = keepsEntries
    }

    /// `command` took effect at `place` (nil for a command about no stop), in `lane` when its
    /// request has two (else nil).
    @inline(__always)
    mutating func record(_ command: LabCommand, at place: StopPlace?, lane: Lane? = nil) {
        if keepsEntries { entries.append(RecordedCommand(command: command.inLane(lane), place: place)) }
    }

    /// `command` could not take effect.
    mutating func refuse(_ command: LabCommand, _ refusal: Refusal) {
        refusals.append(CommandRefusal(command: command, refusal: refusal))
    }
}
