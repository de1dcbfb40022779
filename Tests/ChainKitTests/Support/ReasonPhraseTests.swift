import ChainKit
import Testing

@Suite struct ReasonPhraseTests {
    @Test("reason phrases follow RFC 9110; an unlisted status has none")
    func reasonPhrases() {
        #expect(HTTPResponse.reasonPhrase(for: 200) == "OK")
        #expect(HTTPResponse.reasonPhrase(for: 401) == "Unauthorized")
        #expect(HTTPResponse.reasonPhrase(for: 431) == "Request Header Fields Too Large")
        #expect(HTTPResponse.reasonPhrase(for: 505) == "HTTP Version Not Supported")
        #expect(HTTPResponse.reasonPhrase(for: 299) == "")
    }
}
