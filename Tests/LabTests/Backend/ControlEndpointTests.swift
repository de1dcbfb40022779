import Backend
import ChainKit
import Lab
import Testing

@Suite struct ControlEndpointTests {
    @Test func expireTokensReportsHowManyWereLive() {
        let lab = BackendHarness()
        let first = lab.backend.issueTokens()
        _ = lab.backend.issueTokens()
        let response = lab.send("POST", "/_lab/expire-tokens")
        #expect(response.status == 200)
        #expect(response.text == #"{"expiredAccessTokens":2}"#)
        #expect(lab.heroQuery(token: first.accessToken).status == 401)
    }

    @Test func authModeSwitchesTheMode() {
        let lab = BackendHarness()
        let response = lab.send("POST", "/_lab/auth-mode", body: "emptyBody401\n")
        #expect(response.status == 200)
        #expect(response.text == #"{"authFailureMode":"emptyBody401"}"#)
        let refused = lab.heroQuery(token: nil)
        #expect(refused.status == 401)
        #expect(refused.body.isEmpty)
    }

    @Test func authModeRejectsAnUnknownModeNamingTheValidOnes() {
        let lab = BackendHarness()
        let response = lab.send("POST", "/_lab/auth-mode", body: "teapot")
        #expect(response.status == 400)
        #expect(response.text == #"{"error":"bad_request","message":"unknown auth mode \"teapot\"; known: status401, graphQLError200, emptyBody401"}"#)
    }

    @Test func failNextAnswersTheNextRequestsWithTheStatus() {
        let lab = BackendHarness()
        let token = lab.backend.issueTokens().accessToken
        #expect(lab.send("POST", "/_lab/fail-next", body: #"{"count":2,"status":503}"#).text == #"{"failNext":2,"status":503}"#)
        let failed = lab.heroQuery(token: token)
        #expect(failed.status == 503)
        #expect(failed.headers["Content-Type"] == "application/json")
        #expect(failed.text == #"{"errors":[{"extensions":{"code":"INTERNAL_SERVER_ERROR"},"message":"lab backend: injected 503 Service Unavailable"}]}"#)
        #expect(lab.send("GET", "/_lab/state").status == 200)
        #expect(lab.heroQuery(token: token).status == 503)
        #expect(lab.heroQuery(token: token).status == 200)
    }

    @Test func failNextRejectsAStatusOutside5xx() {
        let lab = BackendHarness()
        let response = lab.send("POST", "/_lab/fail-next", body: #"{"count":1,"status":200}"#)
        #expect(response.status == 400)
        #expect(response.text == #"{"error":"bad_request","message":"status must be a whole number in 500...599"}"#)
        #expect(lab.send("POST", "/_lab/fail-next", body: #"{"count":-1}"#).status == 400)
        #expect(lab.send("POST", "/_lab/fail-next", body: "three").status == 400)
    }

    @Test func stateReportsCountersAndModes() {
        let lab = BackendHarness()
        _ = lab.heroQuery(token: nil)
        let response = lab.send("GET", "/_lab/state")
        #expect(response.status == 200)
        #expect(response.text == #"{"authFailureMode":"status401","counters":{"apqMisses":0,"apqRegistered":0,"familiesRevoked":0,"graphqlRequests":1,"injectedFailures":0,"passwordGrants":0,"refreshRejected":0,"restRequests":0,"tokenRefreshes":0,"unauthorized":1},"failNext":0,"failNextStatus":503}"#)
    }

    @Test func controlRoutesIgnoreFaultsAndLatency() {
        let lab = BackendHarness(LabBackend.Settings(serverErrorMode: .always(status: 500), latency: 2))
        let response = lab.send("GET", "/_lab/state")
        #expect(response.status == 200)
        #expect(response.latency == 0)
    }
}
