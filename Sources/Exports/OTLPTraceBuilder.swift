import Timeline
import Wire
import Vocabulary
import Foundation
import Vocabulary

/// Turns timeline events into the spans of ``OTLPExport``: which events make which span,
/// how spans nest and link, and what each span and span event says.
///
/// - An operation's events before its first attempt are events of its span. A middleware
///   chain records its one pass as attempt 0; it becomes attempt 1.
/// - Within an attempt, a hop's events make one span per call of the hop: in a GraphQL chain
///   one per attempt; in a middleware chain one per call from the layer above (a retrying
///   middleware calls `next` again, and the middlewares below are called twice). The
///   transport's span is a CLIENT span; log lines join the span of the layer that wrote them.
/// - The token manager's events of an attempt, up to and including a `refresh` event, are one
///   token refresh; its other events (waking after another request's refresh) mark a wait.
///   Every attempt links to the refreshes it started or waited for.
struct OTLPTraceBuilder {
    private let events: [TimelineEvent]
    private let anchor: OTLPExport.Anchor
    private let masking: SecretMasking
    /// Every token refresh of the timeline, in order: its `refresh` event and its span id.
    private let refreshes: [(end: TimelineEvent, spanID: String, traceID: String)]

    init(events: [TimelineEvent], anchor: OTLPExport.Anchor, masking: SecretMasking) {
        self.events = events.sorted { $0.seq < $1.seq }
        self.anchor = anchor
        self.masking = masking
        var refreshes: [(end: TimelineEvent, spanID: String, traceID: String)] = []
        for event in self.events where event.kind == .auth && event.phase == .refresh && event.request > 0 {
            refreshes.append((event, Self.refreshSpanID(anchor, event), Self.traceID(anchor, event.request)))
        }
        self.refreshes = refreshes
    }

    private struct AttemptKey: Hashable {
        let request: Int, attempt: Int
        init(_ event: TimelineEvent) {
            request = event.request
            attempt = event.attempt
        }
    }

    // MARK: - Ids

    static func traceID(_ anchor: OTLPExport.Anchor, _ request: Int) -> String {
        String(SHA256Digest.hex(of: "\(anchor.idSeed) trace \(request)").prefix(32))
    }

    static func spanID(_ anchor: OTLPExport.Anchor, _ request: Int, _ place: String) -> String {
        String(SHA256Digest.hex(of: "\(anchor.idSeed) span \(request) \(place)").prefix(16))
    }

    /// Where an attempt's span is, in its span id's derivation.
    static func attemptPlace(_ attempt: Int) -> String {
        "attempt \(attempt)"
    }

    /// The CLIENT span of the transport exchange that `send` (or, without a send, the first
    /// event of the transport's pass) began.
    static func exchangeSpanID(_ anchor: OTLPExport.Anchor, _ send: TimelineEvent) -> String {
        spanID(anchor, send.request, "transport \(send.seq)")
    }

    /// The CLIENT span of the token refresh that ended with `refresh`.
    static func refreshSpanID(_ anchor: OTLPExport.Anchor, _ refresh: TimelineEvent) -> String {
        spanID(anchor, refresh.request, "refresh \(refresh.seq)")
    }

    // MARK: - Spans

    func spans(for requests: [RequestSummary]) -> [OTLPSpan] {
        var byRequest: [Int: [TimelineEvent]] = [:]
        for event in events where event.request > 0 { byRequest[event.request, default: []].append(event) }
        return requests.flatMap { spans(for: $0, events: byRequest[$0.id] ?? []) }
    }

    /// One CLIENT span per transport exchange and nothing more, each the root of its
    /// request's trace: what a proxy, which sees exchanges but no chain, has to tell.
    func exchangeSpans() -> [OTLPSpan] {
        var byRequest: [Int: [TimelineEvent]] = [:]
        for event in events where event.request > 0 { byRequest[event.request, default: []].append(event) }
        return byRequest.keys.sorted().map { request in
            let pass = byRequest[request]!
            let root = OTLPSpan(traceID: Self.traceID(anchor, request), spanID: "", name: "", kind: .internal, start: 0, end: 0)
            var span = exchangeSpan(pass, parent: root, resendCount: 0, templated: false, all: pass)
            span.parentSpanID = nil
            return span
        }
    }

    private func spans(for request: RequestSummary, events: [TimelineEvent]) -> [OTLPSpan] {
        let traceID = Self.traceID(anchor, request.id)
        let isGraphQL = request.operationType != nil
        var operation = OTLPSpan(
            traceID: traceID, spanID: Self.spanID(anchor, request.id, "operation"), name: request.operation,
            kind: .internal, start: events.map(\.time).min() ?? 0, end: events.map(\.time).max() ?? 0)
        if let type = request.operationType {
            operation.attributes = [("graphql.operation.name", .string(request.operation)), ("graphql.operation.type", .string(type))]
        } else {
            operation.attributes = [("chainlab.operation.id", .string(request.operation))]
        }
        operation.attributes += [
            ("chainlab.request", .int(request.id)),
            ("chainlab.outcome", .string(request.outcome.rawValue)),
            ("chainlab.attempts", .int(request.attempts)),
            ("chainlab.results", .strings(request.results)),
        ]
        if request.outcome == .failure { operation.status = .error(masking.text(request.error ?? "the operation failed")) }
        // A middleware chain records its one pass from the top as attempt 0 (its retries happen
        // inside it); only what precedes its first hop belongs to the operation itself.
        let isMiddleware = events.contains { $0.kind == .middleware }
        let firstHopSeq = events.first { $0.hop >= 0 }?.seq ?? Int.max
        var attempts: [Int: [TimelineEvent]] = [:]
        for event in events {
            let attempt = isMiddleware && event.seq >= firstHopSeq ? max(event.attempt, 1) : event.attempt
            if attempt < 1 {
                operation.events.append(spanEvent(event, in: events))
            } else {
                attempts[attempt, default: []].append(event)
            }
        }
        var spans = [operation]
        var exchangesSoFar = 0
        for attempt in attempts.keys.sorted() {
            var span = OTLPSpan(
                traceID: traceID, spanID: Self.spanID(anchor, request.id, Self.attemptPlace(attempt)),
                parentSpanID: operation.spanID, name: "attempt \(attempt)", kind: .internal,
                start: attempts[attempt]!.map(\.time).min()!, end: attempts[attempt]!.map(\.time).max()!,
                attributes: [("chainlab.attempt", .int(attempt))])
            if attempt == attempts.keys.max(), request.outcome == .failure { span.status = operation.status }
            let children = children(
                of: &span, events: attempts[attempt]!, all: events, isMiddleware: isMiddleware, isGraphQL: isGraphQL,
                exchangesSoFar: &exchangesSoFar)
            spans.append(span)
            spans += children
        }
        return spans
    }

    /// The spans under an attempt — its hops' calls, its transport exchanges, its refreshes —
    /// in the order they began; the attempt gets the token manager's other events and the
    /// links to the refreshes it started or waited for.
    private func children(
        of attempt: inout OTLPSpan, events attemptEvents: [TimelineEvent], all events: [TimelineEvent],
        isMiddleware: Bool, isGraphQL: Bool, exchangesSoFar: inout Int
    ) -> [OTLPSpan] {
        var hops: [Int: [TimelineEvent]] = [:]
        var auth: [TimelineEvent] = []
        var loose: [TimelineEvent] = []
        for event in attemptEvents {
            if event.kind == .auth {
                auth.append(event)
            } else if event.hop == TimelineEvent.noHop {
                loose.append(event)
            } else {
                hops[event.hop, default: []].append(event)
            }
        }
        var passes: [Int: [[TimelineEvent]]] = [:]
        for (hop, hopEvents) in hops {
            let calls = isMiddleware ? (hops[hop - 1] ?? []).filter { $0.phase == .preflight || $0.phase == .retry }.map(\.seq) : []
            passes[hop] = Self.invocations(hopEvents, calledAt: calls)
        }
        // A log line is the logging layer's: it joins that layer's pass it was written in.
        for event in loose {
            guard let hop = passes.keys.sorted().first(where: { hops[$0]![0].name == event.name }) else {
                attempt.events.append(spanEvent(event, in: events))
                continue
            }
            let index = passes[hop]!.lastIndex { $0[0].seq < event.seq } ?? 0
            passes[hop]![index].append(event)
            passes[hop]![index].sort { $0.seq < $1.seq }
        }
        var children: [(first: Int, span: OTLPSpan)] = []
        for hop in passes.keys.sorted() {
            for pass in passes[hop]! {
                guard pass[0].kind == .transport else {
                    children.append((pass[0].seq, hopSpan(pass, parent: attempt, all: events)))
                    continue
                }
                children.append((pass[0].seq, exchangeSpan(pass, parent: attempt, resendCount: exchangesSoFar, templated: isGraphQL, all: events)))
                if pass.contains(where: { $0.phase == .send }) { exchangesSoFar += 1 }
            }
        }
        var group: [TimelineEvent] = []
        for event in auth {
            group.append(event)
            guard event.phase == .refresh else { continue }
            let refresh = refreshSpan(group, parent: attempt, all: events)
            attempt.links.append(OTLPSpan.Link(traceID: attempt.traceID, spanID: refresh.spanID, attributes: [("chainlab.refresh", .string("started"))]))
            children.append((group[0].seq, refresh))
            group = []
        }
        for waited in group {
            attempt.events.append(spanEvent(waited, in: events))
            guard let refresh = refreshes.last(where: { $0.end.seq < waited.seq }),
                !attempt.links.contains(where: { $0.spanID == refresh.spanID })
            else { continue }
            attempt.links.append(OTLPSpan.Link(traceID: refresh.traceID, spanID: refresh.spanID, attributes: [("chainlab.refresh", .string("waited"))]))
        }
        return children.sorted { $0.first < $1.first }.map(\.span)
    }

    /// A hop's events of one attempt split by the calls that reached it: in a middleware chain
    /// the layer above calls `next` once per hand-on (a pre-flight or a forced retry), and each
    /// call is one pass through this hop. Without calls (a GraphQL chain, the top layer) the
    /// attempt is one pass.
    static func invocations(_ events: [TimelineEvent], calledAt calls: [Int]) -> [[TimelineEvent]] {
        var passes: [[TimelineEvent]] = []
        var lastCall: Int?
        for event in events {
            let call = calls.last { $0 < event.seq }
            if passes.isEmpty || call != lastCall {
                passes.append([event])
            } else {
                passes[passes.count - 1].append(event)
            }
            lastCall = call
        }
        return passes
    }

    private func hopSpan(_ pass: [TimelineEvent], parent: OTLPSpan, all: [TimelineEvent]) -> OTLPSpan {
        let first = pass.first { $0.hop != TimelineEvent.noHop } ?? pass[0]
        var span = OTLPSpan(
            traceID: parent.traceID, spanID: Self.spanID(anchor, first.request, "hop \(first.seq)"),
            parentSpanID: parent.spanID, name: first.name, kind: .internal,
            start: pass.map(\.time).min()!, end: pass.map(\.time).max()!,
            attributes: [("chainlab.hop.index", .int(first.hop)), ("chainlab.hop.kind", .string(first.kind.rawValue))])
        // A hop of the overlapping network fetch is a sibling of the GraphQL hops under the
        // attempt, as every hop is; the attribute says it ran in the network lane.
        if let lane = Self.lane(of: pass) { span.attributes.append(("chainlab.lane", .string(lane.rawValue))) }
        var previousHandOn: TimelineEvent?
        for event in pass {
            if event.phase == .preflight, event.kind == .middleware, let previous = previousHandOn {
                // A middleware that hands the request on again is retrying: say why.
                span.events.append(OTLPSpan.Event(time: event.time, name: Phase.retry.rawValue, attributes: [
                    ("chainlab.detail", .string("called next again")),
                    ("chainlab.origin", .string(Self.originOfRetry(between: previous, and: event, in: all))),
                ]))
            }
            if event.phase == .preflight { previousHandOn = event }
            span.events.append(spanEvent(event, in: all))
        }
        if let failure = pass.last(where: { $0.phase == .error }) {
            span.status = .error(masking.text(failure.error ?? failure.detail ?? "error"))
        }
        return span
    }

    /// ``Lane/network`` for a hop's pass that ran in an overlapping network fetch; nil otherwise
    /// (a GraphQL hop's pass spans both lanes: its pre-flight came before the split).
    static func lane(of pass: [TimelineEvent]) -> Lane? {
        pass.contains { $0.lane == .network } ? .network : nil
    }

    /// The transport's exchange as a CLIENT span after the HTTP client conventions.
    private func exchangeSpan(_ pass: [TimelineEvent], parent: OTLPSpan, resendCount: Int, templated: Bool, all: [TimelineEvent]) -> OTLPSpan {
        let send = pass.first { $0.phase == .send }
        let answer = pass.first { $0.phase == .receive || $0.phase == .error }
        var span = clientSpan(
            request: send, answer: answer, spanID: Self.exchangeSpanID(anchor, send ?? pass[0]), fallbackName: pass[0].name,
            templated: templated, parent: parent, pass: pass, all: all)
        if resendCount > 0, send != nil { span.attributes.append(("http.request.resend_count", .int(resendCount))) }
        if let lane = Self.lane(of: pass) { span.attributes.append(("chainlab.lane", .string(lane.rawValue))) }
        if send != nil, answer == nil, case .unset = span.status { span.status = .error("no response recorded") }
        return span
    }

    /// A token refresh as a CLIENT span: the `refresh_token` grant sent to the token endpoint.
    private func refreshSpan(_ group: [TimelineEvent], parent: OTLPSpan, all: [TimelineEvent]) -> OTLPSpan {
        let end = group.last!
        let request = group.first { $0.phase == .send } ?? group.first { $0.method != nil } ?? end
        var span = clientSpan(
            request: request, answer: end, spanID: Self.refreshSpanID(anchor, end), fallbackName: "token refresh",
            templated: true, parent: parent, pass: group, all: all)
        span.attributes.append(("chainlab.token.grant", .string("refresh_token")))
        return span
    }

    private func clientSpan(
        request: TimelineEvent?, answer: TimelineEvent?, spanID: String, fallbackName: String, templated: Bool,
        parent: OTLPSpan, pass: [TimelineEvent], all: [TimelineEvent]
    ) -> OTLPSpan {
        var attributes: [(String, OTLPValue)] = []
        var name = fallbackName
        if let method = request?.method, let url = request?.url {
            attributes.append(("http.request.method", .string(method)))
            attributes.append(("url.full", .string(masking.url(Self.redactingCredentials(url)))))
            let components = URLComponents(string: url)
            if let host = components?.host { attributes.append(("server.address", .string(host))) }
            if let port = components?.port ?? (components?.scheme == "https" ? 443 : components?.scheme == "http" ? 80 : nil) {
                attributes.append(("server.port", .int(port)))
            }
            if templated, let path = components?.path, !path.isEmpty {
                attributes.append(("url.template", .string(path)))
                name = "\(method) \(path)"
            } else {
                name = method
            }
        }
        var status = OTLPSpan.Status.unset
        if let code = answer?.status {
            attributes.append(("http.response.status_code", .int(code)))
            if code >= 400 {
                attributes.append(("error.type", .string(String(code))))
                status = .error(answer?.error.map(masking.text) ?? "\(code) \(ReasonPhrase.of(code))")
            }
        } else if let answer, answer.phase == .error || answer.error != nil {
            attributes.append(("error.type", .string("_OTHER")))
            status = .error(masking.text(answer.error ?? answer.detail ?? "error"))
        }
        var span = OTLPSpan(
            traceID: parent.traceID, spanID: spanID, parentSpanID: parent.spanID,
            name: name, kind: .client, start: pass.map(\.time).min()!, end: pass.map(\.time).max()!,
            attributes: attributes, events: pass.map { spanEvent($0, in: all) })
        span.status = status
        return span
    }

    /// `https://REDACTED:REDACTED@host/…` for a URL with credentials in it, as the HTTP
    /// conventions ask of `url.full` whether or not secrets are revealed.
    static func redactingCredentials(_ url: String) -> String {
        guard var components = URLComponents(string: url), components.user != nil || components.password != nil else { return url }
        components.percentEncodedUser = components.user == nil ? nil : "REDACTED"
        components.percentEncodedPassword = components.password == nil ? nil : "REDACTED"
        return components.string ?? url
    }

    // MARK: - Span events

    /// A timeline event as a span event named after its phase: its seq, detail, status and
    /// error, its header changes (names, and the values of added and changed headers, masked),
    /// and for a retry, an edit or an injected fault, who caused it.
    private func spanEvent(_ event: TimelineEvent, in all: [TimelineEvent]) -> OTLPSpan.Event {
        var attributes: [(String, OTLPValue)] = [("chainlab.seq", .int(event.seq))]
        if event.hop == TimelineEvent.noHop || event.kind == .auth { attributes.append(("chainlab.hop.name", .string(event.name))) }
        if let detail = event.detail { attributes.append(("chainlab.detail", .string(masking.text(detail)))) }
        if let lane = event.lane { attributes.append(("chainlab.lane", .string(lane.rawValue))) }
        if let status = event.status { attributes.append(("http.response.status_code", .int(status))) }
        if let error = event.error { attributes.append(("chainlab.error", .string(masking.text(error)))) }
        let diff = event.diff
        if !diff.isEmpty {
            if !diff.added.isEmpty { attributes.append(("chainlab.headers.added", .strings(diff.added))) }
            if !diff.changed.isEmpty { attributes.append(("chainlab.headers.changed", .strings(diff.changed))) }
            if !diff.removed.isEmpty { attributes.append(("chainlab.headers.removed", .strings(diff.removed))) }
            if let headers = event.headers {
                let side = event.method != nil ? "http.request.header." : "http.response.header."
                for name in diff.added + diff.changed {
                    let values = headers.values(for: name).map { masking.header(name: name, value: $0) }
                    attributes.append((side + HeaderDiff.lowercased(name), .strings(values)))
                }
            }
        }
        if let origin = Self.origin(of: event, in: all) { attributes.append(("chainlab.origin", .string(origin))) }
        return OTLPSpan.Event(time: event.time, name: event.phase.rawValue, attributes: attributes)
    }

    /// Who caused a retry, an edit or an injected fault: `person` for a command given at a
    /// stop (in the inspector, or replayed from its recording), `server` for a retry the
    /// server's answer caused (see ``originOfRetry(between:and:in:)`` for a middleware's).
    static func origin(of event: TimelineEvent, in all: [TimelineEvent]) -> String? {
        switch event.phase {
        case .edited, .injected:
            return "person"
        case .retry:
            let cause = all.last { earlier in
                earlier.seq < event.seq && earlier.request == event.request && earlier.attempt == event.attempt
                    && earlier.phase == .injected
            }
            return cause.flatMap { origin(of: $0, in: all) } ?? "server"
        default:
            return nil
        }
    }

    /// Why a middleware called `next` again after `previous`: `person` when a person edited or
    /// forced something below in between, `server` when the answer came from the transport,
    /// `scenario` when a layer below answered by itself (a fault the scenario's chain injects).
    static func originOfRetry(between previous: TimelineEvent, and next: TimelineEvent, in all: [TimelineEvent]) -> String {
        let below = all.filter { $0.request == next.request && $0.seq > previous.seq && $0.seq < next.seq && $0.hop > next.hop }
        if below.contains(where: { $0.phase == .edited || $0.phase == .injected }) { return "person" }
        if below.contains(where: { $0.kind == .transport && ($0.phase == .receive || $0.phase == .error) }) { return "server" }
        return "scenario"
    }
}
