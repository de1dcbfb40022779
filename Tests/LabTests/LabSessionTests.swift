import ChainKit
import Lab
import Testing
import Timeline
import Exports

@Suite("LabSession")
struct LabSessionTests {
    @Test("basics runs headless to success in one attempt")
    func basics() async throws {
        let session = LabSession(scenario: try #require(Catalog.scenario(named: "basics")))
        let result = await session.runHeadless()
        #expect(result.requests == [RequestSummary(id: 1, operation: "HeroQuery", outcome: .success, attempts: 1, error: nil, results: ["server"], operationType: "query")])
        for line in TextTrace.lines(result.events, masking: .masked) { print(line) }
    }
}
