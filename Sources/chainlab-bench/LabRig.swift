import ChainKit
import Lab
import Timeline

/// A free-run scheduler recording into its own timeline store, with operations started the
/// way a ``LabSession`` starts them (their contexts sharing one `OperationContext.Shared`, with its
/// snapshot cache and hop layouts): launched through the scheduler (so it runs alone, in the
/// scheduler's solo lane), marked finished in the store and the scheduler at the end.
///
/// The scheduler keeps no command log (`recordsLog: false`): the figures are the price of the
/// instrumentation and its events, not of recording a replay (with a log, every stop takes
/// the scheduler's lock to log its pass).
final class LabRig: Sendable {
    let store = TimelineStore()
    let clock = VirtualClock()
    let scheduler: Scheduler
    /// What the operations' contexts share, as a session's do.
    let shared: OperationContext.Shared
    /// The request id the scheduler hands out at launch.
    private let launched: Locked<Int?>

    init() {
        let store = self.store, clock = self.clock
        let launched = Locked<Int?>(nil)
        self.launched = launched
        scheduler = Scheduler(
            environment: Scheduler.Environment(
                record: { store.append($0) },
                now: { clock.seconds },
                launch: { _, request in launched.withLock { $0 = request } },
                advanceClock: { clock.advance(by: .milliseconds(Int64(($0 * 1000).rounded()))) },
                expireTokens: {}),
            recordsLog: false)
        shared = OperationContext.Shared(scheduler: scheduler, store: store, clock: EventClock(clock))
    }

    /// Runs one operation with its own context.
    func run(_ body: (OperationContext) async throws -> Void) async throws {
        // Nothing else runs on this scheduler, so the launch takes effect within `submit`.
        scheduler.submit(.launch(operation: 0))
        guard let request = launched.withLock({ $0.take() }) else { throw BenchFailure("the scheduler did not launch the operation") }
        let store = self.store
        let context = OperationContext(request: request, safetyCap: 20, shared: shared)
        defer {
            store.markFinished(request: request)
            scheduler.finish(request: request)
        }
        try await body(context)
    }
}
