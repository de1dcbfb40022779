import ChainKit
import Foundation
import Testing
import Timeline
import Exports

@Suite struct CurlExportTests {
    let headers = Fixtures.fields([("Authorization", "Bearer abcdefa1f3"), ("X-Note", "it's fine")])

    @Test func putWithQuoteAndMaskedAuthorization() {
        #expect(CurlExport.command(method: "PUT", url: "https://lab.local/items/1", headers: headers, body: #"{"a":"b'c"}"#, masking: .masked) == """
            curl 'https://lab.local/items/1' \\
              -X 'PUT' \\
              -H 'Authorization: Bearer ••••a1f3' \\
              -H 'X-Note: it'\\''s fine' \\
              --data-raw '{"a":"b'\\''c"}'
            """)
    }

    @Test func methodsCurlInfersNeedNoFlag() {
        #expect(CurlExport.command(method: "GET", url: "https://lab.local/a", headers: HTTPFields(), body: nil, masking: .masked)
            == "curl 'https://lab.local/a'")
        #expect(CurlExport.command(method: "POST", url: "https://lab.local/a", headers: HTTPFields(), body: "x=1", masking: .masked)
            == "curl 'https://lab.local/a' \\\n  --data-raw 'x=1'")
        #expect(CurlExport.command(method: "HEAD", url: "https://lab.local/a", headers: HTTPFields(), body: nil, masking: .masked)
            == "curl 'https://lab.local/a' \\\n  --head")
        #expect(CurlExport.command(method: "DELETE", url: "https://lab.local/a", headers: HTTPFields(), body: nil, masking: .masked)
            == "curl 'https://lab.local/a' \\\n  -X 'DELETE'")
    }

    @Test func revealedKeepsTheToken() {
        #expect(CurlExport.command(method: "GET", url: "https://lab.local/a", headers: headers, body: nil, masking: .revealed)
            == "curl 'https://lab.local/a' \\\n  -H 'Authorization: Bearer abcdefa1f3' \\\n  -H 'X-Note: it'\\''s fine'")
    }

    @Test func controlCharactersBecomeVisibleEscapes() {
        let hostile = Fixtures.fields([("X-Title", "\u{1B}]2;PWNED\u{07}\u{202E}it's")])
        let command = CurlExport.command(method: "GET", url: "https://lab.local/a", headers: hostile, body: "a\nb\\c", masking: .masked)
        #expect(command == #"""
            curl 'https://lab.local/a' \
              -X 'GET' \
              -H $'X-Title: \e]2;PWNED\x07\u202Eit\'s' \
              --data-raw $'a\nb\\c'
            """#)
        #expect(!command.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" || $0 == "\u{202E}" })
    }

    @Test func commandForAnEventSendsTheWholeBodyAndItsPreviewSaysWhenCut() {
        let snapshot = HopSnapshot(
            method: "POST", url: "https://lab.local/upload", headers: HTTPFields(),
            body: BodyPreview(Data("abcdefgh".utf8), limit: 4))
        let event = TimelineEvent(time: 0, request: 1, attempt: 1, hop: 2, name: "transport", kind: .transport, phase: .send, snapshot: snapshot)
        #expect(CurlExport.command(for: event, masking: .masked)
            == "curl 'https://lab.local/upload' \\\n  --data-raw 'abcdefgh'")
        #expect(CurlExport.command(for: event, masking: .masked, preview: true)
            == "# body cut to 4 of 8 bytes\ncurl 'https://lab.local/upload' \\\n  --data-raw 'abcd'")
        // Read back from an export that had only the start: the command says so.
        let known = HopSnapshot(method: "POST", url: "https://lab.local/upload", headers: HTTPFields(), body: BodyPreview(text: "abcd", byteCount: 8, isTruncated: true))
        #expect(CurlExport.command(for: TimelineEvent(time: 0, request: 1, attempt: 1, hop: 2, name: "transport", kind: .transport, phase: .send, snapshot: known), masking: .masked)
            == "# body cut to 4 of 8 bytes\ncurl 'https://lab.local/upload' \\\n  --data-raw 'abcd'")
        #expect(CurlExport.command(for: Fixtures.threeEvents[1], masking: .masked) == nil)
    }
}
