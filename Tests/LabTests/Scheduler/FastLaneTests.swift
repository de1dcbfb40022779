import ChainKit
import Lab
import Testing
import Timeline

/// A free run's stops cost one atomic load: `passesStraight` must say yes exactly when the
/// locked path would have let the operation through without a turn.
@Suite("Fast lane")
struct FastLaneTests {
    /// A free-run scheduler without a command log whose launches are only remembered.
    static func scheduler(recordsLog: Bool = false) -> (Scheduler, Locked<[Int]>) {
        let launched = Locked<[Int]>([])
        let scheduler = Scheduler(
            environment: Scheduler.Environment(
                record: { _ in }, now: { 0 }, launch: { _, request in launched.withLock { $0.append(request) } },
                advanceClock: { _ in }, expireTokens: {}),
            recordsLog: recordsLog)
        return (scheduler, launched)
    }

    @Test("only the one running request of a free run passes straight")
    func soloRequestPasses() {
        let (scheduler, _) = Self.scheduler()
        #expect(!scheduler.passesStraight(request: 1))
        scheduler.submit(.launch(operation: 0))
        #expect(scheduler.passesStraight(request: 1))
        #expect(!scheduler.passesStraight(request: 2))
        scheduler.finish(request: 1)
        #expect(!scheduler.passesStraight(request: 1))
    }

    @Test("a second running request, a breakpoint, step mode or a command log close the lane")
    func laneCloses() {
        let (scheduler, _) = Self.scheduler()
        scheduler.submit(.launch(operation: 0))
        #expect(scheduler.passesStraight(request: 1))
        scheduler.setBreakpoint(Scheduler.Breakpoint(hop: 3, position: .post), enabled: true)
        #expect(!scheduler.passesStraight(request: 1))
        scheduler.setBreakpoint(Scheduler.Breakpoint(hop: 3, position: .post), enabled: false)
        #expect(scheduler.passesStraight(request: 1))
        scheduler.submit(.launch(operation: 0))
        #expect(!scheduler.passesStraight(request: 1))
        #expect(!scheduler.passesStraight(request: 2))

        let (stepping, _) = Self.scheduler()
        stepping.setDefaultMode(.step)
        stepping.submit(.launch(operation: 0))
        #expect(!stepping.passesStraight(request: 1))

        let (logging, _) = Self.scheduler(recordsLog: true)
        logging.submit(.launch(operation: 0))
        #expect(!logging.passesStraight(request: 1))
    }

    @Test("shutting down closes the lane")
    func shutDownClosesTheLane() {
        let (scheduler, _) = Self.scheduler()
        scheduler.submit(.launch(operation: 0))
        #expect(scheduler.passesStraight(request: 1))
        scheduler.shutDown()
        #expect(!scheduler.passesStraight(request: 1))
    }
}
