import ChainKit
import Timeline

/// Timeline events shaped like one pass of the `basics` chain (MaxRetry, Auth, APQ, cache,
/// ResponseCode, transport, parser), with typical headers and no bodies.
///
/// Sharing follows the instrumentation: a hop that saw the same request or result as the hop
/// before it shares that hop's ``HopSnapshot`` (`OperationContext` keeps the last one of each
/// kind), the transport's received response gets its own snapshot (it carries the body) and
/// the hops above it share one of the head, header lists are shared per message
/// (copy-on-write values), and events without a message share ``HopSnapshot/empty``. Hop
/// names and the URL are the same strings for every request, as the instrumentation's type
/// name cache makes them.
struct TypicalTraffic {
    static let eventsPerRequest = 14
    static let url = "https://lab.chainlab.local/graphql"
    static let names = [
        "MaxRetryInterceptor", "AuthInterceptor", "AutomaticPersistedQueryInterceptor", "cache",
        "ResponseCodeInterceptor", "transport", "JSONResponseParsingInterceptor",
    ]
    static let kinds: [HopKind] = [.graphql, .graphql, .graphql, .cache, .http, .transport, .parser]

    let authorization = "Bearer lab-access-7d3f9a1c5e2b4d6f8a0c1e3b5d7f9a2c"
    let date = "Tue, 04 Mar 2025 10:00:00 GMT"

    /// Request `request`'s events, in the order the chain publishes them.
    func events(request: Int) throws -> [TimelineEvent] {
        // A per-request id makes each request's header lists its own, as in real traffic.
        let id = "req-\(request)-5f2c9e1a-7b3d-4c8e-9f0a"
        let sent = try HTTPFields([
            "Content-Type": "application/json", "Accept": ChainRequest.deferAccept,
            "Authorization": authorization, "X-Request-ID": id,
        ])
        let received = try HTTPFields([
            "Content-Type": "application/json", "Content-Length": "58", "Date": date,
            "Cache-Control": "no-store", "Server": "chainlab-lab", "X-Request-ID": id,
        ])
        let added = HeaderDiff(added: ["Authorization"])
        func event(_ hop: Int, _ phase: Phase, _ snapshot: HopSnapshot, diff: HeaderDiff = .none, detail: String? = nil) -> TimelineEvent {
            TimelineEvent(
                time: Double(request) * 0.001, request: request, attempt: 1, hop: hop, name: Self.names[hop],
                kind: Self.kinds[hop], phase: phase, snapshot: snapshot, diff: diff, detail: detail)
        }
        var unauthorized = sent
        unauthorized.remove("Authorization")
        let beforeAuth = HopSnapshot(method: "POST", url: Self.url, headers: unauthorized)
        let afterAuth = HopSnapshot(method: "POST", url: Self.url, headers: sent)
        let onTheWire = HopSnapshot(method: "POST", url: Self.url, headers: sent)
        let result = HopSnapshot(status: 200)
        let responseHead = HopSnapshot(headers: received, status: 200)
        return [
            event(0, .preflight, beforeAuth),
            event(1, .preflight, afterAuth, diff: added),
            event(2, .preflight, afterAuth),
            event(3, .cacheMiss, .empty, detail: "CacheFirst"),
            event(4, .preflight, onTheWire),
            event(5, .send, onTheWire),
            event(5, .receive, HopSnapshot(headers: received, status: 200)),
            event(4, .postflight, responseHead),
            event(6, .preflight, responseHead),
            event(6, .postflight, result),
            event(2, .postflight, result, detail: "server"),
            event(1, .postflight, result, detail: "server"),
            event(0, .postflight, result, detail: "server"),
            event(3, .postflight, result, detail: "cache write"),
        ]
    }
}
