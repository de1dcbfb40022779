import ChainKit
import Foundation
import Testing

@Suite("MaxRetryInterceptor")
struct MaxRetryInterceptorTests {
    struct AlwaysRetry: ChainInterceptor {
        let passes: Locked<Int>
        func intercept(request: ChainRequest, next: ChainNext) async throws -> ChainResultStream {
            passes.withLock { $0 += 1 }
            throw ChainRunner.Retry(request: request)
        }
    }

    /// Stops a run that would otherwise retry forever, the way a test guard or the lab's
    /// safety cap does.
    struct Guard: ChainInterceptor {
        struct Tripped: Error, Equatable { let passes: Int }
        let limit: Int
        let passes = Locked(0)
        func intercept(request: ChainRequest, next: ChainNext) async throws -> ChainResultStream {
            let pass = passes.withLock { $0 += 1; return $0 }
            if pass > limit { throw Tripped(passes: pass - 1) }
            return await next(request)
        }
    }

    @Test("MaxRetry(15) with an always-retrying interceptor fails with MaxRetriesError(count: 15) after 16 passes")
    func maxRetriesError() async {
        let passes = Locked(0)
        let chain = makeChain(graphQL: [MaxRetryInterceptor(maxRetries: 15), AlwaysRetry(passes: passes)], transport: .respond(status: 200, body: heroBody))
        let outcome = await run(chain.kickoff(request: request()))
        #expect(outcome.error as? MaxRetriesError == MaxRetriesError(count: 15, operationName: "HeroQuery"))
        #expect(passes.value == 16)
        // ChainRunner/Interceptors/MaxRetryInterceptor.swift: `MaxRetriesError.errorDescription`.
        #expect("\(outcome.error!)" == "The maximum number of retries (15) was hit without success for operation \"HeroQuery\".")
        #expect(outcome.error?.localizedDescription == "The maximum number of retries (15) was hit without success for operation \"HeroQuery\".")
    }

    @Test("a retrier placed before MaxRetry goes past the cap until a guard stops it")
    func retrierBeforeMaxRetry() async {
        let passes = Locked(0)
        let guardInterceptor = Guard(limit: 100)
        let maxRetry = MaxRetryInterceptor(maxRetries: 3)
        struct RetryOnAnyError: ChainInterceptor {
            let passes: Locked<Int>
            func intercept(request: ChainRequest, next: ChainNext) async throws -> ChainResultStream {
                passes.withLock { $0 += 1 }
                return await next(request).mapErrors { error in
                    if error is Guard.Tripped { throw error }
                    throw ChainRunner.Retry(request: request)
                }
            }
        }
        let chain = makeChain(
            graphQL: [guardInterceptor, RetryOnAnyError(passes: passes), maxRetry],
            transport: .respond(status: 500, body: #"{"errors":[{"message":"boom"}]}"#))
        let outcome = await run(chain.kickoff(request: request()))
        #expect(outcome.error as? Guard.Tripped == Guard.Tripped(passes: 100))
        #expect(passes.value == 100)
        #expect(maxRetry.passes == 100)
    }

    @Test("retry twice then succeed with max 3: success, the retrier ran twice, backoff waited on the injected clock")
    func retryTwiceThenSucceed() async {
        let clock = VirtualClock()
        let retries = Locked(0)
        struct RetryTwice: ChainInterceptor {
            let retries: Locked<Int>
            func intercept(request: ChainRequest, next: ChainNext) async throws -> ChainResultStream {
                let shouldRetry = retries.withLock { count -> Bool in
                    guard count < 2 else { return false }
                    count += 1
                    return true
                }
                if shouldRetry { throw ChainRunner.Retry(request: request) }
                return await next(request)
            }
        }
        let backoff = MaxRetryInterceptor.Backoff(baseDelay: .milliseconds(100), multiplier: 2, maxDelay: .seconds(10), jitter: false)
        let chain = makeChain(
            graphQL: [MaxRetryInterceptor(maxRetries: 3, backoff: backoff, clock: clock), RetryTwice(retries: retries)],
            transport: .respond(status: 200, body: heroBody))
        let outcome = await run(chain.kickoff(request: request()))
        #expect(outcome.error == nil)
        #expect(outcome.responses.map(\.data) == [heroData])
        #expect(retries.value == 2)
        #expect(clock.sleeps == [.milliseconds(200), .milliseconds(400)])
        #expect(clock.now.offset == .milliseconds(600))
    }

    // ChainRunner/Interceptors/MaxRetryInterceptor.swift: `hitCount` is raised before the
    // delay is worked out as `baseDelay * pow(multiplier, hitCount - 1)`, so the second pass
    // (the first retry) already waits `baseDelay * multiplier`.
    @Test("backoff counts as Apollo's: 0.6, 1.2, 2.4 s for 0.3 s × 2, capped at the maximum")
    func upstreamSchedule() {
        let backoff = MaxRetryInterceptor.Backoff(jitter: false)
        #expect((1...3).map { backoff.delay(forRetry: $0) } == [.milliseconds(600), .milliseconds(1200), .milliseconds(2400)])
        #expect(backoff.delay(forRetry: 7) == .seconds(20))
    }

    @Test("backoff grows exponentially, is capped, and jitter scales it into [0.5, 1.0]")
    func backoffSchedule() async {
        let backoff = MaxRetryInterceptor.Backoff(baseDelay: .seconds(1), multiplier: 3, maxDelay: .seconds(5), jitter: true)
        #expect((1...4).map { backoff.delay(forRetry: $0) } == [.seconds(3), .seconds(5), .seconds(5), .seconds(5)])
        let clock = VirtualClock()
        let chain = makeChain(
            graphQL: [MaxRetryInterceptor(maxRetries: 2, backoff: backoff, clock: clock, jitterSource: { 0.5 }),
                      AlwaysRetry(passes: Locked(0))],
            transport: .respond(status: 200, body: heroBody))
        let outcome = await run(chain.kickoff(request: request()))
        #expect(outcome.error as? MaxRetriesError == MaxRetriesError(count: 2, operationName: "HeroQuery"))
        #expect(clock.sleeps == [.milliseconds(2250), .milliseconds(3750)])
    }

    @Test("a retry count whose backoff factor overflows to infinity waits the longest delay, or none for a zero base, instead of trapping")
    func backoffBeyondDoubleRange() {
        let capped = MaxRetryInterceptor.Backoff(baseDelay: .milliseconds(300), multiplier: 2, maxDelay: .seconds(20), jitter: false)
        #expect(capped.delay(forRetry: 2_000) == .seconds(20))
        let zero = MaxRetryInterceptor.Backoff(baseDelay: .zero, multiplier: 2, maxDelay: .seconds(20), jitter: false)
        #expect(zero.delay(forRetry: 2_000) == .zero)
    }
}
