import ChainKit
import Foundation
import Lab
import Testing
import Timeline

@Suite("Scenario files")
struct ScenarioCodecTests {
    @Test("every built-in scenario encodes and loads back unchanged", arguments: Catalog.names)
    func roundTrip(name: String) throws {
        let scenario = try #require(Catalog.scenario(named: name))
        let text = ScenarioCodec.encode(scenario)
        let decoded = try ScenarioCodec.decode(Data(text.utf8))
        #expect(decoded == scenario)
        #expect(ScenarioCodec.encode(decoded) == text)
    }

    func error(_ json: String) -> String {
        do {
            _ = try ScenarioCodec.decode(Data(json.utf8))
            return "accepted"
        } catch {
            return error.description
        }
    }

    static let minimal = #""name":"x","operations":[{"name":"HeroQuery"}]"#

    @Test("counts and sizes beyond the lab's limits are refused with the path of the count")
    func limits() {
        func repeated(_ element: String, _ count: Int) -> String { Array(repeating: element, count: count).joined(separator: ",") }
        #expect(error(#"{\#(Self.minimal),"chain":[\#(repeated(#"{"interceptor":"LoggingInterceptor"}"#, 257))]}"#)
            == "chain: 257 layers; a chain may have at most 256")
        #expect(error(#"{"name":"x","chain":[],"operations":[\#(repeated(#"{"name":"HeroQuery"}"#, 101))]}"#)
            == "operations: 101 operations; a scenario may have at most 100")
        #expect(error(#"{\#(Self.minimal),"chain":[],"launch":[\#(repeated("0", 1001))]}"#) == "launch: 1001 entries; at most 1000")
        #expect(error(#"{\#(Self.minimal),"chain":[],"script":[\#(repeated("1", 10_001))]}"#) == "script: 10001 steps; a script may have at most 10000")
        #expect(error(#"{\#(Self.minimal),"chain":[],"safetyCap":1000000}"#) == "safetyCap: expected a whole number from 1 to 1000, got 1000000")
        // Launches × 1000 attempts × 3 hops (cache, transport, parser).
        #expect(error(#"{\#(Self.minimal),"chain":[],"launch":[0,0,0,0,0,0,0],"safetyCap":1000}"#)
            == "safetyCap: 7 launches × safety cap 1000 × 3 hops allow 21000 hop passes; at most 20000: lower the safety cap, launch fewer operations or shorten the chain")
        #expect(error(#"{\#(Self.minimal),"chain":[],"launch":[0,0,0,0,0,0],"safetyCap":1000}"#) == "accepted")
        #expect(error(String(repeating: " ", count: LabLimits.scenarioFileBytes + 1)) == "the file has 1048577 bytes; a scenario file may have at most 1048576")
    }

    @Test("status codes outside 100...599 and variables that are not an object are refused")
    func smallerGaps() {
        let middleware = #""name":"x","operations":[{"name":"getHero","path":"/heroes/2001"}]"#
        #expect(error(#"{\#(middleware),"chain":[{"middleware":"FaultInjectionMiddleware","failStatus":700}]}"#)
            == "chain[0].failStatus: expected an HTTP status code (100...599), got 700")
        #expect(error(#"{\#(middleware),"chain":[{"middleware":"FaultInjectionMiddleware","failStatus":42}]}"#)
            == "chain[0].failStatus: expected an HTTP status code (100...599), got 42")
        #expect(error(#"{\#(middleware),"chain":[{"middleware":"FaultInjectionMiddleware","failStatus":503}]}"#) == "accepted")
        #expect(error(#"{"name":"x","chain":[],"operations":[{"name":"HeroQuery","variables":["id"]}]}"#)
            == #"operations[0].variables: expected an object of variables such as {"id": "2001"}, got ["id"]"#)
        #expect(error(#"{"name":"x","chain":[],"operations":[{"name":"HeroQuery","variables":"2001"}]}"#)
            == #"operations[0].variables: expected an object of variables such as {"id": "2001"}, got "2001""#)
    }

    @Test("retry-order: the summary counts the attempts that ran, as the safety cap's message does")
    func retryOrderWording() async throws {
        let result = await LabSession(scenario: try #require(Catalog.scenario(named: "retry-order"))).runHeadless()
        let summary = try #require(result.requests.first)
        #expect(summary.attempts == 20)
        #expect(summary.error == "LabSafetyCapError: the lab stopped the operation after 20 attempts (safety cap): nothing in the chain limited its retries")
    }

    @Test("a key given twice is refused with its JSON path; the wrong top-level type at its first byte")
    func duplicateKeysAndTopLevel() {
        #expect(error(#"{\#(Self.minimal),"name":"y"}"#) == "not valid JSON at line 1, column 49: duplicate key \"name\" at name")
        #expect(error(#"{"name":"x","chain":[{"interceptor":"MaxRetryInterceptor","maxRetries":1,"maxRetries":99}],"operations":[{"name":"HeroQuery"}]}"#)
            == "not valid JSON at line 1, column 74: duplicate key \"maxRetries\" at chain[0].maxRetries")
        #expect(error(#"{"name":"x","chain":[],"operations":[{"name":"HeroQuery","variables":{"id":"1","id":"2"}}]}"#)
            == "not valid JSON at line 1, column 80: duplicate key \"id\" at operations[0].variables.id")
        // Refused at the first byte: the array behind it is never read, so its error is not the one reported.
        #expect(error("\n  [1, 2, nope") == "not valid JSON at line 2, column 3: expected an object at the top, found an array")
        #expect(error(#""name""#) == "not valid JSON at line 1, column 1: expected an object at the top, found a string")
    }

    @Test("bad files are refused with the JSON path and the valid choices")
    func errors() {
        #expect(error("{nope") == "not valid JSON at line 1, column 2: expected a string key in object")
        #expect(error("[]") == "not valid JSON at line 1, column 1: expected an object at the top, found an array")
        #expect(error(#"{\#(Self.minimal),"chain":[{"interceptor":"MaxRetryInterceptor"},{"interceptor":"AuthInterceptor"},{"interceptor":"Foo"}]}"#)
            == #"chain[2].interceptor: unknown "Foo"; known: MaxRetryInterceptor, AuthInterceptor, StaticAuthInterceptor, AutomaticPersistedQueryInterceptor, FallbackToCacheOnFailureInterceptor, RetryOnErrorInterceptor, LoggingInterceptor, RedactFieldInterceptor, ResponseCodeInterceptor"#)
        #expect(error(#"{\#(Self.minimal),"chain":[{"interceptor":"MaxRetryInterceptor","maxRetries":-1}]}"#)
            == "chain[0].maxRetries: expected a whole number ≥ 0, got -1")
        #expect(error(#"{\#(Self.minimal),"chain":[{"interceptor":"MaxRetryInterceptor","maxRetries":"3"}]}"#)
            == #"chain[0].maxRetries: expected a whole number ≥ 0, got "3""#)
        #expect(error(#"{\#(Self.minimal),"chain":[],"safetyCap":0}"#) == "safetyCap: expected a whole number from 1 to 1000, got 0")
        #expect(error(#"{\#(Self.minimal),"chain":[{"interceptor":"ResponseCodeInterceptor"},{"interceptor":"AuthInterceptor"}]}"#)
            == "chain[1].interceptor: AuthInterceptor is a GraphQL interceptor and must come before the HTTP interceptors (ResponseCodeInterceptor): the cache step sits between them")
        #expect(error(#"{\#(Self.minimal),"chain":[],"colour":"red"}"#)
            == "colour: unknown key; known: name, summary, teaches, onScreen, chain, backend, token, refreshStrategy, operations, launch, script, prefillCache, safetyCap, breakpoints")
        #expect(error(#"{\#(Self.minimal),"chain":[],"token":"stolen"}"#) == #"token: unknown "stolen"; known: valid, expired, none"#)
        #expect(error(#"{\#(Self.minimal),"chain":[],"backend":{"latency":-1}}"#) == "backend.latency: expected a number from 0 to 60, got -1")
        #expect(error(#"{\#(Self.minimal),"chain":[],"launch":[3]}"#) == "launch[0]: operation 3 does not exist; there is 1 operation (0-based)")
        #expect(error(#"{"name":"x","chain":[],"operations":[{"name":"DropTables"}]}"#)
            == #"operations[0].name: unknown operation "DropTables"; the lab backend serves: HeroQuery, HeroDetailsQuery, RenameHero, HeroDeferQuery, HeroNameChanged"#)
        #expect(error(#"{\#(Self.minimal),"chain":[{"interceptor":"StaticAuthInterceptor","authorization":"Bearer a\r\nX: y"}]}"#)
            == #"chain[0].authorization: header "Authorization" has an invalid value: CR (\r) at offset 8; CR, LF and NUL are not allowed"#)
        #expect(error(#"{"name":"x\u001b]2;t\u0007","chain":[],"operations":[{"name":"HeroQuery"}]}"#) == "name: must be a non-empty name without control characters")
    }

    @Test("a scenario file runs like a built-in")
    func fileRuns() async throws {
        let json = #"""
        {"name": "two-queries", "chain": [{"interceptor": "MaxRetryInterceptor"}, {"interceptor": "AuthInterceptor"}, {"interceptor": "ResponseCodeInterceptor"}],
         "token": "expired", "refreshStrategy": "singleFlight",
         "operations": [{"name": "HeroQuery", "fetchBehavior": "NetworkOnly"}], "launch": [0, 0],
         "script": [{"request": 1, "until": "refresh"}, {"request": 2, "until": {"hop": 0, "position": "post"}}]}
        """#
        let scenario = try ScenarioCodec.decode(Data(json.utf8))
        let result = await LabSession(scenario: scenario).runHeadless()
        #expect(result.requests.map(\.outcome) == [.success, .success])
        #expect(result.backend["tokenRefreshes"] == 1)
    }

    /// apollo-ios 2.4 `Sources/Apollo/Caching/CachePolicy.swift` (`toFetchBehavior()`) and the
    /// deprecated `CachePolicy_v1` in `Sources/Apollo/ApolloClient.swift`, whose
    /// `fetchIgnoringCacheCompletely` also sets `writeResultsToCache: false`.
    @Test("an app's cache policy names are read as the fetch behaviours upstream maps them to", arguments: [
        ("cacheFirst", FetchBehavior.CacheFirst, true), ("networkFirst", .NetworkFirst, true), ("networkOnly", .NetworkOnly, true),
        ("cacheOnly", .CacheOnly, true), ("cacheAndNetwork", .CacheAndNetwork, true), ("cacheThenNetwork", .CacheAndNetwork, true),
        ("returnCacheDataElseFetch", .CacheFirst, true), ("fetchIgnoringCacheData", .NetworkOnly, true),
        ("fetchIgnoringCacheCompletely", .NetworkOnly, false), ("returnCacheDataDontFetch", .CacheOnly, true),
        ("returnCacheDataAndFetch", .CacheAndNetwork, true), ("NetworkFirst", .NetworkFirst, true),
    ])
    func cachePolicyNames(name: String, behavior: FetchBehavior, writes: Bool) throws {
        let scenario = try ScenarioCodec.decode(Data(#"{"name":"x","chain":[],"operations":[{"name":"HeroQuery","fetchBehavior":"\#(name)"}]}"#.utf8))
        #expect(scenario.operations[0].fetchBehavior == behavior)
        #expect(scenario.operations[0].writeResultsToCache == writes)
        #expect(try ScenarioCodec.decode(Data(ScenarioCodec.encode(scenario).utf8)) == scenario)
    }

    /// Upstream watches queries only: `GraphQLQueryWatcher<Query: GraphQLQuery>`.
    @Test("watch is read and written for queries, and refused for a mutation and a middleware operation, saying where")
    func watch() throws {
        let scenario = try ScenarioCodec.decode(Data(#"{"name":"x","chain":[],"operations":[{"name":"HeroQuery","watch":true}]}"#.utf8))
        #expect(scenario.operations[0].watch)
        #expect(try ScenarioCodec.decode(Data(ScenarioCodec.encode(scenario).utf8)) == scenario)
        #expect(ScenarioCodec.encode(scenario).contains(#""operations": [{"name":"HeroQuery","watch":true}]"#))
        #expect(error(#"{"name":"x","chain":[],"operations":[{"name":"HeroQuery"},{"name":"RenameHero","watch":true}]}"#)
            == "operations[1].watch: only a query can be watched; RenameHero is a mutation")
        #expect(error(#"{"name":"x","chain":[],"operations":[{"name":"Bump","document":"mutation Bump { bump }","watch":true}]}"#)
            == "operations[0].watch: only a query can be watched; Bump is a mutation")
        #expect(error(#"{"name":"x","chain":[],"operations":[{"name":"HeroQuery","watch":"yes"}]}"#) == #"operations[0].watch: expected true or false, got "yes""#)
        #expect(error(#"{"name":"x","chain":[{"middleware":"LoggingMiddleware"}],"operations":[{"name":"getHero","path":"/heroes/2001","watch":true}]}"#)
            == "operations[0].watch: a middleware operation cannot be watched: a watcher follows the GraphQL cache")
    }

    @Test("fetchIgnoringCacheCompletely fetches every time and leaves the cache empty; an unknown name lists both kinds")
    func ignoringTheCacheCompletely() async throws {
        func cacheEvents(_ policy: String) async throws -> [String] {
            let json = #"{"name":"x","chain":[{"interceptor":"ResponseCodeInterceptor"}],"token":"none","backend":{"requireAuth":false},"operations":[{"name":"HeroQuery","fetchBehavior":"\#(policy)"}],"launch":[0,0]}"#
            let result = await LabSession(scenario: try ScenarioCodec.decode(Data(json.utf8))).runHeadless()
            #expect(result.requests.map(\.results) == [["server"], ["server"]])
            return result.events.filter { $0.name == "cache" }.map(\.phase.rawValue)
        }
        #expect(try await cacheEvents("fetchIgnoringCacheData") == ["postflight", "postflight"], "each result written")
        #expect(try await cacheEvents("fetchIgnoringCacheCompletely") == [], "never read, never written")
        #expect(error(#"{"name":"x","chain":[],"operations":[{"name":"HeroQuery","fetchBehavior":"cacheElseNetwork"}]}"#)
            == #"operations[0].fetchBehavior: unknown "cacheElseNetwork"; known: CacheFirst, NetworkFirst, CacheAndNetwork, CacheOnly, NetworkOnly, or an ApolloClient cache policy: cacheFirst, networkFirst, networkOnly, cacheOnly, cacheAndNetwork, cacheThenNetwork, returnCacheDataElseFetch, fetchIgnoringCacheData, fetchIgnoringCacheCompletely, returnCacheDataDontFetch, returnCacheDataAndFetch"#)
    }

    /// Client awareness as Apollo iOS 2.4 sends it (`ClientAwarenessMetadata`), configured per operation.
    @Test("an operation's clientAwareness reaches the wire as the two headers and extensions.clientLibrary")
    func clientAwareness() async throws {
        let json = #"""
        {"name": "aware", "chain": [{"interceptor": "AuthInterceptor"}, {"interceptor": "ResponseCodeInterceptor"}],
         "operations": [{"name": "HeroQuery", "fetchBehavior": "NetworkOnly", "clientAwareness": {"name": "MyApp", "version": "3.1"}}]}
        """#
        let scenario = try ScenarioCodec.decode(Data(json.utf8))
        #expect(scenario.operations[0].clientAwareness == ClientAwarenessMetadata(clientApplicationName: "MyApp", clientApplicationVersion: "3.1"))
        #expect(try ScenarioCodec.decode(Data(ScenarioCodec.encode(scenario).utf8)) == scenario)
        let result = await LabSession(scenario: scenario).runHeadless()
        #expect(result.requests.map(\.outcome) == [.success])
        let send = try #require(result.events.first { $0.phase == .send })
        #expect(send.headers?["apollographql-client-name"] == "MyApp")
        #expect(send.headers?["apollographql-client-version"] == "3.1")
        let body = try JSONValue(parsing: Data(try #require(send.body?.text).utf8))
        #expect(body["extensions"] == ["clientLibrary": ["name": "apollo-ios", "version": "2.4.0"]])
        #expect(error(#"{"name":"x","chain":[],"operations":[{"name":"HeroQuery","clientAwareness":{"name":"a\nb"}}]}"#)
            == #"operations[0].clientAwareness.name: header "apollographql-client-name" has an invalid value: LF (\n) at offset 1; CR, LF and NUL are not allowed"#)
        #expect(error(#"{"name":"x","chain":[],"operations":[{"name":"HeroQuery","clientAwareness":{"app":"x"}}]}"#)
            == "operations[0].clientAwareness.app: unknown key; known: name, version, library")
    }
}
