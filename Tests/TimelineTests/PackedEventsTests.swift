import ChainKit
import Foundation
import Testing
import TestSupport
@testable import Timeline
@testable import Exports

/// The store keeps events packed (`PackedEvents.swift`): every read must build back the event
/// that was appended, whatever its fields, and the packing must change nothing an export shows.
@Suite struct PackedEventsTests {
    private static let secretHeaders = Fixtures.fields([
        ("Content-Type", "application/json"), ("Authorization", "Bearer s3cr3t-token-value"),
        ("Cookie", "sid=0123456789"), ("X-Request-ID", "req-1"),
    ])

    /// A body five times the preview limit: views see its start, exports the whole.
    private static let largeBody = Data((#"{"data":{"blob":""# + String(repeating: "é", count: 10_000) + #""}}"#).utf8)

    /// Snapshots of every shape the store treats apart: empty, bare statuses, heads (equal ones
    /// built apart), heads with secrets, bodies small and large, errors, statuses past 32 bits.
    private static let snapshots: [HopSnapshot] = [
        .empty,
        HopSnapshot(status: 200),
        HopSnapshot(status: 200),
        HopSnapshot(status: 401),
        HopSnapshot(status: Int(Int32.min)),
        HopSnapshot(status: 5_000_000_000),
        HopSnapshot(method: "POST", url: Fixtures.graphqlURL, headers: secretHeaders),
        HopSnapshot(method: "POST", url: Fixtures.graphqlURL, headers: secretHeaders),
        HopSnapshot(method: "POST", url: Fixtures.graphqlURL, headers: Fixtures.fields([("Content-Type", "application/json")])),
        HopSnapshot(method: "GET", url: Fixtures.graphqlURL, headers: secretHeaders),
        HopSnapshot(method: "PATCH", url: "https://lab.local/other", headers: secretHeaders, status: 204),
        HopSnapshot(headers: secretHeaders, status: 200),
        HopSnapshot(headers: secretHeaders, status: 200, body: BodyPreview(largeBody)),
        HopSnapshot(headers: secretHeaders, status: 200, body: BodyPreview(Data(#"{"token":"abc","data":{}}"#.utf8))),
        HopSnapshot(method: "POST", url: Fixtures.graphqlURL, headers: secretHeaders, body: BodyPreview(largeBody, limit: 10)),
        HopSnapshot(status: 400, error: "invalid_grant: client_secret=hunter2"),
        HopSnapshot(error: "timed out after 30s"),
    ]

    private static let diffs: [HeaderDiff] = [
        .none,
        HeaderDiff(added: ["Authorization"]),
        HeaderDiff(added: ["Authorization"]),
        HeaderDiff(changed: ["Cookie"], removed: ["X-Request-ID"]),
        HeaderDiff(added: ["A", "B"], changed: ["C"], removed: ["D"]),
    ]

    private static let details: [String?] = [
        nil, "server", "server", "", "CacheFirst", "cache write", "token=abc123 refreshed", "Ünïcødé détail ✓",
        String(repeating: "long log line ", count: 100),
    ]

    /// Attempts, hops, requests and times at and past the edges of what is kept inline.
    private static let attempts = [1, 0, 2, 65_534, 65_535, 65_536, Int(Int32.max), -1, Int(Int32.min)]
    private static let hops = [0, 1, 8, 9, 64, TimelineEvent.noHop, Int(Int32.max), Int(Int32.min)]
    private static let requests = [1, 2, 0, -7, Int(Int32.max), Int(Int32.min)]
    private static let times = [0, 0.004, -1.5, Double.leastNormalMagnitude / 1_024, 86_400.123_456_789, Double.greatestFiniteMagnitude]
    /// What a lab run records, for the exports: attempts past 16 bits, but nothing outlandish.
    private static let runAttempts = [1, 2, 3, 65_535, 70_000]
    private static let runHops = [0, 1, 2, 8, 9, TimelineEvent.noHop]
    private static let runRequests = [1, 2, 3]
    private static let runTimes = [0, 0.004, 0.016, 1.5]

    /// Names that share a hop index and kind, names alike but built apart, one name on many
    /// hops and kinds.
    private static let names = ["AuthInterceptor", "MaxRetryInterceptor", "transport", "TokenManager", "LoggingMiddleware", "Auth" + "Interceptor", ""]

    /// Events mixing every kind and phase with the fields above, in a fixed, varied order.
    private static func mixedEvents(count: Int, edges: Bool = true) -> [TimelineEvent] {
        var generator = SplitMix(seed: 20)
        var events: [TimelineEvent] = []
        for index in 0..<count {
            func pick<T>(_ values: [T]) -> T { values[Int(generator.next() % UInt64(values.count))] }
            events.append(TimelineEvent(
                time: pick(edges ? times : runTimes), request: pick(edges ? requests : runRequests),
                attempt: pick(edges ? attempts : runAttempts), hop: pick(edges ? hops : runHops), name: pick(names),
                kind: HopKind.allCases[index % HopKind.allCases.count], phase: Phase.allCases[index % Phase.allCases.count],
                snapshot: pick(snapshots), diff: pick(diffs), detail: pick(details)))
        }
        return events
    }

    /// `events` as the store must read them back: seq from 1.
    private static func numbered(_ events: [TimelineEvent], from first: Int = 1) -> [TimelineEvent] {
        events.enumerated().map { offset, event in
            var numbered = event
            numbered.seq = first + offset
            return numbered
        }
    }

    @Test func aPackedEventIs32Bytes() {
        #expect(MemoryLayout<PackedEvent>.stride == 32)
    }

    @Test("a copy of a chunk reads the events there were when it was made while the chunk appends on in the same storage")
    func aChunkCopyReadsWhatThereWas() {
        var chunk = TimelineChunk(firstSeq: 1)
        let sites = [HopSite(name: "A", kind: .http, hop: 0)]
        func append(_ seq: Int, to chunk: inout TimelineChunk) {
            chunk.append(
                seq: seq, time: Double(seq), request: Int32(seq), site: 0, attempt: 1, phase: .send, snapshot: HopSnapshot(status: 200 + seq),
                diff: .none, detail: seq.isMultiple(of: 2) ? "even \(seq)" : nil)
        }
        for seq in 1...3 { append(seq, to: &chunk) }
        let copy = chunk
        for seq in 4...TimelineChunk.capacity { append(seq, to: &chunk) }
        #expect(copy.count == 3)
        #expect(copy.lastSeq == 3)
        #expect((0..<3).map { copy.event(at: $0, sites: sites).detail } == [nil, "even 2", nil])
        #expect((0..<3).map { copy.event(at: $0, sites: sites).snapshot.status } == [201, 202, 203])
        #expect(copy.firstIndex(after: 10) == 3)
        #expect(chunk.count == TimelineChunk.capacity)
        #expect(chunk.event(at: 4_000, sites: sites).time == 4_001)
        #expect(chunk.event(at: 4_000, sites: sites).detail == nil)
        #expect(chunk.event(at: 4_001, sites: sites).detail == "even 4002")
    }

    @Test("a stale copy of a chunk cannot append over events its storage holds")
    func aStaleChunkCopyCannotAppend() async {
        await #expect(processExitsWith: .failure) {
            var chunk = TimelineChunk(firstSeq: 1)
            chunk.append(seq: 1, time: 0, request: 1, site: 0, attempt: 1, phase: .send, snapshot: .empty, diff: .none, detail: nil)
            var stale = chunk
            chunk.append(seq: 2, time: 0, request: 1, site: 0, attempt: 1, phase: .send, snapshot: .empty, diff: .none, detail: nil)
            stale.append(seq: 2, time: 0, request: 2, site: 0, attempt: 1, phase: .send, snapshot: .empty, diff: .none, detail: nil)
        }
    }

    @Test("every event kind, phase and field reads back as appended, across chunks, by every query")
    func everyEventReadsBackAsAppended() throws {
        let appended = Self.mixedEvents(count: 2 * TimelineChunk.capacity + 123)
        let store = TimelineStore()
        for event in appended { store.append(event) }
        let expected = Self.numbered(appended)
        let read = store.events()
        #expect(read.count == expected.count)
        for (got, want) in zip(read, expected) where got != want {
            Issue.record("event \(want.seq) read back as \(got), appended as \(want)")
        }
        #expect(store.events(after: 4000) == Array(expected[4000...]))
        #expect(store.event(seq: 4097) == expected[4096])
        #expect(store.events(request: Int(Int32.min)) == expected.filter { $0.request == Int(Int32.min) })
        #expect(store.events(in: 0...0.004) == expected.filter { (0...0.004).contains($0.time) })
        #expect(store.view(upTo: 5000).events() == Array(expected.prefix(5000)))
    }

    @Test("a detail repeated as the same string, as equal text built apart or beside a diff, a lane or a large attempt reads back as appended")
    func repeatedDetailsReadBackAsAppended() {
        // Longer than a small string: each one built is a storage object of its own.
        let long = String(decoding: Array("cache write, then a long note".utf8), as: UTF8.self)
        let builtApart = String(decoding: Array(long.utf8), as: UTF8.self)
        let sameLength = String(decoding: Array("cache write, then a long nota".utf8), as: UTF8.self)
        let rows: [(detail: String?, diff: HeaderDiff, lane: Lane?, attempt: Int)] = [
            ("server", .none, nil, 1), ("server", .none, nil, 1), (long, .none, nil, 1), (long, .none, nil, 2),
            (builtApart, .none, nil, 1), (sameLength, .none, nil, 1), (long, .none, nil, 1),
            (long, HeaderDiff(added: ["Authorization"]), nil, 1), (long, .none, .network, 1), (long, .none, nil, 70_000),
            (long, .none, nil, 1), (nil, .none, nil, 1), ("server", .none, nil, 1), ("cache", .none, nil, 1),
        ]
        let appended = rows.enumerated().map { index, row in
            TimelineEvent(
                time: Double(index), request: 1, attempt: row.attempt, hop: 0, name: "AuthInterceptor", kind: .graphql, phase: .postflight,
                diff: row.diff, detail: row.detail, lane: row.lane)
        }
        let store = TimelineStore()
        for event in appended { store.append(event) }
        let read = store.events()
        #expect(read == Self.numbered(appended))
        #expect(read.map(\.detail) == rows.map(\.detail))
        #expect(read.map(\.lane) == rows.map(\.lane))
        #expect(read.map(\.attempt) == rows.map(\.attempt))
        #expect(read.map { $0.diff.added } == rows.map { $0.diff.added })
    }

    @Test("events appended field by field read back as the same events appended whole")
    func fieldByFieldAppendReadsBackTheSame() {
        let appended = Self.mixedEvents(count: 500)
        let whole = TimelineStore(), fields = TimelineStore()
        for event in appended {
            whole.append(event)
            fields.append(
                time: event.time, request: event.request, attempt: event.attempt, hop: event.hop, name: event.name, kind: event.kind,
                phase: event.phase, snapshot: event.snapshot, diff: event.diff, detail: event.detail)
        }
        #expect(whole.events() == Self.numbered(appended))
        #expect(fields.events() == whole.events())
    }

    @Test("events appended by their hop's site number read back as the same events appended with the name")
    func siteKeyAppendReadsBackTheSame() {
        let appended = Self.mixedEvents(count: 500).filter { $0.hop != TimelineEvent.noHop }
        let named = TimelineStore(), keyed = TimelineStore()
        for (position, event) in appended.enumerated() {
            named.append(event)
            let site = HopSiteKey(name: event.name, kind: event.kind, hop: event.hop)
            // Every other event by name, so the two ways share the store's sites.
            if position.isMultiple(of: 2) {
                keyed.append(
                    time: event.time, request: event.request, attempt: event.attempt, site: site,
                    phase: event.phase, snapshot: event.snapshot, diff: event.diff, detail: event.detail, lane: event.lane)
            } else {
                keyed.append(
                    time: event.time, request: event.request, attempt: event.attempt, hop: event.hop, name: event.name, kind: event.kind,
                    phase: event.phase, snapshot: event.snapshot, diff: event.diff, detail: event.detail, lane: event.lane)
            }
        }
        #expect(appended.count > 100)
        #expect(keyed.events() == named.events())
    }

    @Test("large bodies read back whole, and exports of what the store holds are the exports of what was appended, secrets masked")
    func exportsOfStoredEventsAreUnchanged() throws {
        let appended = Self.mixedEvents(count: 300, edges: false)
        let store = TimelineStore()
        for event in appended { store.append(event) }
        let expected = Self.numbered(appended)
        let read = store.events()
        let large = try #require(read.first { $0.body?.byteCount == Self.largeBody.count })
        #expect(large.body?.wholeText == String(decoding: Self.largeBody, as: UTF8.self))
        for masking in [SecretMasking.masked, .revealed] {
            let stored = TraceJSON.encode(TraceDocument(scenario: "s", requests: [], events: read), masking: masking)
            let original = TraceJSON.encode(TraceDocument(scenario: "s", requests: [], events: expected), masking: masking)
            #expect(stored == original)
            #expect(HARExport.archive(events: read, masking: masking, anchor: .lab(scenario: "s"))
                == HARExport.archive(events: expected, masking: masking, anchor: .lab(scenario: "s")))
            #expect(TextTrace.render(read, masking: masking) == TextTrace.render(expected, masking: masking))
        }
        let masked = TraceJSON.encode(TraceDocument(scenario: "s", requests: [], events: read), masking: .masked)
        #expect(!masked.contains("s3cr3t-token-value"))
        #expect(!masked.contains("0123456789"))
        #expect(!masked.contains("hunter2"))
        #expect(masked.contains("req-1"))
    }

    @Test func aDeferredBodyIsNotProducedByAppendingOrReading() {
        let calls = Locked(0)
        let body = BodyPreview(deferred: {
            calls.withLock { $0 += 1 }
            return Data(#"{"data":{}}"#.utf8)
        })
        let store = TimelineStore()
        let headers = Fixtures.fields([("Content-Type", "application/json")])
        // The same head before and after: the store compares heads, never bodies.
        store.append(TimelineEvent(time: 0, request: 1, attempt: 1, hop: 1, name: "parser", kind: .parser, phase: .postflight,
                                   snapshot: HopSnapshot(headers: headers, status: 200)))
        store.append(TimelineEvent(time: 0, request: 1, attempt: 1, hop: 1, name: "parser", kind: .parser, phase: .postflight,
                                   snapshot: HopSnapshot(headers: headers, status: 200, body: body)))
        store.append(TimelineEvent(time: 0, request: 1, attempt: 1, hop: 0, name: "top", kind: .graphql, phase: .postflight,
                                   snapshot: HopSnapshot(headers: headers, status: 200, body: body)))
        let read = store.events()
        #expect(calls.value == 0)
        #expect(read.map(\.body) == [nil, body, body])
        #expect(calls.value == 1)
    }

    @Test("equal heads one after another and bare statuses are kept once; bodies, errors and other heads are not merged")
    func equalHeadsAndBareStatusesShareOneSnapshot() {
        let headers = Fixtures.fields([("Accept", "application/json")])
        let first = HopSnapshot(method: "POST", url: Fixtures.graphqlURL, headers: headers)
        let again = HopSnapshot(method: "POST", url: Fixtures.graphqlURL, headers: headers)
        let other = HopSnapshot(method: "POST", url: Fixtures.graphqlURL, headers: Fixtures.fields([("Accept", "text/plain")]))
        let store = TimelineStore()
        for snapshot in [first, again, HopSnapshot(status: 200), other, HopSnapshot(status: 200), HopSnapshot(status: 201), HopSnapshot(error: "x"), HopSnapshot(error: "x")] {
            store.append(TimelineEvent(time: 0, request: 1, attempt: 1, hop: 0, name: "h", kind: .http, phase: .preflight, snapshot: snapshot))
        }
        let read = store.events().map(\.snapshot)
        #expect(read[1] === read[0])
        #expect(read[3] !== read[0] && read[3] == other)
        #expect(read[4] === read[2] && read[2].status == 200)
        #expect(read[5] !== read[2] && read[5].status == 201)
        #expect(read[7] !== read[6] && read[7] == read[6])
    }

    @Test("a snapshot its maker shares is kept as it is, even after an equal head, and leaves the store's last head alone")
    func aSnapshotSharedByItsMakerIsKeptAsItIs() {
        let headers = Fixtures.fields([("Accept", "application/json")])
        let plain = HopSnapshot(method: "GET", url: Fixtures.graphqlURL, headers: headers)
        let made = HopSnapshot(method: "GET", url: Fixtures.graphqlURL, headers: headers)
        made.markSharedByMaker()
        let later = HopSnapshot(method: "GET", url: Fixtures.graphqlURL, headers: headers)
        #expect(!plain.isSharedByMaker && made.isSharedByMaker)
        let store = TimelineStore()
        for snapshot in [plain, made, later] {
            store.append(TimelineEvent(time: 0, request: 1, attempt: 1, hop: 0, name: "h", kind: .http, phase: .preflight, snapshot: snapshot))
        }
        let read = store.events().map(\.snapshot)
        // Without the mark the second would be the first; the third still finds the first as
        // the last head, not the maker's.
        #expect(read[1] === made && read[1] !== read[0])
        #expect(read[2] === read[0])
    }

    @Test("a capped store reads back what it keeps, as appended, after dropping requests from the middle of chunks")
    func cappedStoreReadsBackKeptEventsAfterCompaction() throws {
        let store = try TimelineStore(cap: 3000)
        var appended: [TimelineEvent] = []
        // Request r has events r, r + 5, r + 10…: every chunk holds all five requests.
        for index in 0..<12_000 {
            let request = index % 5 + 1
            let event = TimelineEvent(
                time: Double(index), request: request, attempt: index % 70_000 == 3 ? 70_000 : 1, hop: index % 9, name: "hop\(index % 9)",
                kind: .graphql, phase: .preflight, snapshot: Self.snapshots[index % Self.snapshots.count],
                detail: index % 7 == 0 ? "detail \(index % 11)" : nil)
            appended.append(event)
            store.append(event)
            if index == 9_000 { [1, 2, 3].forEach(store.markFinished(request:)) }
        }
        // Requests 1 to 3 are dropped up to seq 9,001; their later events are kept as new ones.
        let expected = Self.numbered(appended).filter { ![1, 2, 3].contains($0.request) || $0.seq > 9_001 }
        #expect(store.events() == expected)
        #expect(store.stats.droppedRequests == 3)
        // Seqs now skip: reads by seq must find exactly the kept ones.
        #expect(store.event(seq: 4) == expected.first { $0.seq == 4 })
        #expect(store.event(seq: 1) == nil)
        #expect(store.events(after: 9_001) == expected.filter { $0.seq > 9_001 })
        // Appends after the drop keep their seqs and fields.
        let late = TimelineEvent(time: 1, request: 4, attempt: 2, hop: 1, name: "late", kind: .http, phase: .send, detail: "after")
        #expect(store.append(late) == 12_001)
        #expect(store.events(request: 4).last == Self.numbered([late], from: 12_001)[0])
        #expect(store.events().count == expected.count + 1)
    }
}

/// A hop's site is found by the words its name is held in, and by content when the words
/// differ (`HopSites.id`): the same name built apart, or one string reused, is one site.
@Suite struct HopSitesTests {
    /// Longer than a small string, so each one built is a storage object of its own.
    private static func built(_ name: String) -> String { String(decoding: Array(name.utf8), as: UTF8.self) }

    @Test("one name at one hop is one site, whether it is the same string or the same text built apart")
    func sameName() {
        var sites = HopSites()
        let name = Self.built("AutomaticPersistedQueryInterceptor")
        let first = sites.id(name: name, kind: .graphql, hop: 0)
        #expect(sites.id(name: name, kind: .graphql, hop: 0) == first)
        #expect(sites.id(name: Self.built("AutomaticPersistedQueryInterceptor"), kind: .graphql, hop: 0) == first)
        #expect(sites.id(name: "cache", kind: .cache, hop: 1) == first + 1)
        #expect(sites.id(name: "cache", kind: .cache, hop: 1) == first + 1)
        #expect(sites.all.map(\.name) == ["AutomaticPersistedQueryInterceptor", "cache"])
    }

    @Test("another name, kind or hop is another site, and each keeps its id when it comes back")
    func otherSites() {
        var sites = HopSites()
        let auth = sites.id(name: Self.built("AuthorizationInterceptorWithRefresh"), kind: .graphql, hop: 2)
        let logging = sites.id(name: Self.built("LoggingInterceptorWithPrettyOutput"), kind: .graphql, hop: 2)
        let asMiddleware = sites.id(name: Self.built("AuthorizationInterceptorWithRefresh"), kind: .middleware, hop: 2)
        let elsewhere = sites.id(name: Self.built("AuthorizationInterceptorWithRefresh"), kind: .graphql, hop: 66)
        #expect([auth, logging, asMiddleware, elsewhere] == [0, 1, 2, 3])
        // Hops 2 and 66 share a slot of the recent table: each finds its own site again.
        #expect(sites.id(name: Self.built("AuthorizationInterceptorWithRefresh"), kind: .graphql, hop: 2) == auth)
        #expect(sites.id(name: Self.built("LoggingInterceptorWithPrettyOutput"), kind: .graphql, hop: 2) == logging)
        #expect(sites.id(name: Self.built("AuthorizationInterceptorWithRefresh"), kind: .graphql, hop: 66) == elsewhere)
        #expect(sites.all.count == 4)
    }

    @Test("a site's number names the same site in every store, which finds it by the number as by the name")
    func siteKeys() {
        let name = Self.built("AutomaticPersistedQueryInterceptor")
        let key = HopSiteKey(name: name, kind: .graphql, hop: 2)
        #expect(HopSiteKey(name: Self.built("AutomaticPersistedQueryInterceptor"), kind: .graphql, hop: 2) == key)
        #expect(HopSiteKey(name: name, kind: .graphql, hop: 3) != key)
        #expect(HopSiteKey(name: name, kind: .middleware, hop: 2) != key)
        var first = HopSites(), second = HopSites()
        _ = second.id(name: "cache", kind: .cache, hop: 1)
        let byKey = first.id(key: key)
        #expect(first.id(name: name, kind: .graphql, hop: 2) == byKey)
        #expect(first.id(key: key) == byKey)
        // Another store numbers its own sites: the same key finds its own id there.
        #expect(second.id(key: key) == 1)
        #expect(second.all.map(\.name) == ["cache", "AutomaticPersistedQueryInterceptor"])
        #expect(second.id(key: HopSiteKey(name: "cache", kind: .cache, hop: 1)) == 0)
    }
}
