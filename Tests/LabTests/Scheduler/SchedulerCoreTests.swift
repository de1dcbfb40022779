import ChainKit
import Lab
import Testing
import Timeline

/// The scheduler's decisions without tasks: each test feeds a `SchedulerCore` inputs and
/// states the exact effects. Waiters are labels, so a resume says whom it lets go.
@Suite("Scheduler core")
struct SchedulerCoreTests {
    typealias Core = SchedulerCore<String>

    /// A core whose request 1 was launched and runs.
    static func running(recordsLog: Bool = true, defaultMode: Scheduler.RunMode = .run) -> Core {
        var core = Core(defaultMode: defaultMode, recordsLog: recordsLog)
        core.submit(.launch(operation: 0))
        _ = core.dispatch(now: 0)
        return core
    }

    /// A core with requests 1…`count` launched, each waiting at its launch stop (waiter
    /// "launch N"), as new tasks do before their first hop.
    static func parkedAtLaunch(_ count: Int) -> Core {
        var core = Core()
        for request in 1...count {
            core.submit(.launch(operation: 0))
            _ = core.dispatch(now: 0)
            core.park(ParkedStop(request: request, place: .launch), waiter: "launch \(request)")
        }
        return core
    }

    static func pre(_ hop: Int) -> StopPlace { .hop(hop, .pre) }

    @Test("a launch starts the next request and ends the round; the log records it")
    func launch() {
        var core = Core()
        core.submit(.launch(operation: 2))
        let round = core.dispatch(now: 0)
        #expect(round.effects == [.launch(operation: 2, request: 1)])
        #expect(round.again == false)
        #expect(core.running == [1])
        #expect(core.launched.byRequest == [1: 2])
        #expect(core.log == [RecordedCommand(command: .launch(operation: 2), place: nil)])
        #expect(core.version == 1)
    }

    @Test("a launch at once leaves the state the queued launch and its round leave; it is refused while anything runs, is queued or replays")
    func launchAtOnce() {
        var atOnce = Core(defaultMode: .step)
        var queued = Core(defaultMode: .step)
        #expect(atOnce.launchAtOnce(operation: 2) == 1)
        queued.submit(.launch(operation: 2))
        _ = queued.dispatch(now: 0)
        #expect(atOnce.running == [1] && queued.running == [1])
        #expect(atOnce.launched.byRequest == [1: 2] && queued.launched.byRequest == [1: 2])
        #expect(atOnce.modes == [1: .step] && queued.modes == [1: .step])
        #expect(atOnce.log == [RecordedCommand(command: .launch(operation: 2), place: nil)] && atOnce.log == queued.log)
        #expect(atOnce.version == 1 && queued.version == 1)
        #expect(atOnce.soloLane == queued.soloLane)

        // Request 1 runs: a launch now waits for it to stop.
        #expect(atOnce.launchAtOnce(operation: 0) == nil)
        var waiting = Core()
        waiting.submit(.advanceClock(seconds: 1))
        #expect(waiting.launchAtOnce(operation: 0) == nil)
        var replaying = Core(replay: [RecordedCommand(command: .launch(operation: 3), place: nil)])
        #expect(replaying.launchAtOnce(operation: 0) == nil)
        #expect(waiting.launched.isEmpty && replaying.launched.isEmpty)
    }

    @Test("every launched request has a mode: step while it steps, run otherwise, finished or not")
    func modes() {
        var core = Self.parkedAtLaunch(3)
        core.submit(.step(request: 2))
        _ = core.dispatch(now: 0)
        #expect(core.modes == [1: .run, 2: .step, 3: .run])
        _ = core.finish(request: 2)
        core.submit(.resume(request: 3))
        _ = core.dispatch(now: 0)
        #expect(core.modes == [1: .run, 2: .step, 3: .run])
        #expect(core.holdReason(request: 2) == "step")
        #expect(core.holdReason(request: 1) == "breakpoint")
    }

    @Test("a request's finish moves the version, though it is no event and ends in no dispatch round: a screen that polls the version reads the summary set just before")
    func finishMovesTheVersion() {
        var core = Self.running()
        let before = core.version
        #expect(core.finish(request: 1) == false)
        #expect(core.version == before + 1)
        #expect(core.finished.contains(1))
    }

    @Test("parking a held stop moves the version, though the round after it does nothing: a screen that read the stop's paused event before it parked still learns the stop")
    func parkMovesTheVersion() {
        var core = Self.running(defaultMode: .step)
        #expect(core.arrive(request: 1, place: Self.pre(0)) == .wait(held: true))
        let before = core.version
        core.park(ParkedStop(request: 1, place: Self.pre(0), hopName: "MaxRetryInterceptor", held: true), waiter: "w")
        #expect(core.version == before + 1)
        #expect(core.dispatch(now: 0).effects == [])
        #expect(core.parkedStops.map(\.place) == [Self.pre(0)])
    }

    @Test("while a request runs, a round does nothing: commands wait until it stops")
    func commandsWaitForQuiescence() {
        var core = Self.running()
        core.submit(.launch(operation: 0))
        #expect(core.dispatch(now: 0).effects == [])
        #expect(core.commands == [.launch(operation: 0)])
    }

    @Test("one rule for passing without a turn: the lone runner passes, logged; the lane also needs it held nowhere and unlogged")
    func mayPassWithoutTurn() {
        var logged = Self.running()
        #expect(logged.mayPassWithoutTurn(1))
        #expect(!logged.mayPassWithoutTurn(2))
        #expect(logged.arrive(request: 1, place: Self.pre(0)) == .pass)
        #expect(logged.log.last == RecordedCommand(command: .pass(request: 1), place: Self.pre(0)))
        #expect(logged.soloLane == 0)

        var free = Self.running(recordsLog: false)
        #expect(free.soloLane == 1)
        // A breakpoint elsewhere: stops it does not match still pass, but not in the lane.
        free.setBreakpoint(Scheduler.Breakpoint(hop: 3, position: .post), enabled: true)
        #expect(free.soloLane == 0)
        #expect(free.arrive(request: 1, place: Self.pre(0)) == .pass)
        #expect(free.arrive(request: 1, place: .hop(3, .post)) == .wait(held: true))
        free.setBreakpoint(Scheduler.Breakpoint(hop: 3, position: .post), enabled: false)
        #expect(free.soloLane == 1)
        // A queued command is served first.
        free.submit(.advanceClock(seconds: 1))
        #expect(!free.mayPassWithoutTurn(1))
        #expect(free.soloLane == 0)
        #expect(free.arrive(request: 1, place: Self.pre(0)) == .wait(held: false))

        // Another request waiting for its turn is served first.
        var two = Self.parkedAtLaunch(2)
        #expect(two.dispatch(now: 0).effects == [.resume("launch 1", .proceed)])
        #expect(!two.mayPassWithoutTurn(1))
        #expect(two.arrive(request: 1, place: Self.pre(0)) == .wait(held: false))

        let stepping = Self.running(recordsLog: false, defaultMode: .step)
        #expect(stepping.mayPassWithoutTurn(1))
        #expect(stepping.soloLane == 0)
        var steppingCopy = stepping
        // Launch and wake are never held, so a stepping request passes them alone.
        #expect(steppingCopy.arrive(request: 1, place: .launch) == .pass)
        #expect(steppingCopy.arrive(request: 1, place: Self.pre(0)) == .wait(held: true))
    }

    @Test("requests waiting their turn move in round-robin order, one per round")
    func roundRobin() {
        var core = Self.parkedAtLaunch(2)
        #expect(core.dispatch(now: 0) == ([.resume("launch 1", .proceed)], true))
        #expect(core.running == [1])
        #expect(core.dispatch(now: 0) == ([], false))
        core.park(ParkedStop(request: 1, place: Self.pre(0)), waiter: "one")
        #expect(core.dispatch(now: 0).effects == [.resume("launch 2", .proceed)])
        core.park(ParkedStop(request: 2, place: Self.pre(0)), waiter: "two")
        #expect(core.dispatch(now: 0).effects == [.resume("one", .proceed)])
        #expect(core.log.suffix(3) == [
            RecordedCommand(command: .pass(request: 1), place: .launch),
            RecordedCommand(command: .pass(request: 2), place: .launch),
            RecordedCommand(command: .pass(request: 1), place: Self.pre(0)),
        ])
    }

    @Test("a held request waits for a command; settling is answered once nothing can move")
    func heldThenStepped() {
        var core = Self.running(defaultMode: .step)
        #expect(core.arrive(request: 1, place: Self.pre(0)) == .wait(held: true))
        core.park(ParkedStop(request: 1, place: Self.pre(0), hopName: "MaxRetryInterceptor", held: true), waiter: "w")
        core.awaitSettled()
        #expect(core.dispatch(now: 0) == ([.settled], false))
        #expect(core.dispatch(now: 0) == ([], false))

        core.submit(.step(request: 1))
        let resumed = TimelineEvent(
            time: 2, request: 1, attempt: 1, hop: 0, name: "MaxRetryInterceptor", kind: .graphql, phase: .resumed,
            detail: "step · pre-flight")
        #expect(core.dispatch(now: 2) == ([.record(resumed), .resume("w", .proceed)], true))
        #expect(core.running == [1])
        #expect(core.parkedStops == [])
    }

    @Test("force 401 where the stop cannot: refused with the reason; where it can: injected and released with it")
    func force401() {
        var core = Self.running(defaultMode: .step)
        core.park(ParkedStop(request: 1, place: Self.pre(4), hopName: "transport", hopKind: .transport, held: true), waiter: "w")
        core.submit(.force401(request: 1))
        #expect(core.dispatch(now: 0) == ([], true))
        #expect(core.refusals.map(\.reason) == ["a 401 cannot be forced at hop 5 pre of transport: force it at the transport or at a post-flight stop"])

        var able = Self.running(defaultMode: .step)
        able.park(
            ParkedStop(request: 1, place: Self.pre(4), hopName: "transport", hopKind: .transport, capabilities: StopCapabilities(canForce401: true), held: true),
            waiter: "w")
        able.submit(.force401(request: 1))
        let event = { (phase: Phase, detail: String) in
            TimelineEvent(time: 0, request: 1, attempt: 1, hop: 4, name: "transport", kind: .transport, phase: phase, detail: detail)
        }
        #expect(able.dispatch(now: 0) == ([
            .record(event(.resumed, "step · pre-flight")), .record(event(.injected, "force 401 · pre-flight")),
            .resume("w", Release(disposition: .force401)),
        ], true))
    }

    @Test("an edit is recorded with its difference and released with the request")
    func editThenResume() throws {
        var core = Self.running(defaultMode: .step)
        let before = try HTTPFields(["Accept": "application/json"])
        let after = try HTTPFields(["Accept": "application/json", "Authorization": "Bearer x"])
        core.park(
            ParkedStop(
                request: 1, place: Self.pre(1), hopName: "AuthInterceptor", snapshot: HopSnapshot(headers: before),
                capabilities: StopCapabilities(canEditRequest: true), held: true),
            waiter: "w")
        core.submit(.editRequestHeaders(request: 1, headers: after))
        core.submit(.resume(request: 1))
        let edited = TimelineEvent(
            time: 0, request: 1, attempt: 1, hop: 1, name: "AuthInterceptor", kind: .graphql, phase: .edited,
            snapshot: HopSnapshot(headers: after), diff: HeaderDiff(added: ["Authorization"]), detail: "request headers edited · pre-flight")
        #expect(core.dispatch(now: 0) == ([.record(edited)], true))
        let resumed = TimelineEvent(
            time: 0, request: 1, attempt: 1, hop: 1, name: "AuthInterceptor", kind: .graphql, phase: .resumed,
            detail: "continue · pre-flight")
        #expect(core.dispatch(now: 0) == ([.record(resumed), .resume("w", Release(requestHeaders: after))], true))
        #expect(core.modes[1] == .run)
    }

    @Test("a request blocked on a shared refresh gives up its turn, wakes when the refresh ends and moves after it")
    func blockedUntilRefreshEnds() {
        var core = Self.parkedAtLaunch(2)
        _ = core.dispatch(now: 0)
        core.refreshStarted()
        core.park(ParkedStop(request: 1, place: .refresh), waiter: "one")
        #expect(core.dispatch(now: 0).effects == [.resume("launch 2", .proceed)])
        // Blocked and unblocked are both states a screen shows: each moves the version.
        var version = core.version
        core.block(request: 2)
        #expect(core.blocked == [2])
        #expect(core.version == version + 1)
        #expect(core.dispatch(now: 0).effects == [.resume("one", .proceed)])
        version = core.version
        core.refreshEnded()
        #expect(core.blocked == [])
        #expect(core.version == version + 1)
        // Request 2 is waking: nobody moves until it arrives.
        let dispatchHasWork = core.finish(request: 1)
        #expect(!dispatchHasWork)
        #expect(core.dispatch(now: 0) == ([], false))
        core.park(ParkedStop(request: 2, place: .wake), waiter: "two")
        #expect(core.dispatch(now: 0).effects == [.resume("two", .proceed)])
    }

    @Test("a replay that finds its request elsewhere stops replaying and says where it was")
    func replayDiverges() {
        var core = Core(replay: [RecordedCommand(command: .pass(request: 1), place: Self.pre(0))])
        #expect(core.dispatch(now: 0) == ([], true))
        #expect(core.replay == nil)
        #expect(core.refusals.map(\.reason) == ["replay diverged at step 1: expected request #1 at hop 1 pre, found it not waiting at a stop"])
    }

    @Test("shutting down fails every parked request in id order, and every later arrival")
    func shutDown() {
        var core = Self.parkedAtLaunch(2)
        let ended = Release(disposition: .fail(.sessionEnded))
        #expect(core.shutDown() == [.resume("launch 1", ended), .resume("launch 2", ended)])
        #expect(core.running == [1, 2])
        #expect(core.arrive(request: 1, place: Self.pre(1)) == .sessionEnded)
        #expect(!core.mayPassWithoutTurn(1))
    }
}

@Suite("Scheduler core: launching a scenario")
struct SchedulerLaunchBatchTests {
    typealias Core = SchedulerCore<String>

    /// What a headless run of a scripted scenario (refresh-storm) used to race on: its
    /// launches were queued one by one, so request #1 could reach its launch stop and take the
    /// script's first step before #2 was queued; the script's step for #2 then found it not
    /// waiting and was dropped.
    @Test("launches queued as one batch all run before the script's first step")
    func batchBeforeScript() {
        var core = Core(script: [Scenario.ScriptStep(request: 1, until: .refresh), Scenario.ScriptStep(request: 2, until: .refresh)])
        // As Scheduler.submit([LabCommand]) queues them: both before any round.
        core.submit(.launch(operation: 0))
        core.submit(.launch(operation: 0))
        #expect(core.dispatch(now: 0).effects == [.launch(operation: 0, request: 1)])
        core.park(ParkedStop(request: 1, place: .launch), waiter: "launch 1")
        #expect(core.dispatch(now: 0).effects == [.launch(operation: 0, request: 2)])
        core.park(ParkedStop(request: 2, place: .launch), waiter: "launch 2")
        #expect(core.dispatch(now: 0).effects == [.resume("launch 1", .proceed)])
        core.park(ParkedStop(request: 1, place: .refresh), waiter: "refresh 1")
        #expect(core.dispatch(now: 0).effects == [.resume("launch 2", .proceed)])
        #expect(core.log.map(\.command) == [.launch(operation: 0), .launch(operation: 0), .pass(request: 1), .pass(request: 2)])
    }

    @Test("a script step waits while its request is held: the others take turns meanwhile, and the script goes on once it is released")
    func scriptWaitsForHeldRequest() {
        var core = Core(script: [Scenario.ScriptStep(request: 1, until: .refresh), Scenario.ScriptStep(request: 2, until: .refresh)])
        core.submit(.launch(operation: 0))
        core.submit(.launch(operation: 0))
        _ = core.dispatch(now: 0)
        core.park(ParkedStop(request: 1, place: .launch), waiter: "launch 1")
        _ = core.dispatch(now: 0)
        core.park(ParkedStop(request: 2, place: .launch), waiter: "launch 2")
        #expect(core.dispatch(now: 0).effects == [.resume("launch 1", .proceed)])
        let held = ParkedStop(request: 1, place: .hop(1, .pre), hopName: "AuthInterceptor", held: true)
        core.park(held, waiter: "held 1")
        // #1 is held: #2 takes its turn.
        #expect(core.dispatch(now: 0).effects == [.resume("launch 2", .proceed)])
        core.park(ParkedStop(request: 2, place: .hop(1, .pre)), waiter: "hop 1 of 2")
        core.submit(.resume(request: 1))
        #expect(core.dispatch(now: 0).effects == [.record(held.event(time: 0, phase: .resumed, detail: "continue")), .resume("held 1", .proceed)])
        core.park(ParkedStop(request: 1, place: .hop(2, .pre)), waiter: "hop 2 of 1")
        // #2 is first in turn, but the script's step for #1 was kept: #1 goes on to its refresh.
        #expect(core.dispatch(now: 0).effects == [.resume("hop 2 of 1", .proceed)])
        #expect(core.log.map(\.command) == [
            .launch(operation: 0), .launch(operation: 0), .pass(request: 1), .pass(request: 2), .resume(request: 1), .pass(request: 1),
        ])
    }

    @Test("a launch queued after the script has begun finds the step for its request dropped: the race the batch prevents")
    func lateLaunchLosesItsStep() {
        var core = Core(script: [Scenario.ScriptStep(request: 1, until: .refresh), Scenario.ScriptStep(request: 2, until: .refresh)])
        core.submit(.launch(operation: 0))
        _ = core.dispatch(now: 0)
        core.park(ParkedStop(request: 1, place: .launch), waiter: "launch 1")
        #expect(core.dispatch(now: 0).effects == [.resume("launch 1", .proceed)])
        core.park(ParkedStop(request: 1, place: .refresh), waiter: "refresh 1")
        // #2 is not launched yet: its step is dropped, and #1 goes on to refresh alone.
        #expect(core.dispatch(now: 0).effects == [.resume("refresh 1", .proceed)])
        #expect(core.log.map(\.command) == [.launch(operation: 0), .pass(request: 1), .pass(request: 1)])
    }
}
