import ChainKit
import Foundation
import Testing
@testable import Timeline
@testable import Lab
@testable import Scheduling

/// A debugger must not change what it debugs: a stop released at once leaves the run as it
/// was without the stop.
@Suite("Stops do not change the run")
struct RuleStopFidelityTests {
    /// The events of a run that are not a stop's own, each with seq 0: a stop's events shift
    /// the seqs after them.
    static func withoutStops(_ result: LabSession.RunResult) -> [TimelineEvent] {
        result.events.filter { !isStopEvent($0) }.map { event in
            var event = event
            event.seq = 0
            return event
        }
    }

    static func shown(_ event: TimelineEvent) -> String {
        "#\(event.request).\(event.attempt) \(event.name) \(event.phase) \(event.detail ?? "") @\(event.time)"
    }

    static func isStopEvent(_ event: TimelineEvent) -> Bool {
        if event.phase == .paused { return true }
        guard event.phase == .resumed, let detail = event.detail else { return false }
        return detail.hasPrefix("continue · ")
    }

    /// Every place a rule can name in `scenario`: answer, refresh, and both sides of each hop.
    static func rules(for scenario: Scenario) -> [BreakRule] {
        var names: [String] = []
        for hop in scenario.chain.hops() where !names.contains(hop.name) { names.append(hop.name) }
        return [BreakRule(place: .answer), BreakRule(place: .refresh)]
            + names.flatMap { [BreakRule(place: .hop(name: $0, .pre)), BreakRule(place: .hop(name: $0, .post))] }
    }

    @Test("every built-in rule, released at once, leaves every scenario's run as it is without it", arguments: Catalog.scenarios.map(\.name))
    func everyRuleEveryScenario(_ name: String) async throws {
        let scenario = try #require(Catalog.scenario(named: name))
        let plain = await LabSession(scenario: scenario).runHeadless()
        let expected = Self.withoutStops(plain)
        var stopped = 0
        for rule in Self.rules(for: scenario) {
            var ruled = scenario
            ruled.breakpoints = [rule]
            let result = await LabSession(scenario: ruled).runHeadless()
            let seen = Self.withoutStops(result)
            let paused = result.events.filter { $0.phase == .paused }.count
            let resumed = result.events.filter { $0.phase == .resumed && Self.isStopEvent($0) }.count
            stopped += paused
            #expect(seen.count == expected.count, "\(name) with \(rule): \(seen.count) events, \(expected.count) without the rule")
            if let first = seen.indices.first(where: { $0 < expected.count && seen[$0] != expected[$0] }) {
                Issue.record("\(name) with \(rule) differs at event \(first): \(Self.shown(seen[first])) where the run without it has \(Self.shown(expected[first]))")
            }
            #expect(result.requests.map(\.outcome) == plain.requests.map(\.outcome), "\(name) with \(rule)")
            #expect(result.backend == plain.backend, "\(name) with \(rule)")
            #expect(result.refusals.isEmpty, "\(name) with \(rule)")
            // Every stop the rule held was released.
            #expect(resumed == paused, "\(name) with \(rule)")
        }
        // The rules did stop the run: the comparison is not of runs a rule never touched.
        #expect(stopped > 0)
    }

    @Test("refresh-storm with a rule on the refresh still storms: six refreshes, the first after all five 401s, five refused, the family revoked")
    func stormUnderRefreshRule() async throws {
        var scenario = try #require(Catalog.scenario(named: "refresh-storm"))
        scenario.breakpoints = [try BreakRule(parsing: "refresh")]
        let result = await LabSession(scenario: scenario).runHeadless()
        let refreshes = result.events.filter { $0.kind == .auth && $0.phase == .refresh }
        // #2 to #5 present the refresh token #1 just spent; the reuse revokes the family, so
        // #1's retry is refused too, and its own second refresh.
        #expect(refreshes.map(\.status) == [200, 400, 400, 400, 400, 400])
        #expect(result.events.filter { $0.phase == .paused }.map(\.request) == [1, 2, 3, 4, 5, 1])
        #expect(result.backend["refreshRejected"] == 5)
        #expect(result.backend["familiesRevoked"] == 1)
        // All five 401s come before the first refresh is sent, as in the run without the rule.
        let firstSend = try #require(result.events.first { $0.kind == .auth && $0.phase == .send }).seq
        #expect(result.events.filter { $0.kind == .transport && $0.phase == .receive && $0.status == 401 && $0.seq < firstSend }.count == 5)
    }
}
