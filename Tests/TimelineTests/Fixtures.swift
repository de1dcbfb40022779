import ChainKit
import Foundation
import Timeline

/// Shared timelines for the exporter tests: small enough to state the expected output
/// literally.
enum Fixtures {
    static let graphqlURL = "https://lab.local/graphql"

    static func fields(_ pairs: [(String, String)]) -> HTTPFields {
        do {
            return try HTTPFields(pairs: pairs)
        } catch {
            preconditionFailure("fixture headers are valid: \(error)")
        }
    }

    static let plainRequest = HopSnapshot(
        method: "POST", url: graphqlURL, headers: fields([("Content-Type", "application/json")]),
        body: BodyPreview(Data(#"{"query":"{hero{name}}"}"#.utf8)))

    static let authorizedRequest = HopSnapshot(
        method: "POST", url: graphqlURL,
        headers: fields([("Content-Type", "application/json"), ("Authorization", "Bearer abcdefa1f3")]),
        body: BodyPreview(Data(#"{"query":"{hero{name}}"}"#.utf8)))

    static let okResponse = HopSnapshot(
        headers: fields([("Content-Type", "application/json"), ("Set-Cookie", "sid=0123456789; Path=/")]), status: 200,
        body: BodyPreview(Data(#"{"data":{"hero":{"name":"R2-D2"}}}"#.utf8)))

    static let unauthorizedResponse = HopSnapshot(
        headers: fields([("Content-Type", "application/json")]), status: 401,
        body: BodyPreview(Data(#"{"errors":[{"message":"UNAUTHENTICATED"}]}"#.utf8)))

    static func event(
        _ time: Double, request: Int = 1, attempt: Int = 1, hop: Int, _ name: String, _ kind: HopKind, _ phase: Phase,
        _ snapshot: HopSnapshot = .empty, diff: HeaderDiff = .none, detail: String? = nil
    ) -> TimelineEvent {
        TimelineEvent(
            time: time, request: request, attempt: attempt, hop: hop, name: name, kind: kind, phase: phase,
            snapshot: snapshot, diff: diff, detail: detail)
    }

    /// Events as a store would hand them out: seq assigned from 1.
    static func stored(_ events: [TimelineEvent]) -> [TimelineEvent] {
        let store = TimelineStore()
        for event in events { store.append(event) }
        return store.events()
    }

    /// The Auth hop adds Authorization, the transport answers, and the token manager fails a
    /// refresh.
    static let threeEvents = stored([
        event(0.004, hop: 1, "AuthInterceptor", .graphql, .preflight, authorizedRequest, diff: HeaderDiff(added: ["Authorization"])),
        event(0.016, hop: 3, "transport", .transport, .receive, okResponse),
        event(0.5, request: 2, hop: TimelineEvent.noHop, "TokenManager", .auth, .refresh,
              HopSnapshot(status: 400, error: "invalid_grant"), detail: "rotation"),
    ])

    /// Request 1 is refused with 401, retried with a token and answered; request 2 times out
    /// at the transport.
    static let retriedRequest = stored([
        event(0, hop: 0, "MaxRetryInterceptor", .graphql, .preflight, plainRequest),
        event(0, hop: 1, "AuthInterceptor", .graphql, .preflight, authorizedRequest, diff: HeaderDiff(added: ["Authorization"])),
        event(0.001, hop: 2, "transport", .transport, .send, authorizedRequest),
        event(0.013, hop: 2, "transport", .transport, .receive, unauthorizedResponse),
        event(0.013, hop: 1, "AuthInterceptor", .graphql, .retry, unauthorizedResponse, detail: "token expired"),
        event(0.02, attempt: 2, hop: 0, "MaxRetryInterceptor", .graphql, .preflight, plainRequest),
        event(0.02, attempt: 2, hop: 1, "AuthInterceptor", .graphql, .preflight, authorizedRequest, diff: HeaderDiff(added: ["Authorization"])),
        event(0.021, attempt: 2, hop: 2, "transport", .transport, .send, authorizedRequest),
        event(0.033, attempt: 2, hop: 2, "transport", .transport, .receive, okResponse),
        event(0.034, attempt: 2, hop: 1, "AuthInterceptor", .graphql, .postflight, okResponse),
        event(0.034, attempt: 2, hop: 0, "MaxRetryInterceptor", .graphql, .postflight, okResponse),
        event(1, request: 2, hop: 2, "transport", .transport, .send, plainRequest),
        event(31, request: 2, hop: 2, "transport", .transport, .error, HopSnapshot(error: "timed out after 30s")),
    ])
}
