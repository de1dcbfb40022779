import ChainKit
import Foundation
import Testing
import Timeline

@Suite struct SecretMaskingTests {
    @Test(arguments: [
        ("Authorization", "Bearer abcdefa1f3", "Bearer ••••a1f3"),
        ("authorization", "Bearer abcdefa1f3", "Bearer ••••a1f3"),
        ("PROXY-AUTHORIZATION", "Basic dXNlcjpwYXNz", "Basic ••••"),
        ("Authorization", "Bearer abcd", "Bearer ••••"),
        ("Authorization", "abcdefa1f3", "••••a1f3"),
        ("Authorization", "xyz", "••••"),
        ("Cookie", "session=abc123456; theme=dark", "session=••••3456; theme=••••"),
        ("Set-Cookie", "sid=0123456789; Path=/; HttpOnly", "sid=••••6789; Path=/; HttpOnly"),
        ("Set-Cookie", "a=0123456789; Expires=Wed, 21 Oct 2037 07:28:00 GMT, b=9876543210; Path=/", "a=••••6789; Expires=Wed, 21 Oct 2037 07:28:00 GMT, b=••••3210; Path=/"),
        ("Set-Cookie", "bare0123456789", "••••6789"),
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
        #expect(SecretMasking.masked.text("sent Authorization: bearer at-1-1 and Basic dXNlcjpwYXNz") == "sent Authorization: bearer ••••-1-1 and Basic ••••")
        #expect(SecretMasking.masked.text("a basic test of token_type=Bearer") == "a basic test of token_type=Bearer")
        #expect(SecretMasking.revealed.text(line) == line)
    }

    @Test("url masks percent-encoded and double-encoded names as a server decodes them")
    func encodedQueryNames() {
        #expect(SecretMasking.masked.url("https://lab.local/cb?access%5Ftoken=abcdef123&pass%2577ord=xyz98765&x=%ZZ")
            == "https://lab.local/cb?access%5Ftoken=••••f123&pass%2577ord=••••8765&x=%ZZ")
    }

    @Test("API-key query parameters are masked by name")
    func apiKeyParameters() {
        #expect(SecretMasking.masked.url("http://h/v1?api_key=k-0123456789&apiKey=k-1111&key=k-2222&sig=s-3333&page=2")
            == "http://h/v1?api_key=••••6789&apiKey=••••1111&key=••••2222&sig=••••3333&page=2")
    }

    @Test("a credential the timeline sent is hidden wherever a server echoes it, as written or percent-encoded")
    func knownCredentialsAreHiddenEverywhere() throws {
        let sent = TimelineEvent(
            time: 0, request: 1, attempt: 1, hop: 0, name: "transport", kind: .transport, phase: .send,
            snapshot: HopSnapshot(method: "GET", url: "http://h/a?access_token=query-secret-42", headers: try HTTPFields(pairs: [
                ("Authorization", "Bearer tok/en-0123456789"), ("Cookie", "sid=cookie-0123456789"),
                ("Proxy-Authorization", "Basic " + Data("ann:pass-0123456789".utf8).base64EncodedString()),
            ])))
        let masking = SecretMasking.masked.knowing(secretsIn: [sent])
        #expect(masking.header(name: "WWW-Authenticate", value: #"Bearer error="invalid_token", token="tok/en-0123456789""#)
            == #"Bearer error="invalid_token", token="••••6789""#)
        #expect(masking.header(name: "Location", value: "http://h/login?next=tok%2Fen-0123456789") == "http://h/login?next=••••6789")
        #expect(masking.text("cookie-0123456789 and pass-0123456789 and query-secret-42 refused") == "••••6789 and ••••6789 and ••••t-42 refused")
        #expect(masking.body(#"{"message":"unknown tok/en-0123456789"}"#, contentType: "application/json") == #"{"message":"unknown ••••6789"}"#)
        #expect(masking.url("http://h/echo/tok/en-0123456789") == "http://h/echo/••••6789")
        #expect(SecretMasking.masked.text("tok/en-0123456789") == "tok/en-0123456789")
        #expect(SecretMasking.revealed.knowing(secretsIn: [sent]).text("tok/en-0123456789") == "tok/en-0123456789")
    }

    @Test("values shorter than 8 characters are not hidden by value, so words stay readable")
    func shortCredentialsAreNotHiddenByValue() throws {
        let sent = TimelineEvent(
            time: 0, request: 1, attempt: 1, hop: 0, name: "transport", kind: .transport, phase: .send,
            snapshot: HopSnapshot(headers: try HTTPFields(pairs: [("Authorization", "Bearer the"), ("Set-Cookie", "a=b0123456789; Domain=example.com")])))
        let masking = SecretMasking.masked.knowing(secretsIn: [sent])
        #expect(masking.text("the answer from example.com had b0123456789") == "the answer from example.com had ••••6789")
    }

    @Test("a header named with maskHeader is masked like Authorization, in any case")
    func maskedHeaderNames() {
        #expect(SecretMasking.masked.header(name: "X-Tenant-Signing", value: "tenant-0123456789") == "tenant-0123456789")
        SecretMasking.maskHeader(named: "X-Tenant-Signing")
        #expect(SecretMasking.masked.header(name: "x-tenant-signing", value: "tenant-0123456789") == "••••6789")
        #expect(SecretMasking.isSecretHeader("X-TENANT-SIGNING"))
    }
}
