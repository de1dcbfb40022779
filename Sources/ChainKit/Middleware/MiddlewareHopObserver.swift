package import Foundation
package import Synchronization

/// What a lab that stops at and records every middleware is told as
/// ``MiddlewareStack/send(_:body:baseURL:operationID:observedBy:)`` runs the layers
/// (package-level, like ``GraphQLHopObserver``): the stack keeps its one dispatch, and the
/// observer is told at each place where the lab stops or records. Called in the task that
/// sends.
package protocol MiddlewareHopObserver: AnyObject, Sendable {
    /// Whether no layer has a stop to wait at now: each then receives what it is handed, and
    /// what it hands up goes up as it is.
    var passesStraight: Bool { get }
    /// What middleware `index` receives of `incoming`, after its pre-flight stop (asked only
    /// when not ``passesStraight``).
    func preflightStop(at index: Int, _ incoming: HTTPRequest, baseURL: URL) async throws -> HTTPRequest
    /// Middleware `index`, having received a request with the headers `received`, hands
    /// `handed` down.
    func handsOn(at index: Int, _ handed: HTTPRequest, baseURL: URL, received: HTTPFields)
    /// Middleware `index` hands `response` up; `answered` holds the headers last handed up to
    /// it (unset when it did not call `next`).
    func handsUp(at index: Int, _ response: HTTPResponse, answered: borrowing Mutex<HandedUpHeaders>)
    /// What goes back up to middleware `index` after its post-flight stop for `result`, the
    /// outcome of its `next`; nil when a person forced a retry there (its `next` is called
    /// again).
    func postflightStop(at index: Int, _ result: Result<(HTTPResponse, HTTPBody?), any Error>) async throws -> (HTTPResponse, HTTPBody?)?
    /// `error`, thrown by middleware `index`, as it goes on up (recorded first).
    func failed(at index: Int, _ error: any Error) -> any Error
    /// Sends through `transport`, below the last middleware, with the transport's own stops.
    func send(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String, through transport: any ClientTransport
    ) async throws -> (HTTPResponse, HTTPBody?)
}

/// The headers last handed up to a layer (a middleware, or an HTTP interceptor of a GraphQL
/// chain), kept to tell what it changed of them; unset until its `next` returns. A flag
/// beside the list rather than an optional list: a lock around an optional is destroyed
/// through the optional's metadata, one per layer of every operation, where this is one
/// release.
package struct HandedUpHeaders: Sendable {
    package private(set) var fields = HTTPFields()
    package private(set) var isSet = false

    package init() {}

    package mutating func set(_ fields: HTTPFields) {
        self.fields = fields
        isSet = true
    }
}
