import ChainKit
import Lab
import Testing
import Timeline
import Exports

@Suite("Scenario catalog outcomes")
struct CatalogTests {
    func run(_ name: String) async throws -> LabSession.RunResult {
        let session = LabSession(scenario: try #require(Catalog.scenario(named: name)))
        let result = await session.runHeadless()
        #expect(result.unfinished.isEmpty)
        #expect(result.refusals.isEmpty)
        return result
    }

    @Test("basics: success in 1 attempt")
    func basics() async throws {
        let result = try await run("basics")
        #expect(result.requests.map(\.outcome) == [.success])
        #expect(result.requests.map(\.attempts) == [1])
    }

    @Test("token-expiry: 1 refresh, success in 2 attempts")
    func tokenExpiry() async throws {
        let result = try await run("token-expiry")
        #expect(result.requests == [RequestSummary(id: 1, operation: "HeroQuery", outcome: .success, attempts: 2, results: ["server"], operationType: "query")])
        #expect(result.backend["tokenRefreshes"] == 1)
        #expect(result.backend["refreshRejected"] == 0)
    }

    @Test("refresh-storm: two refreshes from the same refresh token; invalid_grant revokes the family")
    func refreshStorm() async throws {
        let result = try await run("refresh-storm")
        #expect(result.requests.count == 5)
        #expect(try #require(result.backend["tokenRefreshes"]) >= 2)
        #expect(try #require(result.backend["refreshRejected"]) >= 1)
        let refreshes = result.events.filter { $0.phase == .refresh }
        #expect(refreshes.prefix(5).map(\.status) == [200, 400, 400, 400, 400])
        #expect(refreshes.prefix(5).map(\.request) == [1, 2, 3, 4, 5])
        #expect(refreshes.contains { $0.error == "invalid_grant" })
        #expect(result.requests.contains { $0.outcome == .failure && $0.error?.contains("invalid_grant") == true })
    }

    @Test("refresh-storm-fixed: exactly 1 refresh, all 5 succeed")
    func refreshStormFixed() async throws {
        let result = try await run("refresh-storm-fixed")
        #expect(result.backend["tokenRefreshes"] == 1)
        #expect(result.backend["refreshRejected"] == 0)
        #expect(result.requests.map(\.outcome) == Array(repeating: .success, count: 5))
        #expect(result.requests.map(\.attempts) == Array(repeating: 2, count: 5))
    }

    @Test("stale-token: the retry carries the old token, 401 again, MaxRetriesError")
    func staleToken() async throws {
        let result = try await run("stale-token")
        #expect(result.requests == [RequestSummary(
            id: 1, operation: "HeroQuery", outcome: .failure, attempts: 5,
            error: #"MaxRetriesError: The maximum number of retries (3) was hit without success for operation "HeroQuery"."#, operationType: "query")])
        let sent = result.events.filter { $0.phase == .send }.compactMap { $0.headers?["Authorization"] }
        #expect(sent == Array(repeating: "Bearer at-1-1", count: 4))
        #expect(result.backend["tokenRefreshes"] == 4)
    }

    @Test("retry-order: past 1 + maxRetries passes, cut by the lab's safety cap")
    func retryOrder() async throws {
        let result = try await run("retry-order")
        #expect(result.requests == [RequestSummary(
            id: 1, operation: "HeroQuery", outcome: .failure, attempts: 20,
            error: "LabSafetyCapError: the lab stopped the operation after 20 attempts (safety cap): nothing in the chain limited its retries", operationType: "query")])
        #expect(result.events.filter { $0.phase == .send }.count == 3)
    }

    @Test("apq: PersistedQueryNotFound then a retry with the query: 2 attempts, success")
    func apq() async throws {
        let result = try await run("apq")
        #expect(result.requests == [RequestSummary(id: 1, operation: "HeroQuery", outcome: .success, attempts: 2, results: ["server"], operationType: "query")])
        let bodies = result.events.filter { $0.phase == .send }.compactMap { $0.body?.text }
        #expect(bodies.count == 2)
        #expect(bodies[0].contains("\"query\"") == false)
        #expect(bodies[1].contains("\"query\":\"query HeroQuery { hero { id name } }\""))
        #expect(result.backend["apqMisses"] == 1)
    }

    @Test("cache-fallback: the network fails and the cache answers")
    func cacheFallback() async throws {
        let result = try await run("cache-fallback")
        #expect(result.requests == [RequestSummary(id: 1, operation: "HeroQuery", outcome: .success, attempts: 1, results: ["cache"], operationType: "query")])
        #expect(result.events.filter { $0.phase == .receive }.map(\.status) == [503])
        #expect(result.events.filter { $0.phase == .cacheHit }.count == 1)
    }

    // A watched query follows the store as apollo-ios 2.4's GraphQLQueryWatcher does
    // (Sources/Apollo/GraphQLQueryWatcher.swift): each write to what it read delivers it again.
    @Test("watcher: #2's rename and #3's, after its refresh and retry, each deliver #1 again from the cache")
    func watcher() async throws {
        let result = try await run("watcher")
        #expect(result.requests.map(\.operation) == ["HeroQuery", "RenameHero", "RenameHero"])
        #expect(result.requests.map(\.outcome) == [.success, .success, .success])
        #expect(result.requests.map(\.attempts) == [1, 1, 2])
        #expect(result.requests.map(\.results) == [["server", "cache (watcher)", "cache (watcher)"], ["server"], ["server"]])
        #expect(result.backend["tokenRefreshes"] == 1)
        #expect(result.backend["unauthorized"] == 1)
        let deliveries = result.events.filter { $0.name == LabSession.watcherDeliveryEventName }
        #expect(deliveries.map(\.request) == [1, 1])
        #expect(deliveries.map(\.phase) == [.cacheHit, .cacheHit])
        #expect(deliveries.map(\.time) == [0.024, 0.06])
        #expect(deliveries.map(\.detail) == Array(repeating: "the store changed Hero:2001.name; HeroQuery delivered again from the cache", count: 2))
        #expect(deliveries.map { $0.body?.text } == [
            #"{"data":{"hero":{"id":"2001","name":"Artoo-Detoo"}}}"#,
            #"{"data":{"hero":{"id":"2001","name":"R2-D2"}}}"#,
        ])
        // Each delivery comes right after the write that set it off: #2's, then #3's second attempt's.
        let writes = result.events.filter { $0.kind == .cache && $0.phase == .postflight }
        #expect(writes.map { "#\($0.request).\($0.attempt)" } == ["#1.1", "#2.1", "#3.2"])
        for (write, delivery) in zip(writes.dropFirst(), deliveries) { #expect(delivery.seq == write.seq + 1) }
    }

    // The records as Apollo iOS 2.4's GraphQLResultNormalizer makes them (Sources/Apollo/
    // Execution/ResultAccumulators/GraphQLResultNormalizer.swift): root fields in QUERY_ROOT or
    // MUTATION_ROOT keyed with their arguments, the hero in the one record Hero:2001.
    @Test("cache-records: #1–#3 reach the server, #4 and #5 read the renamed hero from the shared record")
    func cacheRecords() async throws {
        let result = try await run("cache-records")
        #expect(result.requests.map(\.operation) == ["HeroQuery", "HeroDetailsQuery", "RenameHero", "HeroQuery", "HeroDetailsQuery"])
        #expect(result.requests.map(\.outcome) == Array(repeating: .success, count: 5))
        #expect(result.requests.map(\.results) == [["server"], ["server"], ["server"], ["cache"], ["cache"]])
        #expect(result.backend["graphqlRequests"] == 3)
        #expect(result.events.filter { $0.phase == .cacheMiss }.map(\.request) == [1, 2])
        let writes = result.events.filter { $0.kind == .cache && $0.phase == .postflight }
        #expect(writes.map(\.request) == [1, 2, 3])
        #expect(writes.map { $0.body?.text } == [
            #"{"Hero:2001":{"id":"2001","name":"R2-D2"},"QUERY_ROOT":{"hero":{"$reference":"Hero:2001"}}}"#,
            #"{"Hero:2001":{"appearsIn":["NEWHOPE","EMPIRE","JEDI"],"id":"2001","name":"R2-D2"},"QUERY_ROOT":{"hero(id:2001)":{"$reference":"Hero:2001"}}}"#,
            #"{"Hero:2001":{"id":"2001","name":"Artoo-Detoo"},"MUTATION_ROOT":{"renameHero(name:Artoo-Detoo)":{"$reference":"Hero:2001"}}}"#,
        ])
        // The cache holds the films; the redactor hides them from the caller, cached or not.
        #expect(result.events.filter { $0.phase == .cacheHit }.map { $0.body?.text } == [
            #"{"data":{"hero":{"id":"2001","name":"Artoo-Detoo"}}}"#,
            #"{"data":{"hero":{"appearsIn":["NEWHOPE","EMPIRE","JEDI"],"id":"2001","name":"Artoo-Detoo"}}}"#,
        ])
        let delivered = result.events.filter { $0.hop == 0 && $0.phase == .postflight && $0.request != 3 }
        #expect(delivered.map { $0.body?.text } == [
            #"{"data":{"hero":{"id":"2001","name":"R2-D2"}}}"#,
            #"{"data":{"hero":{"appearsIn":"[redacted]","id":"2001","name":"R2-D2"}}}"#,
            #"{"data":{"hero":{"id":"2001","name":"Artoo-Detoo"}}}"#,
            #"{"data":{"hero":{"appearsIn":"[redacted]","id":"2001","name":"Artoo-Detoo"}}}"#,
        ])
    }

    @Test("graphql-errors-200: Auth reads the UNAUTHENTICATED error: 1 refresh, success")
    func graphQLErrors200() async throws {
        let result = try await run("graphql-errors-200")
        #expect(result.requests == [RequestSummary(id: 1, operation: "HeroQuery", outcome: .success, attempts: 2, results: ["server"], operationType: "query")])
        #expect(result.events.filter { $0.phase == .receive }.map(\.status) == [200, 200])
        #expect(result.backend["tokenRefreshes"] == 1)
    }

    @Test("empty-401: failure with noResults, no refresh")
    func empty401() async throws {
        let result = try await run("empty-401")
        #expect(result.requests == [RequestSummary(
            id: 1, operation: "HeroQuery", outcome: .failure, attempts: 1,
            error: "RequestChainError: the request chain finished without a result (noResults)", operationType: "query")])
        #expect(result.backend["tokenRefreshes"] == 0)
    }

    @Test("openapi-middleware: a fault, a retry by calling next again, success")
    func openAPIMiddleware() async throws {
        let result = try await run("openapi-middleware")
        #expect(result.requests == [RequestSummary(id: 1, operation: "getHero", outcome: .success, attempts: 1, results: ["server 200"])])
        #expect(result.events.filter { $0.phase == .send }.count == 1)
        #expect(result.backend["restRequests"] == 1)
        let order = result.events.filter { $0.phase == .preflight }.map(\.name)
        // The fault answers the first call without handing the request on; the retry gets through.
        #expect(order == ["AuthenticationMiddleware", "LoggingMiddleware", "RetryingMiddleware", "RetryingMiddleware", "FaultInjectionMiddleware"])
        #expect(result.events.filter { $0.phase == .log }.map(\.detail) == ["→ GET /heroes/2001 (getHero)", "← 200 GET /heroes/2001"])
        #expect(result.events.filter { $0.phase == .postflight && $0.name == "FaultInjectionMiddleware" }.map(\.status) == [503, 200])
    }

    @Test("every scenario runs headless to the same bytes twice")
    func everyScenarioIsDeterministic() async throws {
        for scenario in Catalog.scenarios {
            var outputs: Set<String> = []
            for _ in 0..<2 {
                let result = await LabSession(scenario: scenario).runHeadless()
                outputs.insert(TraceJSON.encode(TraceDocument(scenario: scenario.name, requests: result.requests, events: result.events, backend: result.backend), masking: .masked))
            }
            #expect(outputs.count == 1, "\(scenario.name) is not deterministic")
        }
    }
}
