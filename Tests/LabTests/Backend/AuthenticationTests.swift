import Backend
import ChainKit
import Lab
import Testing

@Suite struct AuthenticationTests {
    @Test func accessTokenWorksUntilItsTTLOnTheInjectedClock() {
        var settings = LabBackend.Settings()
        settings.tokenTTL = 60
        let lab = BackendHarness(settings)
        let token = lab.backend.issueTokens().accessToken
        lab.advance(seconds: 59)
        #expect(lab.heroQuery(token: token).status == 200)
        lab.advance(seconds: 1)
        let expired = lab.heroQuery(token: token)
        #expect(expired.status == 401)
        #expect(expired.json?["errors"]?[0]?["message"] == "access token expired")
    }

    @Test func status401ModeAnswers401WithAnUnauthenticatedError() {
        let lab = BackendHarness()
        let response = lab.heroQuery(token: "at-9-9")
        #expect(response.status == 401)
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(response.headers["WWW-Authenticate"] == #"Bearer realm="lab", error="invalid_token", error_description="unknown access token""#)
        #expect(response.text == #"{"errors":[{"extensions":{"code":"UNAUTHENTICATED"},"message":"unknown access token"}]}"#)
    }

    @Test func graphQLError200ModeAnswers200WithNullDataAndTheError() {
        var settings = LabBackend.Settings()
        settings.authFailureMode = .graphQLError200
        let lab = BackendHarness(settings)
        let response = lab.heroQuery(token: nil)
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(response.headers["WWW-Authenticate"] == nil)
        #expect(response.text == #"{"data":null,"errors":[{"extensions":{"code":"UNAUTHENTICATED"},"message":"missing bearer token"}]}"#)
    }

    @Test func emptyBody401ModeAnswers401WithNoBody() {
        var settings = LabBackend.Settings()
        settings.authFailureMode = .emptyBody401
        let lab = BackendHarness(settings)
        let response = lab.heroQuery(token: nil)
        #expect(response.status == 401)
        #expect(response.body.isEmpty)
        #expect(response.headers["WWW-Authenticate"] == #"Bearer realm="lab""#)
    }

    @Test func restRoutesAnswerGraphQLError200ModeWith401() {
        var settings = LabBackend.Settings()
        settings.authFailureMode = .graphQLError200
        let lab = BackendHarness(settings)
        let response = lab.send("GET", "/heroes/2001")
        #expect(response.status == 401)
        #expect(response.text == #"{"errors":[{"extensions":{"code":"UNAUTHENTICATED"},"message":"missing bearer token"}]}"#)
    }

    @Test func authorizationThatIsNotBearerIsRefused() {
        let lab = BackendHarness()
        let response = lab.send("POST", "/graphql", headers: [("Authorization", "Basic ZGVtbzpkZW1v")], body: #"{"operationName":"HeroQuery"}"#)
        #expect(response.status == 401)
        #expect(response.json?["errors"]?[0]?["message"] == "the Authorization header does not hold a bearer token")
    }

    @Test func bearerSchemeIsCaseInsensitive() {
        let lab = BackendHarness()
        let token = lab.backend.issueTokens().accessToken
        let response = lab.send("POST", "/graphql", headers: [("Authorization", "bearer \(token)")], body: #"{"operationName":"HeroQuery"}"#)
        #expect(response.text == heroData)
    }

    @Test func expireAllAccessTokensStopsAccessTokensButNotRefreshTokens() throws {
        let lab = BackendHarness()
        let tokens = lab.backend.issueTokens()
        lab.backend.expireAllAccessTokens()
        #expect(lab.heroQuery(token: tokens.accessToken).json?["errors"]?[0]?["message"] == "access token expired")
        let refreshed = lab.refresh(try #require(tokens.refreshToken))
        #expect(refreshed.status == 200)
        #expect(lab.heroQuery(token: "at-1-2").text == heroData)
    }

    @Test func setAuthFailureModeAppliesToTheNextRequest() {
        let lab = BackendHarness()
        #expect(lab.heroQuery(token: nil).status == 401)
        lab.backend.setAuthFailureMode(.graphQLError200)
        #expect(lab.heroQuery(token: nil).status == 200)
        #expect(lab.backend.settings.authFailureMode == .graphQLError200)
    }
}
