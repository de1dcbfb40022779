public import ChainKit
import Foundation
import Timeline

/// A client middleware with a stop on each side and events for what it changed. At its
/// post stop a forced retry calls `next` again, as a retrying middleware would.
struct InstrumentedMiddleware: WrappingMiddleware {
    let base: any ClientMiddleware
    let hop: HopInfo
    let context: OperationContext

    var wrappedMiddlewareName: String { hop.name }

    func intercept(_ incoming: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String, next: MiddlewareNext) async throws -> (HTTPResponse, HTTPBody?) {
        let context = self.context, hop = self.hop
        let release = await context.gate(hop, .pre, HopSnapshot(incoming, baseURL: baseURL), StopCapabilities(canEditRequest: true, retryRefusal: "a middleware retries by calling next again: force the retry at its post-flight stop"))
        let received = try context.reporting(at: hop) { try release.applied(to: incoming) }
        let fromBelow = Locked<HTTPFields?>(nil)
        let below: MiddlewareNext = { handed, handedBody, handedURL in
            context.emit(hop, .preflight, HopSnapshot(handed, baseURL: handedURL), diff: HeaderDiff(from: received.headerFields, to: handed.headerFields))
            while true {
                let result: Result<MiddlewareAnswer, any Error>
                do { result = .success(MiddlewareAnswer(try await next(handed, handedBody, handedURL))) } catch { result = .failure(error) }
                let canEdit = (try? result.get()) != nil
                let release = await context.gate(hop, .post, HopSnapshot(outcome: result), StopCapabilities(canEditResponse: canEdit, canForce401: true))
                guard let answer = try release.appliedOrRetried(to: result) else {
                    context.emit(hop, .retry, detail: "forced retry: calling next again")
                    continue
                }
                fromBelow.withLock { $0 = answer.headerFields }
                return (answer.head, answer.body)
            }
        }
        do {
            let (response, responseBody) = try await base.intercept(received, body: body, baseURL: baseURL, operationID: operationID, next: below)
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

    func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
        let refusal = "the transport cannot retry; force the retry at a middleware's post-flight stop"
        let pre = await context.gate(hop, .pre, HopSnapshot(request, baseURL: baseURL), StopCapabilities(canEditRequest: true, canForce401: true, retryRefusal: refusal))
        var answer: ReceivedAnswer<HTTPResponse>
        if let sent = try context.reporting(at: hop, { try pre.sending(request) }) {
            context.emit(hop, .send, HopSnapshot(sent, baseURL: baseURL))
            answer = try await context.reporting(at: hop) {
                let (received, receivedBody) = try await base.send(sent, body: body, baseURL: baseURL, operationID: operationID)
                return ReceivedAnswer(received, body: try await receivedBody?.collect(upTo: 16 << 20) ?? Data())
            }
            context.emit(hop, .receive, HopSnapshot(answer.head, body: answer.body))
        } else {
            answer = .forced401(url: baseURL)
            context.emit(hop, .receive, HopSnapshot(answer.head, body: answer.body), detail: "401 forced, not sent")
        }
        let post = await context.gate(hop, .post, HopSnapshot(answer.head, body: answer.body), StopCapabilities(canEditResponse: true, canForce401: true, retryRefusal: refusal))
        let final = try context.reporting(at: hop) { try post.applied(to: .success(answer), url: baseURL) }
        return (final.head, final.body.isEmpty ? nil : HTTPBody(final.body))
    }
}

/// Wraps a middleware stack for one operation, numbering the hops from the top.
public struct InstrumentedMiddlewareStack: Sendable {
    public let hops: [HopInfo]
    public let stack: MiddlewareStack

    public init(middlewares: [any ClientMiddleware], transport: any ClientTransport, context: OperationContext) {
        let hops = context.layouts.hops(of: middlewares)
        var wrapped: [any ClientMiddleware] = []
        wrapped.reserveCapacity(middlewares.count)
        for (index, middleware) in middlewares.enumerated() {
            wrapped.append(InstrumentedMiddleware(base: middleware, hop: hops[index], context: context))
        }
        self.hops = hops
        self.stack = MiddlewareStack(middlewares: wrapped, transport: InstrumentedClientTransport(base: transport, hop: hops[middlewares.count], context: context))
    }
}
