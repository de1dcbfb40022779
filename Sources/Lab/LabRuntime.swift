import Instrumentation
import Backend
import ChainKit
import Foundation
import Timeline

/// What a session's operations run on: the lab clock, the backend and where it is reached,
/// the cache, the token manager, the timeline store and the scheduler, and what every
/// operation's instrumentation shares. A session makes one; its launcher starts operations
/// on it (``Launcher/start(operation:request:)``).
struct LabRuntime: Sendable {
    let clock: VirtualClock
    /// The in-process backend; a session on a remote lab or server reaches that through
    /// ``target`` instead.
    let backend: LabBackend
    let target: LabTarget
    let cache: CacheStore
    let tokens: TokenManager
    let store: TimelineStore
    /// Decides who moves at each stop.
    let scheduler: Scheduler
    /// What every operation's context shares: the scheduler, the store, the clock, the
    /// snapshots the operations share and the hop layouts of the session's chains.
    let operationShared: OperationContext.Shared

    /// - Parameters:
    ///   - tokens: the tokens the token manager starts with.
    ///   - launch: starts request `request` for operation number `operation`, when the
    ///     scheduler says so.
    init(
        scenario: Scenario, store: TimelineStore, clock: VirtualClock, backend: LabBackend, target: LabTarget, baseURL: URL,
        tokens initial: TokenPair, defaultMode: RunMode, replay: [RecordedCommand]?, recordsLog: Bool, remote: RemoteSetup?,
        onChange: @escaping @Sendable () -> Void, launch: @escaping @Sendable (_ operation: Int, _ request: Int) -> Void
    ) {
        self.clock = clock
        self.backend = backend
        self.target = target
        self.store = store
        // What the lab's schema says is non-null holds for a lab; of another server's schema
        // ChainLab knows only what the operation asks for.
        let servesLabSchema = if case .remote(let remote) = target { remote.isLab } else { true }
        cache = CacheStore(schema: servesLabSchema ? LabOperations.cacheSchema : LabOperations.cacheSchema.withoutNullability)
        scheduler = Scheduler(
            environment: Scheduler.Environment(
                record: { event in _ = store.append(event) },
                now: { clock.seconds },
                launch: launch,
                advanceClock: { seconds in clock.advance(by: .milliseconds(Int64(saturating: seconds * 1000))) },
                expireTokens: {
                    switch target {
                    case .inProcess(let backend): backend.expireAllAccessTokens()
                    case .remote(let remote): Task { try? await remote.expireTokens() }
                    }
                },
                changed: onChange,
                ruleSubject: { [operations = scenario.operations] stop, operation in
                    let name = operations.indices.contains(operation) ? operations[operation].name : ""
                    return stop.filterSubject(operation: name, events: store.events(request: stop.request))
                }),
            defaultMode: defaultMode, script: replay == nil ? scenario.script : [], replay: replay, recordsLog: recordsLog)
        operationShared = OperationContext.Shared(scheduler: scheduler, store: store, clock: EventClock(clock))
        tokens = LabSession.tokenManager(
            scenario: scenario, initial: initial, source: remote?.tokenSource ?? .lab, baseURL: baseURL, target: target, clock: clock,
            traceparent: remote?.traceparent)
    }
}
