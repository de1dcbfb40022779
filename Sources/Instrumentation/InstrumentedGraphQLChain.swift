import Stops
public import ChainKit
import Foundation
import Synchronization
import Timeline

/// One operation's GraphQL instrumentation: everything its hops share, in one object.
///
/// Every hop of the operation is a small value (this object and the hop's place) rather than
/// an object of its own: wrapping an operation's chain allocates this once instead of once per
/// hop, and a hop keeps no copy of its own ``HopInfo`` (each copy a retain, and a release when
/// it goes). The hops, their names and where the cache, HTTP, transport and parser hops sit
/// come from the session's layout of the chain, worked out once per layout (``HopLayouts``).
///
/// Sendable: every stored property is a `let` of a Sendable type.
final class GraphQLInstrumentation: Sendable {
    let context: OperationContext
    /// The hops from the top (``HopLayout/hops``).
    let hops: [HopInfo]
    /// The interceptors the hops wrap.
    let base: ChainRunner.Interceptors
    let transport: any GraphQLTransport
    /// How many GraphQL hops there are, from index 0.
    let graphQLCount: Int
    /// The index of the transport hop (the cache hop is `graphQLCount`, the HTTP hops follow
    /// it, the parser follows the transport).
    let transportIndex: Int

    init(context: OperationContext, hops: [HopInfo], base: consuming ChainRunner.Interceptors, transport: consuming any GraphQLTransport) {
        self.context = context
        self.hops = hops
        graphQLCount = base.graphQL.count
        transportIndex = graphQLCount + 1 + base.http.count
        self.base = base
        self.transport = transport
    }
}

/// The GraphQL hops, told by the chain as it runs its interceptors: GraphQL hop `index` is
/// interceptor `index`. What it hands down is recorded where it hands it on; what leaves the
/// hop below it upward (a result, a failure, a retry) is recorded where it arrives, at the
/// junction between them (``GraphQLJunction`` `index`), which also holds this hop's
/// post-flight stop. The top hop's results arrive at the junction above it, where the
/// operation reads them.
extension GraphQLInstrumentation: GraphQLHopObserver {
    func attemptStarts() throws {
        _ = try context.beginAttempt()
    }

    var passesStraight: Bool { context.passesStraight }

    /// What GraphQL hop `index` receives of `request` after its pre-flight stop.
    func preflightStop(at index: Int, _ request: ChainRequest) async throws -> ChainRequest {
        let release = await context.gate(hops[index], .pre, context.snapshots.snapshot(graphQL: request), StopCapabilities(canEditRequest: true))
        if case .forceRetry = release.disposition { context.noteForcedRetry(at: hops[index]) }
        return try release.applied(to: request)
    }

    func handsOn(at index: Int, _ handed: ChainRequest, received: ChainRequest) {
        GraphQLJunction(self, into: index).handOn(handed, received: received)
    }

    func arriving(at index: Int, _ results: consuming ChainResultStream, handed: ChainRequest, received: ChainRequest) -> ChainResultStream {
        // Without GraphQL hops nothing leaves one, and nothing has a stop above the cache step.
        if graphQLCount == 0 { return results }
        return results.arriving(into: index, of: self, handed: handed, received: received)
    }

    /// The parser's post-flight event for each result, its error event for the failure;
    /// neither changes what flows.
    func parsed(_ outcome: Result<ChainResponse, any Error>) {
        let hop = transportIndex + 1
        switch outcome {
        case .success(let result): context.emit(hops, hop, .postflight, context.snapshots.snapshot(result: result))
        case .failure(let error): context.emit(hops, hop, .error, HopSnapshot(error: error))
        }
    }
}

/// Two adjacent GraphQL hops of one operation: results leave `from` and enter `into`. The
/// junction below GraphQL hop `i` has `into` = hop `i` and `from` = hop `i + 1` (none below the
/// lowest GraphQL hop: the cache and network steps report their own); the junction above the
/// top hop has `from` = hop 0 and no `into`.
///
/// A value of a reference and a number, worked out from the operation's hops when read.
struct GraphQLJunction: Sendable {
    let instrumentation: GraphQLInstrumentation
    /// The GraphQL hop the results enter, whose post-flight stop is here;
    /// `GraphQLHopObserverPlace.aboveTop` above the top hop.
    let intoIndex: Int

    init(_ instrumentation: GraphQLInstrumentation, into intoIndex: Int) {
        self.instrumentation = instrumentation
        self.intoIndex = intoIndex
    }

    var context: OperationContext { instrumentation.context }

    /// Whether results leave a GraphQL hop here (not the cache and network steps).
    var hasFrom: Bool { intoIndex + 1 < instrumentation.graphQLCount }
    /// Whether results enter a GraphQL hop here (not above the top).
    var hasInto: Bool { intoIndex >= 0 }

    // The hops are lent, not copied: a copy of a hop retains its name, once per event.

    /// The hop the results leave; only when ``hasFrom``.
    var from: HopInfo { _read { yield instrumentation.hops[intoIndex + 1] } }
    /// The hop they enter; only when ``hasInto``.
    var into: HopInfo { _read { yield instrumentation.hops[intoIndex] } }

    /// Records the pre-flight event of `into` handing `handed` down, having received `received`.
    func handOn(_ handed: ChainRequest, received: ChainRequest) {
        let diff = handed.isIdentical(to: received)
            ? HeaderDiff.none : HeaderDiff(from: received.additionalHeaders, to: handed.additionalHeaders)
        let context = self.context
        context.emit(instrumentation.hops, intoIndex, .preflight, context.snapshots.snapshot(graphQL: handed), diff: diff)
    }
}

/// The cache step with a stop before each read and events for hits, misses and writes.
struct InstrumentedCacheInterceptor: ChainCacheInterceptor {
    let instrumentation: GraphQLInstrumentation

    var context: OperationContext { instrumentation.context }
    var hop: HopInfo { instrumentation.hops[instrumentation.graphQLCount] }
    var base: any ChainCacheInterceptor { instrumentation.base.cache }

    // Inlined into the conformance's witness, which would otherwise call it in an async frame of its own.
    @inline(__always)
    func readCacheData(request: ChainRequest) async throws -> ChainResponse? {
        let release = await context.gate(hop, .pre, context.snapshots.snapshot(graphQL: request), StopCapabilities(retryRefusal: .cacheStepCannotRetry))
        try context.reporting(at: hop) { try release.pass() }
        do {
            let cached = try await base.readCacheData(request: request)
            if let cached {
                context.emit(hop, .cacheHit, context.snapshots.snapshot(result: cached), detail: request.fetchBehavior.description)
            } else {
                context.emit(hop, .cacheMiss, detail: request.fetchBehavior.description)
            }
            return cached
        } catch {
            throw context.reported(error: error, at: hop)
        }
    }

    /// Records the write with what is written, the parser's records (key → fields), then
    /// writes: what the write sets off (a watcher's delivery) comes after it on the timeline.
    @inline(__always)
    func writeCacheData(request: ChainRequest, response: ChainResponse) async throws {
        context.emit(hop, .postflight, context.snapshots.snapshot(cacheRecords: response.cacheRecords ?? RecordSet()), detail: "cache write")
        try await base.writeCacheData(request: request, response: response)
    }
}

/// The HTTP hops, told by the chain as it runs its HTTP interceptors (``HTTPHopObserver``):
/// HTTP hop `index` (from 0) is interceptor `index`, with a stop on each side and events for
/// what it changed.
final class HTTPInstrumentation: HTTPHopObserver {
    let instrumentation: GraphQLInstrumentation

    init(instrumentation: GraphQLInstrumentation) {
        self.instrumentation = instrumentation
    }

    var context: OperationContext { instrumentation.context }

    var passesStraight: Bool { instrumentation.context.passesStraight }

    /// The hop of interceptor `index`.
    private func hop(_ index: Int) -> HopInfo { instrumentation.hops[instrumentation.graphQLCount + 1 + index] }

    func handsOn(at index: Int, _ handed: NetworkRequest, received: HTTPFields) {
        let context = self.context
        context.emit(
            instrumentation.hops, instrumentation.graphQLCount &+ 1 &+ index, .preflight, context.snapshots.snapshot(handed),
            diff: HeaderDiff(from: received, to: handed.headerFields))
    }

    func handsUp(at index: Int, _ response: NetworkResponse, answered: borrowing Mutex<HandedUpHeaders>) {
        let context = self.context
        let diff = answered.withLock { $0.diff(to: response.headerFields) }
        context.emit(instrumentation.hops, instrumentation.graphQLCount &+ 1 &+ index, .postflight, context.snapshots.snapshot(responseHead: response), diff: diff)
    }

    /// What interceptor `index` receives of `incoming` after its pre-flight stop. A call of its
    /// own: inlined, what a stop needs would be laid out in every hop's async frame, which the
    /// operation's task allocates.
    @inline(never)
    func preflightStop(at index: Int, _ incoming: NetworkRequest) async throws -> NetworkRequest {
        let context = self.context, hop = hop(index)
        let release = await context.gate(hop, .pre, context.snapshots.snapshot(incoming), StopCapabilities(canEditRequest: true, retryRefusal: .httpInterceptorCannotRetry))
        return try context.reporting(at: hop) { try release.applied(to: incoming) }
    }

    /// What goes back up to interceptor `index` after its post-flight stop for `result`, the
    /// outcome of its `next`; throws what a person made it fail with, or the failure that came.
    @inline(never)
    func postflightStop(at index: Int, _ result: Result<NetworkResponse, any Error>, url: URL) async throws -> NetworkResponse {
        let release = await context.gate(hop(index), .post, HopSnapshot(outcome: result), StopCapabilities(canEditResponse: result.isSuccess, canForce401: true, retryRefusal: .httpInterceptorCannotRetry))
        return try release.applied(to: result, url: url)
    }

    /// `error`, recorded as interceptor `index`'s.
    @inline(never)
    func failed(at index: Int, _ error: any Error) -> any Error {
        context.reported(error: error, at: hop(index))
    }
}

/// The GraphQL transport with a stop before sending and one after receiving.
struct InstrumentedGraphQLTransport: GraphQLTransport {
    let instrumentation: GraphQLInstrumentation

    var context: OperationContext { instrumentation.context }
    var hop: HopInfo { instrumentation.hops[instrumentation.transportIndex] }

    // Inlined into the conformance's witness, which would otherwise call it in an async frame of its own.
    @inline(__always)
    func send(_ request: NetworkRequest) async throws -> NetworkResponse {
        // Stopping before sending, and all that follows it, is a call of its own: what it needs
        // (the release, the request as the stop let it go, a forced 401's answer) would be laid
        // out in this frame, which every operation's task allocates.
        guard context.passesStraight else { return try await sendStopping(request) }
        recordSent(request)
        return try await exchange(request, for: request)
    }

    /// ``send(_:)`` when the operation may stop before sending.
    @inline(never)
    private func sendStopping(_ request: NetworkRequest) async throws -> NetworkResponse {
        let pre = await preflightStop(request)
        guard let sent = try sending(request, pre) else {
            let answer = forced401(request)
            // Passing straight, the answer goes up as it came: what `.proceed` applied to it gives.
            if context.passesStraight { return answer.head }
            return try await deliveredAfterStop(answer, for: request)
        }
        return try await exchange(sent, for: request)
    }

    /// Sends `sent` (`request` as its pre-flight stop let it go), records what comes back and
    /// hands it up through the post-flight stop.
    @inline(__always)
    private func exchange(_ sent: NetworkRequest, for request: NetworkRequest) async throws -> NetworkResponse {
        let response: NetworkResponse
        do { response = try await instrumentation.transport.send(sent) } catch { throw reported(error) }
        if MultipartContentType.isMultipartMixed(response.headerFields) {
            return try await streaming(response, for: request)
        }
        // A body held in memory is taken as it is: the response goes up as it came, its chunks
        // readable again. Reading it through its stream would only hand the same bytes back, at
        // the price of an async call per chunk and a new stream.
        guard let chunks = response.chunks.elementsInMemory else { return try await collected(response, for: request) }
        let body = Self.joined(chunks)
        recordReceived(response, body: body)
        // Passing straight, the answer goes up as it came: what `.proceed` applied to it gives.
        if context.passesStraight { return response }
        return try await deliveredAfterStop(ReceivedAnswer(response, body: body), for: request)
    }

    /// ``exchange(_:for:)`` for a response whose body is read through its stream. A call of its
    /// own: what reading needs would be laid out in the transport's frame.
    @inline(never)
    private func collected(_ response: NetworkResponse, for request: NetworkRequest) async throws -> NetworkResponse {
        let answer: ReceivedAnswer<NetworkResponse>
        do { answer = try await collect(response) } catch { throw reported(error) }
        recordReceived(answer.head, body: answer.body)
        if context.passesStraight { return answer.head }
        return try await deliveredAfterStop(answer, for: request)
    }

    /// `answer` as its post-flight stop lets it go up. A call of its own, as the stop before
    /// sending is.
    @inline(never)
    private func deliveredAfterStop(_ answer: ReceivedAnswer<NetworkResponse>, for request: NetworkRequest) async throws -> NetworkResponse {
        try delivered(answer, await postflightStop(answer), for: request)
    }

    @inline(never)
    private func preflightStop(_ request: NetworkRequest) async -> Release {
        await context.gate(hop, .pre, context.snapshots.snapshot(request), StopCapabilities(canEditRequest: true, canForce401: true, retryRefusal: .httpInterceptorCannotRetry))
    }

    @inline(never)
    private func postflightStop(_ answer: ReceivedAnswer<NetworkResponse>) async -> Release {
        await context.gate(hop, .post, context.snapshots.snapshot(response: answer.head, body: answer.body), StopCapabilities(canEditResponse: true, canForce401: true, retryRefusal: .httpInterceptorCannotRetry))
    }

    // What `send` does between its waits, each in a frame of its own on the thread's stack:
    // inlined, their temporaries would be laid out in `send`'s async frame, which every
    // operation's task allocates.

    /// The request to send as the pre-flight stop let it go, recorded as sent; nil for a forced 401.
    @inline(never)
    private func sending(_ request: NetworkRequest, _ pre: Release) throws -> NetworkRequest? {
        guard let sent = try context.reporting(at: hop, { try pre.sending(request) }) else { return nil }
        recordSent(sent)
        return sent
    }

    /// Records `sent` as sent.
    @inline(never)
    private func recordSent(_ sent: NetworkRequest) {
        context.emit(hop, .send, context.snapshots.snapshot(sent))
    }

    /// The response as the post-flight stop let it go up.
    @inline(never)
    private func delivered(_ answer: ReceivedAnswer<NetworkResponse>, _ post: Release, for request: NetworkRequest) throws -> NetworkResponse {
        try context.reporting(at: hop) { try post.applied(to: .success(answer), url: request.url).head }
    }

    /// `error`, recorded as the transport's.
    @inline(never)
    private func reported(_ error: any Error) -> any Error {
        context.reported(error: error, at: hop)
    }

    /// Records `response` with `body` as received.
    @inline(never)
    private func recordReceived(_ response: borrowing NetworkResponse, body: Data) {
        context.emit(hop, .receive, context.snapshots.snapshot(response: response, body: body))
    }

    /// The 401 a person forced at the pre-flight stop, recorded as received without sending.
    @inline(never)
    private func forced401(_ request: NetworkRequest) -> ReceivedAnswer<NetworkResponse> {
        let answer = ReceivedAnswer<NetworkResponse>.forced401(url: request.url)
        context.emit(hop, .receive, HopSnapshot(response: answer.head, body: answer.body), detail: "401 forced, not sent")
        return answer
    }

    /// Reads the whole answer from its stream, as the transport's stops show it. The body
    /// goes up in the chunks it came in, as it would without the instrumentation (a parser
    /// reads each chunk as a result of its own).
    private func collect(_ response: consuming NetworkResponse) async throws -> ReceivedAnswer<NetworkResponse> {
        var chunks: [Data] = []
        for try await chunk in response.chunks { chunks.append(chunk) }
        var read = response
        read.chunks = PullStream(chunks)
        return ReceivedAnswer(read, body: Self.joined(chunks))
    }

    /// The bytes of a body's chunks: the one chunk as it is, not copied.
    private static func joined(_ chunks: [Data]) -> Data {
        chunks.count == 1 ? chunks[0] : chunks.reduce(into: Data()) { $0.append($1) }
    }

    /// A multipart answer goes up as it arrives: its head is received and held at the
    /// post-flight stop, then each part is recorded as its own `receive` event when the
    /// layers above read it, so the timeline shows every @defer increment and subscription
    /// event arriving.
    ///
    /// In a CacheAndNetwork network lane the layers above read the parts eagerly, in a task of
    /// their own: before reading each part after the first, the lane waits at its
    /// ``StopPlace/wake`` stop, which goes only when nothing else can move (``SchedulerCore``),
    /// so the result of the part before reaches the caller before the lab clock moves on to the
    /// next part's arrival.
    private func streaming(_ arrived: NetworkResponse, for request: NetworkRequest) async throws -> NetworkResponse {
        context.emit(hop, .receive, context.snapshots.snapshot(responseHead: arrived), detail: "multipart head; parts follow")
        let post = await context.gate(hop, .post, context.snapshots.snapshot(responseHead: arrived), StopCapabilities(canEditResponse: true, canForce401: true, retryRefusal: .httpInterceptorCannotRetry))
        var response = try context.reporting(at: hop) { try post.applied(to: .success(arrived), url: request.url) }
        if case .force401 = post.disposition { return response }
        let context = self.context, hop = self.hop, head = response, parts = arrived.chunks
        response.chunks = ChunkStream {
            let pull = parts.makeAsyncIterator()
            var count = 0
            return {
                if count > 0, context.lane(ofHop: hop.index) == .network { await Self.awaitNextPart(context: context, hop: hop) }
                guard let part = try await pull.next() else { return nil }
                count += 1
                context.emit(hop, .receive, HopSnapshot(response: head, body: part), detail: "part \(count)")
                return part
            }
        }
        return response
    }

    /// The network lane's stop before it reads the next part: never held, it orders the read.
    private static func awaitNextPart(context: OperationContext, hop: HopInfo) async {
        _ = await context.scheduler.arrive(request: context.request, lane: .network, place: .wake) {
            ParkedStop(request: context.request, lane: .network, attempt: context.attempt, place: .wake, hopName: hop.name, hopKind: hop.kind)
        }
    }
}

/// The response parser with a stop before parsing; the chain tells the instrumentation of
/// each result and the failure that leaves it.
struct InstrumentedResponseParser: ChainResponseParser {
    let instrumentation: GraphQLInstrumentation

    var context: OperationContext { instrumentation.context }
    var hop: HopInfo { instrumentation.hops[instrumentation.transportIndex + 1] }
    var base: any ChainResponseParser { instrumentation.base.parser }

    // Inlined into the conformance's witness, which would otherwise call it in an async frame of its own.
    @inline(__always)
    func parse(response: NetworkResponse, for request: ChainRequest) async throws -> ChainResultStream {
        let context = self.context, hop = self.hop
        let release = await context.gate(hop, .pre, HopSnapshot(response: response), StopCapabilities(retryRefusal: .parserCannotRetry))
        try context.reporting(at: hop) { try release.pass() }
        context.emit(hop, .preflight, context.snapshots.snapshot(responseHead: response))
        do {
            // What leaves the parser is told to the instrumentation by the chain, where the
            // network step reads it (``GraphQLInstrumentation/parsed(_:)``).
            return try await base.parse(response: response, for: request)
        } catch {
            throw context.reported(error: error, at: hop)
        }
    }
}

/// One operation's chain with its hops numbered from the top: the cache step, the transport
/// and the parser wrapped; the GraphQL interceptors told to the operation's
/// ``GraphQLInstrumentation`` and the HTTP interceptors to its ``HTTPInstrumentation`` by the
/// chain's own dispatch as it runs them.
public struct InstrumentedGraphQLChain: Sendable {
    public let hops: [HopInfo]
    public let chain: ChainRunner

    public init(interceptors: consuming ChainRunner.Interceptors, transport: any GraphQLTransport, context: OperationContext) {
        self.init(interceptors: interceptors, transport: transport, context: context, wrappingTransportHop: nil)
    }

    /// With `wrappingTransportHop`, what the chain sends through is the instrumented transport
    /// hop wrapped by it (the lab stamps each request with its attempt's `traceparent` there).
    package init(
        interceptors: consuming ChainRunner.Interceptors, transport: any GraphQLTransport, context: OperationContext,
        wrappingTransportHop: ((any GraphQLTransport) -> any GraphQLTransport)?
    ) {
        let hops = context.layouts.hops(of: interceptors)
        let graphQL = interceptors.graphQL, graphQLCount = graphQL.count, http = interceptors.http
        // The interceptors' last use: moved into the instrumentation, not copied (a copy is a
        // retain of each of its four parts, two through their existentials' witnesses).
        let instrumentation = GraphQLInstrumentation(context: context, hops: hops, base: consume interceptors, transport: transport)
        self.hops = hops
        let sending: any GraphQLTransport = if let wrappingTransportHop {
            wrappingTransportHop(InstrumentedGraphQLTransport(instrumentation: instrumentation))
        } else {
            InstrumentedGraphQLTransport(instrumentation: instrumentation)
        }
        // Under CacheAndNetwork the network step overlaps the cached result's way up, as
        // upstream's does, in a second lane the scheduler orders and steps (the instrumentation's
        // ``NetworkOverlapObserver`` conformance).
        // Without GraphQL hops the cached result has no stop on its way up: nothing overlaps.
        self.chain = ChainRunner(
            interceptors: .init(
                graphQL: graphQL, cache: InstrumentedCacheInterceptor(instrumentation: instrumentation), http: http,
                parser: InstrumentedResponseParser(instrumentation: instrumentation)),
            transport: sending, overlapsNetworkFetch: graphQLCount > 0,
            overlapObserver: instrumentation, hopObserver: instrumentation, httpObserver: HTTPInstrumentation(instrumentation: instrumentation))
    }
}

/// An overlapping CacheAndNetwork fetch as the operation's network lane: its hops (the HTTP
/// hops, the transport and the parser, those after the cache hop) stop in that lane, and the
/// results it hands to the operation's task are met at a ``StopPlace/wake`` stop of the cache
/// lane, so the scheduler orders both tasks.
///
/// The operation's instrumentation is its chain's overlap observer as well as its hop
/// observer: both are class-bound, so the chain keeps and copies each as one reference.
extension GraphQLInstrumentation: NetworkOverlapObserver {
    func networkFetchStarts() {
        context.forkNetworkLane(from: graphQLCount + 1)
    }

    func networkFetchHandsOn(isEnd: Bool) {
        context.handOnFromNetworkLane(isEnd: isEnd)
    }

    func readerWaits() {
        context.scheduler.readNetworkResult(request: context.request)
    }

    func readerResumes() async {
        _ = await context.gate(.wake, name: "RequestChain", kind: .graphql)
    }

    func operationEnds() {
        _ = endCacheLane()
    }

    /// The cancelled network lane of the attempt that ended runs (or is stepped) to its end
    /// before the next attempt starts: its last events belong to the attempt that made it,
    /// and the next attempt forks a lane of its own.
    func attemptEndsInRetry() async {
        if endCacheLane() { await context.networkLaneEnded() }
    }

    /// The operation's task stops running beside a network lane that still runs, so that
    /// lane takes its turns to its end; false when no network lane runs.
    private func endCacheLane() -> Bool {
        // One load for the operations that never forked, or whose network lane has ended.
        guard context.lane(ofHop: TimelineEvent.noHop) != nil else { return false }
        context.scheduler.endCacheLane(request: context.request)
        return true
    }
}
