import ChainKit
import Foundation
import Testing
import Timeline
import TimelineFilter
@testable import Lab
@testable import Scheduling

/// Breakpoints by rule: their syntax, where they stop, and that a replay stops there again.
@Suite("Breakpoints by rule")
struct BreakRuleTests {
    static let authOn401 = "post@AuthInterceptor if ~op HeroQuery & ~c 401"

    static func rule(_ text: String) throws -> BreakRule { try BreakRule(parsing: text) }

    static func scenario(_ name: String, rules: [String]) throws -> Scenario {
        var scenario = Catalog.scenario(named: name)!
        scenario.breakpoints = try rules.map(rule)
        return scenario
    }

    @Test("the four places and an optional filter; a rule prints as it is written", arguments: [
        ("pre@AuthInterceptor", BreakRule.Place.hop(name: "AuthInterceptor", .pre), nil as String?),
        ("  post@transport  ", .hop(name: "transport", .post), nil),
        ("answer if ~c 5xx", .answer, "~c 5xx"),
        ("refresh if ~op Hero", .refresh, "~op Hero"),
        ("post@AuthInterceptor if ~op HeroQuery & ~c 401", .hop(name: "AuthInterceptor", .post), "~op HeroQuery & ~c 401"),
    ])
    func parses(_ text: String, place: BreakRule.Place, condition: String?) throws {
        let rule = try Self.rule(text)
        #expect(rule.place == place)
        #expect(rule.condition?.source.trimmingCharacters(in: .whitespaces) == condition)
        #expect(rule.description == text.trimmingCharacters(in: .whitespaces))
        #expect(rule.isEnabled)
    }

    @Test("rule errors count positions from the start of the rule", arguments: [
        ("", 1, "expected where to stop: pre@HOP, post@HOP, answer or refresh, found the end"),
        ("mid@AuthInterceptor", 1, "expected where to stop: pre@HOP, post@HOP, answer or refresh, found 'mid@AuthInterceptor'"),
        ("post@", 6, "expected a hop name after post@, such as AuthInterceptor or transport, found the end"),
        ("pre@Auth/x", 5, "expected a hop name after pre@, such as AuthInterceptor or transport, found 'Auth/x'"),
        ("post@Auth when ~c 401", 11, "expected 'if' and a filter, or the end, found 'when'"),
        ("post@Auth if", 13, "expected a filter after 'if', such as ~op HeroQuery & ~c 401"),
        ("post@AuthInterceptor if ~c 4", 28, "expected a status code such as 401 or 4xx after ~c, found '4'"),
        ("answer if (~retry", 18, "expected ')' to close the '(' at 11, found the end"),
    ])
    func ruleErrors(_ text: String, position: Int, reason: String) {
        #expect(throws: FilterSyntaxError(position: position, reason: reason)) { try BreakRule(parsing: text) }
    }

    @Test("a rule naming a hop the chain lacks is refused with the hops it has")
    func unknownHop() throws {
        let hops = Catalog.scenario(named: "basics")!.chain.hops().map(\.name)
        #expect(try Self.rule("pre@authinterceptor").refusal(hopNames: hops) == nil)
        #expect(try Self.rule("answer").refusal(hopNames: hops) == nil)
        #expect(try Self.rule("post@RetryMiddleware").refusal(hopNames: hops)
            == "no hop named 'RetryMiddleware' in the chain; hops: MaxRetryInterceptor, AuthInterceptor, AutomaticPersistedQueryInterceptor, cache, ResponseCodeInterceptor, transport, JSONResponseParsingInterceptor")
    }

    // MARK: - Stopping

    @Test("a headless run records the rule's stops at AuthInterceptor's post-flights after the 401, and continues")
    func headlessStop() async throws {
        let session = LabSession(scenario: try Self.scenario("token-expiry", rules: [Self.authOn401]))
        let result = await session.runHeadless()
        #expect(result.requests.map(\.outcome) == [.success])
        let stops = result.events.filter { $0.phase == .paused || $0.phase == .resumed && $0.detail?.hasPrefix("continue") == true }
        #expect(stops.map { "\($0.attempt) \($0.hop) \($0.name) \($0.phase) \($0.detail ?? "")" } == [
            "1 1 AuthInterceptor paused rule \(Self.authOn401) · post-flight",
            "1 1 AuthInterceptor resumed continue · post-flight",
            // `~c` matches any status the request has seen so far: attempt 2's post-flight
            // carries a 200, but the request had its 401.
            "2 1 AuthInterceptor paused rule \(Self.authOn401) · post-flight",
            "2 1 AuthInterceptor resumed continue · post-flight",
        ])
        // The stop comes after the transport received the 401, and before Auth's retry.
        let paused = stops[0].seq
        let received = result.events.first { $0.kind == .transport && $0.phase == .receive }!
        #expect(received.status == 401 && received.seq < paused)
        #expect(result.events.contains { $0.phase == .refresh && $0.seq > paused })
        #expect(result.refusals.isEmpty)
    }

    @Test("a rule whose filter does not match, or that is switched off, stops nothing", arguments: [
        "post@AuthInterceptor if ~c 500", "post@AuthInterceptor if ~op RenameHero", "answer if ~c 2xx & ~retry & !~refresh",
    ])
    func noMatch(_ text: String) async throws {
        var scenario = try Self.scenario("token-expiry", rules: [text])
        let result = await LabSession(scenario: scenario).runHeadless()
        #expect(!result.events.contains { $0.phase == .paused })
        scenario.breakpoints = [BreakRule(place: .answer, isEnabled: false)]
        #expect(!(await LabSession(scenario: scenario).runHeadless()).events.contains { $0.phase == .paused })
    }

    @Test("a rule whose patterns would never finish on a backtracking engine runs through, and one that matches stops")
    func patternsCannotHang() async throws {
        let hopeless = "answer if ~b '(.*.*)*QQ' | ~h '(.*.*)*QQ' | ~u '(.*.*)*QQ' | ~op '(.*.*)*QQ' | ~hop '(.*.*)*QQ'"
        let result = await LabSession(scenario: try Self.scenario("token-expiry", rules: [hopeless, "answer if ~b '(.*.*)*hero'"])).runHeadless()
        let paused = result.events.filter { $0.phase == .paused }
        #expect(paused.map { "\($0.attempt) \($0.name) \($0.detail ?? "")" } == [
            "1 transport rule answer if ~b '(.*.*)*hero' · post-flight",
            "2 transport rule answer if ~b '(.*.*)*hero' · post-flight",
        ])
    }

    @Test("answer and refresh stop where they say: the transport's answers after a 401, the refresh stop")
    func answerAndRefresh() async throws {
        let result = await LabSession(scenario: try Self.scenario("token-expiry", rules: ["answer if ~c 401", "refresh"])).runHeadless()
        let paused = result.events.filter { $0.phase == .paused }
        // `~c` matches any status the request has seen so far: attempt 2's answer is a 200,
        // but the request had a 401.
        #expect(paused.map { "\($0.attempt) \($0.name) \($0.detail ?? "")" } == [
            "1 transport rule answer if ~c 401 · post-flight",
            "1 TokenManager rule refresh · refresh",
            "2 transport rule answer if ~c 401 · post-flight",
        ])
    }

    @Test("in the inspector a rule holds the request for a person; a replay of the session holds it at the same stop")
    func personAndReplay() async throws {
        let scenario = Catalog.scenario(named: "token-expiry")!
        let session = LabSession(scenario: scenario, defaultMode: .run)
        await session.perform(.setBreakRules([try Self.rule(Self.authOn401)]))
        await session.perform(.launch(operation: 0))
        let held = session.control.parked
        #expect(held.map(\.place) == [.hop(1, .post)])
        #expect(held.map(\.held) == [true])
        await session.perform(.resume(request: 1))
        // Attempt 2 comes back up with a 200, and the request has had its 401: held again.
        #expect(session.control.parked.map { "\($0.attempt) \($0.place)" } == ["2 hop 2 post"])
        await session.perform(.resume(request: 1))
        let original = session.result()
        #expect(original.requests.map(\.outcome) == [.success])
        let log = session.commandLog
        #expect(log.first == RecordedCommand(command: .setBreakRules([try Self.rule(Self.authOn401)]), place: nil))
        #expect(log.contains(RecordedCommand(command: .resume(request: 1), place: .hop(1, .post))))

        // Through the file format, as `trace --replay` reads it.
        let recording = try Recording(json: Data(Recording(scenario: scenario.name, commands: log).json.utf8))
        try recording.validate(for: scenario)
        let replayed = await LabSession(scenario: scenario, replay: recording.commands).runHeadless()
        #expect(replayed.refusals.isEmpty)
        #expect(replayed.events == original.events)
        #expect(replayed.events.filter { $0.phase == .paused }.map(\.detail) == Array(repeating: "rule \(Self.authOn401) · post-flight", count: 2))
    }

    @Test("a headless run's rule stops are recorded as the turns they took, so its replay is the same run")
    func headlessReplay() async throws {
        let scenario = try Self.scenario("refresh-storm", rules: ["post@AuthInterceptor if ~c 401 & !~retry"])
        let session = LabSession(scenario: scenario)
        let original = await session.runHeadless()
        #expect(original.events.filter { $0.phase == .paused }.count == 5)
        let replayed = await LabSession(scenario: scenario, replay: session.commandLog).runHeadless()
        #expect(replayed.refusals.isEmpty)
        #expect(replayed.events == original.events)
    }

    @Test("the core releases a stop a rule holds at once, in its turn, only in a headless run, and not during a replay")
    func coreRelease() {
        var core = SchedulerCore<String>()
        core.submit(.launch(operation: 0))
        _ = core.dispatch(now: 0)
        let stop = ParkedStop(request: 1, place: .hop(1, .post), hopName: "AuthInterceptor", held: true)
        #expect(core.arrive(request: 1, place: .hop(1, .post), heldByRule: true) == .wait(held: true))
        core.park(stop, waiter: "w1", heldByRule: true)
        #expect(core.commands.isEmpty)

        var headless = SchedulerCore<String>()
        headless.setReleasesRuleStops(true)
        headless.submit(.launch(operation: 0))
        _ = headless.dispatch(now: 0)
        #expect(headless.arrive(request: 1, place: .hop(1, .post), heldByRule: true) == .wait(held: true))
        headless.park(stop, waiter: "w1", heldByRule: true)
        // Released where it stands: no command jumps the queue; it takes its turn, and says
        // it was let go when it moves.
        #expect(headless.commands.isEmpty)
        #expect(headless.parkedStops.map(\.held) == [false])
        #expect(headless.dispatch(now: 3).effects == [
            .record(stop.event(time: 3, phase: .resumed, detail: "continue")), .resume("w1", .proceed),
        ])
        #expect(headless.log.last == RecordedCommand(command: .pass(request: 1), place: .hop(1, .post)))

        var replaying = SchedulerCore<String>(replay: [RecordedCommand(command: .launch(operation: 0), place: nil)])
        replaying.setReleasesRuleStops(true)
        _ = replaying.dispatch(now: 0)
        replaying.park(stop, waiter: "w1", heldByRule: true)
        #expect(replaying.commands.isEmpty)
    }

    // MARK: - Files

    @Test("scenario files: \"breakpoints\" is read, written back, and checked with JSON paths", arguments: [
        (#""breakpoints": "answer""#, "breakpoints: expected an array of rules such as \"post@AuthInterceptor if ~c 401\""),
        (#""breakpoints": [1]"#, "breakpoints[0]: expected a rule such as \"post@AuthInterceptor if ~c 401\""),
        (#""breakpoints": ["answer", "post@AuthInterceptor if ~c 4"]"#, "breakpoints[1]: rule at 28: expected a status code such as 401 or 4xx after ~c, found '4'"),
        (#""breakpoints": ["pre@Nowhere"]"#, "breakpoints[0]: no hop named 'Nowhere' in the chain; hops: AuthInterceptor, cache, ResponseCodeInterceptor, transport, JSONResponseParsingInterceptor"),
        (#""breakpoints": [\#(Array(repeating: "\"answer\"", count: 33).joined(separator: ","))]"#, "breakpoints: 33 rules; at most 32"),
    ])
    func scenarioFile(_ member: String, expected: String) throws {
        let base = #"{"name": "mine", "chain": [{"interceptor": "AuthInterceptor"}, {"interceptor": "ResponseCodeInterceptor"}], "operations": [{"name": "HeroQuery"}]"#
        let good = try ScenarioCodec.decode(Data((base + #", "breakpoints": ["post@AuthInterceptor if ~c 401", "refresh"]}"#).utf8))
        #expect(good.breakpoints.map(\.description) == ["post@AuthInterceptor if ~c 401", "refresh"])
        #expect(try ScenarioCodec.decode(Data(ScenarioCodec.encode(good).utf8)).breakpoints == good.breakpoints)
        do {
            _ = try ScenarioCodec.decode(Data((base + ", " + member + "}").utf8))
            Issue.record("accepted \(member)")
        } catch {
            #expect(error.description == expected)
        }
    }

    @Test("recordings carry rule changes as commands; a bad rule or a hop the chain lacks is refused with its path")
    func recordings() throws {
        let rules = [try Self.rule(Self.authOn401), BreakRule(place: .answer, isEnabled: false)]
        let recording = Recording(scenario: "basics", commands: [RecordedCommand(command: .setBreakRules(rules), place: nil)])
        #expect(recording.json.contains(#"{"command":"setBreakRules","rules":[{"rule":"post@AuthInterceptor if ~op HeroQuery & ~c 401"},{"enabled":false,"rule":"answer"}]}"#))
        #expect(try Recording(json: Data(recording.json.utf8)) == recording)

        func refusal(_ command: String) -> String? {
            let json = #"{"format": "chainlab-recording", "version": 1, "scenario": "basics", "commands": [\#(command)]}"#
            do {
                try Recording(json: Data(json.utf8)).validate(for: Catalog.scenario(named: "basics")!)
                return nil
            } catch {
                return error.description
            }
        }
        #expect(refusal(#"{"command": "setBreakRules", "rules": [{"rule": "post@ if ~c 401"}]}"#)
            == "recording at commands[0].rules[0].rule: rule at 6: expected a hop name after post@, such as AuthInterceptor or transport, found the end")
        #expect(refusal(#"{"command": "setBreakRules", "rules": [{"rule": "answer", "enabled": "yes"}]}"#)
            == "recording at commands[0].rules[0].enabled: expected true or false")
        #expect(refusal(#"{"command": "setBreakRules", "rules": [{"rule": "answer", "when": 1}]}"#)
            == "recording at commands[0].rules[0].when: unknown key; known: rule, enabled")
        #expect(refusal(#"{"command": "setBreakRules", "rules": [{"rule": "pre@Nowhere"}]}"#)?.hasPrefix(
            "recording at commands[0].rules[0].rule: no hop named 'Nowhere' in the chain; hops: MaxRetryInterceptor,") == true)
        #expect(refusal(#"{"command": "setBreakRules"}"#) == #"recording at commands[0].rules: expected an array of {"rule": TEXT, "enabled": BOOL}"#)
    }
}
