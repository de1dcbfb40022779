import ChainKit
import Foundation
import Testing
import Timeline
import TimelineFilter
@testable import Lab
@testable import Scheduling

/// Filter expressions evaluated against recorded runs of the built-in scenarios.
@Suite("Filters over recorded runs")
struct RequestFilterTests {
    static func run(_ name: String) async -> LabSession.RunResult {
        await LabSession(scenario: Catalog.scenario(named: name)!).runHeadless()
    }

    @Test("each scenario's requests, as the filters select them", arguments: [
        // Five 401s; #1's refresh won, the other four were refused, and #1 retried.
        ("refresh-storm", "~retry", [1]),
        ("refresh-storm", "!~retry & ~c 401", [2, 3, 4, 5]),
        ("refresh-storm", "~err & ~refresh & ~finding", [1, 2, 3, 4, 5]),
        ("refresh-storm", "~b invalid_grant", [1, 2, 3, 4, 5]),
        ("refresh-storm", "~c 2xx", [1]),
        // Single-flight: every request retried with the shared token and succeeded.
        ("refresh-storm-fixed", "~retry & ~c 200 & !~err", []),
        ("refresh-storm-fixed", "~retry & ~c 200", [1, 2, 3, 4, 5]),
        ("basics", "~op ^HeroQuery$ & ~hop ^transport$ & ~m POST & ~h ^authorization: & !~cache", [1]),
        ("basics", "~cache | ~retry | ~err | ~held | ~edited | ~finding | ~refresh", []),
        ("cache-fallback", "~cache & ~c 5xx", [1]),
        ("apq", "~b PersistedQueryNotFound & ~retry", [1]),
        ("apq", "~u hash", []),
        ("stale-token", "~c 401 & ~retry & ~err & ~finding", [1]),
        ("openapi-middleware", "~op getHero & ~m GET & ~u /heroes/2001 & ~hop transport", [1]),
        ("empty-401", "~err & ~c 401 & !~retry & !~refresh", [1]),
    ])
    func selects(_ scenario: String, _ expression: String, _ expected: [Int]) async throws {
        let result = await Self.run(scenario)
        let filter = try FilterExpression(parsing: expression)
        #expect(result.requests(matching: filter, operationNames: [:]) == expected)
    }

    @Test("a filtered run keeps the matching requests' summaries and events, and the whole run's findings that cite them")
    func filtered() async throws {
        let result = await Self.run("refresh-storm")
        let kept = result.filtered(by: try FilterExpression(parsing: "!~retry"), operationNames: [:])
        #expect(kept.requests.map(\.id) == [2, 3, 4, 5])
        #expect(Set(kept.events.map(\.request)) == [2, 3, 4, 5])
        #expect(kept.events.count == result.events.filter { $0.request > 1 }.count)
        #expect(kept.findings.map(\.id) == result.findings.map(\.id))
        #expect(!result.findings.isEmpty)
        let none = result.filtered(by: try FilterExpression(parsing: "~cache"), operationNames: [:])
        #expect(none.requests.isEmpty && none.events.isEmpty && none.findings.isEmpty)
    }
}
