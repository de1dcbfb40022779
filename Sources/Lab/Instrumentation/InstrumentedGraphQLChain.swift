public import ChainKit
import Foundation
import Synchronization
import Timeline

/// Counts attempts and applies the lab's safety cap, for a chain without GraphQL
/// interceptors; otherwise the top GraphQL hop does both (see ``InstrumentedGraphQLInterceptor``).
final class AttemptCounter: GraphQLInterceptor {
    let context: OperationContext

    init(context: OperationContext) {
        self.context = context
    }

    func intercept(request: GraphQLRequest, next: GraphQLNext) async throws -> InterceptorResultStream {
        _ = try context.beginAttempt()
        return await next(request)
    }
}

/// A GraphQL interceptor with a stop on each side and events for what it did.
///
/// What leaves a GraphQL hop upward (a result, a failure, a retry) is reported where it
/// arrives: at the hop above, which is the junction for the hop below it. That one place also
/// holds the post-flight stop of the hop above, so each hop adds one stream layer, not two.
/// The top hop also starts every attempt, and reports what leaves it itself, at the junction
/// above it (one layer less than a separate outermost interceptor would take).
///
/// Sendable for the reason ``HopJunction`` is (its own stored properties are `let`s of Sendable
/// types too); Swift asks a subclass to restate the unchecked conformance.
final class InstrumentedGraphQLInterceptor: HopJunction, GraphQLInterceptor, @unchecked Sendable {
    let base: any GraphQLInterceptor
    let hop: HopInfo
    /// For the top hop, the junction above it, where its results leave the chain.
    let above: HopJunction?

    /// `hopBelow` is nil for the lowest GraphQL hop, which sits on the cache and network
    /// steps: they report their own. `isTop`: the outermost hop, which counts attempts.
    init(base: any GraphQLInterceptor, hop: HopInfo, hopBelow: HopInfo?, isTop: Bool, context: OperationContext) {
        self.base = base
        self.hop = hop
        self.above = isTop ? HopJunction(context: context, from: hop, into: nil) : nil
        super.init(context: context, from: hopBelow, into: hop)
    }

    func intercept(request: GraphQLRequest, next: GraphQLNext) async throws -> InterceptorResultStream {
        guard let above else { return try await pass(request, next: next) }
        _ = try context.beginAttempt()
        let results: InterceptorResultStream
        do { results = try await pass(request, next: next) } catch { results = .failing(error) }
        return results.arriving(at: above, handed: request, received: request)
    }

    /// The hop itself: the pre-flight stop, then the interceptor, with the request it hands
    /// down recorded and its results met where they arrive.
    // Inlined, so a hop costs one async frame, not two.
    @inline(__always)
    private func pass(_ request: GraphQLRequest, next: GraphQLNext) async throws -> InterceptorResultStream {
        let release = await context.gate(hop, .pre, context.snapshots.snapshot(graphQL: request), StopCapabilities(canEditRequest: true))
        if case .forceRetry = release.disposition { context.noteForcedRetry(at: hop) }
        let received = try release.applied(to: request)
        // Captures only what it cannot reach through the junction: each capture is a retain
        // when the closure is made and a release when it goes.
        let junction = self
        let below: GraphQLNext = { handed in
            junction.handOn(handed, received: received)
            return await next(handed).arriving(at: junction, handed: handed, received: received)
        }
        // A failure thrown here reaches the hop above as a failed stream, which reports it.
        return try await base.intercept(request: received, next: below)
    }
}

/// Two adjacent GraphQL hops of one operation, fixed when the chain is built: results leave
/// `from` and enter `into`. Each instrumented GraphQL interceptor is the junction below it,
/// and the top one holds the junction above itself.
///
/// A class with stored fields, so an ``Arrival`` reads them without a copy.
///
/// Sendable because nothing in it or its subclass changes after init: every stored property,
/// here and in ``InstrumentedGraphQLInterceptor``, is a `let` of a Sendable type. The
/// conformance is unchecked only because the class is not final (the interceptor subclasses
/// it, so a hop is its own junction without a second object).
class HopJunction: @unchecked Sendable {
    let context: OperationContext
    /// The hop the results leave (nil: the cache and network steps, which report their own).
    let from: HopInfo?
    /// The hop they enter, whose post-flight stop is here (nil: above the top hop).
    let into: HopInfo?

    init(context: OperationContext, from: HopInfo?, into: HopInfo?) {
        self.context = context
        self.from = from
        self.into = into
    }

    /// Records the pre-flight event of `into` handing `handed` down, having received `received`.
    func handOn(_ handed: GraphQLRequest, received: GraphQLRequest) {
        // Read in place: binding `into` to a local would copy it.
        guard into != nil else { return }
        let diff = handed.isIdentical(to: received)
            ? HeaderDiff.none : HeaderDiff(from: received.additionalHeaders, to: handed.additionalHeaders)
        context.emit(into, .preflight, context.snapshots.snapshot(graphQL: handed), diff: diff)
    }
}

/// The cache step with a stop before each read and events for hits, misses and writes.
final class InstrumentedCacheInterceptor: CacheInterceptor {
    let base: any CacheInterceptor
    let hop: HopInfo
    let context: OperationContext

    init(base: any CacheInterceptor, hop: HopInfo, context: OperationContext) {
        self.base = base
        self.hop = hop
        self.context = context
    }

    func readCacheData(request: GraphQLRequest) async throws -> GraphQLResponse? {
        let release = await context.gate(hop, .pre, context.snapshots.snapshot(graphQL: request), StopCapabilities(retryRefusal: "the cache step cannot retry; force the retry at a GraphQL hop"))
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

    /// Records the write with what was written: the parser's records, key → fields.
    func writeCacheData(request: GraphQLRequest, response: GraphQLResponse) async throws {
        try await base.writeCacheData(request: request, response: response)
        context.emit(hop, .postflight, context.snapshots.snapshot(cacheRecords: response.cacheRecords ?? RecordSet()), detail: "cache write")
    }
}

/// An HTTP interceptor with a stop on each side and events for what it changed.
final class InstrumentedHTTPInterceptor: HTTPInterceptor {
    let base: any HTTPInterceptor
    let hop: HopInfo
    let context: OperationContext

    init(base: any HTTPInterceptor, hop: HopInfo, context: OperationContext) {
        self.base = base
        self.hop = hop
        self.context = context
    }

    func intercept(request incoming: NetworkRequest, next: HTTPNext) async throws -> NetworkResponse {
        let context = self.context, hop = self.hop
        let release = await context.gate(hop, .pre, context.snapshots.snapshot(incoming), StopCapabilities(canEditRequest: true, retryRefusal: httpRetryRefusal))
        let received = try context.reporting(at: hop) { try release.applied(to: incoming) }
        let fromBelow = Locked<HTTPFields?>(nil)
        let below: HTTPNext = { handed in
            context.emit(hop, .preflight, context.snapshots.snapshot(handed), diff: HeaderDiff(from: received.headerFields, to: handed.headerFields))
            let result: Result<NetworkResponse, any Error>
            do { result = .success(try await next(handed)) } catch { result = .failure(error) }
            let release = await context.gate(hop, .post, HopSnapshot(outcome: result), StopCapabilities(canEditResponse: result.isSuccess, canForce401: true, retryRefusal: httpRetryRefusal))
            let response = try release.applied(to: result, url: handed.url)
            fromBelow.withLock { $0 = response.headerFields }
            return response
        }
        do {
            let response = try await base.intercept(request: received, next: below)
            context.emit(hop, .postflight, context.snapshots.snapshot(responseHead: response), diff: HeaderDiff(from: fromBelow.value ?? response.headerFields, to: response.headerFields))
            return response
        } catch {
            throw context.reported(error: error, at: hop)
        }
    }
}

/// The GraphQL transport with a stop before sending and one after receiving.
final class InstrumentedGraphQLTransport: GraphQLTransport {
    let base: any GraphQLTransport
    let hop: HopInfo
    let context: OperationContext

    init(base: any GraphQLTransport, hop: HopInfo, context: OperationContext) {
        self.base = base
        self.hop = hop
        self.context = context
    }

    func send(_ request: NetworkRequest) async throws -> NetworkResponse {
        let pre = await context.gate(hop, .pre, context.snapshots.snapshot(request), StopCapabilities(canEditRequest: true, canForce401: true, retryRefusal: httpRetryRefusal))
        var answer: ReceivedAnswer<NetworkResponse>
        if let sent = try context.reporting(at: hop, { try pre.sending(request) }) {
            context.emit(hop, .send, context.snapshots.snapshot(sent))
            let response = try await context.reporting(at: hop) { try await base.send(sent) }
            if MultipartContentType.isMultipartMixed(response.headerFields["Content-Type"]) {
                return try await streaming(response, for: request)
            }
            answer = try await context.reporting(at: hop) { try await collect(response) }
            context.emit(hop, .receive, context.snapshots.snapshot(response: answer.head, body: answer.body))
        } else {
            answer = .forced401(url: request.url)
            context.emit(hop, .receive, HopSnapshot(response: answer.head, body: answer.body), detail: "401 forced, not sent")
        }
        let post = await context.gate(hop, .post, context.snapshots.snapshot(response: answer.head, body: answer.body), StopCapabilities(canEditResponse: true, canForce401: true, retryRefusal: httpRetryRefusal))
        return try context.reporting(at: hop) { try post.applied(to: .success(answer), url: request.url).head }
    }

    /// Reads the whole answer, as the transport's stops show it.
    private func collect(_ response: NetworkResponse) async throws -> ReceivedAnswer<NetworkResponse> {
        var collected: Data?
        // A body that arrives in one chunk is kept as that chunk, not copied.
        for try await chunk in response.chunks {
            if collected == nil { collected = chunk } else { collected!.append(chunk) }
        }
        let body = collected ?? Data()
        return ReceivedAnswer(NetworkResponse(status: response.status, headerFields: response.headerFields, url: response.url, body: body), body: body)
    }

    /// A multipart answer goes up as it arrives: its head is received and held at the
    /// post-flight stop, then each part is recorded as its own `receive` event when the
    /// layers above read it, so the timeline shows every @defer increment and subscription
    /// event arriving.
    private func streaming(_ arrived: NetworkResponse, for request: NetworkRequest) async throws -> NetworkResponse {
        context.emit(hop, .receive, context.snapshots.snapshot(responseHead: arrived), detail: "multipart head; parts follow")
        let post = await context.gate(hop, .post, context.snapshots.snapshot(responseHead: arrived), StopCapabilities(canEditResponse: true, canForce401: true, retryRefusal: httpRetryRefusal))
        var response = try context.reporting(at: hop) { try post.applied(to: .success(arrived), url: request.url) }
        if case .force401 = post.disposition { return response }
        let context = self.context, hop = self.hop, head = response
        let count = Locked(0)
        response.chunks = arrived.chunks.map { part in
            let number = count.withLock { count in
                count += 1
                return count
            }
            context.emit(hop, .receive, HopSnapshot(response: head, body: part), detail: "part \(number)")
            return part
        }
        return response
    }
}

/// The response parser with a stop before parsing and events for each result.
final class InstrumentedResponseParser: ResponseParsingInterceptor {
    let base: any ResponseParsingInterceptor
    let hop: HopInfo
    let context: OperationContext

    init(base: any ResponseParsingInterceptor, hop: HopInfo, context: OperationContext) {
        self.base = base
        self.hop = hop
        self.context = context
    }

    func parse(response: NetworkResponse, for request: GraphQLRequest) async throws -> InterceptorResultStream {
        let context = self.context, hop = self.hop
        let release = await context.gate(hop, .pre, HopSnapshot(response: response), StopCapabilities(retryRefusal: "the parser cannot retry; force the retry at a GraphQL hop"))
        try context.reporting(at: hop) { try release.pass() }
        context.emit(hop, .preflight, context.snapshots.snapshot(responseHead: response))
        do {
            return PullStream(source: ParsedResults(upstream: try await base.parse(response: response, for: request), parser: self))
        } catch {
            throw context.reported(error: error, at: hop)
        }
    }

    /// The parser's results as they leave it: each recorded as a post-flight, a failure as an
    /// error; neither changes what flows.
    private final class ParsedResults: PullStreamSource {
        let upstream: InterceptorResultStream
        let parser: InstrumentedResponseParser

        init(upstream: InterceptorResultStream, parser: InstrumentedResponseParser) {
            self.upstream = upstream
            self.parser = parser
        }

        func makeIterator() -> any PullStreamIterator<GraphQLResponse> {
            Iteration(upstream: upstream.makeAsyncIterator(), parser: parser)
        }

        final class Iteration: PullStreamIterator {
            let upstream: InterceptorResultStream.AsyncIterator
            let parser: InstrumentedResponseParser

            init(upstream: InterceptorResultStream.AsyncIterator, parser: InstrumentedResponseParser) {
                self.upstream = upstream
                self.parser = parser
            }

            func next() async throws -> GraphQLResponse? {
                do {
                    let next = try await upstream.next()
                    if let next { parser.context.emit(parser.hop, .postflight, parser.context.snapshots.snapshot(result: next)) }
                    return next
                } catch {
                    parser.context.emit(parser.hop, .error, HopSnapshot(error: error))
                    throw error
                }
            }
        }
    }
}

/// Wraps one operation's interceptors and transport, numbering the hops from the top.
public struct InstrumentedGraphQLChain: Sendable {
    public let hops: [HopInfo]
    public let chain: RequestChain

    public init(interceptors: RequestChain.Interceptors, transport: any GraphQLTransport, context: OperationContext) {
        let hops = context.layouts.hops(of: interceptors)
        let graphQLCount = interceptors.graphQL.count, httpCount = interceptors.http.count
        var graphQL: [any GraphQLInterceptor] = []
        graphQL.reserveCapacity(max(graphQLCount, 1))
        if graphQLCount == 0 { graphQL.append(AttemptCounter(context: context)) }
        for (index, interceptor) in interceptors.graphQL.enumerated() {
            let below = index + 1 < graphQLCount ? hops[index + 1] : nil
            graphQL.append(InstrumentedGraphQLInterceptor(
                base: interceptor, hop: hops[index], hopBelow: below, isTop: index == 0, context: context))
        }
        let cache = InstrumentedCacheInterceptor(base: interceptors.cache, hop: hops[graphQLCount], context: context)
        var http: [any HTTPInterceptor] = []
        http.reserveCapacity(httpCount)
        for (index, interceptor) in interceptors.http.enumerated() {
            http.append(InstrumentedHTTPInterceptor(base: interceptor, hop: hops[graphQLCount + 1 + index], context: context))
        }
        let transport = InstrumentedGraphQLTransport(base: transport, hop: hops[graphQLCount + 1 + httpCount], context: context)
        let parser = InstrumentedResponseParser(base: interceptors.parser, hop: hops[graphQLCount + 2 + httpCount], context: context)
        self.hops = hops
        // One place to stop at a time per operation: the network step of CacheAndNetwork starts
        // when the cached result has reached the top, so the scheduler can order every hop.
        self.chain = RequestChain(interceptors: .init(graphQL: graphQL, cache: cache, http: http, parser: parser), transport: transport, overlapsNetworkFetch: false)
    }
}
