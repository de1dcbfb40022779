import Backend
import ChainKit
import Foundation
import Lab
import Synchronization
import Testing
import Timeline

/// An interceptor's own `Retry`, thrown on the cached result while the network fetch of a
/// CacheAndNetwork request runs beside it.
///
/// Upstream (apollo-ios 2.x `Sources/Apollo/RequestChain/RequestChain.swift`): `execute` runs
/// the cache read and then the network fetch in the task of
/// `AsyncThrowingStream.executingInAsyncTask`, whose termination cancels that task; the
/// `Retry` thrown while the top reads the cached result ends that read, so the network fetch
/// is cancelled, and `doHandlingRetries` starts the chain again from its first interceptor
/// with the request the error carries — which reads the cache and forks again.
@Suite("An interceptor's Retry on the cached result of a forked request")
struct RetryAfterForkTests {
    /// Throws `Retry` on the first cached result it sees on the way up; passes everything else.
    final class RetryOnFirstCachedResult: ChainInterceptor {
        let retried = Mutex(false)

        func intercept(request: ChainRequest, next: ChainNext) async throws -> ChainResultStream {
            await next(request).map { [self] response in
                let retry = response.source == .cache && retried.withLock { retried in
                    defer { retried = true }
                    return !retried
                }
                if retry { throw ChainRunner.Retry(request: request) }
                return response
            }
        }
    }

    /// What reached the server.
    final class Served: Sendable {
        let count = Mutex(0)
    }

    struct Provider: ChainInterceptorProvider {
        let store: CacheStore
        let retrying = RetryOnFirstCachedResult()

        func graphQLInterceptors(for operation: ChainOperation) -> [any ChainInterceptor] {
            [MaxRetryInterceptor(), retrying]
        }

        func cacheInterceptor(for operation: ChainOperation) -> any ChainCacheInterceptor {
            DefaultCacheInterceptor(store: store)
        }
    }

    /// A session of one HeroQuery under CacheAndNetwork, its cache holding the hero; the server
    /// answers with a different name. `served` counts what reached it.
    static func session(mode: RunMode, served: Served = Served()) throws -> (LabSession, Provider) {
        let store = CacheStore()
        _ = try store.write(data: ["hero": ["id": "2001", "name": "R2-D2 (cached)"]], for: LabOperations.heroQuery)
        let provider = Provider(store: store)
        let transport = InMemoryGraphQLTransport { _ in
            // As URLSession does, a cancelled task sends nothing.
            try Task.checkCancellation()
            served.count.withLock { $0 += 1 }
            return NetworkResponse(
                status: 200, headerFields: try HTTPFields(["Content-Type": "application/json"]), url: URL(string: "https://example.test/graphql")!,
                body: Data(#"{"data":{"hero":{"id":"2001","name":"R2-D2"}}}"#.utf8))
        }
        let request = ChainRequest(
            operation: LabOperations.heroQuery, graphQLEndpoint: URL(string: "https://example.test/graphql")!, fetchBehavior: .CacheAndNetwork)
        let session = LabSession(name: "retry-after-fork", chain: .graphQL(provider: provider, transport: transport, requests: [request]), defaultMode: mode)
        return (session, provider)
    }

    /// `name phase [lane] (attempt)` per event.
    static func outline(_ events: [TimelineEvent]) -> [String] {
        events.map { "\($0.name) \($0.phase.rawValue)" + ($0.lane.map { " [\($0.rawValue)]" } ?? "") + " (\($0.attempt))" }
    }

    /// What attempt 1 records: the fork at the cache hit, the `Retry` thrown on the cached result
    /// and passed up through MaxRetryInterceptor, and the cancelled network lane failing at the
    /// transport without reaching the server.
    static let firstAttempt = [
        "MaxRetryInterceptor preflight (1)",
        "RetryOnFirstCachedResult preflight (1)",
        "cache cacheHit (1)",
        "RetryOnFirstCachedResult retry [cache] (1)",
        "ResponseCodeInterceptor preflight [network] (1)",
        "MaxRetryInterceptor retry [cache] (1)",
        "transport send [network] (1)",
        "transport error [network] (1)",
        "ResponseCodeInterceptor error [network] (1)",
    ]

    @Test("free run: the retried attempt's network lane is cancelled and ends before attempt 2 forks its own; the caller gets attempt 2's cached result, then the server's", .timeLimit(.minutes(1)))
    func freeRun() async throws {
        let served = Served()
        let (session, provider) = try Self.session(mode: .run, served: served)
        await session.perform(.launch(operation: 0))
        let result = session.result()
        #expect(result.unfinished.isEmpty)
        #expect(result.refusals.isEmpty)
        #expect(provider.retrying.retried.withLock { $0 })
        #expect(result.requests.map(\.attempts) == [2])
        #expect(result.requests.map(\.results) == [["cache", "server"]])
        #expect(result.requests.map(\.outcome) == [.success])
        #expect(Self.outline(result.events) == Self.firstAttempt + [
            "MaxRetryInterceptor preflight (2)",
            "RetryOnFirstCachedResult preflight (2)",
            "cache cacheHit (2)",
            "RetryOnFirstCachedResult postflight [cache] (2)",
            "ResponseCodeInterceptor preflight [network] (2)",
            "MaxRetryInterceptor postflight [cache] (2)",
            "transport send [network] (2)",
            "transport receive [network] (2)",
            "ResponseCodeInterceptor postflight [network] (2)",
            "JSONResponseParsingInterceptor preflight [network] (2)",
            "JSONResponseParsingInterceptor postflight [network] (2)",
            // The network lane has ended: the server's result climbs in the request's one lane.
            "RetryOnFirstCachedResult postflight (2)",
            "MaxRetryInterceptor postflight (2)",
            "cache postflight (2)",
        ])
        let cancelled = try #require(result.events.first { $0.name == "transport" && $0.phase == .error })
        #expect(cancelled.error == "CancellationError()")
        // Only attempt 2's fetch reached the server.
        #expect(served.count.withLock { $0 } == 1)
    }

    @Test("stepping: after the retry the cancelled network lane stays held until a person steps it to its end; attempt 2 then starts held at the top", .timeLimit(.minutes(1)))
    func stepping() async throws {
        let served = Served()
        let (session, _) = try Self.session(mode: .step, served: served)
        await session.perform(.launch(operation: 0))
        var stops = [session.laneStops]
        for _ in 0..<11 {
            await session.perform(.step(request: 1))
            stops.append(session.laneStops)
        }
        #expect(stops == [
            "- hop 1 pre", "- hop 2 pre", "- hop 3 pre",
            // The fork: the cached result climbs in one lane while the fetch waits in the other.
            "cache hop 2 post | network hop 4 pre",
            "cache hop 1 post | network hop 4 pre",
            // The Retry has left the top: only the cancelled lane is left, held.
            "network hop 4 pre",
            "network hop 5 pre",
            "network hop 4 post",
            // The lane has ended: attempt 2 starts.
            "- hop 1 pre", "- hop 2 pre", "- hop 3 pre",
            "cache hop 2 post | network hop 4 pre",
        ])
        #expect(session.result().refusals.isEmpty)
        #expect(session.result().events.last { $0.phase == .paused }?.attempt == 2)
        // The held network lane let the Retry reach the top first.
        #expect(Self.outline(session.result().events.filter { $0.attempt == 1 && $0.phase != .paused && $0.phase != .resumed }) == [
            "MaxRetryInterceptor preflight (1)",
            "RetryOnFirstCachedResult preflight (1)",
            "cache cacheHit (1)",
            "RetryOnFirstCachedResult retry [cache] (1)",
            "MaxRetryInterceptor retry [cache] (1)",
            "ResponseCodeInterceptor preflight [network] (1)",
            "transport send [network] (1)",
            "transport error [network] (1)",
            "ResponseCodeInterceptor error [network] (1)",
        ])
        #expect(served.count.withLock { $0 } == 0)
    }
}
