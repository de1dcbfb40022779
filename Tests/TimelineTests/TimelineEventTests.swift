import ChainKit
import Foundation
import Testing
import Timeline
import Exports

@Suite struct TimelineEventTests {
    @Test func eventStaysSmall() {
        // The store holds millions of these; message contents live in a shared HopSnapshot.
        #expect(MemoryLayout<TimelineEvent>.stride == 80)
        #expect(MemoryLayout<HeaderDiff>.stride == 8)
    }

    @Test func bodyPreviewCutsOnACharacterBoundary() {
        let body = Data("ab€cd".utf8)  // "€" is 3 bytes, at offsets 2...4
        let preview = BodyPreview(body, limit: 4)
        #expect(preview.text == "ab")
        #expect(preview.byteCount == 7)
        #expect(preview.isTruncated)
        #expect(BodyPreview(body, limit: 7) == BodyPreview(text: "ab€cd", byteCount: 7, isTruncated: false))
        #expect(BodyPreview(Data(repeating: 65, count: 5000)).text.utf8.count == 4096)
    }

    @Test func deferredBodyIsProducedOnceWhenFirstRead() {
        let calls = Locked(0)
        let preview = BodyPreview(deferred: {
            calls.withLock { $0 += 1 }
            return Data("ab€cd".utf8)
        }, limit: 4)
        #expect(calls.value == 0)
        #expect(preview.text == "ab")
        #expect(preview.byteCount == 7)
        #expect(preview.isTruncated)
        #expect(preview == BodyPreview(Data("ab€cd".utf8), limit: 4))
        #expect(preview.wholeText == "ab€cd")
        #expect(calls.value == 1)
    }

    @Test("a body over its preview keeps the whole body for exports; equal starts of different bodies are different bodies")
    func wholeBodyIsKeptForExports() throws {
        let body = Data((String(repeating: "a", count: 5_000) + "€end").utf8)
        let preview = BodyPreview(body)
        #expect(preview.text == String(repeating: "a", count: 4_096))
        #expect(preview.isTruncated)
        #expect(preview.byteCount == 5_006)
        #expect(preview.wholeText == String(repeating: "a", count: 5_000) + "€end")
        #expect(!preview.isWholeTruncated)
        let other = BodyPreview(Data((String(repeating: "a", count: 5_000) + "€END").utf8))
        #expect(preview.text == other.text && preview.byteCount == other.byteCount)
        #expect(preview != other)
        #expect(preview == BodyPreview(body))
        #expect(preview.hashValue == BodyPreview(body).hashValue)

        let small = BodyPreview(Data("{}".utf8))
        #expect(small.wholeText == "{}")
        #expect(!small.isWholeTruncated)
        // Read back from an export that cut it: only the start is known.
        let cut = BodyPreview(text: "aaaa", byteCount: 5_006, isTruncated: true)
        #expect(cut.wholeText == "aaaa")
        #expect(cut.isWholeTruncated)
    }

    @Test("trace JSON carries the whole body and reads it back as the same preview")
    func traceJSONRoundTripsAWholeBody() throws {
        let body = Data(#"{"data":{"blob":""#.utf8 + Data(repeating: UInt8(ascii: "x"), count: 9_000) + Data(#""}}"#.utf8))
        let event = Fixtures.stored([
            Fixtures.event(0.01, hop: 2, "transport", .transport, .receive, HopSnapshot(headers: Fixtures.fields([("Content-Type", "application/json")]), status: 200, body: BodyPreview(body))),
        ])
        let document = TraceDocument(scenario: "s", requests: [], events: event, backend: [:])
        let text = TraceJSON.encode(document, masking: .masked)
        #expect(text.contains(#""bodyBytes":9020,"bodyTruncated":false"#))
        let decoded = try TraceJSON.decode(text)
        #expect(decoded.events.first?.body == BodyPreview(body))
        #expect(decoded.events.first?.body?.text.utf8.count == BodyPreview.defaultLimit)
    }

    @Test func snapshotKeepsRareFieldsAndAnyStatus() {
        let head = HopSnapshot(method: "GET", url: "https://lab.local/x", status: 204)
        #expect(head.status == 204)
        #expect(head.error == nil)
        #expect(head.body == nil)
        let odd = HopSnapshot(status: Int(Int32.min))
        #expect(odd.status == Int(Int32.min))
        let huge = HopSnapshot(status: 1 << 40, error: "boom", body: BodyPreview(text: "{}", byteCount: 2, isTruncated: false))
        #expect(huge.status == 1 << 40)
        #expect(huge.error == "boom")
        #expect(huge.body?.text == "{}")
        #expect(HopSnapshot(status: nil).status == nil)
        #expect(HopSnapshot(status: 200, error: "x") == HopSnapshot(status: 200, error: "x"))
        #expect(HopSnapshot(status: 200) != HopSnapshot(status: 201))
    }

    @Test func fieldsReadThroughTheSnapshot() throws {
        let request = NetworkRequest(
            method: .post, url: URL(string: "https://lab.local/graphql")!,
            headerFields: try HTTPFields(["Accept": "application/json"]), body: Data("{}".utf8))
        var event = TimelineEvent(
            time: 0.25, request: 7, attempt: 2, hop: 3, name: "transport", kind: .transport, phase: .send,
            snapshot: HopSnapshot(request))
        #expect(event.method == "POST")
        #expect(event.url == "https://lab.local/graphql")
        #expect(event.headers?["accept"] == "application/json")
        #expect(event.body == BodyPreview(text: "{}", byteCount: 2, isTruncated: false))
        #expect(event.status == nil)
        #expect([event.request, event.attempt, event.hop, event.seq] == [Int]([7, 2, 3, 0]))
        event.hop = TimelineEvent.noHop
        #expect(event.hop == -1)
    }
}
