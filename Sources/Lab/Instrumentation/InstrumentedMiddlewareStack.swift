public import ChainKit
public import Foundation
import Synchronization
import Timeline

/// What the hops of one instrumented stack share, made once per stack: the operation's
/// context, the hops (named once per layout by ``HopLayouts``), and the layers they wrap.
final class InstrumentedLayers: Sendable {
    let context: OperationContext
    /// The middlewares' hops from the top, then the transport's.
    let hops: [HopInfo]
    let middlewares: [any ClientMiddleware]
    let transport: any ClientTransport

    init(context: OperationContext, hops: [HopInfo], middlewares: [any ClientMiddleware], transport: any ClientTransport) {
        self.context = context
        self.hops = hops
        self.middlewares = middlewares
        self.transport = transport
    }

    /// Middleware `index` with a stop on each side and events for what it changed; `below`
    /// runs the layers under it. At its post stop a forced retry calls `below` again, as a
    /// retrying middleware would.
    // Inlined into the stack's dispatch: a layer costs the frames a bare stack's layer
    // costs (the dispatch, the middleware, its `next`), not two more for a wrapper.
    @inline(__always)
    func intercept(
        at index: Int, _ incoming: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String, below: MiddlewareNext
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let context = self.context, hop = hops[index]
        // Passing straight through, the middleware receives the request as it came; a stop
        // that may wait is a call of its own, so what it needs is not laid out in every
        // layer's async frame (an operation's task allocates those frames).
        let received = context.passesStraight ? incoming : try await preflightStop(at: index, incoming, baseURL: baseURL)
        // The headers of the last answer handed back up, to tell what the middleware changed.
        // The closure that sets them does not escape, so they live in this call's frame, as
        // does the closure's context: instrumenting a middleware allocates nothing per call.
        let answered = Mutex<HTTPFields?>(nil)
        do {
            let (response, responseBody) = try await middlewares[index].intercept(
                received, body: body, baseURL: baseURL, operationID: operationID,
                next: { handed, body, baseURL in
                    let answer = try await self.handOn(at: index, handed, body, baseURL, received: received.headerFields, below: below)
                    answered.withLock { $0 = answer.headerFields }
                    return (answer.head, answer.body)
                })
            // Compared where they are kept: read out, they would be copied (and retained).
            let diff = answered.withLock { answered in
                answered == nil ? HeaderDiff.none : HeaderDiff(from: answered!, to: response.headerFields)
            }
            context.emit(hop, .postflight, context.snapshots.snapshot(responseHead: response), diff: diff)
            return (response, responseBody)
        } catch {
            throw context.reported(error: error, at: hop)
        }
    }

    /// What middleware `index` receives of `incoming` after its pre-flight stop.
    @inline(never)
    private func preflightStop(at index: Int, _ incoming: HTTPRequest, baseURL: URL) async throws -> HTTPRequest {
        let context = self.context, hop = hops[index]
        let release = await context.gate(hop, .pre, context.snapshots.snapshot(incoming, baseURL: baseURL), StopCapabilities(canEditRequest: true, retryRefusal: "a middleware retries by calling next again: force the retry at its post-flight stop"))
        return try context.reporting(at: hop) { try release.applied(to: incoming) }
    }

    /// What middleware `index`'s `next` does, given the headers of the request the middleware
    /// received: the hop's pre-flight event for what it hands down, the layers below, and the
    /// hop's post-flight stop for what comes back.
    // Inlined into the `next` closure: one async frame per call of `next`, not two.
    @inline(__always)
    private func handOn(
        at index: Int, _ handed: HTTPRequest, _ body: HTTPBody?, _ baseURL: URL, received: HTTPFields, below: MiddlewareNext
    ) async throws -> MiddlewareAnswer {
        let context = self.context, hop = hops[index]
        context.emit(hop, .preflight, context.snapshots.snapshot(handed, baseURL: baseURL), diff: HeaderDiff(from: received, to: handed.headerFields))
        while true {
            let result: Result<MiddlewareAnswer, any Error>
            do { result = .success(MiddlewareAnswer(try await below(handed, body, baseURL))) } catch { result = .failure(error) }
            // Passing the stop straight through, the outcome goes up as it came.
            if context.passesStraight { return try result.get() }
            guard let answer = try await postflightStop(at: index, result) else { continue }
            return answer
        }
    }

    // A stop that may wait is a call of its own: inlined, what it needs would be laid out in
    // each layer's async frames, which an operation's task allocates.

    /// What goes back up to middleware `index` after its post-flight stop; nil when a person
    /// forced a retry there (its `next` is then called again).
    @inline(never)
    private func postflightStop(at index: Int, _ result: Result<MiddlewareAnswer, any Error>) async throws -> MiddlewareAnswer? {
        let context = self.context, hop = hops[index]
        let release = await context.gate(hop, .post, HopSnapshot(outcome: result), StopCapabilities(canEditResponse: result.isSuccess, canForce401: true))
        guard let answer = try release.appliedOrRetried(to: result) else {
            context.emit(hop, .retry, detail: "forced retry: calling next again")
            return nil
        }
        return answer
    }
}

/// The middleware stack's transport with a stop before sending and one after receiving.
extension InstrumentedLayers {
    /// The most of a streamed body the transport reads to show it.
    static let bodyLimit = 16 << 20

    func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
        let context = self.context, hop = hops[hops.count - 1]
        let refusal = "the transport cannot retry; force the retry at a middleware's post-flight stop"
        let pre = await context.gate(hop, .pre, context.snapshots.snapshot(request, baseURL: baseURL), StopCapabilities(canEditRequest: true, canForce401: true, retryRefusal: refusal))
        var answer: ReceivedAnswer<HTTPResponse>
        // The body as received, handed up as it is when it can be read again and nothing replaced it.
        var replayable: HTTPBody?
        if let sent = try context.reporting(at: hop, { try pre.sending(request) }) {
            context.emit(hop, .send, context.snapshots.snapshot(sent, baseURL: baseURL))
            do {
                let (received, receivedBody) = try await transport.send(sent, body: body, baseURL: baseURL, operationID: operationID)
                if receivedBody?.iterationBehavior == .multiple { replayable = receivedBody }
                answer = ReceivedAnswer(received, body: try await Self.contents(of: receivedBody))
            } catch {
                throw context.reported(error: error, at: hop)
            }
            context.emit(hop, .receive, context.snapshots.snapshot(response: answer.head, body: answer.body))
        } else {
            answer = .forced401(url: baseURL)
            context.emit(hop, .receive, HopSnapshot(answer.head, body: answer.body), detail: "401 forced, not sent")
        }
        let post = await context.gate(hop, .post, context.snapshots.snapshot(response: answer.head, body: answer.body), StopCapabilities(canEditResponse: true, canForce401: true, retryRefusal: refusal))
        let final = try context.reporting(at: hop) { try post.applied(to: .success(answer), url: baseURL) }
        if final.body.isEmpty { return (final.head, nil) }
        if let replayable, post.disposition != .force401 { return (final.head, replayable) }
        return (final.head, HTTPBody(final.body))
    }

    /// A received body's bytes: those it holds, when it was made from them, or else what
    /// reading it (up to ``bodyLimit``) gives. Reading a body made from bytes would only hand
    /// them back, through a stream, at the price of several events.
    private static func contents(of body: HTTPBody?) async throws -> Data {
        guard let body else { return Data() }
        if let bytes = body.bytes, bytes.count <= bodyLimit { return bytes }
        return try await body.collect(upTo: bodyLimit)
    }
}

/// A middleware stack for one operation with stops and events at every layer, numbering the
/// hops from the top. It sends as ``MiddlewareStack/send(_:body:baseURL:operationID:)`` does
/// and fails with the same ``ClientError``s; it runs the layers itself, so a layer's stops and
/// events cost no frames of their own.
public struct InstrumentedMiddlewareStack: Sendable {
    public let hops: [HopInfo]
    let layers: InstrumentedLayers

    public init(middlewares: [any ClientMiddleware], transport: any ClientTransport, context: OperationContext) {
        hops = context.layouts.hops(of: middlewares)
        layers = InstrumentedLayers(context: context, hops: hops, middlewares: middlewares, transport: transport)
    }

    /// Sends `request` through every middleware and the transport, stopping where the
    /// scheduler holds the operation, and returns the response as the outermost middleware
    /// returned it.
    ///
    /// - Throws: ``ClientError``, always, as ``MiddlewareStack`` throws it.
    public func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
        let layers = self.layers
        // An error reports the request as the caller handed it, as the bare stack's does.
        @Sendable func wrap(_ error: any Error, _ cause: String) -> any Error {
            MiddlewareStack.wrapped(
                error, cause: cause, operationID: operationID, input: HTTPOperationInput(request: request, body: body),
                request: request, body: body, baseURL: baseURL)
        }
        // The layer at `index`, or the transport below the last one (``MiddlewareStack``'s
        // dispatch, with each layer's stops inlined).
        @Sendable func run(_ index: Int, _ request: HTTPRequest, _ body: HTTPBody?, _ baseURL: URL) async throws -> (HTTPResponse, HTTPBody?) {
            guard index < layers.middlewares.count else {
                do {
                    return try await layers.send(request, body: body, baseURL: baseURL, operationID: operationID)
                } catch {
                    throw wrap(error, MiddlewareStack.transportCause)
                }
            }
            do {
                return try await layers.intercept(at: index, request, body: body, baseURL: baseURL, operationID: operationID) {
                    request, body, baseURL in try await run(index &+ 1, request, body, baseURL)
                }
            } catch {
                throw wrap(error, MiddlewareStack.middlewareCause(layers.middlewares[index]))
            }
        }
        return try await run(0, request, body, baseURL)
    }
}
