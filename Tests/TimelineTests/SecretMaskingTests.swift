import ChainKit
import Testing
import Timeline

@Suite struct SecretMaskingTests {
    @Test(arguments: [
        ("Authorization", "Bearer abcdefa1f3", "Bearer ••••a1f3"),
        ("authorization", "Bearer abcdefa1f3", "Bearer ••••a1f3"),
        ("PROXY-AUTHORIZATION", "Basic dXNlcjpwYXNz", "Basic ••••YXNz"),
        ("Authorization", "Bearer abcd", "Bearer ••••"),
        ("Authorization", "abcdefa1f3", "••••a1f3"),
        ("Authorization", "xyz", "••••"),
        ("Cookie", "session=abc123456; theme=dark", "session=••••3456; theme=••••"),
        ("Set-Cookie", "sid=0123456789; Path=/; HttpOnly", "sid=••••6789; Path=/; HttpOnly"),
        ("X-Request-ID", "abcdefa1f3", "abcdefa1f3"),
    ])
    func headers(name: String, value: String, shown: String) {
        #expect(SecretMasking.masked.header(name: name, value: value) == shown)
        #expect(SecretMasking.revealed.header(name: name, value: value) == value)
    }

    @Test func headerListKeepsOrderAndNames() throws {
        let fields = try HTTPFields(pairs: [("Accept", "*/*"), ("authorization", "Bearer abcdefa1f3")])
        #expect(SecretMasking.masked.headers(fields).map { "\($0.name): \($0.value)" } == ["Accept: */*", "authorization: Bearer ••••a1f3"])
    }

    @Test func jsonFieldsNamedLikeSecretsAreMaskedInPlace() {
        let body = #"{"access_token":"eyJhbGciOi.abc.def123","token_type":"Bearer","expires_in":3600,"refresh_token":"r-987654","#
            + #""user":{"name":"Ann","Password":"hunter22"},"client_secret":12345678,"scope":"read write"}"#
        #expect(SecretMasking.masked.body(body, contentType: "application/json")
            == #"{"access_token":"••••f123","token_type":"Bearer","expires_in":3600,"refresh_token":"••••7654","#
            + #""user":{"name":"Ann","Password":"••••er22"},"client_secret":"••••5678","scope":"read write"}"#)
        #expect(SecretMasking.revealed.body(body, contentType: "application/json") == body)
    }

    @Test func jsonSpacingAndShortValuesAndCutPreviews() {
        #expect(SecretMasking.masked.body(#"{ "secret" : "abc" , "note" : "token" }"#, contentType: nil)
            == #"{ "secret" : "••••" , "note" : "token" }"#)
        #expect(SecretMasking.masked.body(#"[{"idToken":"a\"b\u0063defgh"}]"#, contentType: nil) == #"[{"idToken":"••••efgh"}]"#)
        #expect(SecretMasking.masked.body(#"{"refresh_token":"abcdefgh"#, contentType: "application/json")
            == #"{"refresh_token":"••••efgh""#)
    }

    @Test("JSON strings that quote a query or a credential are masked as free text")
    func jsonStringsQuotingSecrets() {
        let body = #"{"variables":{"name":"R2?access_token=abcdefgh&x=1"},"renameHero(name:R2?pass%77ord=hunter22)":1,"note":"Bearer abcdefgh"}"#
        #expect(SecretMasking.masked.body(body, contentType: "application/json")
            == #"{"variables":{"name":"R2?access_token=••••efgh&x=1"},"renameHero(name:R2?pass%77ord=••••er22)":1,"note":"Bearer ••••efgh"}"#)
        #expect(SecretMasking.revealed.body(body, contentType: "application/json") == body)
    }

    @Test func formBodiesMaskValuesOfSecretKeysOnly() {
        let body = "grant_type=refresh_token&refresh_token=abc&client_id=lab&client_secret=s3cr3t-value&password=pw"
        let masked = "grant_type=refresh_token&refresh_token=••••&client_id=lab&client_secret=••••alue&password=••••"
        #expect(SecretMasking.masked.body(body, contentType: "application/x-www-form-urlencoded; charset=utf-8") == masked)
        #expect(SecretMasking.masked.body(body, contentType: nil) == masked)
        #expect(SecretMasking.masked.body("refresh%5Ftoken=abcdefgh", contentType: nil) == "refresh%5Ftoken=••••efgh")
        #expect(SecretMasking.masked.body("plain text = not a form", contentType: "text/plain") == "plain text = not a form")
    }

    @Test func urlQueryParametersNamedLikeSecrets() {
        #expect(SecretMasking.masked.url("https://lab.local/cb?code=1&access_token=abcdef123#top")
            == "https://lab.local/cb?code=1&access_token=••••f123#top")
        #expect(SecretMasking.masked.url("https://lab.local/graphql") == "https://lab.local/graphql")
    }

    @Test("free text: query pairs under percent-encoded and mixed-case names, JSON fields and bearer credentials are masked")
    func freeText() {
        let line = "GET /heroes/2001?access%5Ftoken=abcdef0001&PASS%77ORD=hunter0002&Client_Secret=s3cr3t0003&id=7 HTTP/1.1"
        #expect(SecretMasking.masked.text(line)
            == "GET /heroes/2001?access%5Ftoken=••••0001&PASS%77ORD=••••0002&Client_Secret=••••0003&id=7 HTTP/1.1")
        #expect(SecretMasking.masked.text("refresh failed: pass%2577ord=twice0004 (invalid_grant)") == "refresh failed: pass%2577ord=••••0004 (invalid_grant)")
        #expect(SecretMasking.masked.text(#"body {"Refresh_Token": "rt-9-abcd", "name": "R2"}"#) == #"body {"Refresh_Token": "••••abcd", "name": "R2"}"#)
        #expect(SecretMasking.masked.text("sent Authorization: bearer at-1-1 and Basic dXNlcjpwYXNz") == "sent Authorization: bearer ••••-1-1 and Basic ••••YXNz")
        #expect(SecretMasking.masked.text("a basic test of token_type=Bearer") == "a basic test of token_type=Bearer")
        #expect(SecretMasking.revealed.text(line) == line)
    }

    @Test("url masks percent-encoded and double-encoded names as a server decodes them")
    func encodedQueryNames() {
        #expect(SecretMasking.masked.url("https://lab.local/cb?access%5Ftoken=abcdef123&pass%2577ord=xyz98765&x=%ZZ")
            == "https://lab.local/cb?access%5Ftoken=••••f123&pass%2577ord=••••8765&x=%ZZ")
    }
}
