import ChainKit
import Foundation
import Lab
import Testing
import Timeline
import Exports

/// A @defer query under CacheAndNetwork on a warm cache: the cached result climbs the cache
/// lane while the network lane receives a multipart/mixed;deferSpec=20220824 answer.
///
/// Upstream (apollo-ios 2.x) pins what the caller gets:
/// - `Sources/Apollo/RequestChain/RequestChain.swift`: `execute` yields the cache read's result,
///   then passes every network result through as it is parsed, in the same stream; at the top
///   `writeToCacheIfNecessary` writes only server results that carry cache records.
/// - `Sources/Apollo/ResponseParsing/JSONResponseParser.swift`: each multipart chunk is one
///   result; an incremental chunk is merged into the result before it, records included, so the
///   second write holds the deferred fields as well.
/// - `Sources/Apollo/Execution/ExecutionSources/CacheDataExecutionSource.swift`: a cache read
///   runs deferred fragments with the rest and leaves a missing one pending, so a cache without
///   the deferred `appearsIn` still answers.
///
/// So the caller gets the cached result, then the initial part as soon as it is parsed, then
/// the merged increment when it arrives — the initial part does not wait for the increment.
@Suite("CacheAndNetwork lanes with a @defer answer")
struct DeferredCacheAndNetworkTests {
    /// The `defer` scenario's query under CacheAndNetwork, its cache filled with the hero
    /// without the deferred films.
    static let scenario: Scenario = {
        var scenario = Catalog.scenario(named: "defer")!
        scenario.name = "defer-cache-and-network"
        scenario.operations[0].fetchBehavior = .CacheAndNetwork
        scenario.prefillCache = true
        return scenario
    }()

    static let cached = #"{"data":{"hero":{"id":"2001","name":"R2-D2 (cached)"}}}"#
    static let initial = #"{"data":{"hero":{"id":"2001","name":"R2-D2"}}}"#
    static let merged = #"{"data":{"hero":{"appearsIn":["NEWHOPE","EMPIRE","JEDI"],"id":"2001","name":"R2-D2"}}}"#

    /// The cache once the merged increment is written: the server's name, and the films.
    static let cacheAfter = """
        Hero:2001 {appearsIn: ["NEWHOPE", "EMPIRE", "JEDI"], id: "2001", name: "R2-D2"}
        QUERY_ROOT {hero: -> #Hero:2001}
        """

    /// Results as they leave the top hop: `source body @ms`.
    static func delivered(_ events: [TimelineEvent]) -> [String] {
        events.filter { $0.hop == BasicsHop.maxRetry && $0.phase == .postflight }
            .map { "\($0.detail ?? "") \($0.body?.text ?? "") @\(Int(($0.time * 1000).rounded()))" }
    }

    static func encode(_ result: LabSession.RunResult) -> String {
        TraceJSON.encode(TraceDocument(scenario: scenario.name, requests: result.requests, events: result.events, backend: result.backend), masking: .masked)
    }

    @Test("headless: the cached result, then the initial part as soon as it is parsed, then the merged increment 80 ms later; one request, both written")
    func headless() async throws {
        let session = LabSession(scenario: Self.scenario)
        let result = await session.runHeadless()
        #expect(result.unfinished.isEmpty)
        #expect(result.refusals.isEmpty)
        #expect(result.requests == [RequestSummary(id: 1, operation: "HeroDeferQuery", outcome: .success, attempts: 1, results: ["cache", "server", "server"], operationType: "query")])
        // Each part: received and parsed in the network lane, then it climbs the cache lane to
        // the caller and is written.
        let part = [
            "transport receive [network]", "JSONResponseParsingInterceptor postflight [network]",
            "AutomaticPersistedQueryInterceptor postflight [cache]", "AuthInterceptor postflight [cache]",
            "MaxRetryInterceptor postflight [cache]", "cache postflight [cache]",
        ]
        // The fork goes as with a single-part answer; the initial part reaches the caller
        // before the increment is read.
        #expect(CacheAndNetworkLaneTests.outline(result.events) == CacheAndNetworkLaneTests.untilTheParser + part + part)
        #expect(result.events.filter { $0.phase == .receive }.map { $0.detail ?? "" } == ["multipart head; parts follow", "part 1", "part 2"])
        #expect(Self.delivered(result.events) == ["cache \(Self.cached) @12", "server \(Self.initial) @12", "server \(Self.merged) @92"])
        // The initial part reached the caller before the increment arrived.
        let secondPart = try #require(result.events.first { $0.detail == "part 2" })
        let initialAtTop = try #require(result.events.first { $0.hop == BasicsHop.maxRetry && $0.phase == .postflight && $0.detail == "server" })
        #expect(initialAtTop.seq < secondPart.seq)
        #expect(result.backend["graphqlRequests"] == 1)

        // The cached result is not written back; each server result is, the second with the films.
        let writes = result.events.filter { $0.kind == .cache && $0.phase == .postflight }
        #expect(writes.map { $0.body?.text } == [
            #"{"Hero:2001":{"id":"2001","name":"R2-D2"},"QUERY_ROOT":{"hero":{"$reference":"Hero:2001"}}}"#,
            #"{"Hero:2001":{"appearsIn":["NEWHOPE","EMPIRE","JEDI"],"id":"2001","name":"R2-D2"},"QUERY_ROOT":{"hero":{"$reference":"Hero:2001"}}}"#,
        ])
        #expect(session.cache.records.description == Self.cacheAfter)
    }

    @Test("headless twice gives the same bytes; the recording names the network lane's wait for the increment and replays to the same timeline")
    func deterministicAndReplayable() async throws {
        let first = LabSession(scenario: Self.scenario)
        let original = await first.runHeadless()
        let again = await LabSession(scenario: Self.scenario).runHeadless()
        #expect(Self.encode(original) == Self.encode(again))

        let recording = Recording(scenario: Self.scenario.name, commands: first.commandLog)
        #expect(recording.json.contains(#"{"at":"wake","command":"pass","lane":"network","request":1}"#))
        let decoded = try Recording(json: Data(recording.json.utf8))
        try decoded.validate(for: Self.scenario)
        let replayed = await LabSession(scenario: Self.scenario, replay: decoded.commands).runHeadless()
        #expect(replayed.refusals.isEmpty)
        #expect(replayed.events == original.events)
        #expect(Self.encode(replayed) == Self.encode(original))
    }

    @Test("stepping: the cached result stepped to the caller, then the network lane; the increment arrives while the initial part is held, and every lane ends")
    func stepBothLanes() async throws {
        let session = steppingSession(scenario: Self.scenario)
        await session.stepToTheFork()
        #expect(session.laneStops == "cache hop 3 post | network hop 5 pre")
        // The cached result to the caller, while the network lane waits at ResponseCode's pre-flight.
        var steps: [String] = []
        for _ in 0..<3 {
            await session.perform(.step(request: 1, lane: .cache))
            steps.append(session.laneStops)
        }
        #expect(steps == ["cache hop 2 post | network hop 5 pre", "cache hop 1 post | network hop 5 pre", "network hop 5 pre"])
        #expect(session.summary(of: 1) == nil)
        // The network lane: a step without a lane acts on it, the cache lane having no stop.
        steps = []
        for _ in 0..<5 {
            await session.perform(.step(request: 1))
            steps.append(session.laneStops)
        }
        #expect(steps == [
            "network hop 6 pre", "network hop 6 post", "network hop 5 post", "network hop 7 pre",
            // The parser handed the initial part on; it climbs and is held at APQ. Nothing else
            // can move, so the network lane reads the increment (the lab clock moves on 80 ms)
            // and the end: one lane again.
            "- hop 3 post",
        ])
        #expect(session.control.forked == [])
        let places = await session.step(1, until: .hop(99, .pre))
        #expect(places == [.hop(2, .post), .hop(1, .post), .hop(0, .post), .hop(2, .post), .hop(1, .post), .hop(0, .post)])
        let result = session.result()
        #expect(result.unfinished.isEmpty)
        #expect(result.refusals.isEmpty)
        #expect(result.requests.map(\.results) == [["cache", "server", "server"]])
        #expect(Self.delivered(result.events) == ["cache \(Self.cached) @0", "server \(Self.initial) @92", "server \(Self.merged) @92"])
        #expect(session.cache.records.description == Self.cacheAfter)

        let recording = try Recording(json: Data(Recording(scenario: Self.scenario.name, commands: session.commandLog).json.utf8))
        let replayed = await LabSession(scenario: Self.scenario, defaultMode: .step, replay: recording.commands).runHeadless()
        #expect(replayed.refusals.isEmpty)
        #expect(replayed.events == result.events)
    }

    @Test("a fault on the cached result while the network lane is held: the failure reaches the caller, the cancelled network lane still steps to its end, then the request finishes", .timeLimit(.minutes(1)))
    func faultOnTheCachedResult() async throws {
        let session = steppingSession(scenario: Self.scenario)
        await session.stepToTheFork()
        await session.perform(.fail(request: 1, fault: .timeout, lane: .cache))
        await session.perform(.step(request: 1, lane: .cache))
        await session.perform(.step(request: 1, lane: .cache))
        // The failure has left the top; the request waits for its network lane, which a person
        // can still step (the cache lane no longer counts as running).
        #expect(session.laneStops == "network hop 5 pre")
        #expect(session.control.forked == [1])
        #expect(session.summary(of: 1) == nil)
        var steps: [String] = []
        for _ in 0..<3 {
            await session.perform(.step(request: 1))
            steps.append(session.laneStops)
        }
        #expect(steps == ["network hop 6 pre", "network hop 5 post", ""])
        let result = session.result()
        #expect(result.unfinished.isEmpty)
        #expect(result.refusals.isEmpty)
        #expect(result.requests == [RequestSummary(
            id: 1, operation: "HeroDeferQuery", outcome: .failure, attempts: 1, error: "LabFault: the request timed out (injected)", results: [],
            operationType: "query")])
        // Upstream cancels the execution task (and with it the fetch) when the operation's
        // stream ends (`Sources/Apollo/Internal Utilities/AsyncThrowingStream+ExecutingInAsyncTask.swift`).
        let failed = result.events.filter { $0.phase == .error }
        #expect(failed.map { "\($0.name) \($0.lane?.rawValue ?? "-")" } == [
            "AutomaticPersistedQueryInterceptor cache", "AuthInterceptor cache", "MaxRetryInterceptor cache",
            // The fetch was cancelled with the operation's attempt: it fails where it stands.
            "transport network", "ResponseCodeInterceptor network",
        ])
        #expect(failed.suffix(2).map(\.error) == ["CancellationError()", "CancellationError()"])

        let recording = try Recording(json: Data(Recording(scenario: Self.scenario.name, commands: session.commandLog).json.utf8))
        let replayed = await LabSession(scenario: Self.scenario, defaultMode: .step, replay: recording.commands).runHeadless()
        #expect(replayed.refusals.isEmpty)
        #expect(replayed.events == result.events)
    }

    @Test("scheduler: a network lane waiting to read the next part goes only when nothing else can move")
    func partReadGoesLast() {
        var core = SchedulerLaneTests.forked()
        core.park(ParkedStop(request: 1, lane: .network, place: .wake), waiter: "part 2")
        core.park(SchedulerLaneTests.stop(.cache, 2, .post), waiter: "cache")
        #expect(core.dispatch(now: 0).effects == [.resume("cache", .proceed)])
        // Round robin would give the network lane its turn now; the part read waits.
        core.park(SchedulerLaneTests.stop(.cache, 1, .post), waiter: "cache 2")
        #expect(core.dispatch(now: 0).effects == [.resume("cache 2", .proceed)])
        // The cache lane has carried its result up and waits for the next one: the read goes.
        core.readNetworkResult(request: 1)
        #expect(core.dispatch(now: 0).effects == [.resume("part 2", .proceed)])
        #expect(core.log.last == RecordedCommand(command: .pass(request: 1, lane: .network), place: .wake))
        _ = core.handOn(request: 1, isEnd: true)
        #expect(core.forked == [])
    }

    @Test("scheduler: a held cache lane does not hold the part read, and a person's step at it takes it out of the queue")
    func partReadPastAHeldLane() {
        var core = SchedulerLaneTests.forked(.step)
        core.park(SchedulerLaneTests.stop(.cache, 2, .post, held: true), waiter: "cache")
        core.park(ParkedStop(request: 1, lane: .network, place: .wake), waiter: "part 2")
        #expect(core.dispatch(now: 0).effects == [.resume("part 2", .proceed)])
        core.park(ParkedStop(request: 1, lane: .network, place: .wake), waiter: "end")
        core.submit(.step(request: 1, lane: .network))
        #expect(core.dispatch(now: 0).effects == [.resume("end", .proceed)])
        _ = core.handOn(request: 1, isEnd: true)
        #expect(core.dispatch(now: 0).effects == [])
        #expect(core.parkedStops.map(\.place) == [.hop(2, .post)])
    }

    @Test("scheduler: a cache lane that has read its last result while the network lane runs stops running, and the network lane takes its turns")
    func cacheLaneEndsFirst() {
        var core = SchedulerLaneTests.forked()
        core.park(SchedulerLaneTests.stop(.network, 4, .pre), waiter: "network")
        // The cache lane still runs: its failure climbs to the top.
        #expect(core.dispatch(now: 0) == ([], false))
        let dispatches = core.endCacheLane(request: 1)
        #expect(dispatches)
        #expect(core.dispatch(now: 0).effects == [.resume("network", .proceed)])
        #expect(core.running == [1])
        _ = core.handOn(request: 1, isEnd: true)
        // The operation's task goes on to finish the request.
        #expect(core.running == [1])
        #expect(core.forked == [])
        _ = core.finish(request: 1)
        #expect(core.running == [])
        // Once the network lane has ended there is no lane left to end.
        let again = core.endCacheLane(request: 1)
        #expect(!again)
    }
}

