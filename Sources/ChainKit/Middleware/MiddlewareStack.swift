public import Foundation
import Synchronization

/// Runs a request through an array of ``ClientMiddleware`` down to one ``ClientTransport``
/// (swift-openapi-runtime's `UniversalClient.send`).
///
/// ```
///            send                                   ▲ (response, body)
///              │                                     │
///   ┌──────────▼──── middlewares[0] ─────────────────┴──┐
///   │   ┌──────▼──── middlewares[1] ──────────────┴──┐  │
///   │   │   ┌──▼──── transport ───────────────┴──┐   │  │
///   │   │   └────────────────────────────────────┘   │  │
///   │   └────────────────────────────────────────────┘  │
///   └───────────────────────────────────────────────────┘
/// ```
///
/// With `middlewares: [A, B, C]` the request passes A, B, C, the transport, and the response
/// comes back through C, B, A. Each layer may change the request, body and base URL it hands
/// to `next`; the operation ID stays fixed. A layer may call `next` several times (a retry)
/// or not at all (a cached or injected response).
///
/// A call has swift-openapi-runtime's four phases, each failing with its own
/// ``ClientError``: the serializer turns the operation's input into a request (a failure
/// there has no request yet; cause `Unknown`), the middlewares and the transport send it
/// (`Middleware of type 'X' threw an error.` / `Transport threw an error.`, with the request,
/// body and base URL as the serializer made them), and the deserializer turns the response
/// into the output (cause `Unknown`, with the response and its body too). A ``ClientError``
/// thrown by any phase passes through unchanged, as `UniversalClient`'s `wrappingErrors` lets it.
/// The lab's stacks send raw requests: ``send(_:body:baseURL:operationID:)`` uses identity
/// phases, and the input is the request and body (``HTTPOperationInput``).
///
/// ```swift
/// let stack = MiddlewareStack(middlewares: [RetryingMiddleware()], transport: transport)
/// do {
///     let (response, body) = try await stack.send(request, body: nil, baseURL: url, operationID: "listPets")
/// } catch let error as ClientError {
///     print(error.causeDescription) // "Transport threw an error."
/// }
/// ```
///
/// The layers are not folded into nested closures: each `next` is made when a layer calls
/// down and names only the call's context and the index below, so a stack of any depth is
/// built and released without recursion (a 100,000-middleware stack neither nests 100,000
/// closures nor releases them one inside the other).
public struct MiddlewareStack: Sendable {
    public let middlewares: [any ClientMiddleware]
    public let transport: any ClientTransport

    public init(middlewares: [any ClientMiddleware], transport: any ClientTransport) {
        self.middlewares = middlewares
        self.transport = transport
    }

    /// The hop names from the top: each middleware's type name, then the transport's.
    public var layerNames: [String] {
        middlewares.map(\.layerName) + [String(describing: type(of: transport))]
    }

    /// Sends `request` through every middleware and the transport and returns the response
    /// as the outermost middleware returned it (identity serializer and deserializer).
    ///
    /// - Throws: ``ClientError``, always; its `underlyingError` is what the failing layer threw.
    public func send(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String
    ) async throws -> (HTTPResponse, HTTPBody?) {
        try await send(
            input: HTTPOperationInput(request: request, body: body), forOperation: operationID, baseURL: baseURL,
            serializer: { ($0.request, $0.body) }, deserializer: { ($0, $1) })
    }

    /// Runs one operation through the four phases (`UniversalClient.send`): `serializer`,
    /// the middlewares, the transport, `deserializer`.
    ///
    /// - Throws: ``ClientError``, always, filled with what was known when the phase failed.
    public func send<Input: Sendable, Output: Sendable>(
        input: Input,
        forOperation operationID: String,
        baseURL: URL,
        serializer: @Sendable (Input) throws -> (HTTPRequest, HTTPBody?),
        deserializer: @Sendable (HTTPResponse, HTTPBody?) async throws -> Output
    ) async throws -> Output {
        let request: HTTPRequest, requestBody: HTTPBody?
        do {
            (request, requestBody) = try serializer(input)
        } catch let error as ClientError {
            throw error
        } catch {
            throw ClientError(operationID: operationID, operationInput: input, causeDescription: "Unknown", underlyingError: error)
        }
        // An error reports the request as the serializer made it, rather than what some
        // middleware had turned it into by the time it failed.
        let (response, responseBody) = try await dispatch(request, requestBody, baseURL, operationID: operationID) { error, cause in
            Self.wrapped(error, cause: cause, operationID: operationID, input: input, request: request, body: requestBody, baseURL: baseURL)
        }
        do {
            return try await deserializer(response, responseBody)
        } catch let error as ClientError {
            throw error
        } catch {
            throw ClientError(
                operationID: operationID, operationInput: input, request: request, requestBody: requestBody,
                baseURL: baseURL, response: response, responseBody: responseBody, causeDescription: "Unknown",
                underlyingError: error)
        }
    }

    /// The middlewares and the transport for one call; `wrap` makes what a layer threw into
    /// the call's ``ClientError``. Not generic over the call's input (only `wrap` knows it): a
    /// generic context, even specialised, costs every layer one more async frame and executor
    /// switch.
    private func dispatch(
        _ request: HTTPRequest, _ body: HTTPBody?, _ baseURL: URL, operationID: String,
        wrap: @Sendable (_ error: any Error, _ cause: String) -> any Error
    ) async throws -> (HTTPResponse, HTTPBody?) {
        // The layer at `index`, or the transport below the last one. A local function rather
        // than an object: what it needs is captured once for the whole call, without an
        // allocation or a retain per field, and each layer's `next` is made only when that
        // layer calls down, naming the index below.
        let middlewares = self.middlewares, transport = self.transport
        @Sendable func run(_ index: Int, _ request: HTTPRequest, _ body: HTTPBody?, _ baseURL: URL) async throws -> (HTTPResponse, HTTPBody?) {
            guard index < middlewares.count else {
                do {
                    return try await transport.send(request, body: body, baseURL: baseURL, operationID: operationID)
                } catch {
                    throw wrap(error, Self.transportCause)
                }
            }
            do {
                return try await middlewares[index].intercept(request, body: body, baseURL: baseURL, operationID: operationID) {
                    // `&+`: cannot overflow below the count, and a checked add would make this
                    // closure switch executors on entry.
                    request, body, baseURL in try await run(index &+ 1, request, body, baseURL)
                }
            } catch {
                throw wrap(error, Self.middlewareCause(middlewares[index]))
            }
        }
        return try await run(0, request, body, baseURL)
    }

    /// ``send(_:body:baseURL:operationID:)`` with `observer` told of every layer as it runs:
    /// the same dispatch, with each layer's stops and events where the lab has them, so a
    /// middleware's `next` calls the layer below itself (through a closure handed in, every
    /// layer would cost two more async frames and executor checks). Fails with the same
    /// ``ClientError``s.
    package func send(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String, observedBy observer: any MiddlewareHopObserver
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let middlewares = self.middlewares, transport = self.transport
        // An error reports the request as the caller handed it, as the unobserved stack's does.
        @Sendable func wrap(_ error: any Error, _ cause: String) -> any Error {
            Self.wrapped(
                error, cause: cause, operationID: operationID, input: HTTPOperationInput(request: request, body: body),
                request: request, body: body, baseURL: baseURL)
        }
        // The layer at `index` (or the transport below the last one), then the post-flight stop
        // of the middleware above it, whose `next` this call is. `answered` is where the
        // middleware above keeps the headers last handed up to it.
        //
        // After each `await` the task checks that it is back on its executor, so this code
        // awaits as little as it can: the stops are tested in line, and the post-flight stop
        // of the layer above runs here, after the check this layer makes anyway, rather than
        // in its `next` after this call returns.
        @Sendable func run(
            _ index: Int, _ request: HTTPRequest, _ body: HTTPBody?, _ baseURL: URL, answered: borrowing Mutex<HandedUpHeaders>
        ) async throws -> (HTTPResponse, HTTPBody?) {
            while true {
                // What goes to the post-flight stop of the middleware above, when the operation
                // stops there: the common way returns before building it.
                let outcome: Result<(HTTPResponse, HTTPBody?), any Error>
                do {
                    let response: HTTPResponse, responseBody: HTTPBody?
                    if index < middlewares.count {
                        // What a person let through at the stop, when the operation stopped there.
                        let stopped: HTTPRequest? = observer.passesStraight
                            ? nil : try await observer.preflightStop(at: index, request, baseURL: baseURL)
                        // The headers of the last answer handed back up to this middleware. The
                        // closure that hands them on does not escape, so they live in this
                        // call's frame, as does the closure's context.
                        let handedUp = Mutex(HandedUpHeaders())
                        // Middleware `index` called with `received`, borrowed: the request as it
                        // came or what the stop let through; inlined at both calls.
                        @inline(__always) func intercept(_ received: borrowing HTTPRequest) async throws -> (HTTPResponse, HTTPBody?) {
                            try await middlewares[index].intercept(received, body: body, baseURL: baseURL, operationID: operationID) { handed, body, baseURL in
                                observer.handsOn(at: index, handed, baseURL: baseURL, received: received.headerFields)
                                // `&+`: cannot overflow below the count.
                                return try await run(index &+ 1, handed, body, baseURL, answered: handedUp)
                            }
                        }
                        do {
                            (response, responseBody) = if let stopped { try await intercept(stopped) } else { try await intercept(request) }
                        } catch {
                            throw observer.failed(at: index, error)
                        }
                        observer.handsUp(at: index, response, answered: handedUp)
                    } else {
                        (response, responseBody) = try await observer.send(request, body: body, baseURL: baseURL, operationID: operationID, through: transport)
                    }
                    // Nothing is above the top layer (the first middleware, or the transport when
                    // there is none): what it returns is the call's.
                    if index == 0 { return (response, responseBody) }
                    if observer.passesStraight {
                        answered.withLock { $0.set(response.headerFields) }
                        return (response, responseBody)
                    }
                    outcome = .success((response, responseBody))
                } catch {
                    let cause = index < middlewares.count ? Self.middlewareCause(middlewares[index]) : Self.transportCause
                    let failure = wrap(error, cause)
                    if index == 0 || observer.passesStraight { throw failure }
                    outcome = .failure(failure)
                }
                // `&-`: `index` is at least 1 here.
                guard let answer = try await observer.postflightStop(at: index &- 1, outcome) else {
                    continue  // a retry forced there: the middleware above calls this layer again
                }
                answered.withLock { $0.set(answer.0.headerFields) }
                return answer
            }
        }
        // The top layer has no middleware above it to keep what it hands up: never set.
        let aboveTop = Mutex(HandedUpHeaders())
        return try await run(0, request, body, baseURL, answered: aboveTop)
    }

    /// The cause of an error a middleware threw: `Middleware of type 'X' threw an error.`
    public static func middlewareCause(_ middleware: any ClientMiddleware) -> String {
        "Middleware of type '\(middleware.layerName)' threw an error."
    }

    /// The cause of an error the transport threw.
    public static let transportCause = "Transport threw an error."

    /// What a call throws when a layer fails with `error` (cause: ``middlewareCause(_:)`` or
    /// ``transportCause``): a ``ClientError`` as it is, anything else wrapped in one that
    /// reports the call's input and the request as it was before the first layer. For
    /// dispatchers that run the layers themselves, such as an instrumented stack, so their
    /// errors read exactly like ``send(_:body:baseURL:operationID:)``'s.
    public static func wrapped(
        _ error: any Error, cause: String, operationID: String, input: any Sendable, request: HTTPRequest, body: HTTPBody?, baseURL: URL
    ) -> any Error {
        if error is ClientError { return error }
        return ClientError(
            operationID: operationID, operationInput: input, request: request, requestBody: body,
            baseURL: baseURL, causeDescription: cause, underlyingError: error)
    }
}

/// The input of an operation sent without a serializer: the request and body themselves.
/// Its description masks credentials as ``ClientError``'s does.
public struct HTTPOperationInput: Sendable, CustomStringConvertible {
    public var request: HTTPRequest
    public var body: HTTPBody?

    public init(request: HTTPRequest, body: HTTPBody?) {
        self.request = request
        self.body = body
    }

    public var description: String {
        "\(ClientError.describe(request)), body: \(body.map(ClientError.describe) ?? "<nil>")"
    }
}
