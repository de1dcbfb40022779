import ChainKit
import Foundation
import HTTPServer
import Lab
import Outbound
import Testing
import Timeline

/// `--endpoint` reads a real server's `multipart/mixed` answer as it arrives, as Apollo iOS
/// 2.4's `URLSessionClient` does with `URLSession.bytes(for:)`
/// (apollographql/apollo-ios, Sources/Apollo/URLSessionClient.swift, and the chunk
/// sequence in Sources/Apollo/HTTPResponse+Chunks.swift): each @defer increment reaches the
/// chain, and the timeline, when the server sends it, not when the answer ends.
@Suite("A real server's multipart answer arrives part by part")
struct RemoteStreamingTests {
    static let head = [HTTPServerHeader(name: "Content-Type", value: #"multipart/mixed;boundary="graphql";deferSpec=20220824"#)]

    /// Parts framed as GraphQL servers write them: each write ends with the delimiter that
    /// closes it, so a part is complete as soon as it is sent.
    static func part(_ json: String) -> Data {
        Data("\r\ncontent-type: application/json\r\n\r\n\(json)\r\n--graphql".utf8)
    }

    static let initial = Data("\r\n--graphql".utf8) + part(#"{"data":{"hero":{"id":"2001","name":"R2-D2"}},"hasNext":true}"#)
    static func increment(_ field: String, _ value: String, hasNext: Bool) -> Data {
        part(#"{"hasNext":\#(hasNext),"incremental":[{"data":{"\#(field)":["\#(value)"]},"label":"\#(field)","path":["hero"]}]}"#)
    }
    static let closing = Data("--\r\n".utf8)

    /// A session of `defer` against a plain server whose `/graphql` streams what `produce`
    /// writes; anything else is 404. The caller stops the server.
    static func deferOnAServer(
        maxBodyBytes: Int = 1 << 20, store: TimelineStore = TimelineStore(), _ produce: @escaping HTTPServerBodyStream.Produce
    ) async throws -> (HTTPServer, LabSession, URL) {
        let server = HTTPServer { request in
            request.target == "/graphql"
                ? HTTPServerResponse(status: 200, headers: head, stream: HTTPServerBodyStream(produce))
                : .text("not here", status: 404)
        }
        let port = try server.start()
        let url = URL(string: "http://127.0.0.1:\(port)/graphql")!
        do {
            let session = try await LabSession.connect(
                scenario: try #require(Catalog.scenario(named: "defer")),
                remote: RemoteOptions(endpoint: url, token: "t", maxBodyBytes: maxBodyBytes), store: store)
            return (server, session, url)
        } catch {
            server.stop()
            throw error
        }
    }

    /// The server holds the deferred part back until the timeline shows the first result
    /// (for at most ten seconds): only a transport that hands parts on as they arrive lets
    /// the first result be recorded while the server still waits.
    @Test func theFirstResultIsRecordedWhileTheServerStillHoldsTheDeferredPart() async throws {
        let store = TimelineStore()
        let firstResultSeenBeforeTheRest = Locked<Bool?>(nil)
        let (server, session, _) = try await Self.deferOnAServer(store: store) { writer in
            try writer.write(Self.initial)
            let deadline = ContinuousClock.now + .seconds(10)
            var seen = false
            while !seen, ContinuousClock.now < deadline {
                seen = store.events().contains { $0.name == "JSONResponseParsingInterceptor" && $0.phase == .postflight }
                if !seen { try? await Task.sleep(for: .milliseconds(5)) }
            }
            firstResultSeenBeforeTheRest.withLock { $0 = seen }
            try writer.write(Self.increment("appearsIn", "JEDI", hasNext: false) + Self.closing)
        }
        defer { server.stop() }
        let result = await session.runHeadless()
        await session.shutDown()

        #expect(firstResultSeenBeforeTheRest.value == true)
        #expect(result.networkFailures == [])
        #expect(result.requests.map(\.outcome) == [.success])
        #expect(result.requests.first?.results == ["server", "server"])
        let transport = result.events.filter { $0.kind == .transport }
        #expect(transport.map { "\($0.phase.rawValue) \($0.detail ?? "")" } == [
            "send ", "receive multipart head; parts follow", "receive part 1", "receive part 2",
        ])
        let parsed = result.events.filter { $0.name == "JSONResponseParsingInterceptor" && $0.phase == .postflight }
        #expect(parsed.count == 2)
        #expect(parsed.last?.body?.text.contains(#""appearsIn":["JEDI"]"#) == true)
    }

    /// `--max-body` bounds a whole answer too: a subscription-like answer whose parts are each
    /// within the limit stops when they add up to more than it, naming the limit.
    @Test func partsWithinMaxBodyStopWhenTheyAddUpToMoreThanIt() async throws {
        let parts = [
            Self.initial, Self.increment("appearsIn", "NEWHOPE", hasNext: true), Self.increment("friends", "1000", hasNext: true),
            Self.increment("starships", "3000", hasNext: false),
        ]
        let total = parts.reduce(0) { $0 + $1.count }
        let limit = 200
        #expect(parts.allSatisfy { $0.count < limit } && total > limit)
        let (server, session, url) = try await Self.deferOnAServer(maxBodyBytes: limit) { writer in
            for part in parts { try writer.write(part) }
            try writer.write(Self.closing)
        }
        defer { server.stop() }
        let result = await session.runHeadless()
        await session.shutDown()

        #expect(result.networkFailures == [RemoteFailure(url: url.absoluteString, cause: .tooLarge(limit: limit, announced: nil))])
        #expect(result.requests.map(\.outcome) == [.failure])
    }

    /// A part larger than `--max-body` stops the read with the limit named; the parts before
    /// it were already handed on.
    @Test func aPartLargerThanMaxBodyFailsNamingTheLimit() async throws {
        let limit = 200
        let big = Self.increment("appearsIn", String(repeating: "X", count: 400), hasNext: false)
        let (server, session, url) = try await Self.deferOnAServer(maxBodyBytes: limit) { writer in
            try writer.write(Self.initial)
            try writer.write(big + Self.closing)
        }
        defer { server.stop() }
        let result = await session.runHeadless()
        await session.shutDown()

        let expected = RemoteFailure(url: url.absoluteString, cause: .partTooLarge(limit: 200))
        #expect(result.networkFailures == [expected])
        #expect(expected.description == "a part of the answer from \(url.absoluteString) is larger than the 200 bytes allowed (--max-body); reading stopped at 200 bytes")
        let transport = result.events.filter { $0.kind == .transport }
        #expect(transport.map { "\($0.phase.rawValue) \($0.detail ?? "")" }.prefix(3) == [
            "send ", "receive multipart head; parts follow", "receive part 1",
        ])
        #expect(result.requests.map(\.outcome) != [.success])
    }
}
