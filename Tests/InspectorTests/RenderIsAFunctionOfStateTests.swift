import ChainKit
import Inspector
import Lab
import TerminalUI
import Testing
import Timeline

@Suite("Render reads only the state")
struct RenderIsAFunctionOfStateTests {
    @Test("a frame of a state taken at seq N stays the same when the lab records more events before it is drawn")
    func frameIgnoresEventsRecordedAfterTheState() async throws {
        let driver = Driver()
        await driver.press(.char("n"))
        await driver.step(until: .hop(3, .pre))
        // The Timeline pane draws the selected request's events, and Detail the stop's.
        driver.state.focus = .timeline
        let taken = driver.state.lab.lastSeq
        let before = driver.screen()

        // The lab goes on (request #1 runs to its end) but no `.labChanged` reaches the state.
        driver.session.submit(.resume(request: 1))
        await driver.session.waitUntilSettled()
        #expect(driver.session.lastSeq > taken, "the lab must have recorded more events for the test to mean anything")
        #expect(driver.state.lab.lastSeq == taken)
        #expect(driver.state.lab.timeline.events(request: 1).allSatisfy { $0.seq <= taken })
        #expect(driver.screen() == before)

        // The same change delivered as a message does change the frame.
        await driver.refresh()
        #expect(driver.state.lab.lastSeq == driver.session.lastSeq)
        #expect(driver.screen() != before)
    }
}
