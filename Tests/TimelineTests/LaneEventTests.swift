import ChainKit
import Foundation
import Testing
import Timeline
import Exports

/// An event's lane (a request with two: CacheAndNetwork's overlapping network fetch) through
/// the store, its cap and the trace JSON.
@Suite("Event lanes")
struct LaneEventTests {
    static func event(_ request: Int, lane: Lane?, detail: String? = "server") -> TimelineEvent {
        TimelineEvent(time: 0.012, request: request, attempt: 1, hop: 2, name: "AuthInterceptor", kind: .graphql, phase: .postflight, detail: detail, lane: lane)
    }

    @Test("the store gives each event back with its lane, alike events of two lanes kept apart")
    func storeRoundTrip() {
        let store = TimelineStore()
        for lane in [nil, Lane.cache, .network, .network, nil] { store.append(Self.event(1, lane: lane)) }
        store.append(Self.event(1, lane: .network, detail: nil))
        #expect(store.events().map(\.lane) == [nil, .cache, .network, .network, nil, .network])
        #expect(store.events().map(\.detail) == ["server", "server", "server", "server", "server", nil])
    }

    @Test("events kept under a cap keep their lanes")
    func capKeepsLanes() throws {
        let store = try TimelineStore(cap: 3)
        store.append(Self.event(1, lane: nil))
        store.markFinished(request: 1)
        store.append(Self.event(2, lane: .cache))
        store.append(Self.event(2, lane: .network, detail: nil))
        store.append(Self.event(2, lane: nil))
        #expect(store.events().map(\.request) == [2, 2, 2])
        #expect(store.events().map(\.lane) == [.cache, .network, nil])
    }

    @Test("trace JSON writes lane only for an event in a lane and reads it back; an unknown lane is refused with its path")
    func traceJSON() throws {
        let store = TimelineStore()
        store.append(Self.event(1, lane: .network))
        store.append(Self.event(1, lane: nil))
        let events = store.events()
        let text = TraceJSON.encode(TraceDocument(scenario: "s", requests: [], events: events), masking: .masked)
        #expect(text.contains(#""phase":"postflight","lane":"network","method":null"#))
        #expect(text.components(separatedBy: #""lane""#).count == 2)
        #expect(try TraceJSON.decode(text).events == events)
        let wrong = text.replacingOccurrences(of: #""lane":"network""#, with: #""lane":"disk""#)
        #expect(throws: TraceJSON.DecodingError.self) { try TraceJSON.decode(wrong) }
        do {
            _ = try TraceJSON.decode(wrong)
        } catch {
            #expect(error.description.contains(#"unknown lane "disk"; expected one of cache, network"#))
        }
    }
}
