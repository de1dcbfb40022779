import Testing
import Timeline

@Suite struct TimelineStoreTests {
    private func event(request: Int, hop: Int = 0, time: Double = 0) -> TimelineEvent {
        TimelineEvent(time: time, request: request, attempt: 1, hop: hop, name: "hop\(hop)", kind: .graphql, phase: .preflight)
    }

    @Test func appendAssignsContiguousSeqFromOne() {
        let store = TimelineStore()
        #expect(store.lastSeq == 0)
        #expect(store.append(event(request: 1)) == 1)
        #expect(store.append(event(request: 2)) == 2)
        #expect(store.events().map(\.seq) == [1, 2])
        #expect(store.stats == TimelineStore.Stats(count: 2, lastSeq: 2, droppedEvents: 0, droppedRequests: 0, cap: nil))
    }

    @Test func concurrentAppendsKeepEveryEventOnceWithContiguousSeq() async {
        let store = TimelineStore()
        await withTaskGroup(of: Void.self) { group in
            for producer in 1...8 {
                group.addTask {
                    for hop in 0..<10_000 { store.append(TimelineEvent(
                        time: 0, request: producer, attempt: 1, hop: hop, name: "p", kind: .http, phase: .send)) }
                }
            }
        }
        let events = store.events()
        #expect(events.count == 80_000)
        #expect(events.map(\.seq) == Array(1...80_000))
        for producer in 1...8 {
            // One producer appends its hops in order, so its events must come back in order.
            #expect(store.events(request: producer).map(\.hop) == Array(0..<10_000))
        }
        #expect(store.lastSeq == 80_000)
    }

    @Test func chunkBoundariesDoNotLoseEvents() {
        let store = TimelineStore()
        for index in 0..<10_000 { store.append(event(request: index % 3, hop: index)) }
        #expect(store.events(after: 4095).map(\.seq) == Array(4096...10_000))
        #expect(store.events(after: 10_000).isEmpty)
        #expect(store.event(seq: 8193)?.hop == 8192)
        #expect(store.event(seq: 10_001) == nil)
        #expect(store.events(request: 2).count == 3333)
    }

    @Test("what a reader read before a chunk filled stays as read while appends cross into the next chunk, under a cap too")
    func readsAcrossTheOpenChunk() throws {
        for store in [TimelineStore(), try TimelineStore(cap: 3_000)] {
            for index in 0..<4_095 { store.append(event(request: index / 100, hop: index)) }
            let before = store.events()
            for index in 4_095..<4_100 { store.append(event(request: 40, hop: index)) }
            #expect(before.count == 4_095)
            #expect(before.last?.seq == 4_095)
            #expect(store.events(after: 4_094).map(\.seq) == Array(4_095...4_100))
            #expect(store.event(seq: 4_097)?.hop == 4_096)
            // Finished requests dropped under the cap, then more events: the chunks left are
            // compacted and appends go on after them.
            for request in 0..<20 { store.markFinished(request: request) }
            for index in 4_100..<6_200 { store.append(event(request: 41 + index / 1_000, hop: index)) }
            let held = store.events()
            #expect(held.map(\.seq) == held.map(\.seq).sorted())
            #expect(held.last?.seq == 6_200)
            #expect(store.event(seq: 6_200)?.hop == 6_199)
            #expect(store.events(after: 6_190).map(\.hop) == Array(6_190..<6_200))
            // Under the cap every finished request went (2,000 events, hidden and compacted
            // away as the store went over it), and the appends went on after what was left.
            #expect(store.stats.droppedRequests == (store.stats.cap == nil ? 0 : 20))
            #expect(held.first?.seq == (store.stats.cap == nil ? 1 : 2_001))
            #expect(held.count == (store.stats.cap == nil ? 6_200 : 4_200))
        }
    }

    @Test("readers taking views while a writer appends through three chunks read whole events, in order, with nothing after their view")
    func readersBesideAWriterReadWholeEvents() async {
        let store = TimelineStore()
        let total = 3 * 4_096 + 17
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for index in 0..<total { store.append(event(request: index / 1_000, hop: index, time: Double(index))) }
                return true
            }
            for _ in 0..<2 {
                group.addTask {
                    var good = true
                    repeat {
                        // A view taken while the chunk it ends in is being filled: what it read
                        // must be every event up to its end, each as appended.
                        let read = store.events()
                        good = good && read.enumerated().allSatisfy { index, event in
                            event.seq == index + 1 && event.hop == index && event.time == Double(index) && event.request == index / 1_000
                        }
                        let tail = store.events(after: max(0, read.count - 10))
                        good = good && tail.first.map { $0.seq == max(0, read.count - 10) + 1 } ?? true
                    } while store.lastSeq < total
                    return good
                }
            }
            for await good in group { #expect(good) }
        }
        #expect(store.events().map(\.hop) == Array(0..<total))
    }

    @Test("finishing a request in a store without a cap keeps its events and its record; later events join them")
    func finishingWithoutACapKeepsEverything() {
        let store = TimelineStore()
        store.append(event(request: 1, hop: 0))
        store.append(event(request: 2, hop: 0))
        store.append(event(request: 1, hop: 1))
        store.markFinished(request: 1)
        store.markFinished(request: 1)
        store.markFinished(request: 7)
        store.append(event(request: 1, hop: 2))
        #expect(store.events(request: 1).map(\.seq) == [1, 3, 4])
        #expect(store.events(request: 1).map(\.hop) == [0, 1, 2])
        #expect(store.events(request: 2).map(\.seq) == [2])
        #expect(store.stats == TimelineStore.Stats(count: 4, lastSeq: 4, droppedEvents: 0, droppedRequests: 0, cap: nil))
    }

    @Test func queriesByRequestTimeWindowAndSeq() {
        let store = TimelineStore()
        store.append(event(request: 1, hop: 0, time: 0.000))
        store.append(event(request: 2, hop: 0, time: 0.010))
        store.append(event(request: 1, hop: 1, time: 0.020))
        store.append(event(request: 2, hop: 1, time: 0.015))
        store.append(event(request: 1, hop: 2, time: 0.030))
        #expect(store.events(request: 1).map(\.seq) == [1, 3, 5])
        #expect(store.events(request: 2).map(\.seq) == [2, 4])
        #expect(store.events(request: 9).isEmpty)
        #expect(store.events(in: 0.010...0.020).map(\.seq) == [2, 3, 4])
        #expect(store.events(after: 3).map(\.seq) == [4, 5])
        #expect(store.event(seq: 4)?.time == 0.015)
        #expect(store.count == 5)
    }

    @Test func interleavedRequestsKeepTheirEventsInSeqOrder() {
        let store = TimelineStore()
        // Request 1 alone, then interleaved with 2 in runs of different lengths, then alone.
        let order = [1, 1, 1, 2, 1, 2, 2, 1, 1, 2, 1]
        for (index, request) in order.enumerated() { store.append(event(request: request, hop: index)) }
        #expect(store.events(request: 1).map(\.seq) == [1, 2, 3, 5, 8, 9, 11])
        #expect(store.events(request: 2).map(\.seq) == [4, 6, 7, 10])
        #expect(store.events(request: 1).map(\.hop) == [0, 1, 2, 4, 7, 8, 10])
    }

    @Test func fieldByFieldAppendStoresThoseFields() throws {
        let store = TimelineStore()
        store.append(event(request: 9))
        let seq = store.append(
            time: 0.5, request: 3, attempt: 2, hop: 1, name: "AuthInterceptor", kind: .graphql, phase: .preflight,
            snapshot: HopSnapshot(method: "POST"), diff: HeaderDiff(added: ["Authorization"]), detail: "note")
        #expect(seq == 2)
        let stored = try #require(store.event(seq: 2))
        #expect(stored.seq == 2)
        #expect(stored.time == 0.5)
        #expect([stored.request, stored.attempt, stored.hop] == [3, 2, 1])
        #expect(stored.name == "AuthInterceptor")
        #expect(stored.kind == .graphql)
        #expect(stored.phase == .preflight)
        #expect(stored.method == "POST")
        #expect(stored.diff.added == ["Authorization"])
        #expect(stored.detail == "note")
        #expect(store.events(request: 3).map(\.seq) == [2])
    }

    @Test func capDropsOldestFinishedRequestsWholeAndCountsThem() throws {
        let store = try TimelineStore(cap: 5)
        store.append(event(request: 1))  // 1
        store.append(event(request: 2))  // 2
        store.append(event(request: 1))  // 3
        store.append(event(request: 2))  // 4
        store.append(event(request: 3))  // 5
        store.markFinished(request: 2)
        store.markFinished(request: 1)
        #expect(store.count == 5)

        // Over the cap: request 1 started first, so it goes, though request 2 finished first.
        store.append(event(request: 3))  // 6
        #expect(store.events().map(\.seq) == [2, 4, 5, 6])
        #expect(store.events(request: 1).isEmpty)
        #expect(store.stats == TimelineStore.Stats(count: 4, lastSeq: 6, droppedEvents: 2, droppedRequests: 1, cap: 5))

        store.append(event(request: 3))  // 7
        store.append(event(request: 3))  // 8
        #expect(store.events().map(\.seq) == [5, 6, 7, 8])
        #expect(store.stats == TimelineStore.Stats(count: 4, lastSeq: 8, droppedEvents: 4, droppedRequests: 2, cap: 5))

        // Only a running request is left: it is kept even above the cap.
        store.append(event(request: 3))  // 9
        store.append(event(request: 3))  // 10
        #expect(store.events().map(\.seq) == [5, 6, 7, 8, 9, 10])
        #expect(store.stats.droppedEvents == 4)

        // Finishing it makes it droppable at once.
        store.markFinished(request: 3)
        #expect(store.events().isEmpty)
        #expect(store.stats == TimelineStore.Stats(count: 0, lastSeq: 10, droppedEvents: 10, droppedRequests: 3, cap: 5))
    }

    @Test("finishing requests with ids past the dense index, twice, or unknown drops them as for small ids")
    func finishingSparseIdsAndAgain() throws {
        let store = try TimelineStore(cap: 3)
        let big = 1 << 21, negative = -5
        store.append(event(request: big))  // 1
        store.append(event(request: negative))  // 2
        store.append(event(request: 7))  // 3
        store.markFinished(request: big)
        store.markFinished(request: big)
        store.markFinished(request: 99)
        store.markFinished(request: big + 1)
        #expect(store.count == 3)
        store.append(event(request: 7))  // 4: over the cap, the one finished request goes
        #expect(store.events().map(\.seq) == [2, 3, 4])
        #expect(store.stats.droppedRequests == 1)
        // Finishing a dropped request again does nothing; a finished one goes at the next append over the cap.
        store.markFinished(request: big)
        store.markFinished(request: negative)
        #expect(store.events().map(\.seq) == [2, 3, 4])
        store.append(event(request: 7))  // 5
        #expect(store.events().map(\.seq) == [3, 4, 5])
        #expect(store.stats == TimelineStore.Stats(count: 3, lastSeq: 5, droppedEvents: 2, droppedRequests: 2, cap: 3))
    }

    @Test func lateEventOfDroppedRequestIsKeptAsANewRecord() throws {
        let store = try TimelineStore(cap: 2)
        store.append(event(request: 1))
        store.markFinished(request: 1)
        store.append(event(request: 2))
        store.append(event(request: 2))  // drops request 1
        store.append(event(request: 1))  // 4
        #expect(store.events().map(\.seq) == [2, 3, 4])
        #expect(store.events(request: 1).map(\.seq) == [4])
        #expect(store.stats.droppedEvents == 1)
    }

    @Test(arguments: [0, -1])
    func capBelowOneIsRefused(cap: Int) {
        #expect(throws: TimelineStore.InvalidCapError(cap: cap)) { try TimelineStore(cap: cap) }
        #expect(TimelineStore.InvalidCapError(cap: cap).description
            == "timeline cap must be at least 1 event, got \(cap); leave the cap out to keep every event")
    }

    @Test func changeSignalWakesAWaiterAfterAnAppend() async throws {
        let store = TimelineStore()
        let stream = store.changes()
        let (ready, readyContinuation) = AsyncStream.makeStream(of: Int.self)
        let woken = try await withDeadline {
            async let seen: Int? = {
                var iterator = stream.makeAsyncIterator()
                // The stream opens with the current seq; say so, then wait for the next one.
                readyContinuation.yield(await iterator.next() ?? -1)
                return await iterator.next()
            }()
            var readyIterator = ready.makeAsyncIterator()
            #expect(await readyIterator.next() == 0)
            store.append(event(request: 1))
            return await seen
        }
        #expect(woken == 1)
    }

    @Test func everySubscriberSeesTheNewestSeq() async throws {
        let store = TimelineStore()
        let first = store.changes(), second = store.changes()
        store.append(event(request: 1))
        store.append(event(request: 1))
        // Only the newest value is buffered, so each stream skips straight to 2.
        let seen = try await withDeadline { () async -> [Int?] in
            var a = first.makeAsyncIterator(), b = second.makeAsyncIterator()
            return [await a.next(), await b.next()]
        }
        #expect(seen == [2, 2])
    }

    @Test func cancellingAWaiterEndsItsStream() async throws {
        let store = TimelineStore()
        let stream = store.changes()
        let waiter = Task { () -> Int in
            var values = 0
            for await _ in stream { values += 1 }
            return values
        }
        waiter.cancel()
        let values = try await withDeadline { await waiter.value }
        #expect(values <= 1)
        store.append(event(request: 1))
        #expect(store.lastSeq == 1)
    }
}

struct DeadlineExceeded: Error {}

/// Runs `body`, failing if it takes longer than `seconds`: a guard against a hung test, not
/// a wait. The bodies it guards finish in microseconds, but the whole suite runs in one
/// process whose few concurrency threads other tests can keep busy for seconds, so the
/// guard allows minutes: it only has to tell a hang from a slow machine.
func withDeadline<T: Sendable>(seconds: Int = 120, _ body: @escaping @Sendable () async -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { await body() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            return nil
        }
        let first = try await group.next()!
        group.cancelAll()
        guard let first else { throw DeadlineExceeded() }
        return first
    }
}
