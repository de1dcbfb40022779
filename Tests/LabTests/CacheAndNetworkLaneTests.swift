import ChainKit
import Foundation
import Lab
import Testing
import Timeline
import Exports

/// The `cache-and-network` scenario: under CacheAndNetwork the network fetch starts while the
/// cached result climbs (upstream's `RequestChain` runs the network step in its own task once
/// the cache has answered — apollo-ios `Sources/Apollo/RequestChain.swift`), and the lab
/// schedules the two as lanes of one request.
@Suite("CacheAndNetwork lanes")
struct CacheAndNetworkLaneTests {
    static let scenario = Catalog.scenario(named: "cache-and-network")!

    /// `name phase [lane]` per event, as the text trace orders them.
    static func outline(_ events: [TimelineEvent]) -> [String] {
        events.map { "\($0.name) \($0.phase.rawValue)" + ($0.lane.map { " [\($0.rawValue)]" } ?? "") }
    }

    /// A headless run on a warm cache up to the parser's pre-flight, whatever the answer.
    static let untilTheParser = [
        "MaxRetryInterceptor preflight",
        "AuthInterceptor preflight",
        "AutomaticPersistedQueryInterceptor preflight",
        "cache cacheHit",
        // The fork: each lane takes a turn in key order (cache first), then in turn.
        "AutomaticPersistedQueryInterceptor postflight [cache]",
        "ResponseCodeInterceptor preflight [network]",
        "AuthInterceptor postflight [cache]",
        "transport send [network]",
        "transport receive [network]",
        "MaxRetryInterceptor postflight [cache]",
        "ResponseCodeInterceptor postflight [network]",
        "JSONResponseParsingInterceptor preflight [network]",
    ]

    @Test("headless: the network lane interleaves with the cached result's way up; the caller gets the cache's result, then the server's")
    func headless() async throws {
        let result = await LabSession(scenario: Self.scenario).runHeadless()
        #expect(result.unfinished.isEmpty)
        #expect(result.refusals.isEmpty)
        #expect(result.requests == [RequestSummary(id: 1, operation: "HeroQuery", outcome: .success, attempts: 1, results: ["cache", "server"], operationType: "query")])
        #expect(Self.outline(result.events) == Self.untilTheParser + [
            "JSONResponseParsingInterceptor postflight [network]",
            // The network lane has ended: the server's result climbs in the request's one lane.
            "AutomaticPersistedQueryInterceptor postflight",
            "AuthInterceptor postflight",
            "MaxRetryInterceptor postflight",
            "cache postflight",
        ])
        let top = result.events.filter { $0.name == "MaxRetryInterceptor" && $0.phase == .postflight }
        #expect(top.map(\.detail) == ["cache", "server"])
        // The cached result reached the top after the network had answered: they overlapped.
        let receive = try #require(result.events.first { $0.phase == .receive })
        #expect(top[0].seq > receive.seq)
        #expect(result.backend["graphqlRequests"] == 1)
    }

    @Test("headless twice gives the same bytes; its recording names the lanes and replays to the same timeline")
    func deterministicAndReplayable() async throws {
        let first = LabSession(scenario: Self.scenario)
        let original = await first.runHeadless()
        let again = await LabSession(scenario: Self.scenario).runHeadless()
        let encode = { (result: LabSession.RunResult) in
            TraceJSON.encode(TraceDocument(scenario: Self.scenario.name, requests: result.requests, events: result.events, backend: result.backend), masking: .masked)
        }
        #expect(encode(original) == encode(again))
        #expect(encode(original).contains(#""phase":"postflight","lane":"network","#))

        let recording = Recording(scenario: Self.scenario.name, commands: first.commandLog)
        #expect(recording.json.contains(#"{"at":{"hop":4,"position":"pre"},"command":"pass","lane":"network","request":1}"#))
        let decoded = try Recording(json: Data(recording.json.utf8))
        #expect(decoded == recording)
        try decoded.validate(for: Self.scenario)
        let replayed = await LabSession(scenario: Self.scenario, replay: decoded.commands).runHeadless()
        #expect(replayed.refusals.isEmpty)
        #expect(replayed.events == original.events)
        #expect(encode(replayed) == encode(original))
    }

    @Test("stepping: both lanes are held; the network lane steps to its end while the cache lane stays held, then the cache lane finishes")
    func stepEitherLane() async throws {
        let session = steppingSession("cache-and-network")
        await session.stepToTheFork()
        let lanes = { session.control.parked.map { "\($0.lane?.rawValue ?? "-") \($0.place)" } }
        #expect(lanes() == ["cache hop 3 post", "network hop 5 pre"])
        #expect(session.control.forked == [1])
        // The network lane, step by step, while the cached result waits at APQ's post-flight.
        var network: [String] = []
        for _ in 0..<6 {
            await session.perform(.step(request: 1, lane: .network))
            network.append(lanes().joined(separator: " | "))
        }
        #expect(network == [
            "cache hop 3 post | network hop 6 pre",
            "cache hop 3 post | network hop 6 post",
            "cache hop 3 post | network hop 5 post",
            "cache hop 3 post | network hop 7 pre",
            // The parser handed its result on and the network lane ended: one lane again.
            "- hop 3 post",
            "- hop 3 post",
        ])
        #expect(session.control.refusals.map(\.reason) == ["request #1 (network lane) is not waiting at a stop"])
        #expect(session.control.forked == [])
        let places = await session.step(1, until: .hop(99, .pre))
        #expect(places == [.hop(2, .post), .hop(1, .post), .hop(0, .post), .hop(2, .post), .hop(1, .post), .hop(0, .post)])
        #expect(session.summary(of: 1)?.results == ["cache", "server"])
        let paused = session.events(.paused).map { "\($0.name) \($0.lane?.rawValue ?? "-")" }
        #expect(paused.prefix(6) == [
            "MaxRetryInterceptor -", "AuthInterceptor -", "AutomaticPersistedQueryInterceptor -", "cache -",
            "AutomaticPersistedQueryInterceptor cache", "ResponseCodeInterceptor network",
        ])
    }

    @Test("stepping either lane, with a header edited at the network lane's transport stop, replays to the same timeline")
    func interactiveReplay() async throws {
        let live = steppingSession("cache-and-network")
        await live.stepToTheFork()
        await live.perform(.step(request: 1, lane: .network))
        var headers = try #require(live.control.parked.first { $0.lane == .network }?.currentHeaders)
        try headers.append("X-Lane", "network")
        await live.perform(.editRequestHeaders(request: 1, headers: headers, lane: .network))
        await live.perform(.step(request: 1, lane: .cache))
        await live.perform(.resume(request: 1, lane: .network))
        await live.perform(.resume(request: 1))
        let original = live.result()
        #expect(original.unfinished.isEmpty)
        #expect(original.refusals.isEmpty)
        #expect(original.requests.map(\.results) == [["cache", "server"]])
        #expect(original.events.first { $0.phase == .send }?.headers?["X-Lane"] == "network")
        let edited = try #require(original.events.first { $0.phase == .edited })
        #expect(edited.lane == .network)

        let recording = try Recording(json: Data(Recording(scenario: Self.scenario.name, commands: live.commandLog).json.utf8))
        #expect(recording.commands.contains { $0.command == .editRequestHeaders(request: 1, headers: RecordedSecret.redacted(headers), lane: .network) })
        let replayed = await LabSession(scenario: Self.scenario, defaultMode: .step, replay: recording.commands).runHeadless()
        #expect(replayed.refusals.isEmpty)
        #expect(replayed.events == original.events)
        #expect(replayed.requests == original.requests)
    }

    @Test("OTLP: the network lane's hops are spans under the attempt, siblings of the GraphQL hops, marked with their lane")
    func otlpSiblings() async throws {
        let session = LabSession(scenario: Self.scenario)
        _ = await session.runHeadless()
        let document = try OTLPDocument(session.export(.otlp))
        let attempt = try #require(document.spans.first { $0.name == "attempt 1" })
        let children = document.spans.filter { $0.parent == attempt.spanID }
        #expect(children.map(\.name) == [
            "MaxRetryInterceptor", "AuthInterceptor", "AutomaticPersistedQueryInterceptor", "cache",
            "ResponseCodeInterceptor", "POST /graphql", "JSONResponseParsingInterceptor",
        ])
        #expect(children.map { $0.attributes["chainlab.lane"]?.stringValue ?? "-" } == ["-", "-", "-", "-", "network", "network", "network"])
    }

    @Test("a recording without lanes still reads; a lane that does not exist is refused with its path")
    func recordingLanes() throws {
        let old = #"{"format":"chainlab-recording","version":1,"scenario":"basics","commands":[{"command":"launch","operation":0},{"command":"step","request":1,"at":{"hop":0,"position":"pre"}}]}"#
        let decoded = try Recording(json: Data(old.utf8))
        #expect(decoded.commands.map(\.command) == [.launch(operation: 0), .step(request: 1)])
        let wrong = #"{"format":"chainlab-recording","version":1,"scenario":"basics","commands":[{"command":"step","request":1,"lane":"disk"}]}"#
        #expect(throws: Recording.DecodingError(path: "commands[0].lane", reason: #"expected one of "cache", "network""#)) {
            try Recording(json: Data(wrong.utf8))
        }
        let launch = #"{"format":"chainlab-recording","version":1,"scenario":"basics","commands":[{"command":"launch","operation":0,"lane":"cache"}]}"#
        #expect(throws: Recording.DecodingError(path: "commands[0].lane", reason: "unknown key; known: command, operation, at")) {
            try Recording(json: Data(launch.utf8))
        }
    }
}
