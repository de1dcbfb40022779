import Backend
import ChainKit
import Lab
import Testing

@Suite struct OAuthTokenEndpointTests {
    @Test func passwordGrantReturnsSection51Fields() {
        let lab = BackendHarness()
        let response = lab.token("grant_type=password&username=demo&password=demo")
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(response.headers["Cache-Control"] == "no-store")
        #expect(response.headers["Pragma"] == "no-cache")
        #expect(response.text == #"{"access_token":"at-1-1","expires_in":300,"refresh_token":"rt-1-1","token_type":"Bearer"}"#)
        #expect(lab.heroQuery(token: "at-1-1").text == heroData)
    }

    @Test func issueTokensMatchesAPasswordSignIn() {
        let lab = BackendHarness()
        #expect(lab.backend.issueTokens() == TokenPair(accessToken: "at-1-1", refreshToken: "rt-1-1"))
        #expect(lab.token("grant_type=password&username=demo&password=demo").json?["access_token"] == "at-2-1")
    }

    @Test func wrongPasswordIsInvalidGrant() {
        let lab = BackendHarness()
        let response = lab.token("grant_type=password&username=demo&password=hunter2")
        #expect(response.status == 400)
        #expect(response.headers["Cache-Control"] == "no-store")
        #expect(response.text == #"{"error":"invalid_grant","error_description":"the username or password is wrong"}"#)
    }

    @Test func missingGrantTypeIsInvalidRequest() {
        let lab = BackendHarness()
        let response = lab.token("username=demo&password=demo")
        #expect(response.status == 400)
        #expect(response.text == #"{"error":"invalid_request","error_description":"grant_type is missing"}"#)
    }

    @Test func unknownGrantTypeIsUnsupportedGrantType() {
        let lab = BackendHarness()
        let response = lab.token("grant_type=client_credentials")
        #expect(response.status == 400)
        #expect(response.json?["error"] == "unsupported_grant_type")
    }

    @Test func repeatedParameterIsInvalidRequest() {
        let lab = BackendHarness()
        let response = lab.token("grant_type=password&grant_type=refresh_token")
        #expect(response.status == 400)
        #expect(response.text == #"{"error":"invalid_request","error_description":"parameter \"grant_type\" appears more than once"}"#)
    }

    @Test func bodyThatIsNotFormEncodedIsInvalidRequest() {
        let lab = BackendHarness()
        let response = lab.send("POST", "/oauth/token", headers: [("Content-Type", "application/json")], body: #"{"grant_type":"password"}"#)
        #expect(response.status == 400)
        #expect(response.json?["error"] == "invalid_request")
    }

    @Test func formValuesArePercentDecoded() {
        let lab = BackendHarness()
        let response = lab.token("grant_type=password&username=%64emo&password=d%65mo")
        #expect(response.status == 200)
    }

    @Test func refreshRotatesTheRefreshTokenEveryTime() {
        let lab = BackendHarness()
        _ = lab.backend.issueTokens()
        let first = lab.refresh("rt-1-1")
        #expect(first.text == #"{"access_token":"at-1-2","expires_in":300,"refresh_token":"rt-1-2","token_type":"Bearer"}"#)
        let second = lab.refresh("rt-1-2")
        #expect(second.text == #"{"access_token":"at-1-3","expires_in":300,"refresh_token":"rt-1-3","token_type":"Bearer"}"#)
        #expect(lab.heroQuery(token: "at-1-3").text == heroData)
    }

    @Test func reusedRefreshTokenIsInvalidGrantAndRevokesTheFamily() {
        let lab = BackendHarness()
        _ = lab.backend.issueTokens()
        let other = lab.backend.issueTokens()
        #expect(lab.refresh("rt-1-1").status == 200)
        let reuse = lab.refresh("rt-1-1")
        #expect(reuse.status == 400)
        #expect(reuse.text == #"{"error":"invalid_grant","error_description":"the refresh token was already used; every token from the same sign-in is now revoked"}"#)
        let newer = lab.heroQuery(token: "at-1-2")
        #expect(newer.status == 401)
        #expect(newer.json?["errors"]?[0]?["message"] == "access token revoked")
        #expect(lab.refresh("rt-1-2").text == #"{"error":"invalid_grant","error_description":"the refresh token was revoked"}"#)
        #expect(lab.heroQuery(token: other.accessToken).text == heroData)
        #expect(lab.backend.counters["familiesRevoked"] == 1)
    }

    @Test func withoutReuseDetectionReuseIsRefusedButRevokesNothing() {
        var settings = LabBackend.Settings()
        settings.reuseDetection = false
        let lab = BackendHarness(settings)
        _ = lab.backend.issueTokens()
        #expect(lab.refresh("rt-1-1").status == 200)
        #expect(lab.refresh("rt-1-1").text == #"{"error":"invalid_grant","error_description":"the refresh token was already used"}"#)
        #expect(lab.heroQuery(token: "at-1-2").text == heroData)
        #expect(lab.refresh("rt-1-2").status == 200)
    }

    @Test func withoutRotationTheSameRefreshTokenKeepsWorking() {
        var settings = LabBackend.Settings()
        settings.rotateRefreshTokens = false
        let lab = BackendHarness(settings)
        _ = lab.backend.issueTokens()
        #expect(lab.refresh("rt-1-1").text == #"{"access_token":"at-1-2","expires_in":300,"refresh_token":"rt-1-1","token_type":"Bearer"}"#)
        #expect(lab.refresh("rt-1-1").json?["access_token"] == "at-1-3")
    }

    @Test func unknownRefreshTokenIsInvalidGrant() {
        let lab = BackendHarness()
        let response = lab.refresh("rt-7-1")
        #expect(response.status == 400)
        #expect(response.text == #"{"error":"invalid_grant","error_description":"the refresh token is not one this server issued"}"#)
    }

    @Test func refreshedAccessTokenGetsAFreshTTL() {
        var settings = LabBackend.Settings()
        settings.tokenTTL = 10
        let lab = BackendHarness(settings)
        _ = lab.backend.issueTokens()
        lab.advance(seconds: 8)
        #expect(lab.refresh("rt-1-1").json?["expires_in"] == 10)
        lab.advance(seconds: 8)
        #expect(lab.heroQuery(token: "at-1-1").status == 401)
        #expect(lab.heroQuery(token: "at-1-2").status == 200)
    }
}
