import Backend
import ChainKit
import Lab
import Testing

@Suite struct CountersTests {
    @Test func countersStartAtZero() {
        let lab = BackendHarness()
        #expect(lab.backend.counters == [
            "graphqlRequests": 0, "tokenRefreshes": 0, "refreshRejected": 0, "passwordGrants": 0, "apqMisses": 0,
            "apqRegistered": 0, "restRequests": 0, "unauthorized": 0, "injectedFailures": 0, "familiesRevoked": 0,
        ])
    }

    @Test func countersAfterARefreshStormScript() {
        let lab = BackendHarness()
        let signIn = lab.token("grant_type=password&username=demo&password=demo")
        #expect(signIn.status == 200)
        lab.backend.expireAllAccessTokens()
        for _ in 0..<3 { #expect(lab.heroQuery(token: "at-1-1").status == 401) }
        #expect(lab.refresh("rt-1-1").status == 200)
        #expect(lab.refresh("rt-1-1").status == 400)
        #expect(lab.refresh("rt-1-2").status == 400)
        #expect(lab.heroQuery(token: "at-1-2").status == 401)
        lab.backend.injectFailures(1, status: 502)
        #expect(lab.send("GET", "/heroes/2001").status == 502)
        #expect(lab.backend.counters == [
            "graphqlRequests": 4, "tokenRefreshes": 3, "refreshRejected": 2, "passwordGrants": 1, "apqMisses": 0,
            "apqRegistered": 0, "restRequests": 0, "unauthorized": 4, "injectedFailures": 1, "familiesRevoked": 1,
        ])
    }
}
