public import ChainKit
import Foundation
import Synchronization
import Timeline

/// The invisible outermost layer: counts attempts and applies the lab's safety cap. It is
/// not a hop and publishes nothing.
struct AttemptCounter: GraphQLInterceptor {
    let context: OperationContext

    func intercept(request: GraphQLRequest, next: GraphQLNext) async throws -> InterceptorResultStream {
        _ = try context.beginAttempt()
        return await next(request)
    }
}

/// A GraphQL interceptor with a stop on each side and events for what it did.
struct InstrumentedGraphQLInterceptor: GraphQLInterceptor {
    let base: any GraphQLInterceptor
    let hop: HopInfo
    let context: OperationContext

    func intercept(request incoming: GraphQLRequest, next: GraphQLNext) async throws -> InterceptorResultStream {
        let context = self.context, hop = self.hop
        var request = incoming
        let release = await context.gate(hop, .pre, context.snapshot(graphQL: request), StopCapabilities(canEditRequest: true))
        if let headers = release.requestHeaders { request.additionalHeaders = headers }
        switch release.disposition {
        case .proceed, .force401: break
        case .forceRetry:
            context.emit(hop, .retry, detail: "forced retry from pre-flight")
            throw RequestChain.Retry(request: request)
        case .fail(let fault):
            context.emit(hop, .error, HopSnapshot(error: fault))
            throw fault
        }
        let received = request
        let below: GraphQLNext = { handed in
            context.emit(hop, .preflight, context.snapshot(graphQL: handed), diff: HeaderDiff(from: received.additionalHeaders, to: handed.additionalHeaders))
            return await next(handed).intercepting { result in
                let release = await context.gate(hop, .post, context.snapshot(outcome: result), StopCapabilities(canForce401: true))
                switch release.disposition {
                case .proceed: return try result.get()
                case .force401:
                    throw ResponseCodeError(status: 401, headerFields: jsonContentType, url: handed.graphQLEndpoint, body: forced401Body)
                case .forceRetry: throw RequestChain.Retry(request: received)
                case .fail(let fault): throw fault
                }
            }
        }
        let results: InterceptorResultStream
        do {
            results = try await base.intercept(request: request, next: below)
        } catch {
            context.emit(hop, error is RequestChain.Retry ? .retry : .error, HopSnapshot(error: error))
            throw error
        }
        return results.tap(
            element: { context.emit(hop, .postflight, context.snapshot(result: $0), detail: $0.source.rawValue) },
            error: { context.emit(hop, $0 is RequestChain.Retry ? .retry : .error, HopSnapshot(error: $0)) })
    }
}

/// The cache step with a stop before each read and events for hits, misses and writes.
struct InstrumentedCacheInterceptor: CacheInterceptor {
    let base: any CacheInterceptor
    let hop: HopInfo
    let context: OperationContext

    func readCacheData(request: GraphQLRequest) async throws -> GraphQLResponse? {
        let release = await context.gate(hop, .pre, context.snapshot(graphQL: request), StopCapabilities(retryRefusal: "the cache step cannot retry; force the retry at a GraphQL hop"))
        if case .fail(let fault) = release.disposition {
            context.emit(hop, .error, HopSnapshot(error: fault))
            throw fault
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
            context.emit(hop, .error, HopSnapshot(error: error))
            throw error
        }
    }

    func writeCacheData(request: GraphQLRequest, response: GraphQLResponse) async throws {
        try await base.writeCacheData(request: request, response: response)
        context.emit(hop, .postflight, context.snapshot(result: response), detail: "cache write")
    }
}

/// An HTTP interceptor with a stop on each side and events for what it changed.
struct InstrumentedHTTPInterceptor: HTTPInterceptor {
    let base: any HTTPInterceptor
    let hop: HopInfo
    let context: OperationContext

    func intercept(request incoming: NetworkRequest, next: HTTPNext) async throws -> NetworkResponse {
        let context = self.context, hop = self.hop
        var request = incoming
        let release = await context.gate(hop, .pre, context.snapshot(request), StopCapabilities(canEditRequest: true, retryRefusal: httpRetryRefusal))
        if let headers = release.requestHeaders { request.headerFields = headers }
        if case .fail(let fault) = release.disposition {
            context.emit(hop, .error, HopSnapshot(error: fault))
            throw fault
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
            context.emit(hop, .error, HopSnapshot(error: error))
            throw error
        }
    }
}

/// The GraphQL transport with a stop before sending and one after receiving.
struct InstrumentedGraphQLTransport: GraphQLTransport {
    let base: any GraphQLTransport
    let hop: HopInfo
    let context: OperationContext

    func send(_ incoming: NetworkRequest) async throws -> NetworkResponse {
        var request = incoming
        let pre = await context.gate(hop, .pre, context.snapshot(request), StopCapabilities(canEditRequest: true, canForce401: true, retryRefusal: httpRetryRefusal))
        if let headers = pre.requestHeaders { request.headerFields = headers }
        var response: NetworkResponse
        var body: Data
        switch pre.disposition {
        case .fail(let fault):
            context.emit(hop, .error, HopSnapshot(error: fault))
            throw fault
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
                context.emit(hop, .error, HopSnapshot(error: error))
                throw error
            }
            response = NetworkResponse(status: response.status, headerFields: response.headerFields, url: response.url, body: body)
            context.emit(hop, .receive, HopSnapshot(response: response, body: body))
        }
        let post = await context.gate(hop, .post, HopSnapshot(response: response, body: body), StopCapabilities(canEditResponse: true, canForce401: true, retryRefusal: httpRetryRefusal))
        switch post.disposition {
        case .proceed, .forceRetry: break
        case .force401: response = NetworkResponse(status: 401, headerFields: jsonContentType, url: request.url, body: forced401Body)
        case .fail(let fault):
            context.emit(hop, .error, HopSnapshot(error: fault))
            throw fault
        }
        if let status = post.responseStatus { response.status = status }
        if let headers = post.responseHeaders { response.headerFields = headers }
        return response
    }
}

/// The response parser with a stop before parsing and events for each result.
struct InstrumentedResponseParser: ResponseParsingInterceptor {
    let base: any ResponseParsingInterceptor
    let hop: HopInfo
    let context: OperationContext

    func parse(response: NetworkResponse, for request: GraphQLRequest) async throws -> InterceptorResultStream {
        let context = self.context, hop = self.hop
        let release = await context.gate(hop, .pre, HopSnapshot(response: response), StopCapabilities(retryRefusal: "the parser cannot retry; force the retry at a GraphQL hop"))
        if case .fail(let fault) = release.disposition {
            context.emit(hop, .error, HopSnapshot(error: fault))
            throw fault
        }
        context.emit(hop, .preflight, context.snapshot(responseHead: response))
        do {
            return try await base.parse(response: response, for: request).tap(
                element: { context.emit(hop, .postflight, context.snapshot(result: $0)) },
                error: { context.emit(hop, .error, HopSnapshot(error: $0)) })
        } catch {
            context.emit(hop, .error, HopSnapshot(error: error))
            throw error
        }
    }
}

/// Wraps one operation's interceptors and transport, numbering the hops from the top.
public struct InstrumentedGraphQLChain: Sendable {
    public let hops: [HopInfo]
    public let chain: RequestChain

    public init(interceptors: RequestChain.Interceptors, transport: any GraphQLTransport, context: OperationContext) {
        var hops: [HopInfo] = []
        func next(_ name: String, _ kind: HopKind) -> HopInfo {
            let hop = HopInfo(index: hops.count, name: name, kind: kind)
            hops.append(hop)
            return hop
        }
        let graphQL: [any GraphQLInterceptor] = [AttemptCounter(context: context)] + interceptors.graphQL.map {
            InstrumentedGraphQLInterceptor(base: $0, hop: next(typeName($0), .graphql), context: context)
        }
        let cache = InstrumentedCacheInterceptor(base: interceptors.cache, hop: next("cache", .cache), context: context)
        let http: [any HTTPInterceptor] = interceptors.http.map {
            InstrumentedHTTPInterceptor(base: $0, hop: next(typeName($0), .http), context: context)
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
