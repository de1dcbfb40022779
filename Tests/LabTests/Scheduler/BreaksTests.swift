@testable import Lab
@testable import Scheduling
import Testing
import Timeline

/// What holds a request for a person, without the core.
@Suite("Breaks")
struct BreaksTests {
    static let holdable: [StopPlace] = [.hop(0, .pre), .hop(3, .post), .refresh]

    @Test("a request in step mode is held at every stop a person can hold, never at launch or wake")
    func stepMode() {
        var breaks = Breaks(defaultMode: .step)
        breaks.launch(1)
        #expect(breaks.stepping == [1] && breaks.isStepping(1))
        #expect(Self.holdable.map { breaks.holds(request: 1, at: $0) } == [true, true, true])
        #expect(breaks.holds(request: 1, at: .launch) == false && breaks.holds(request: 1, at: .wake) == false)
        #expect(breaks.holdReason(request: 1) == "step")
        // Step mode alone is no breakpoint.
        #expect(breaks.holdOnlyInStepMode)

        breaks.setDefaultMode(.run)
        breaks.launch(2)
        #expect(breaks.stepping == [1] && !breaks.isStepping(2))
        #expect(Self.holdable.map { breaks.holds(request: 2, at: $0) } == [false, false, false])
        breaks.setMode(.run, of: 1)
        breaks.setMode(.step, of: 2)
        #expect(breaks.stepping == [2])
    }

    @Test("a breakpoint holds every request at its stop, or only the request it names")
    func breakpoints() {
        var breaks = Breaks(defaultMode: .run)
        breaks.setBreakpoint(Scheduler.Breakpoint(hop: 2, position: .post), enabled: true)
        breaks.setBreakpoint(Scheduler.Breakpoint(hop: 3, position: .pre, request: 2), enabled: true)
        #expect(!breaks.holdOnlyInStepMode)
        #expect(breaks.holds(request: 1, at: .hop(2, .post)) && breaks.holds(request: 7, at: .hop(2, .post)))
        #expect(!breaks.holds(request: 1, at: .hop(2, .pre)))
        #expect(breaks.holds(request: 2, at: .hop(3, .pre)) && !breaks.holds(request: 1, at: .hop(3, .pre)))
        #expect(breaks.holdReason(request: 2) == "breakpoint")
        breaks.setBreakpoint(Scheduler.Breakpoint(hop: 2, position: .post), enabled: false)
        breaks.setBreakpoint(Scheduler.Breakpoint(hop: 3, position: .pre, request: 2), enabled: false)
        #expect(breaks.breakpoints.isEmpty && breaks.holdOnlyInStepMode)
        #expect(!breaks.holds(request: 2, at: .hop(3, .pre)))
    }

    @Test("rules are active only while one of them is enabled")
    func rules() throws {
        var breaks = Breaks(defaultMode: .run)
        let off = BreakRule(place: .answer, isEnabled: false)
        breaks.setRules([off])
        #expect(breaks.rules == [off] && !breaks.hasActiveRules && breaks.holdOnlyInStepMode)
        let on = try BreakRule(parsing: "post@AuthInterceptor if ~c 401")
        breaks.setRules([off, on])
        #expect(breaks.rules == [off, on] && breaks.hasActiveRules && !breaks.holdOnlyInStepMode)
        breaks.setRules([])
        #expect(!breaks.hasActiveRules)
    }

    @Test("a rule's stop is released at once only in a headless run and not during a replay; the lane says so once, when it moves")
    func releasedByRule() {
        var breaks = Breaks(defaultMode: .run)
        let key = LaneKey(1, .cache)
        #expect(breaks.releasesAtOnce(ruleStop: key, replaying: false) == false)
        #expect(breaks.moves(key) == false)
        breaks.releasesRuleStops = true
        #expect(breaks.releasesAtOnce(ruleStop: key, replaying: true) == false)
        #expect(breaks.moves(key) == false)
        #expect(breaks.releasesAtOnce(ruleStop: key, replaying: false) == true)
        #expect(breaks.moves(LaneKey(1, .network)) == false)
        #expect(breaks.moves(key) == true)
        #expect(breaks.moves(key) == false)
        #expect(breaks.releasesAtOnce(ruleStop: key, replaying: false) == true)
        breaks.forgetReleased()
        #expect(breaks.moves(key) == false)
    }
}
