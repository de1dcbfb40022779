import ChainKit
import Foundation
import Lab
import Testing
import Timeline
import Exports

@Suite("Traces")
struct TraceTests {
    @Test("basics publishes exactly this event sequence")
    func basicsSequence() async throws {
        let result = await LabSession(scenario: try #require(Catalog.scenario(named: "basics"))).runHeadless()
        let lines = result.events.map { "\($0.seq) \($0.attempt) \($0.hop) \($0.name) \($0.kind.rawValue) \($0.phase.rawValue)" }
        #expect(lines == [
            "1 1 0 MaxRetryInterceptor graphql preflight",
            "2 1 1 AuthInterceptor graphql preflight",
            "3 1 2 AutomaticPersistedQueryInterceptor graphql preflight",
            "4 1 3 cache cache cacheMiss",
            "5 1 4 ResponseCodeInterceptor http preflight",
            "6 1 5 transport transport send",
            "7 1 5 transport transport receive",
            "8 1 4 ResponseCodeInterceptor http postflight",
            "9 1 6 JSONResponseParsingInterceptor parser preflight",
            "10 1 6 JSONResponseParsingInterceptor parser postflight",
            "11 1 2 AutomaticPersistedQueryInterceptor graphql postflight",
            "12 1 1 AuthInterceptor graphql postflight",
            "13 1 0 MaxRetryInterceptor graphql postflight",
            "14 1 3 cache cache postflight",
        ])
        #expect(result.events.map(\.time) == Array(repeating: 0, count: 6) + Array(repeating: 0.012, count: 8))
    }

    /// apollo-ios 2.4 `Sources/Apollo/Execution/GraphQLExecutor.swift`: the executor's error
    /// leaves the parser and climbs every interceptor's `mapErrors`; nothing is cached.
    @Test("partial-data: the parser's missingValue climbs through AuthInterceptor's mapErrors, and the cache stays empty")
    func partialData() async throws {
        let session = LabSession(scenario: try #require(Catalog.scenario(named: "partial-data")))
        let result = await session.runHeadless()
        let error = #"GraphQLExecutionError: Error at path "hero.name)": missingValue"#
        #expect(result.events.suffix(5).map { "\($0.hop) \($0.name) \($0.phase.rawValue) \($0.error ?? "")" } == [
            "6 JSONResponseParsingInterceptor preflight ",
            "6 JSONResponseParsingInterceptor error \(error)",
            "2 AutomaticPersistedQueryInterceptor error \(error)",
            "1 AuthInterceptor error \(error)",
            "0 MaxRetryInterceptor error \(error)",
        ])
        #expect(result.requests.map(\.outcome) == [.failure])
        #expect(result.requests.first?.error == error)
        #expect(result.backend["tokenRefreshes"] == 0)
        await session.shutDown()
    }

    /// apollo-ios 2.4 `Sources/Apollo/ApolloClient.swift`: `fetch(query:cachePolicy: .cacheOnly)`
    /// answers nil when the chain ends in `noResults`.
    @Test("a CacheOnly miss is no result, not a failure, as the client answers nil")
    func cacheOnlyMiss() async throws {
        var scenario = try #require(Catalog.scenario(named: "basics"))
        scenario.operations[0].fetchBehavior = .CacheOnly
        scenario.prefillCache = false
        let result = await LabSession(scenario: scenario).runHeadless()
        let summary = try #require(result.requests.first)
        #expect(summary.outcome == .success)
        #expect(summary.results.isEmpty)
        #expect(summary.error == nil)
        #expect(TextTrace.summaryLine(for: summary, masking: .masked)
            == "#1 HeroQuery: success after 1 attempt, no result (the cache had none, and the client answers nil)")
        #expect(result.backend["graphqlRequests"] == 0)
    }

    @Test("the Auth hop's pre-flight event shows Authorization added, and only there")
    func authDiff() async throws {
        let result = await LabSession(scenario: try #require(Catalog.scenario(named: "basics"))).runHeadless()
        let withDiff = result.events.filter { !$0.diff.isEmpty }
        #expect(withDiff.map(\.name) == ["AuthInterceptor"])
        #expect(withDiff.first?.diff.added == ["Authorization"])
        #expect(withDiff.first?.diff.changed == [])
        #expect(withDiff.first?.headers?["Authorization"] == "Bearer at-1-1")
        let send = try #require(result.events.first { $0.phase == .send })
        #expect(send.headers?["Authorization"] == "Bearer at-1-1")
        #expect(send.method == "POST")
        #expect(send.url == "https://lab.chainlab.local/graphql")
    }

    @Test("the same scenario gives the same bytes every time")
    func determinism() async throws {
        var outputs: Set<String> = []
        for _ in 0..<3 {
            let scenario = try #require(Catalog.scenario(named: "basics"))
            let result = await LabSession(scenario: scenario).runHeadless()
            outputs.insert(TraceJSON.encode(TraceDocument(scenario: scenario.name, requests: result.requests, events: result.events, backend: result.backend), masking: .masked))
        }
        #expect(outputs.count == 1)
    }

    @Test("the HAR of a run parses back with one entry per transport exchange")
    func harOfARun() async throws {
        let result = await LabSession(scenario: try #require(Catalog.scenario(named: "basics"))).runHeadless()
        let har = try JSONValue(parsing: HARExport.archive(events: result.events, masking: .masked, anchor: .lab(scenario: "basics")))
        let entries = try #require(har["log"]?["entries"]?.arrayValue)
        #expect(har["log"]?["version"] == "1.2")
        #expect(entries.count == 1)
        #expect(entries[0]["request"]?["method"] == "POST")
        #expect(entries[0]["request"]?["url"] == "https://lab.chainlab.local/graphql")
        #expect(entries[0]["response"]?["status"] == 200)
        #expect(entries[0]["time"] == 12)
        let authorization = entries[0]["request"]?["headers"]?.arrayValue?.first { $0["name"] == "Authorization" }
        #expect(authorization?["value"] == "Bearer ••••-1-1")
        #expect(entries[0]["_hops"]?.arrayValue?.count == 12)
    }

    @Test("1,000 concurrent operations: every event once, seq contiguous, every request ends")
    func stress() async throws {
        var scenario = try #require(Catalog.scenario(named: "basics"))
        scenario.launch = Array(repeating: 0, count: 1000)
        let session = LabSession(scenario: scenario)
        let result = await session.runHeadless()
        #expect(result.requests.count == 1000)
        #expect(result.unfinished.isEmpty)
        #expect(result.requests.allSatisfy { $0.outcome == .success })
        #expect(result.events.map(\.seq) == Array(1...result.events.count))
        #expect(Set(result.events.map(\.request)) == Set(1...1000))
        #expect(result.events.filter { $0.phase == .send }.count == result.backend["graphqlRequests"])
        for request in [1, 500, 1000] {
            let phases = result.events.filter { $0.request == request }.map(\.phase)
            #expect(phases.first == .preflight)
            #expect(phases.filter { $0 == .preflight }.count >= 3)
        }
    }
}

@Suite("Record and replay")
struct ReplayTests {
    @Test("a headless run replays to the identical timeline")
    func headlessReplay() async throws {
        var scenario = try #require(Catalog.scenario(named: "basics"))
        scenario.launch = [0, 0, 0]
        let first = LabSession(scenario: scenario)
        let original = await first.runHeadless()
        let recording = Recording(scenario: scenario.name, commands: first.commandLog)
        let decoded = try Recording(json: Data(recording.json.utf8))
        #expect(decoded == recording)
        let replayed = await LabSession(scenario: scenario, replay: decoded.commands).runHeadless()
        #expect(replayed.events == original.events)
        #expect(replayed.requests == original.requests)
        #expect(replayed.refusals.isEmpty)
    }

    @Test("an interactive run with an interleaving, an edit and a forced 401 replays identically")
    func interactiveReplay() async throws {
        let scenario = try #require(Catalog.scenario(named: "basics"))
        let live = steppingSession(scenario: scenario)
        live.launch()
        live.launch()
        await live.waitUntilSettled()
        await live.perform(.step(request: 2))
        await live.perform(.step(request: 2))
        await live.perform(.step(request: 1))
        var headers = try #require(live.control.parked.first { $0.request == 2 }?.currentHeaders)
        try headers.append("X-Replay", "yes")
        await live.perform(.editRequestHeaders(request: 2, headers: headers))
        await live.step(1, until: .hop(BasicsHop.transport, .pre))
        await live.perform(.force401(request: 1))
        await live.perform(.advanceClock(seconds: 1))
        await live.perform(.resumeAll)
        let original = live.result()
        #expect(original.unfinished.isEmpty)
        #expect(original.requests.map(\.attempts) == [2, 1])

        let recording = try Recording(json: Data(Recording(scenario: scenario.name, commands: live.commandLog).json.utf8))
        let replayed = await LabSession(scenario: scenario, defaultMode: .step, replay: recording.commands).runHeadless()
        #expect(replayed.refusals.isEmpty)
        #expect(replayed.events == original.events)
        #expect(replayed.requests == original.requests)
    }

    @Test("a replay that no longer fits the run says where it diverged")
    func divergence() async throws {
        let scenario = try #require(Catalog.scenario(named: "basics"))
        let commands = [
            RecordedCommand(command: .launch(operation: 0), place: nil),
            RecordedCommand(command: .pass(request: 1), place: .hop(3, .pre)),
        ]
        let result = await LabSession(scenario: scenario, replay: commands).runHeadless()
        #expect(result.refusals.map(\.reason) == ["replay diverged at step 2: expected request #1 at hop 4 pre, found it at launch"])
    }

    @Test("a malformed recording is refused with the JSON path of the problem")
    func malformedRecording() {
        #expect(throws: Recording.DecodingError(path: "commands[0].command", reason: "unknown \"jump\"; known: launch, step, resume, resumeAll, pass, editRequestHeaders, editResponse, force401, forceRetry, fail, delay, advanceClock, expireTokens, setBreakRules")) {
            try Recording(json: Data(#"{"format":"chainlab-recording","version":1,"scenario":"basics","commands":[{"command":"jump"}]}"#.utf8))
        }
    }
}
