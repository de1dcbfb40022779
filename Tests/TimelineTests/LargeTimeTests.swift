import ChainKit
import Foundation
import Testing
@testable import Timeline
@testable import Exports

/// A replay may move the lab clock by a day 100,000 times (8.64e9 s): far enough that
/// unix nanoseconds overflow 64 bits. Exports clamp such times; none of them traps.
@Suite("Exports at huge lab times")
struct LargeTimeTests {
    static let limitOfAReplay = 86_400.0 * 100_000

    @Test("OTLP nanoseconds: exact in range, the largest 64-bit value beyond it")
    func otlpNanoseconds() {
        let time = OTLPTime(epoch: HARExport.epoch)
        #expect(time.nanoseconds(0.012) == "1735689600012000000")
        #expect(time.nanoseconds(Self.limitOfAReplay) == "9223372036854775807")
        #expect(time.nanoseconds(1e300) == "9223372036854775807")
        #expect(time.nanoseconds(.infinity) == "9223372036854775807")
        #expect(time.nanoseconds(-5) == "1735689600000000000")
    }

    @Test("HAR timestamps: exact in range, the last millisecond of 9999 beyond it")
    func harTimestamps() {
        #expect(HARExport.timestamp(HARExport.epoch, plus: 0.012) == "2025-01-01T00:00:00.012Z")
        #expect(HARExport.timestamp(HARExport.epoch, plus: Self.limitOfAReplay) == "2298-10-17T00:00:00.000Z")
        #expect(HARExport.timestamp(HARExport.epoch, plus: 1e300) == "9999-12-31T23:59:59.999Z")
        #expect(HARExport.timestamp(HARExport.epoch, plus: .infinity) == "9999-12-31T23:59:59.999Z")
    }

    @Test("a whole exchange at a replay's latest time exports as HAR and OTLP")
    func wholeExports() throws {
        let events = Fixtures.stored([
            Fixtures.event(Self.limitOfAReplay, hop: 2, "transport", .transport, .send, Fixtures.plainRequest),
            Fixtures.event(Self.limitOfAReplay + 0.012, hop: 2, "transport", .transport, .receive, Fixtures.okResponse),
        ])
        let anchor = OTLPExport.Anchor.lab(scenario: "basics")
        let har = try JSONValue(parsing: HARExport.archive(events: events, masking: .masked, anchor: anchor))
        #expect(har["log"]?["entries"]?[0]?["startedDateTime"]?.stringValue == "2298-10-17T00:00:00.000Z")
        let otlp = try JSONValue(parsing: OTLPExport.document(
            requests: [RequestSummary(id: 1, operation: "HeroQuery", outcome: .success, attempts: 1, operationType: "query")],
            events: events, options: OTLPExport.Options(anchor: anchor, masking: .masked)))
        let spans = otlp["resourceSpans"]?[0]?["scopeSpans"]?[0]?["spans"]?.arrayValue ?? []
        #expect(!spans.isEmpty)
        #expect(spans.allSatisfy { $0["startTimeUnixNano"]?.stringValue == "9223372036854775807" })
    }
}
