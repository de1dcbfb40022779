import Backend
import ChainKit
import Dispatch
import Lab
import Testing

@Suite struct ConcurrencyAndCapacityTests {
    @Test func requestsFromManyThreadsAreAllServedAndCounted() {
        let lab = BackendHarness()
        let token = lab.backend.issueTokens().accessToken
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<100 { _ = lab.heroQuery(token: token) }
        }
        #expect(lab.backend.counters["graphqlRequests"] == 800)
        #expect(lab.backend.counters["unauthorized"] == 0)
    }

    @Test func oldestTokenFamiliesAreForgottenPastTheCapacity() {
        let lab = BackendHarness()
        for _ in 0..<50_001 { _ = lab.backend.issueTokens() }
        #expect(lab.heroQuery(token: "at-1-1").json?["errors"]?[0]?["message"] == "unknown access token")
        #expect(lab.heroQuery(token: "at-2-1").text == heroData)
        #expect(lab.heroQuery(token: "at-50001-1").text == heroData)
    }
}
