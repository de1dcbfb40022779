import Stops
public import ChainKit
public import Foundation
import Synchronization
import Timeline

/// What the hops of one instrumented stack share, made once per stack: the operation's
/// context, the hops (named once per layout by ``HopLayouts``), and the layers they wrap. The
/// stack's own dispatch tells it of every layer (``MiddlewareHopObserver``).
final class InstrumentedLayers: MiddlewareHopObserver {
    let context: OperationContext
    /// The middlewares' hops from the top, then the transport's.
    let hops: [HopInfo]

    init(context: OperationContext, hops: [HopInfo]) {
        self.context = context
        self.hops = hops
    }

    var passesStraight: Bool { context.passesStraight }

    /// What middleware `index` receives of `incoming` after its pre-flight stop.
    // A call of its own: inlined, what a stop needs would be laid out in every layer's async
    // frame, which an operation's task allocates.
    @inline(never)
    func preflightStop(at index: Int, _ incoming: HTTPRequest, baseURL: URL) async throws -> HTTPRequest {
        let context = self.context, hop = hops[index]
        let release = await context.gate(hop, .pre, context.snapshots.snapshot(incoming, baseURL: baseURL), StopCapabilities(canEditRequest: true, retryRefusal: .middlewarePreFlightCannotRetry))
        return try context.reporting(at: hop) { try release.applied(to: incoming) }
    }

    /// Middleware `index`'s pre-flight event: it hands `handed` down, having received a
    /// request with the headers `received`.
    func handsOn(at index: Int, _ handed: HTTPRequest, baseURL: URL, received: HTTPFields) {
        let context = self.context
        context.emit(hops, index, .preflight, context.snapshots.snapshot(handed, baseURL: baseURL), diff: HeaderDiff(from: received, to: handed.headerFields))
    }

    /// Middleware `index`'s post-flight event for `response`, with what it changed of
    /// `answered`, the headers last handed up to it (unset when its `next` was not called).
    func handsUp(at index: Int, _ response: HTTPResponse, answered: borrowing Mutex<HandedUpHeaders>) {
        let context = self.context
        // Compared where they are kept: read out, they would be copied (and retained).
        let diff = answered.withLock { $0.diff(to: response.headerFields) }
        context.emit(hops, index, .postflight, context.snapshots.snapshot(responseHead: response), diff: diff)
    }

    /// What goes back up to middleware `index` after its post-flight stop; nil when a person
    /// forced a retry there (its `next` is then called again). A call of its own, as
    /// ``preflightStop(at:_:baseURL:)`` is.
    @inline(never)
    func postflightStop(at index: Int, _ result: Result<(HTTPResponse, HTTPBody?), any Error>) async throws -> (HTTPResponse, HTTPBody?)? {
        let context = self.context, hop = hops[index]
        let result = result.map(MiddlewareAnswer.init)
        let release = await context.gate(hop, .post, HopSnapshot(outcome: result), StopCapabilities(canEditResponse: result.isSuccess, canForce401: true))
        guard let answer = try release.appliedOrRetried(to: result) else {
            context.emit(hop, .retry, detail: "forced retry: calling next again")
            return nil
        }
        return answer.pair
    }

    /// `error`, thrown by middleware `index`, recorded as its error event.
    func failed(at index: Int, _ error: any Error) -> any Error {
        context.reported(error: error, at: hops[index])
    }
}

extension HandedUpHeaders {
    /// What the layer changed of these headers in handing up `headers`; nothing when none
    /// came up from below (it answered itself).
    func diff(to headers: HTTPFields) -> HeaderDiff {
        isSet ? HeaderDiff(from: fields, to: headers) : .none
    }
}

/// The middleware stack's transport with a stop before sending and one after receiving.
extension InstrumentedLayers {
    /// The most of a streamed body the transport reads to show it.
    static let bodyLimit = 16 << 20

    func send(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String, through transport: any ClientTransport
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let context = self.context, hop = hops[hops.count - 1]
        let refusal = Refusal.transportCannotRetry
        // Sends `sent`, borrowed (the request as it came, or what the pre-flight stop let
        // through), and returns the answer with its body as received when that body can be
        // read again (handed up as it is when nothing replaced it). Inlined at its calls: the
        // request is not copied to be sent, and the call costs no frame of its own.
        @inline(__always) func exchange(_ sent: borrowing HTTPRequest) async throws -> (answer: ReceivedAnswer<HTTPResponse>, replayable: HTTPBody?) {
            context.emit(hop, .send, context.snapshots.snapshot(sent, baseURL: baseURL))
            let answer: ReceivedAnswer<HTTPResponse>, replayable: HTTPBody?
            do {
                let (received, receivedBody) = try await transport.send(sent, body: body, baseURL: baseURL, operationID: operationID)
                replayable = receivedBody?.iterationBehavior == .multiple ? receivedBody : nil
                answer = ReceivedAnswer(received, body: try await Self.contents(of: receivedBody))
            } catch {
                throw context.reported(error: error, at: hop)
            }
            context.emit(hop, .receive, context.snapshots.snapshot(response: answer.head, body: answer.body))
            return (answer, replayable)
        }
        if context.passesStraight {
            let (answer, replayable) = try await exchange(request)
            // Nothing can change the answer at a stop it passes straight through.
            if context.passesStraight { return Self.handedUp(answer, replayable: replayable) }
            return try await postflightStop(answer, replayable: replayable, baseURL: baseURL, refusal: refusal)
        }
        let pre = await context.wait(
            hop, .pre, context.snapshots.snapshot(request, baseURL: baseURL),
            StopCapabilities(canEditRequest: true, canForce401: true, retryRefusal: refusal))
        guard let sent = try context.reporting(at: hop, { try pre.sending(request) }) else {
            let answer = ReceivedAnswer<HTTPResponse>.forced401(url: baseURL)
            context.emit(hop, .receive, HopSnapshot(answer.head, body: answer.body), detail: "401 forced, not sent")
            return try await postflightStop(answer, replayable: nil, baseURL: baseURL, refusal: refusal)
        }
        let (answer, replayable) = try await exchange(sent)
        return try await postflightStop(answer, replayable: replayable, baseURL: baseURL, refusal: refusal)
    }

    /// What the transport hands up for `answer` when it passes its post-flight stop.
    private static func handedUp(_ answer: borrowing ReceivedAnswer<HTTPResponse>, replayable: HTTPBody?) -> (HTTPResponse, HTTPBody?) {
        if answer.body.isEmpty { return (answer.head, nil) }
        return (answer.head, replayable ?? HTTPBody(answer.body))
    }

    /// The transport's post-flight stop for `answer`, and what goes up after it. A call of its
    /// own, as ``preflightStop(at:_:baseURL:)`` is.
    @inline(never)
    private func postflightStop(_ answer: ReceivedAnswer<HTTPResponse>, replayable: HTTPBody?, baseURL: URL, refusal: Refusal) async throws -> (HTTPResponse, HTTPBody?) {
        let context = self.context, hop = hops[hops.count - 1]
        let post = context.passesStraight ? .proceed : await context.wait(hop, .post, context.snapshots.snapshot(response: answer.head, body: answer.body), StopCapabilities(canEditResponse: true, canForce401: true, retryRefusal: refusal))
        let final = try context.reporting(at: hop) { try post.applied(to: .success(answer), url: baseURL) }
        return Self.handedUp(final, replayable: post.disposition == .force401 ? nil : replayable)
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
/// hops from the top. It is ``MiddlewareStack``, observed: it sends as
/// ``MiddlewareStack/send(_:body:baseURL:operationID:)`` does and fails with the same
/// ``ClientError``s.
public struct InstrumentedMiddlewareStack: Sendable {
    public let hops: [HopInfo]
    let stack: MiddlewareStack
    let layers: InstrumentedLayers

    public init(middlewares: [any ClientMiddleware], transport: any ClientTransport, context: OperationContext) {
        hops = context.layouts.hops(of: middlewares)
        stack = MiddlewareStack(middlewares: middlewares, transport: transport)
        layers = InstrumentedLayers(context: context, hops: hops)
    }

    /// Sends `request` through every middleware and the transport, stopping where the
    /// scheduler holds the operation, and returns the response as the outermost middleware
    /// returned it.
    ///
    /// - Throws: ``ClientError``, always, as ``MiddlewareStack`` throws it.
    public func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
        try await stack.send(request, body: body, baseURL: baseURL, operationID: operationID, observedBy: layers)
    }
}
