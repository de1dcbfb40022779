public import ChainKit
import Foundation
import Synchronization
import Timeline

/// The invisible outermost layer: counts attempts and applies the lab's safety cap. It is
/// not a hop; it reports the results and failures leaving the top GraphQL hop.
final class AttemptCounter: GraphQLInterceptor, HopJunction {
    let context: OperationContext
    /// The top GraphQL hop, whose results leave it here; nil when the chain has none.
    let from: HopInfo?
    var into: HopInfo? { nil }

    init(context: OperationContext, topHop: HopInfo?) {
        self.context = context
        self.from = topHop
    }

    func intercept(request: GraphQLRequest, next: GraphQLNext) async throws -> InterceptorResultStream {
        _ = try context.beginAttempt()
        let results = await next(request)
        guard from != nil else { return results }
        return results.arriving(at: HopBoundary(junction: self, handed: request, received: request))
    }
}

/// A GraphQL interceptor with a stop on each side and events for what it did.
///
/// What leaves a GraphQL hop upward (a result, a failure, a retry) is reported where it
/// arrives: at the hop above, or at ``AttemptCounter`` for the top hop. That one place also
/// holds the post-flight stop of the hop above, so each hop adds one stream layer, not two.
final class InstrumentedGraphQLInterceptor: GraphQLInterceptor, HopJunction {
    let base: any GraphQLInterceptor
    let hop: HopInfo
    /// The GraphQL hop below, whose results this hop reports as they arrive; nil for the
    /// lowest, which sits on the cache and network steps (they report their own).
    let from: HopInfo?
    let context: OperationContext
    var into: HopInfo? { hop }

    init(base: any GraphQLInterceptor, hop: HopInfo, hopBelow: HopInfo?, context: OperationContext) {
        self.base = base
        self.hop = hop
        self.from = hopBelow
        self.context = context
    }

    func intercept(request incoming: GraphQLRequest, next: GraphQLNext) async throws -> InterceptorResultStream {
        let junction = self, context = self.context, hop = self.hop
        var request = incoming
        let release = await context.gate(hop, .pre, context.snapshot(graphQL: request), StopCapabilities(canEditRequest: true))
        if let headers = release.requestHeaders { request.additionalHeaders = headers }
        switch release.disposition {
        case .proceed, .force401: break
        case .forceRetry:
            context.noteForcedRetry(at: hop)
            throw RequestChain.Retry(request: request)
        case .fail(let fault):
            throw fault
        }
        let received = request
        let below: GraphQLNext = { handed in
            context.emit(hop, .preflight, context.snapshot(graphQL: handed), diff: HeaderDiff(from: received.additionalHeaders, to: handed.additionalHeaders))
            return await next(handed).arriving(at: HopBoundary(junction: junction, handed: handed, received: received))
        }
        // A failure thrown here reaches the hop above as a failed stream, which reports it.
        return try await base.intercept(request: request, next: below)
    }
}

/// Two adjacent GraphQL hops of one operation, fixed when the chain is built: results leave
/// `from` and enter `into`. Each instrumented GraphQL interceptor is the junction below it,
/// and ``AttemptCounter`` the one above the top hop.
protocol HopJunction: AnyObject, Sendable {
    var context: OperationContext { get }
    /// The hop the results leave (nil: the cache and network steps, which report their own).
    var from: HopInfo? { get }
    /// The hop they enter, whose post-flight stop is here (nil: above the top hop).
    var into: HopInfo? { get }
}

/// Where results climb from one GraphQL hop into the next, for one request handed down: the
/// lower hop's post-flight events are recorded here, and the upper hop's post-flight stop is
/// held here.
///
/// A class, so the stream layer and its closures share one reference instead of each
/// holding (and retaining every field of) a copy of the requests.
final class HopBoundary: Sendable {
    let junction: any HopJunction
    /// What the upper hop handed down (its endpoint is the URL of a forced 401).
    let handed: GraphQLRequest
    /// What the upper hop had received, for a forced retry.
    let received: GraphQLRequest

    init(junction: any HopJunction, handed: GraphQLRequest, received: GraphQLRequest) {
        self.junction = junction
        self.handed = handed
        self.received = received
    }

    /// Records `outcome` leaving the lower hop.
    func report(_ outcome: Result<GraphQLResponse, any Error>) {
        let context = junction.context
        guard let from = junction.from else { return }
        switch outcome {
        case .success(let result):
            context.emit(from, .postflight, context.snapshot(result: result), detail: result.source.rawValue)
        case .failure(let error as RequestChain.Retry):
            if let note = context.takeForcedRetryNote(at: from) {
                context.emit(from, .retry, detail: note)
            } else {
                context.emit(from, .retry, HopSnapshot(error: error))
            }
        case .failure(let error):
            context.emit(from, .error, HopSnapshot(error: error))
        }
    }

    /// Whether the upper hop has no post-flight stop to wait at now.
    var passesStraight: Bool { junction.into == nil || junction.context.passesStraight }

    /// The upper hop's post-flight stop: returns or throws what that hop gets.
    func stop(_ outcome: Result<GraphQLResponse, any Error>) async throws -> GraphQLResponse {
        let context = junction.context
        guard let into = junction.into else { return try outcome.get() }
        let release = await context.gate(into, .post, context.snapshot(outcome: outcome), StopCapabilities(canForce401: true))
        switch release.disposition {
        case .proceed: return try outcome.get()
        case .force401:
            throw ResponseCodeError(status: 401, headerFields: jsonContentType, url: handed.graphQLEndpoint, body: forced401Body)
        case .forceRetry: throw RequestChain.Retry(request: received)
        case .fail(let fault): throw fault
        }
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

    func send(_ incoming: NetworkRequest) async throws -> NetworkResponse {
        var request = incoming
        let pre = await context.gate(hop, .pre, context.snapshot(request), StopCapabilities(canEditRequest: true, canForce401: true, retryRefusal: httpRetryRefusal))
        if let headers = pre.requestHeaders { request.headerFields = headers }
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
                body = Data()
                for try await chunk in response.chunks { body.append(chunk) }
            } catch {
                throw context.reported(error: error, at: hop)
            }
            response = NetworkResponse(status: response.status, headerFields: response.headerFields, url: response.url, body: body)
            context.emit(hop, .receive, HopSnapshot(response: response, body: body))
        }
        let post = await context.gate(hop, .post, HopSnapshot(response: response, body: body), StopCapabilities(canEditResponse: true, canForce401: true, retryRefusal: httpRetryRefusal))
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
            return try await base.parse(response: response, for: request).tap(
                element: { context.emit(hop, .postflight, context.snapshot(result: $0)) },
                error: { context.emit(hop, .error, HopSnapshot(error: $0)) })
        } catch {
            throw context.reported(error: error, at: hop)
        }
    }
}

/// Wraps one operation's interceptors and transport, numbering the hops from the top.
public struct InstrumentedGraphQLChain: Sendable {
    public let hops: [HopInfo]
    public let chain: RequestChain

    public init(interceptors: RequestChain.Interceptors, transport: any GraphQLTransport, context: OperationContext) {
        var hops: [HopInfo] = []
        hops.reserveCapacity(interceptors.graphQL.count + interceptors.http.count + 3)
        func next(_ name: String, _ kind: HopKind) -> HopInfo {
            let hop = HopInfo(index: hops.count, name: name, kind: kind)
            hops.append(hop)
            return hop
        }
        for interceptor in interceptors.graphQL { _ = next(typeName(interceptor), .graphql) }
        var graphQL: [any GraphQLInterceptor] = []
        graphQL.reserveCapacity(interceptors.graphQL.count + 1)
        graphQL.append(AttemptCounter(context: context, topHop: hops.first))
        for (index, interceptor) in interceptors.graphQL.enumerated() {
            let below = index + 1 < interceptors.graphQL.count ? hops[index + 1] : nil
            graphQL.append(InstrumentedGraphQLInterceptor(base: interceptor, hop: hops[index], hopBelow: below, context: context))
        }
        let cache = InstrumentedCacheInterceptor(base: interceptors.cache, hop: next("cache", .cache), context: context)
        var http: [any HTTPInterceptor] = []
        http.reserveCapacity(interceptors.http.count)
        for interceptor in interceptors.http {
            http.append(InstrumentedHTTPInterceptor(base: interceptor, hop: next(typeName(interceptor), .http), context: context))
        }
        let transport = InstrumentedGraphQLTransport(base: transport, hop: next("transport", .transport), context: context)
        let parser = InstrumentedResponseParser(base: interceptors.parser, hop: next(typeName(interceptors.parser), .parser), context: context)
        self.hops = hops
        self.chain = RequestChain(interceptors: .init(graphQL: graphQL, cache: cache, http: http, parser: parser), transport: transport)
    }
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
