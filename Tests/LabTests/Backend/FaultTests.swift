import Backend
import ChainKit
import Lab
import Testing

@Suite struct FaultTests {
    @Test func serverErrorModeFailsEveryRequest() {
        let lab = BackendHarness(LabBackend.Settings(serverErrorMode: .always(status: 500)))
        #expect(lab.token("grant_type=password&username=demo&password=demo").status == 500)
        #expect(lab.heroQuery(token: nil).status == 500)
        #expect(lab.backend.counters["injectedFailures"] == 2)
    }

    @Test func failNextFromSettingsCountsDown() {
        let lab = BackendHarness(LabBackend.Settings(failNext: 1, failNextStatus: 504))
        let token = lab.backend.issueTokens().accessToken
        #expect(lab.heroQuery(token: token).status == 504)
        #expect(lab.backend.settings.failNext == 0)
        #expect(lab.heroQuery(token: token).status == 200)
    }

    @Test func injectFailuresReplacesQueuedFailures() {
        let lab = BackendHarness()
        let token = lab.backend.issueTokens().accessToken
        lab.backend.injectFailures(5, status: 503)
        lab.backend.injectFailures(1, status: 500)
        #expect(lab.heroQuery(token: token).status == 500)
        #expect(lab.heroQuery(token: token).status == 200)
    }

    @Test func notFoundAndMethodNotAllowedDoNotUseAFailure() {
        let lab = BackendHarness(LabBackend.Settings(failNext: 1))
        #expect(lab.send("GET", "/nowhere").status == 404)
        #expect(lab.send("DELETE", "/graphql").status == 405)
        #expect(lab.backend.settings.failNext == 1)
    }

    @Test func latencyIsReportedOnTheResponseWithoutSleeping() {
        let lab = BackendHarness(LabBackend.Settings(latency: 1.5))
        let response = lab.heroQuery(token: lab.backend.issueTokens().accessToken)
        #expect(response.latency == 1.5)
        #expect(response.headers["X-Lab-Latency"] == nil)
        #expect(lab.clock.now.seconds == 0)
    }

    @Test func updateSettingsChangesLatencyForLaterRequests() {
        let lab = BackendHarness()
        lab.backend.updateSettings { $0.latency = 0.25 }
        #expect(lab.send("GET", "/heroes").latency == 0.25)
    }
}
