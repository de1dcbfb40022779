import ChainKit
import Foundation
@testable import Lab
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
        #expect(shared == [true, false, false, false, false, false])
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
}
