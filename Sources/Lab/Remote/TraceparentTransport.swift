import ChainKit
import Foundation
import Timeline

/// The W3C `traceparent` a session on a real server sends: for the attempt running on the
/// current task (``LabContext/operation``), the trace id and attempt span id that the
/// session's OTLP export gives it, so a server-side trace joins ChainLab's.
struct Traceparent: Sendable {
    let anchor: OTLPExport.Anchor

    /// The header's value for the attempt running on this task; nil outside an operation.
    var current: String? {
        LabContext.operation.map { anchor.traceparent(request: $0.request, attempt: $0.attempt) }
    }

    /// `headers` with the current attempt's `traceparent`, unless they carry one already (a
    /// `--header`, or the chain's own): that one is the caller's and goes out as it is.
    func adding(to headers: HTTPFields) -> HTTPFields {
        guard !headers.contains("traceparent"), let value = current else { return headers }
        var headers = headers
        // The value is hex digits and dashes: always a valid field.
        try? headers.append("traceparent", value)
        return headers
    }
}

/// A real server's transport that adds ``Traceparent`` to every request of both chains.
///
/// It sits below the instrumentation: the timeline shows the request as the chain made it,
/// and the header is added as it leaves. The lab's own backend never gets one.
struct TraceparentTransport: GraphQLTransport, ClientTransport {
    let base: RemoteTransport
    let traceparent: Traceparent

    func send(_ request: NetworkRequest) async throws -> NetworkResponse {
        var request = request
        request.headerFields = traceparent.adding(to: request.headerFields)
        return try await base.send(request)
    }

    func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        request.headerFields = traceparent.adding(to: request.headerFields)
        return try await base.send(request, body: body, baseURL: baseURL, operationID: operationID)
    }
}
