import Instrumentation
import ChainKit
import Foundation
import Timeline
import Exports

/// The W3C `traceparent` a session on a real server sends on each attempt and token refresh:
/// the trace id and attempt span id that the session's OTLP export gives that attempt, so a
/// server-side trace joins ChainLab's. The lab's own backend never gets one.
///
/// It is added where the timeline sees it: a GraphQL chain's transport hop receives the
/// request with it (``TraceparentStampedTransport``), a middleware chain's request carries
/// it from the start (its one pass is attempt 1), and a refresh's stop shows it. A request
/// that has one already (a `--header`) keeps its own.
struct Traceparent: Sendable {
    let anchor: OTLPExport.Anchor

    /// `headers` with attempt `attempt` of request `request`'s `traceparent`, unless they
    /// carry one already.
    func adding(to headers: HTTPFields, request: Int, attempt: Int) -> HTTPFields {
        guard !headers.contains("traceparent") else { return headers }
        var headers = headers
        // The value is hex digits and dashes: always a valid field.
        try? headers.append("traceparent", anchor.traceparent(request: request, attempt: attempt))
        return headers
    }

    /// `headers` with the `traceparent` of the attempt running on this task
    /// (``LabContext/operation``), for a refresh; unchanged outside an operation.
    func addingForCurrentAttempt(to headers: HTTPFields) -> HTTPFields {
        guard let operation = LabContext.operation else { return headers }
        return adding(to: headers, request: operation.request, attempt: operation.attempt)
    }
}

/// A GraphQL chain's instrumented transport, handed each request with its attempt's
/// `traceparent`: the transport's stops and events show the request as it is sent.
struct TraceparentStampedTransport: GraphQLTransport {
    /// The instrumented transport hop of `context`'s operation.
    let base: any GraphQLTransport
    let traceparent: Traceparent
    let context: OperationContext

    func send(_ request: NetworkRequest) async throws -> NetworkResponse {
        var request = request
        request.headerFields = traceparent.adding(to: request.headerFields, request: context.request, attempt: context.attempt)
        return try await base.send(request)
    }
}
