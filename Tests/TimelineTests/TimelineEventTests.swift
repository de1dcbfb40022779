import ChainKit
import Foundation
import Testing
import Timeline

@Suite struct TimelineEventTests {
    @Test func eventStaysSmall() {
        // The store holds millions of these; message contents live in a shared HopSnapshot.
        #expect(MemoryLayout<TimelineEvent>.stride == 80)
        #expect(MemoryLayout<HeaderDiff>.stride == 8)
    }

    @Test func bodyPreviewCutsOnACharacterBoundary() {
        let body = Data("ab€cd".utf8)  // "€" is 3 bytes, at offsets 2...4
        let preview = BodyPreview(body, limit: 4)
        #expect(preview == BodyPreview(text: "ab", byteCount: 7, isTruncated: true))
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
        #expect(preview == BodyPreview(text: "ab", byteCount: 7, isTruncated: true))
        #expect(calls.value == 1)
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
