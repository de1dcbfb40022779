import ChainKit
import Lab
import Testing
import Timeline

@Suite("LabSession's façade")
struct LabSessionFacadeTests {
    @Test("breakpoints, step mode, control, the timeline up to a seq and the command log, all through the session")
    func drivingAndReadingThroughTheFacade() async throws {
        let session = LabSession(scenario: try #require(Catalog.scenario(named: "basics")))
        #expect(!session.stepMode)
        let transport = Breakpoint(hop: BasicsHop.transport, position: .pre)
        session.setBreakpoint(transport, enabled: true)
        #expect(session.breakpoints == [transport])
        let before = session.controlVersion
        session.submit(.launch(operation: 0))
        await session.waitUntilSettled()
        #expect(session.controlVersion > before)
        #expect(session.control.parked.map(\.place) == [.hop(BasicsHop.transport, .pre)])
        let held = session.lastSeq
        let atStop = session.timeline(upTo: held)

        session.setBreakpoint(transport, enabled: false)
        session.setStepMode(true)
        #expect(session.stepMode)
        #expect(session.breakpoints == [])
        session.submit(.resume(request: 1))
        await session.waitUntilSettled()
        #expect(session.control.parked == [])
        #expect(session.summaries[1]?.outcome == .success)
        #expect(session.lastSeq > held)
        #expect(atStop.events().map(\.seq) == Array(1...held))
        #expect(session.timeline().events().map(\.seq) == Array(1...session.lastSeq))
        // Every stop passed without being held is logged as a pass: six up to the transport's
        // pre-flight stop (launch, hops 0–4), six after it. Step mode applies to requests
        // launched later, so request #1 ran on to its end.
        let passes = Array(repeating: LabCommand.pass(request: 1), count: 6)
        #expect(session.commandLog.map(\.command) == [.launch(operation: 0)] + passes + [.resume(request: 1)] + passes)
        await session.shutDown()
    }
}
