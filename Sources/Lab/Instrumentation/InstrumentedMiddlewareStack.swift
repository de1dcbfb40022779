public import ChainKit
import Foundation
import Timeline

/// A client middleware with a stop on each side and events for what it changed. At its
/// post stop a forced retry calls `next` again, as a retrying middleware would.
struct InstrumentedMiddleware: WrappingMiddleware {
    let base: any ClientMiddleware
    let hop: HopInfo
    let context: OperationContext

    var wrappedMiddlewareName: String { base.layerName }

    func intercept(_ incoming: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String, next: MiddlewareNext) async throws -> (HTTPResponse, HTTPBody?) {
        let context = self.context, hop = self.hop
        var request = incoming
        let release = await context.gate(hop, .pre, HopSnapshot(request, baseURL: baseURL), StopCapabilities(canEditRequest: true, retryRefusal: "a middleware retries by calling next again: force the retry at its post-flight stop"))
        if let headers = release.requestHeaders { request.headerFields = headers }
        if case .fail(let fault) = release.disposition {
            throw context.reported(error: fault, at: hop)
        }
        let received = request
        let fromBelow = Locked<HTTPFields?>(nil)
        let below: MiddlewareNext = { handed, handedBody, handedURL in
            context.emit(hop, .preflight, HopSnapshot(handed, baseURL: handedURL), diff: HeaderDiff(from: received.headerFields, to: handed.headerFields))
            while true {
                let result: Result<(HTTPResponse, HTTPBody?), any Error>
                do { result = .success(try await next(handed, handedBody, handedURL)) } catch { result = .failure(error) }
                let canEdit = (try? result.get()) != nil
                let release = await context.gate(hop, .post, HopSnapshot(outcome: result), StopCapabilities(canEditResponse: canEdit, canForce401: true))
                var (response, responseBody): (HTTPResponse, HTTPBody?)
                switch release.disposition {
                case .proceed: (response, responseBody) = try result.get()
                case .force401: (response, responseBody) = (HTTPResponse(status: 401, headerFields: jsonContentType), HTTPBody(forced401Body))
                case .forceRetry:
                    context.emit(hop, .retry, detail: "forced retry: calling next again")
                    continue
                case .fail(let fault): throw fault
                }
                if let status = release.responseStatus { response.status = status }
                if let headers = release.responseHeaders { response.headerFields = headers }
                fromBelow.withLock { $0 = response.headerFields }
                return (response, responseBody)
            }
        }
        do {
            let (response, responseBody) = try await base.intercept(request, body: body, baseURL: baseURL, operationID: operationID, next: below)
            context.emit(hop, .postflight, HopSnapshot(response), diff: HeaderDiff(from: fromBelow.value ?? response.headerFields, to: response.headerFields))
            return (response, responseBody)
        } catch {
            throw context.reported(error: error, at: hop)
        }
    }
}

/// The middleware stack's transport with a stop before sending and one after receiving.
struct InstrumentedClientTransport: ClientTransport {
    let base: any ClientTransport
    let hop: HopInfo
    let context: OperationContext

    func send(_ incoming: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
        var request = incoming
        let pre = await context.gate(hop, .pre, HopSnapshot(request, baseURL: baseURL), StopCapabilities(canEditRequest: true, canForce401: true, retryRefusal: "the transport cannot retry; force the retry at a middleware's post-flight stop"))
        if let headers = pre.requestHeaders { request.headerFields = headers }
        var response: HTTPResponse
        var data: Data
        switch pre.disposition {
        case .fail(let fault):
            throw context.reported(error: fault, at: hop)
        case .force401:
            (response, data) = (HTTPResponse(status: 401, headerFields: jsonContentType), forced401Body)
            context.emit(hop, .receive, HopSnapshot(response, body: data), detail: "401 forced, not sent")
        case .proceed, .forceRetry:
            context.emit(hop, .send, HopSnapshot(request, baseURL: baseURL))
            do {
                let (received, receivedBody) = try await base.send(request, body: body, baseURL: baseURL, operationID: operationID)
                response = received
                data = try await receivedBody?.collect(upTo: 16 << 20) ?? Data()
            } catch {
                throw context.reported(error: error, at: hop)
            }
            context.emit(hop, .receive, HopSnapshot(response, body: data))
        }
        let post = await context.gate(hop, .post, HopSnapshot(response, body: data), StopCapabilities(canEditResponse: true, canForce401: true, retryRefusal: "the transport cannot retry; force the retry at a middleware's post-flight stop"))
        switch post.disposition {
        case .proceed, .forceRetry: break
        case .force401: (response, data) = (HTTPResponse(status: 401, headerFields: jsonContentType), forced401Body)
        case .fail(let fault):
            throw context.reported(error: fault, at: hop)
        }
        if let status = post.responseStatus { response.status = status }
        if let headers = post.responseHeaders { response.headerFields = headers }
        return (response, data.isEmpty ? nil : HTTPBody(data))
    }
}

/// Wraps a middleware stack for one operation, numbering the hops from the top.
public struct InstrumentedMiddlewareStack: Sendable {
    public let hops: [HopInfo]
    public let stack: MiddlewareStack

    public init(middlewares: [any ClientMiddleware], transport: any ClientTransport, context: OperationContext) {
        var hops: [HopInfo] = []
        let wrapped: [any ClientMiddleware] = middlewares.map { middleware in
            let hop = HopInfo(index: hops.count, name: middleware.layerName, kind: .middleware)
            hops.append(hop)
            return InstrumentedMiddleware(base: middleware, hop: hop, context: context)
        }
        let transportHop = HopInfo(index: hops.count, name: "transport", kind: .transport)
        hops.append(transportHop)
        self.hops = hops
        self.stack = MiddlewareStack(middlewares: wrapped, transport: InstrumentedClientTransport(base: transport, hop: transportHop, context: context))
    }
}
