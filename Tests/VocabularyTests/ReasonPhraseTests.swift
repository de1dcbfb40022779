import Testing
import Vocabulary

@Suite struct ReasonPhraseTests {
    @Test("reason phrases follow RFC 9110; an unlisted status has none")
    func reasonPhrases() {
        #expect(ReasonPhrase.of(200) == "OK")
        #expect(ReasonPhrase.of(401) == "Unauthorized")
        #expect(ReasonPhrase.of(431) == "Request Header Fields Too Large")
        #expect(ReasonPhrase.of(505) == "HTTP Version Not Supported")
        #expect(ReasonPhrase.of(299) == "")
    }
}
