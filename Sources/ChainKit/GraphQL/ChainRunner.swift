package import Foundation
package import Synchronization


/// Runs one GraphQL operation through its interceptors, with Apollo iOS 2.x's semantics.
///
/// ```
///  kickoff(request)                                         results ▲
///      │                                                            │
///  ┌───▼──────────── GraphQL interceptors (element 0 outermost) ────┴──┐
///  │ 0 MaxRetryInterceptor      pre-flight ↓          map / mapErrors ↑ │
///  │ 1 AutomaticPersistedQuery  pre-flight ↓          map / mapErrors ↑ │
///  └───┬────────────────────────────────────────────────────────────▲──┘
///      │  cache read (per FetchBehavior) ── hit ──────────────────────┤
///      ▼                                                              │
///  build HTTP request ─▶ HTTP interceptors ─▶ transport               │
///                        (element 0 outermost)    │                   │
///                        ◀── HTTP post-flight ◀───┘                   │
///                        ─▶ response parser ──────────────────────────┘
///      network error + cacheRead == .onNetworkFailure ─▶ cache read instead
///  at the top: the parser's records of server results are written to the cache (writeResultsToCache)
/// ```
///
/// Worked example with interceptors `[A, B]` and a cache miss under `CacheFirst`: A's
/// pre-flight, B's pre-flight, cache read (miss), HTTP interceptors, transport, parser,
/// B's post-flight, A's post-flight, cache write, result to the caller.
///
/// Throwing ``Retry`` anywhere in the GraphQL layer restarts the chain from the top with
/// the retry's request; on its way out it passes through outer interceptors' `mapErrors`, so
/// one that swallows errors swallows the retry too. The chain has no retry limit of its own:
/// ``MaxRetryInterceptor`` enforces one, which is why it must come first. An attempt that
/// yields no result fails with ``RequestChainError/noResults``.
///
/// As upstream's, ``kickoff(request:)`` starts the operation at once in a task of its own,
/// whether or not anybody reads the returned stream yet; results wait in the stream until they
/// are read. Dropping the stream, or cancelling the task that reads it, cancels that task, which
/// reaches every interceptor as `CancellationError` (the reader's stream just ends). Under
/// CacheAndNetwork the network step starts in a second task as soon as the cache has answered,
/// while the cached result climbs (cancelled with the first).
///
/// The cache and network steps begin when the innermost interceptor calls `next`: in the
/// operation's task, up to their first result, before `next` returns (what the lab shows, and
/// what costs no task); under ``RequestChain``, in a task of their own beside the work an
/// interceptor does after `next`, as upstream's.
public struct ChainRunner: Sendable {
    /// Thrown by a GraphQL interceptor to run the chain again from the top with `request`.
    public struct Retry: Error, CustomStringConvertible {
        public let request: ChainRequest
        public init(request: ChainRequest) { self.request = request }
        public var description: String { "retry \(request.operation.name) from the top of the chain" }
    }

    /// The interceptors of one operation, as a provider hands them out.
    public struct Interceptors: Sendable {
        public var graphQL: [any ChainInterceptor]
        public var cache: any ChainCacheInterceptor
        public var http: [any ChainHTTPInterceptor]
        public var parser: any ChainResponseParser
        /// Builds the HTTP request the HTTP interceptors receive; nil builds it as
        /// ``ChainRequest/makeNetworkRequest()`` does. ``RequestChain`` has its `Request` build it.
        package var networkRequest: (@Sendable (ChainRequest) throws -> NetworkRequest)?

        public init(graphQL: [any ChainInterceptor], cache: any ChainCacheInterceptor, http: [any ChainHTTPInterceptor], parser: any ChainResponseParser) {
            self.graphQL = graphQL
            self.cache = cache
            self.http = http
            self.parser = parser
        }

        /// Fresh interceptors for `operation` from `provider`.
        public init(provider: any ChainInterceptorProvider, operation: ChainOperation) {
            self.init(
                graphQL: provider.graphQLInterceptors(for: operation),
                cache: provider.cacheInterceptor(for: operation),
                http: provider.httpInterceptors(for: operation),
                parser: provider.responseParser(for: operation))
        }
    }

    /// The interceptors and the transport, in one immutable box: the chain's streams and
    /// closures each keep the chain, and a copy then costs one reference instead of one per
    /// interceptor.
    private final class Parts: Sendable {
        let interceptors: Interceptors
        let transport: any GraphQLTransport
        let overlapObserver: (any NetworkOverlapObserver)?
        let hopObserver: (any GraphQLHopObserver)?
        let httpObserver: (any HTTPHopObserver)?

        init(
            interceptors: Interceptors, transport: any GraphQLTransport, overlapObserver: (any NetworkOverlapObserver)?,
            hopObserver: (any GraphQLHopObserver)?, httpObserver: (any HTTPHopObserver)?
        ) {
            self.interceptors = interceptors
            self.transport = transport
            self.overlapObserver = overlapObserver
            self.hopObserver = hopObserver
            self.httpObserver = httpObserver
        }
    }

    private let parts: Parts
    /// Whether, under a fetch behaviour that reads the cache and then always fetches
    /// (CacheAndNetwork), the network step starts as soon as the cache has answered, while the
    /// cached result is still on its way up, as upstream's execution task goes straight on to
    /// the network. A lab that schedules every hop follows the overlap with a
    /// ``NetworkOverlapObserver``.
    package let overlapsNetworkFetch: Bool
    /// Whether the cache and network steps run in a task of their own, beside what the
    /// innermost interceptor does after calling `next` (``execute(_:)``), as upstream's do and
    /// ``RequestChain`` asks; otherwise they begin in the operation's task when `next` is
    /// called (``beginExecution(_:)``), which costs no task.
    package let executesInTask: Bool

    public var interceptors: Interceptors { parts.interceptors }
    public var transport: any GraphQLTransport { parts.transport }

    public init(interceptors: Interceptors, transport: any GraphQLTransport) {
        self.init(interceptors: interceptors, transport: transport, overlapsNetworkFetch: true)
    }

    package init(
        interceptors: Interceptors, transport: any GraphQLTransport, overlapsNetworkFetch: Bool,
        overlapObserver: (any NetworkOverlapObserver)? = nil, hopObserver: (any GraphQLHopObserver)? = nil,
        httpObserver: (any HTTPHopObserver)? = nil, executesInTask: Bool = false
    ) {
        parts = Parts(
            interceptors: interceptors, transport: transport, overlapObserver: overlapObserver, hopObserver: hopObserver,
            httpObserver: httpObserver)
        self.overlapsNetworkFetch = overlapsNetworkFetch
        self.executesInTask = executesInTask
    }

    /// The operation's results. The operation starts now, in a task of its own, as upstream's
    /// `kickoff` does (`AsyncThrowingStream.executingInAsyncTask`): a transport sees the request
    /// even if nobody reads the stream yet. Read the stream once.
    public func kickoff(request: ChainRequest) -> ChainResultStream {
        start(request: request).results
    }

    /// ``kickoff(request:)``, with the task that runs the operation, for a caller that must
    /// know when the operation has ended: a reader that is cancelled sees its stream end
    /// before the operation's task has unwound.
    package func start(request: ChainRequest) -> (results: ChainResultStream, task: StartedTask) {
        let operation = Operation(chain: self, request: request)
        // The task's closure holds one reference: holding the chain, the request and the
        // buffer, its context would retain each of them, and release each at the end.
        let task = StartedTask { await operation.chain.run(operation) }
        return (PullStream(source: Results(buffer: operation, task: task)), task)
    }

    /// The reading end of an operation's results (``StartedReader``, for this one element
    /// type, so the buffer's methods run specialised).
    private final class Results: PullStreamSource, PullStreamIterator {
        let buffer: StartedBuffer<ChainResponse>
        let task: StartedTask

        init(buffer: StartedBuffer<ChainResponse>, task: StartedTask) {
            self.buffer = buffer
            self.task = task
        }

        deinit {
            buffer.abandon(cancelling: task)
        }

        func makeIterator() -> any PullStreamIterator<ChainResponse> { self }

        // Inlined into the conformance's witness, which would otherwise call it in an async frame of its own.
        @inline(__always)
        func next() async throws -> ChainResponse? {
            try await buffer.next(cancelling: task)
        }
    }

    /// One operation, as its task runs it: the buffer its reader takes the results from,
    /// with the chain, the request as kicked off, and the request the last attempt handed to
    /// the cache step, which is what the cache write uses (a pre-flight may have changed it;
    /// set from the innermost `next`). One object, made once an operation.
    ///
    /// Sendable unchecked only because its superclass is open: what it adds is constants of
    /// Sendable types and the final request behind its own `Mutex`, and the buffer's state is
    /// behind the buffer's lock.
    private final class Operation: StartedBuffer<ChainResponse>, @unchecked Sendable {
        let chain: ChainRunner
        let request: ChainRequest
        let finalRequest: Mutex<ChainRequest>

        init(chain: ChainRunner, request: ChainRequest) {
            self.chain = chain
            self.request = request
            self.finalRequest = Mutex(request)
        }
    }

    /// The attempts of `operation`, retries included, run in its task: each result goes into
    /// its buffer (the operation itself) as it comes, then the end or the failure.
    private func run(_ operation: Operation) async {
        let request = operation.request
        let interceptors = parts.interceptors.graphQL, chain = self
        // The GraphQL interceptors from `index` down. A local function, so what it needs is
        // captured once per operation; each interceptor's `next` is made when it calls down
        // and names only the index below, so nothing is built per hop but the call itself.
        // An interceptor's error becomes a stream that fails when read.
        // Below the last GraphQL interceptor: the cache and network steps for what it handed down.
        @Sendable func belowLast(_ request: ChainRequest) async -> ChainResultStream {
            operation.finalRequest.withLock { $0 = request }
            return chain.executesInTask ? chain.execute(request) : await chain.beginExecution(request)
        }
        @Sendable func intercept(_ request: ChainRequest, at index: Int) async -> ChainResultStream {
            guard index < interceptors.count else { return await belowLast(request) }
            do {
                // `&+`: cannot overflow below the count, and a checked add would make the
                // closure switch executors on entry.
                return try await interceptors[index].intercept(request: request) { request in await intercept(request, at: index &+ 1) }
            } catch {
                return .failing(error)
            }
        }
        // The same, told to a hop observer: each interceptor's pre-flight stop, what it hands
        // down and what comes back to it. A function of its own, so the chain without an
        // observer runs as it would without this.
        @Sendable func observed(_ request: ChainRequest, at index: Int, by observer: any GraphQLHopObserver) async -> ChainResultStream {
            guard index < interceptors.count else { return await belowLast(request) }
            do {
                let received = observer.passesStraight ? request : try await observer.preflightStop(at: index, request)
                return try await interceptors[index].intercept(request: received) { handed in
                    observer.handsOn(at: index, handed, received: received)
                    let results = await observed(handed, at: index &+ 1, by: observer)
                    return observer.arriving(at: index, results, handed: handed, received: received)
                }
            } catch {
                return .failing(error)
            }
        }
        // One attempt's results, from the top, told to `observer`.
        @Sendable func observedAttempt(_ request: ChainRequest, by observer: any GraphQLHopObserver) async -> ChainResultStream {
            do {
                try observer.attemptStarts()
            } catch {
                return .failing(error)
            }
            let results = await observed(request, at: 0, by: observer)
            return observer.arriving(at: GraphQLHopObserverPlace.aboveTop, results, handed: request, received: request)
        }
        let observer = parts.hopObserver
        var pending = request
        do {
            while true {
                var didEmitResult = false
                do {
                    let results = if let observer { await observedAttempt(pending, by: observer) } else { await intercept(pending, at: 0) }
                    for try await response in results {
                        try Task.checkCancellation()
                        try await writeToCacheIfNecessary(response, for: operation)
                        didEmitResult = true
                        operation.yield(response)
                    }
                    guard didEmitResult else { throw RequestChainError.noResults }
                    parts.overlapObserver?.operationEnds()
                    operation.finish()
                    return
                } catch let retry as Retry {
                    pending = retry.request
                    // Leaving the loop dropped this attempt's results, which cancelled a
                    // network fetch still running beside them.
                    await parts.overlapObserver?.attemptEndsInRetry()
                }
            }
        } catch {
            parts.overlapObserver?.operationEnds()
            operation.finish(throwing: error)
        }
    }

    /// The cache step and the network step, started now in a task of their own, as upstream's
    /// `execute` is (`AsyncThrowingStream.executingInAsyncTask`): what the innermost
    /// interceptor does after calling `next` runs while the request is in flight, and the
    /// results are read once. A reader cancelled while it waits sees the steps unwind, then
    /// `CancellationError`, as the interceptors would if the steps ran in their task.
    private func execute(_ request: ChainRequest) -> ChainResultStream {
        let steps = PullStream(source: Execution(chain: self, request: request))
        let (started, task) = PullStream.startedWithTask { steps }
        return PullStream {
            let pull = started.makeAsyncIterator()
            return {
                if let next = try await pull.next() { return next }
                guard Task.isCancelled else { return nil }
                _ = await task.result
                throw CancellationError()
            }
        }
    }

    /// The cache step and the network step begun now, in the operation's own task, and run up
    /// to their first result, which waits for its reader; the rest run as the results are read.
    /// So, as upstream's, the request is on its way before the innermost interceptor's `next`
    /// returns, and what an interceptor does after calling `next` comes after the send; a lab
    /// still orders every hop in one task, and no task is started (upstream runs the steps in a
    /// task of their own, beside that work: ``execute(_:)``).
    private func beginExecution(_ request: ChainRequest) async -> ChainResultStream {
        let steps = ExecutionSteps(chain: self, request: request)
        let first: Result<ChainResponse?, any Error>
        do { first = .success(try await steps.next()) } catch { first = .failure(error) }
        return PullStream(source: BegunSteps(steps: steps, first: first))
    }

    /// Steps begun before anybody read them, and their first outcome. Sendable unchecked: the
    /// stream is read once, by one reader at a time (the interceptors' streams are read in
    /// turn, never at once), and nothing else touches `first` or `steps`, so no lock is needed.
    private final class BegunSteps: PullStreamSource, PullStreamIterator, @unchecked Sendable {
        let steps: ExecutionSteps
        var first: Result<ChainResponse?, any Error>?

        init(steps: ExecutionSteps, first: Result<ChainResponse?, any Error>) {
            self.steps = steps
            self.first = first
        }

        func makeIterator() -> any PullStreamIterator<ChainResponse> { self }

        // Inlined into the conformance's witness, which would otherwise call it in an async frame of its own.
        @inline(__always)
        func next() async throws -> ChainResponse? {
            if let first {
                self.first = nil
                return try first.get()
            }
            return try await steps.next()
        }
    }

    /// The cache step and the network step of one request: each iteration runs them afresh
    /// (``ExecutionSteps``).
    private final class Execution: PullStreamSource {
        let chain: ChainRunner
        let request: ChainRequest

        init(chain: ChainRunner, request: ChainRequest) {
            self.chain = chain
            self.request = request
        }

        func makeIterator() -> any PullStreamIterator<ChainResponse> { ExecutionSteps(chain: chain, request: request) }
    }

    /// One iteration of the cache step and the network step of one request: the cache read
    /// (per fetch behaviour), then the network's results, or the cache's when the network
    /// fails and the behaviour allows it.
    private final class ExecutionSteps: PullStreamIterator {
        enum Step {
            case cacheRead
            case network(hadCacheHit: Bool)
            /// The network's results as they come: straight from the parser (`parsed`, told to
            /// a hop observer as they leave it), or from the overlapping fetch, which tells it.
            case passthrough(ChainResultStream.AsyncIterator, parsed: Bool)
            case done
        }

        let chain: ChainRunner
        let request: ChainRequest
        private var step = Step.cacheRead

        init(chain: ChainRunner, request: ChainRequest) {
            self.chain = chain
            self.request = request
        }

        // Inlined into the conformance's witness, which would otherwise call it in an async frame of its own.
        @inline(__always)
        func next() async throws -> ChainResponse? {
            let behavior = request.fetchBehavior
            while true {
                switch step {
                case .cacheRead:
                    step = .network(hadCacheHit: false)
                    guard behavior.shouldReadFromCache(hadFailedNetworkFetch: false) else { continue }
                    do {
                        if let cached = try await chain.parts.interceptors.cache.readCacheData(request: request) {
                            step = .network(hadCacheHit: true)
                            if chain.overlapsNetworkFetch, behavior.shouldFetchFromNetwork(hadSuccessfulCacheRead: true) {
                                step = .passthrough(chain.overlappingNetworkFetch(request).makeAsyncIterator(), parsed: false)
                            }
                            return cached
                        }
                    } catch {
                        if !behavior.shouldFetchFromNetwork(hadSuccessfulCacheRead: false) { throw error }
                    }
                case .network(let hadCacheHit):
                    step = .done
                    guard behavior.shouldFetchFromNetwork(hadSuccessfulCacheRead: hadCacheHit) else { return nil }
                    do {
                        step = .passthrough(try await chain.fetchFromNetwork(request).makeAsyncIterator(), parsed: true)
                    } catch {
                        return try await recover(from: error)
                    }
                case .passthrough(let results, let parsed):
                    do {
                        guard let response = try await results.next() else {
                            step = .done
                            return nil
                        }
                        if parsed { chain.parts.hopObserver?.parsed(.success(response)) }
                        return response
                    } catch {
                        if parsed { chain.parts.hopObserver?.parsed(.failure(error)) }
                        step = .done
                        return try await recover(from: error)
                    }
                case .done:
                    return nil
                }
            }
        }

        private func recover(from error: any Error) async throws -> ChainResponse? {
            guard request.fetchBehavior.shouldReadFromCache(hadFailedNetworkFetch: true) else { throw error }
            return try await chain.parts.interceptors.cache.readCacheData(request: request)
        }
    }

    /// The network step in a task of its own, started now, while the cached result climbs;
    /// with an observer, every hand-over between that task and this one is reported.
    private func overlappingNetworkFetch(_ request: ChainRequest) -> ChainResultStream {
        let chain = self
        guard let observer = parts.overlapObserver else { return .started { try await chain.reportedFetchFromNetwork(request) } }
        observer.networkFetchStarts()
        let fetched = ChainResultStream.started {
            let results: ChainResultStream
            do {
                results = try await chain.reportedFetchFromNetwork(request)
            } catch {
                observer.networkFetchHandsOn(isEnd: true)
                throw error
            }
            return PullStream {
                let pull = results.makeAsyncIterator()
                return {
                    do {
                        let next = try await pull.next()
                        observer.networkFetchHandsOn(isEnd: next == nil)
                        return next
                    } catch {
                        observer.networkFetchHandsOn(isEnd: true)
                        throw error
                    }
                }
            }
        }
        return PullStream {
            let pull = fetched.makeAsyncIterator()
            return {
                observer.readerWaits()
                let outcome: Result<ChainResponse?, any Error>
                do { outcome = .success(try await pull.next()) } catch { outcome = .failure(error) }
                await observer.readerResumes()
                return try outcome.get()
            }
        }
    }

    /// ``fetchFromNetwork(_:)`` in a task of its own, where the hop observer is told of each
    /// result and the failure that leaves the parser as they are read. (The operation's own
    /// network step tells it where it reads them, without a stream layer: ``Execution``.)
    private func reportedFetchFromNetwork(_ request: ChainRequest) async throws -> ChainResultStream {
        let results = try await fetchFromNetwork(request)
        guard let hopObserver = parts.hopObserver else { return results }
        return results.reportingParsed(to: hopObserver)
    }

    private func fetchFromNetwork(_ request: ChainRequest) async throws -> ChainResultStream {
        let http = parts.interceptors.http, transport = parts.transport
        // The HTTP interceptors from `index` down, then the transport; `next` is made as in
        // `run(_:)`'s `intercept`.
        @Sendable func send(_ request: NetworkRequest, at index: Int) async throws -> NetworkResponse {
            guard index < http.count else { return try await transport.send(request) }
            return try await http[index].intercept(request: request) { request in try await send(request, at: index &+ 1) }
        }
        let network = try parts.interceptors.networkRequest?(request) ?? request.makeNetworkRequest()
        let response = if let observer = parts.httpObserver { try await observed(network, by: observer) } else { try await send(network, at: 0) }
        return try await parts.interceptors.parser.parse(response: response, for: request)
    }

    /// The HTTP interceptors and the transport, as ``fetchFromNetwork(_:)`` runs them, told to
    /// `observer`: each interceptor's stops, what it hands down and what it hands up.
    private func observed(_ request: NetworkRequest, by observer: any HTTPHopObserver) async throws -> NetworkResponse {
        let http = parts.interceptors.http, transport = parts.transport
        // Interceptor `index` (or the transport below the last one), then the post-flight stop
        // of the interceptor above, whose `next` this call is; `answered` is where that one
        // keeps the headers last handed up to it. The stops are tested in line, and the
        // post-flight stop of the hop above runs here, after the executor check this call
        // makes anyway, rather than in its `next` after this call returns.
        @Sendable func run(_ index: Int, _ incoming: NetworkRequest, answered: borrowing Mutex<HandedUpHeaders>) async throws -> NetworkResponse {
            var response: NetworkResponse
            do {
                if index < http.count {
                    let received = observer.passesStraight ? incoming : try await observer.preflightStop(at: index, incoming)
                    // The headers of the last response handed back up to this interceptor, in
                    // this call's frame: the closure handed to it does not escape.
                    let handedUp = Mutex(HandedUpHeaders())
                    do {
                        response = try await http[index].intercept(request: received) { handed in
                            observer.handsOn(at: index, handed, received: received.headerFields)
                            // `&+`: cannot overflow below the count.
                            return try await run(index &+ 1, handed, answered: handedUp)
                        }
                    } catch {
                        throw observer.failed(at: index, error)
                    }
                    observer.handsUp(at: index, response, answered: handedUp)
                } else {
                    response = try await transport.send(incoming)
                }
            } catch {
                // What fails here goes up to the interceptor above, through its post-flight stop.
                if index == 0 || observer.passesStraight { throw error }
                response = try await observer.postflightStop(at: index &- 1, .failure(error), url: incoming.url)
                answered.withLock { $0.set(response.headerFields) }
                return response
            }
            // Nothing is above the top interceptor here: the chain's GraphQL part is.
            if index == 0 { return response }
            if !observer.passesStraight { response = try await observer.postflightStop(at: index &- 1, .success(response), url: incoming.url) }
            answered.withLock { $0.set(response.headerFields) }
            return response
        }
        // The top interceptor has none above it to keep what it hands up: never set.
        let aboveTop = Mutex(HandedUpHeaders())
        return try await run(0, request, answered: aboveTop)
    }

    private func writeToCacheIfNecessary(_ response: ChainResponse, for operation: Operation) async throws {
        guard response.source == .server, response.cacheRecords != nil else { return }
        let request = operation.finalRequest.withLock { $0 }
        guard request.writeResultsToCache else { return }
        try await parts.interceptors.cache.writeCacheData(request: request, response: response)
    }
}

/// What a lab that schedules every hop learns about an overlapping network fetch (see
/// ``ChainRunner/overlapsNetworkFetch``), so it can schedule the fetch as a second lane of
/// the operation: the fetch's task and the operation's own task hand results over through a
/// buffer, and each hand-over is reported before the other side can see it.
///
/// ```
///  operation task:  cache hit ─ networkFetchStarts ─▶ cached result climbs … readerWaits ─▶ (buffer) ─▶ readerResumes
///  network task:                      └─▶ HTTP hops, transport, parser ─ networkFetchHandsOn ─▶ (buffer)
/// ```
package protocol NetworkOverlapObserver: AnyObject, Sendable {
    /// In the operation's task, before the network fetch's task exists.
    func networkFetchStarts()
    /// In the network fetch's task, before a result (or, `isEnd`, its end or failure) goes
    /// into the buffer the operation's task reads. The end is the task's last report.
    func networkFetchHandsOn(isEnd: Bool)
    /// In the operation's task, before it reads the next result (or the end) from the buffer.
    func readerWaits()
    /// In the operation's task, once it has what it read, before it goes on with it.
    func readerResumes() async
    /// In the operation's task, once its last attempt has ended, before its results end or
    /// fail: it reads nothing more, though a fetch it started may still run (the attempt
    /// failed on the cached result's way up, or an interceptor stopped reading).
    func operationEnds()
    /// In the operation's task, once an attempt has ended in a ``ChainRunner/Retry`` (an
    /// interceptor threw it on the cached result's way up), before the next attempt starts:
    /// a fetch the attempt started may still run, cancelled. Upstream starts the next attempt
    /// at once; an observer that orders both tasks may wait here until that fetch has ended,
    /// so the two attempts never run at once.
    func attemptEndsInRetry() async
}

extension NetworkOverlapObserver {
    /// An observer that only follows the hand-overs need not know.
    package func operationEnds() {}

    /// An observer that only follows the hand-overs need not know.
    package func attemptEndsInRetry() async {}
}

/// What a lab that stops at and records every GraphQL interceptor is told as the chain runs
/// them (package-level, like ``NetworkOverlapObserver``). Telling it here rather than through
/// a wrapper around every interceptor spares each hop the wrapper's async frame and the
/// closure it would hand its interceptor as `next`. Called in the operation's task.
package protocol GraphQLHopObserver: AnyObject, Sendable {
    /// An attempt starts, before the top interceptor runs; throwing ends the attempt with
    /// that error (as its results' failure, reported nowhere else).
    func attemptStarts() throws
    /// Whether no interceptor has a stop to wait at now: then each receives what it is handed.
    var passesStraight: Bool { get }
    /// What interceptor `index` receives of `request`, after its pre-flight stop (only asked
    /// when not ``passesStraight``); throwing fails the interceptor's results with the error.
    func preflightStop(at index: Int, _ request: ChainRequest) async throws -> ChainRequest
    /// Interceptor `index`, having received `received`, hands `handed` down.
    func handsOn(at index: Int, _ handed: ChainRequest, received: ChainRequest)
    /// What interceptor `index` reads of `results`, the answer to `handed` from the layers
    /// below it; at ``GraphQLHopObserverPlace/aboveTop``, what the operation reads of the
    /// top interceptor's results (`handed` and `received` are then the attempt's request).
    func arriving(at index: Int, _ results: consuming ChainResultStream, handed: ChainRequest, received: ChainRequest) -> ChainResultStream
    /// A result, or the failure, leaves the response parser, where the network step reads it.
    func parsed(_ outcome: Result<ChainResponse, any Error>)
}

extension ChainResultStream {
    /// The same stream, telling `observer` of each result and the failure as they are read.
    fileprivate func reportingParsed(to observer: any GraphQLHopObserver) -> ChainResultStream {
        PullStream {
            let pull = self.makeAsyncIterator()
            return {
                do {
                    let next = try await pull.next()
                    if let next { observer.parsed(.success(next)) }
                    return next
                } catch {
                    observer.parsed(.failure(error))
                    throw error
                }
            }
        }
    }
}

/// Places a ``GraphQLHopObserver`` is told about besides the interceptors' indices.
package enum GraphQLHopObserverPlace {
    /// Above the top interceptor, where the operation reads its results.
    package static let aboveTop = -1
}

/// Errors of the chain itself.
public enum RequestChainError: Error, Equatable, CustomStringConvertible {
    /// An attempt finished without yielding a single result.
    case noResults

    public var description: String {
        switch self {
        case .noResults: "the request chain finished without a result (noResults)"
        }
    }
}

/// Runs operations on fresh interceptors from a provider, one ``ChainRunner`` per
/// operation (Apollo's `RequestChainNetworkTransport`).
public struct ChainNetworkTransport: Sendable {
    public let interceptorProvider: any ChainInterceptorProvider
    public let transport: any GraphQLTransport

    public init(interceptorProvider: any ChainInterceptorProvider, transport: any GraphQLTransport) {
        self.interceptorProvider = interceptorProvider
        self.transport = transport
    }

    /// The results of one operation, on a fresh chain: it starts now, whether or not anybody
    /// reads the stream yet (see ``ChainRunner/kickoff(request:)``).
    public func send(_ request: ChainRequest) -> ChainResultStream {
        ChainRunner(interceptors: .init(provider: interceptorProvider, operation: request.operation), transport: transport)
            .kickoff(request: request)
    }
}

/// What a lab that stops at and records every HTTP interceptor of a GraphQL chain is told as
/// the chain runs them (package-level, like ``GraphQLHopObserver``): HTTP hop `index` is
/// interceptor `index`, and below the last one is the transport. Called in the task that
/// fetches.
package protocol HTTPHopObserver: AnyObject, Sendable {
    /// Whether no interceptor has a stop to wait at now.
    var passesStraight: Bool { get }
    /// What interceptor `index` receives of `incoming`, after its pre-flight stop (asked only
    /// when not ``passesStraight``).
    func preflightStop(at index: Int, _ incoming: NetworkRequest) async throws -> NetworkRequest
    /// Interceptor `index`, having received a request with the headers `received`, hands
    /// `handed` down.
    func handsOn(at index: Int, _ handed: NetworkRequest, received: HTTPFields)
    /// Interceptor `index` hands `response` up; `answered` holds the headers last handed up to
    /// it (unset when it did not call `next`).
    func handsUp(at index: Int, _ response: NetworkResponse, answered: borrowing Mutex<HandedUpHeaders>)
    /// What goes back up to interceptor `index` after its post-flight stop for `result`, the
    /// outcome of its `next`; throws what a person made it fail with, or the failure that came.
    func postflightStop(at index: Int, _ result: Result<NetworkResponse, any Error>, url: URL) async throws -> NetworkResponse
    /// `error`, thrown by interceptor `index`, as it goes on up (recorded first).
    func failed(at index: Int, _ error: any Error) -> any Error
}
