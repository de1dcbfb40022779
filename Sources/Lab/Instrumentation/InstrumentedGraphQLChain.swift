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
        let release = await context.gate(hop, .pre, context.snapshot(graphQL: request), StopCapabilities(canEditRequest: true))
        // Copied only when a person edited it (a copy is a retain and a release).
        guard let headers = release.requestHeaders else { return try await hand(request, next: next, after: release) }
        var edited = request
        edited.additionalHeaders = headers
        return try await hand(edited, next: next, after: release)
    }

    /// Runs the interceptor on `received`, as it leaves the pre-flight stop `release`.
    @inline(__always)
    private func hand(_ received: GraphQLRequest, next: GraphQLNext, after release: Release) async throws -> InterceptorResultStream {
        switch release.disposition {
        case .proceed, .force401: break
        case .forceRetry:
            context.noteForcedRetry(at: hop)
            throw RequestChain.Retry(request: received)
        case .fail(let fault):
            throw fault
        }
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
        context.emit(into, .preflight, context.snapshot(graphQL: handed), diff: diff)
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
        let release = await context.gate(hop, .pre, context.snapshot(graphQL: request), StopCapabilities(retryRefusal: "the cache step cannot retry; force the retry at a GraphQL hop"))
        if case .fail(let fault) = release.disposition {
            throw context.reported(error: fault, at: hop)
        }
        do {
            let cached = try await base.readCacheData(request: request)
            if let cached {
                context.emit(hop, .cacheHit, context.snapshot(result: cached), detail: request.fetchBehavior.description)
            } else {
                context.emit(hop, .cacheMiss, detail: request.fetchBehavior.description)
            }
            return cached
        } catch {
            throw context.reported(error: error, at: hop)
        }
    }

    func writeCacheData(request: GraphQLRequest, response: GraphQLResponse) async throws {
        try await base.writeCacheData(request: request, response: response)
        context.emit(hop, .postflight, context.snapshot(result: response), detail: "cache write")
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
        var request = incoming
        let release = await context.gate(hop, .pre, context.snapshot(request), StopCapabilities(canEditRequest: true, retryRefusal: httpRetryRefusal))
        if let headers = release.requestHeaders { request.headerFields = headers }
        if case .fail(let fault) = release.disposition {
            throw context.reported(error: fault, at: hop)
        }
        let received = request
        let fromBelow = Locked<HTTPFields?>(nil)
        let below: HTTPNext = { handed in
            context.emit(hop, .preflight, context.snapshot(handed), diff: HeaderDiff(from: received.headerFields, to: handed.headerFields))
            let result: Result<NetworkResponse, any Error>
            do { result = .success(try await next(handed)) } catch { result = .failure(error) }
            let canEdit = (try? result.get()) != nil
            let release = await context.gate(hop, .post, HopSnapshot(outcome: result), StopCapabilities(canEditResponse: canEdit, canForce401: true, retryRefusal: httpRetryRefusal))
            var response: NetworkResponse
            switch release.disposition {
            case .proceed: response = try result.get()
            case .force401: response = NetworkResponse(status: 401, headerFields: jsonContentType, url: handed.url, body: forced401Body)
            case .forceRetry: response = try result.get()
            case .fail(let fault): throw fault
            }
            if let status = release.responseStatus { response.status = status }
            if let headers = release.responseHeaders { response.headerFields = headers }
            fromBelow.withLock { $0 = response.headerFields }
            return response
        }
        do {
            let response = try await base.intercept(request: request, next: below)
            context.emit(hop, .postflight, context.snapshot(responseHead: response), diff: HeaderDiff(from: fromBelow.value ?? response.headerFields, to: response.headerFields))
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
        let pre = await context.gate(hop, .pre, context.snapshot(request), StopCapabilities(canEditRequest: true, canForce401: true, retryRefusal: httpRetryRefusal))
        // Copied only when a person edited it: a request copy retains its URL, headers and body.
        guard let headers = pre.requestHeaders else { return try await exchange(request, after: pre) }
        var edited = request
        edited.headerFields = headers
        return try await exchange(edited, after: pre)
    }

    /// Sends `request` as it leaves the pre-flight stop `pre`, and holds the answer at the
    /// post-flight stop.
    @inline(__always)
    private func exchange(_ request: NetworkRequest, after pre: Release) async throws -> NetworkResponse {
        var response: NetworkResponse
        var body: Data
        switch pre.disposition {
        case .fail(let fault):
            throw context.reported(error: fault, at: hop)
        case .force401:
            body = forced401Body
            response = NetworkResponse(status: 401, headerFields: jsonContentType, url: request.url, body: body)
            context.emit(hop, .receive, HopSnapshot(response: response, body: body), detail: "401 forced, not sent")
        case .proceed, .forceRetry:
            context.emit(hop, .send, context.snapshot(request))
            do {
                response = try await base.send(request)
                if MultipartContentType.isMultipartMixed(response.headerFields["Content-Type"]) {
                    return try await streaming(response, for: request)
                }
                var collected: Data?
                // A body that arrives in one chunk is kept as that chunk, not copied.
                for try await chunk in response.chunks {
                    if collected == nil { collected = chunk } else { collected!.append(chunk) }
                }
                body = collected ?? Data()
            } catch {
                throw context.reported(error: error, at: hop)
            }
            response = NetworkResponse(status: response.status, headerFields: response.headerFields, url: response.url, body: body)
            context.emit(hop, .receive, context.snapshot(response: response, body: body))
        }
        let post = await context.gate(hop, .post, context.snapshot(response: response, body: body), StopCapabilities(canEditResponse: true, canForce401: true, retryRefusal: httpRetryRefusal))
        switch post.disposition {
        case .proceed, .forceRetry: break
        case .force401: response = NetworkResponse(status: 401, headerFields: jsonContentType, url: request.url, body: forced401Body)
        case .fail(let fault):
            throw context.reported(error: fault, at: hop)
        }
        if let status = post.responseStatus { response.status = status }
        if let headers = post.responseHeaders { response.headerFields = headers }
        return response
    }

    /// A multipart answer goes up as it arrives: its head is received and held at the
    /// post-flight stop, then each part is recorded as its own `receive` event when the
    /// layers above read it, so the timeline shows every @defer increment and subscription
    /// event arriving.
    private func streaming(_ arrived: NetworkResponse, for request: NetworkRequest) async throws -> NetworkResponse {
        var response = arrived
        context.emit(hop, .receive, context.snapshot(responseHead: response), detail: "multipart head; parts follow")
        let post = await context.gate(hop, .post, context.snapshot(responseHead: response), StopCapabilities(canEditResponse: true, canForce401: true, retryRefusal: httpRetryRefusal))
        switch post.disposition {
        case .proceed, .forceRetry: break
        case .force401: return NetworkResponse(status: 401, headerFields: jsonContentType, url: request.url, body: forced401Body)
        case .fail(let fault): throw context.reported(error: fault, at: hop)
        }
        if let status = post.responseStatus { response.status = status }
        if let headers = post.responseHeaders { response.headerFields = headers }
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
        if case .fail(let fault) = release.disposition {
            throw context.reported(error: fault, at: hop)
        }
        context.emit(hop, .preflight, context.snapshot(responseHead: response))
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
                    if let next { parser.context.emit(parser.hop, .postflight, parser.context.snapshot(result: next)) }
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
        let hops = HopLayout.hops(of: interceptors)
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
        self.chain = RequestChain(interceptors: .init(graphQL: graphQL, cache: cache, http: http, parser: parser), transport: transport)
    }
}

/// The hops of a chain, numbered from the top: its GraphQL interceptors, the cache step, its
/// HTTP interceptors, the transport and the parser.
///
/// Every operation wraps fresh interceptors, nearly always of the same types as the one
/// before; the last layout is kept, so those operations share its hops (and the hops' name
/// strings) instead of naming each interceptor again.
private struct HopLayout: Sendable {
    let graphQL: [ObjectIdentifier]
    let http: [ObjectIdentifier]
    let parser: ObjectIdentifier
    let hops: [HopInfo]

    init(_ interceptors: RequestChain.Interceptors) {
        graphQL = interceptors.graphQL.map { ObjectIdentifier(type(of: $0)) }
        http = interceptors.http.map { ObjectIdentifier(type(of: $0)) }
        parser = ObjectIdentifier(type(of: interceptors.parser))
        var hops: [HopInfo] = []
        hops.reserveCapacity(interceptors.graphQL.count + interceptors.http.count + 3)
        func next(_ name: String, _ kind: HopKind) {
            hops.append(HopInfo(index: hops.count, name: name, kind: kind))
        }
        for interceptor in interceptors.graphQL { next(typeName(interceptor), .graphql) }
        next("cache", .cache)
        for interceptor in interceptors.http { next(typeName(interceptor), .http) }
        next("transport", .transport)
        next(typeName(interceptors.parser), .parser)
        self.hops = hops
    }

    /// Whether `interceptors` are of the types this layout was made for, in the same order.
    func fits(_ interceptors: RequestChain.Interceptors) -> Bool {
        guard graphQL.count == interceptors.graphQL.count, http.count == interceptors.http.count,
            parser == ObjectIdentifier(type(of: interceptors.parser))
        else { return false }
        for (type, interceptor) in zip(graphQL, interceptors.graphQL) where type != ObjectIdentifier(Swift.type(of: interceptor)) {
            return false
        }
        for (type, interceptor) in zip(http, interceptors.http) where type != ObjectIdentifier(Swift.type(of: interceptor)) {
            return false
        }
        return true
    }

    static func hops(of interceptors: RequestChain.Interceptors) -> [HopInfo] {
        if let hops = last.withLock({ $0?.fits(interceptors) == true ? $0?.hops : nil }) { return hops }
        let layout = HopLayout(interceptors)
        last.withLock { $0 = layout }
        return layout.hops
    }

    private static let last = Mutex<HopLayout?>(nil)
}

/// The type name of a value, as hop names use it.
func typeName(_ value: Any) -> String {
    let type = Swift.type(of: value)
    return typeNames.withLock { names in
        if let name = names[ObjectIdentifier(type)] { return name }
        let name = String(describing: type)
        names[ObjectIdentifier(type)] = name
        return name
    }
}

/// Type names already spelled out. Every operation wraps its interceptors again, and
/// `String(describing:)` of a type costs more than the rest of wrapping a hop; the cache also
/// lets every event of a hop share one name string across operations.
private let typeNames = Mutex<[ObjectIdentifier: String]>([:])
