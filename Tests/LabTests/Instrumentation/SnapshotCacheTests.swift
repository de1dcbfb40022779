import ChainKit
import Foundation
@testable import Instrumentation
@testable import Lab
@testable import Scheduling
import Synchronization
import TestSupport
import Testing
import Timeline

/// The snapshot cache shares a snapshot between messages exactly when they are equal: its
/// own comparisons (bodies compared as bytes in memory) tell what the messages' `==` tells.
@Suite("Snapshot cache")
struct SnapshotCacheTests {
    static let url = URL(string: "https://lab.example/graphql")!

    static func request(_ body: String?, url: URL = SnapshotCacheTests.url, timeout: Double? = nil) throws -> NetworkRequest {
        NetworkRequest(
            method: .post, url: url, headerFields: try HTTPFields(["Content-Type": "application/json"]),
            body: body.map { Data($0.utf8) }, timeoutInterval: timeout)
    }

    /// A middleware's base URL, request and response head (each call of the two functions
    /// builds its value apart).
    static let base = URL(string: "https://lab.example")!

    static func middlewareRequest() throws -> HTTPRequest {
        HTTPRequest(method: .get, path: "/heroes/1", headerFields: try HTTPFields(["Accept": "application/json"]))
    }

    static func head() throws -> HTTPResponse {
        HTTPResponse(status: 200, headerFields: try HTTPFields(["Content-Type": "application/json"]))
    }

    @Test("a request shares the previous one's snapshot exactly when the requests are equal")
    func requestsShareWhenEqual() throws {
        let first = try Self.request(#"{"a":1}"#)
        let others = [
            // Same bytes in another buffer: equal.
            try Self.request(#"{"a":1}"#),
            // Same length, one byte apart.
            try Self.request(#"{"a":2}"#),
            try Self.request(nil),
            try Self.request(""),
            try Self.request(#"{"a":1}"#, url: URL(string: "https://lab.example/other")!),
            try Self.request(#"{"a":1}"#, timeout: 5),
            // The same URL built apart (other storage): equal.
            try Self.request(#"{"a":1}"#, url: URL(string: "https://lab.example/graphql")!),
        ]
        var shared: [Bool] = []
        for other in others {
            let cache = SnapshotCache()
            let snapshot = cache.snapshot(first)
            shared.append(cache.snapshot(other) === snapshot)
            #expect(shared.last == (other == first))
            // What was shared shows what the request shows.
            #expect(cache.snapshot(other) == HopSnapshot(other))
        }
        #expect(shared == [true, false, false, false, false, false, true])
    }

    @Test("what the cache hands out is marked as shared by its maker; what it did not make is not")
    func whatTheCacheMakesIsMarked() throws {
        let cache = SnapshotCache()
        let request = try Self.request(#"{"a":1}"#)
        #expect(cache.snapshot(request).isSharedByMaker)
        #expect(cache.snapshot(request).isSharedByMaker)
        #expect(cache.snapshot(outcome: .failure(URLError(.timedOut))).isSharedByMaker == false)
        #expect(!HopSnapshot(request).isSharedByMaker)
    }

    @Test("a body-less request and one with an empty body do not share a snapshot")
    func noBodyIsNotAnEmptyBody() throws {
        let cache = SnapshotCache()
        let none = cache.snapshot(try Self.request(nil))
        let empty = cache.snapshot(try Self.request(""))
        #expect(none !== empty)
        #expect(none.body == nil)
        #expect(empty.body?.byteCount == 0)
    }

    @Test("an answer shares the previous one's snapshot exactly when status, headers and body bytes are equal")
    func answersShareWhenEqual() throws {
        let headers = try HTTPFields(["Content-Type": "application/json"])
        func answer(_ status: Int, _ body: String, headers: HTTPFields = headers) -> (NetworkResponse, Data) {
            let data = Data(body.utf8)
            return (NetworkResponse(status: status, headerFields: headers, url: Self.url, body: data), data)
        }
        let (first, firstBody) = answer(200, #"{"data":1}"#)
        let others = [
            (answer(200, #"{"data":1}"#), true),
            (answer(200, #"{"data":2}"#), false),
            (answer(201, #"{"data":1}"#), false),
            (answer(200, #"{"data":1}"#, headers: HTTPFields()), false),
        ]
        for ((response, body), expected) in others {
            let cache = SnapshotCache()
            let snapshot = cache.snapshot(response: first, body: firstBody)
            #expect((cache.snapshot(response: response, body: body) === snapshot) == expected)
            #expect(cache.snapshot(response: response, body: body).body?.text == String(decoding: body, as: UTF8.self))
        }
    }

    @Test("bodies are compared by their bytes whatever holds them: past the size whose bytes are copied, and read from a slice")
    func bodiesComparedByBytes() throws {
        let headers = try HTTPFields(["Content-Type": "application/json"])
        // 70,000 bytes: past the 64 KiB whose bytes the cache copies to compare with.
        let large = Data(repeating: UInt8(ascii: "a"), count: 70_000)
        var lastByteApart = large
        lastByteApart[lastByteApart.count - 1] = UInt8(ascii: "b")
        let small = Data(#"{"data":1}"#.utf8)
        // The same bytes, as a slice of a larger body (its indices do not start at 0).
        let slice = Data(#"xx{"data":1}"#.utf8).dropFirst(2)
        let cases: [(kept: Data, next: Data, shared: Bool)] = [
            (large, Data(large), true),
            (large, lastByteApart, false),
            (small, slice, true),
            (slice, small, true),
            (small, Data(#"{"data":2}"#.utf8), false),
            (Data(), Data(), true),
        ]
        var shared: [Bool] = []
        for (kept, next, _) in cases {
            let cache = SnapshotCache()
            let first = cache.snapshot(response: NetworkResponse(status: 200, headerFields: headers, url: Self.url, body: kept), body: kept)
            shared.append(cache.snapshot(response: NetworkResponse(status: 200, headerFields: headers, url: Self.url, body: next), body: next) === first)
        }
        #expect(shared == cases.map(\.shared))
    }

    @Test("a result read from a body shares the previous one's snapshot exactly when the bytes and the source are the same")
    func resultsShareWhenSameBytesAndSource() throws {
        let body = #"{"data":{"hero":{"name":"R2-D2"}}}"#
        let first = try ChainResponse(parsing: Data(body.utf8), source: .server)
        let others: [(ChainResponse, Bool)] = [
            (try ChainResponse(parsing: Data(body.utf8), source: .server), true),
            (try ChainResponse(parsing: Data(body.utf8), source: .cache), false),
            (try ChainResponse(parsing: Data(body.replacingOccurrences(of: "R2", with: "C3").utf8), source: .server), false),
        ]
        for (other, expected) in others {
            let cache = SnapshotCache()
            let snapshot = cache.snapshot(result: first)
            #expect((cache.snapshot(result: other) === snapshot) == expected)
            #expect(cache.snapshot(result: other).body?.text == String(decoding: other.body ?? Data(), as: UTF8.self))
        }
    }

    @Test("a middleware's request shares the previous snapshot exactly when the request and the base URL are equal")
    func middlewareRequestsShareWhenEqual() throws {
        let base = Self.base, first = try Self.middlewareRequest()
        var renamed = first
        try renamed.headerFields.set("Accept", "text/plain")
        var changedBack = renamed
        try changedBack.headerFields.set("Accept", "application/json")
        // The request and base URL as they were handed in (the same bits), equal ones built
        // apart (told by their fields), and ones that differ in one field.
        let others: [(HTTPRequest, URL, Bool)] = [
            (first, base, true),
            (first, URL(string: "https://lab.example")!, true),
            (changedBack, base, true),
            (try Self.middlewareRequest(), base, true),
            (first, URL(string: "https://lab.example/v2")!, false),
            (HTTPRequest(method: .post, path: "/heroes/1", headerFields: first.headerFields), base, false),
            (HTTPRequest(method: .get, path: "/heroes/2", headerFields: first.headerFields), base, false),
            (renamed, base, false),
        ]
        for (other, url, expected) in others {
            let cache = SnapshotCache()
            let snapshot = cache.snapshot(first, baseURL: base)
            #expect((cache.snapshot(other, baseURL: url) === snapshot) == expected)
            #expect(cache.snapshot(other, baseURL: url) == HopSnapshot(other, baseURL: url))
        }
    }

    @Test("a response head shares the previous snapshot exactly when status and headers are equal")
    func responseHeadsShareWhenEqual() throws {
        let first = try Self.head()
        let others: [(HTTPResponse, Bool)] = [
            (try Self.head(), true),
            (HTTPResponse(status: 204, headerFields: first.headerFields), false),
            (HTTPResponse(status: 200, headerFields: try HTTPFields(["Content-Type": "text/plain"])), false),
        ]
        for (other, expected) in others {
            let cache = SnapshotCache()
            let snapshot = cache.snapshot(responseHead: first)
            #expect((cache.snapshot(responseHead: other) === snapshot) == expected)
            #expect(cache.snapshot(responseHead: other) == HopSnapshot(other))
        }
    }

    // Threads looking up the middleware request and the response head get what the cache
    // hands out: the cache's own snapshot, and only that cache's.

    @Test("a thread finds what it looked up only in the cache it came from, also in a cache made where a dropped one was")
    func threadsFindOnlyTheirCachesSnapshots() async throws {
        let request = try Self.middlewareRequest(), head = try Self.head()
        let (again, distinct) = await onOwnThread {
            let first = SnapshotCache()
            let shown = (first.snapshot(request, baseURL: Self.base), first.snapshot(responseHead: head))
            let again = [first.snapshot(request, baseURL: Self.base) === shown.0, first.snapshot(responseHead: head) === shown.1]
            // Caches made and dropped one after another, each likely where the last one was:
            // every one makes snapshots of its own.
            var seen: [HopSnapshot] = [shown.0, shown.1]
            for _ in 0..<50 {
                let cache = SnapshotCache()
                seen.append(cache.snapshot(request, baseURL: Self.base))
                seen.append(cache.snapshot(responseHead: head))
            }
            return (again, Set(seen.map(ObjectIdentifier.init)).count)
        }
        #expect(again == [true, true])
        #expect(distinct == 102)
    }

    @Test("threads looking up equal messages in one cache get its one snapshot")
    func threadsShareTheCachesSnapshot() async throws {
        let request = try Self.middlewareRequest(), head = try Self.head()
        let cache = SnapshotCache()
        // Each on a new thread; the cache keeps the snapshots alive.
        let first = await onOwnThread { [ObjectIdentifier(cache.snapshot(request, baseURL: Self.base)), ObjectIdentifier(cache.snapshot(responseHead: head))] }
        let second = await onOwnThread { [ObjectIdentifier(cache.snapshot(request, baseURL: Self.base)), ObjectIdentifier(cache.snapshot(responseHead: head))] }
        #expect(first == second)
        // After another thread looked up a different message, each thread is shown its own
        // message right: what one looked up never answers for the other's.
        let changed = HTTPRequest(method: .get, path: "/heroes/2", headerFields: request.headerFields)
        let shown = await onOwnThread { () -> [Bool] in
            let before = cache.snapshot(request, baseURL: Self.base)
            let other = Thread.detachedResult { cache.snapshot(changed, baseURL: Self.base) }
            return [
                cache.snapshot(request, baseURL: Self.base) == before, before == HopSnapshot(request, baseURL: Self.base),
                other == HopSnapshot(changed, baseURL: Self.base), cache.snapshot(changed, baseURL: Self.base) == other,
                other == before,
            ]
        }
        #expect(shown == [true, true, true, true, false])
    }

    @Test("what a thread looked up is let go with the cache")
    func threadsSnapshotsAreFreedWithTheCache() async throws {
        let request = try Self.middlewareRequest(), head = try Self.head()
        var cache: SnapshotCache? = SnapshotCache()
        weak var shownRequest: HopSnapshot?, shownHead: HopSnapshot?
        do {
            let made = await onOwnThread { [cache] in (cache!.snapshot(request, baseURL: Self.base), cache!.snapshot(responseHead: head)) }
            (shownRequest, shownHead) = made
        }
        cache = nil
        // Nothing but the cache kept them; the thread may still be exiting.
        let deadline = ContinuousClock.now + .seconds(10)
        while shownRequest != nil || shownHead != nil, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(shownRequest == nil)
        #expect(shownHead == nil)
    }
}

private extension Thread {
    /// What `work` returns, run on a new thread while the caller's thread waits for it.
    static func detachedResult<T: Sendable>(_ work: @escaping @Sendable () -> T) -> T {
        let result = Mutex<T?>(nil), done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let value = work()
            result.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        return result.withLock { $0! }
    }
}
