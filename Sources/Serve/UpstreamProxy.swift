import ChainKit
import Vocabulary
public import Foundation
public import HTTPServer
import Synchronization
public import Timeline
import Exports
public import Outbound

/// `chainlab serve --upstream URL`: a reverse proxy in front of a real server that breaks
/// auth and fails requests on command, so an app's own token refresh can be broken by hand.
///
/// ```swift
/// let proxy = UpstreamProxy(upstream: URL(string: "http://127.0.0.1:4000")!, host: "127.0.0.1", port: 0) { print($0) }
/// let port = try proxy.start()
/// // POST /_lab/unauthorized-next {"count": 1, "match": {"operationName": "Me"}}
/// ```
///
/// Every request but `/_lab/` is forwarded: method, target (dot segments removed, under the
/// upstream URL's path; one that climbs above it is refused with 400), the headers without
/// the hop-by-hop ones (RFC 9110 §7.6.1, and any `Connection` names), `Host` the upstream's,
/// the body (a chunked upload is forwarded with its length). Over `http://` the proxy adds
/// no field of its own and an answer's repeated fields (two `Set-Cookie`) stay separate;
/// over `https://` URLSession carries the exchange (see ``UpstreamRoute``). The answer's head
/// goes to the client as soon as it arrives and its body piece by piece, read from the
/// upstream only as fast as the client takes it: a client that leaves ends the upstream
/// exchange.
/// An upstream that cannot be reached gets the client a `502` with a JSON reason, and the
/// proxy keeps serving; an upstream that fails in the middle of a body gets the client's
/// connection closed before the last chunk, so the client sees the body is incomplete.
///
/// Controls (`/_lab/`, never forwarded), each with an optional `"match"`:
/// `{"path": "/graphql"}` (the path without the query) and/or `{"operationName": "Me"}`:
/// - `POST /_lab/fail-next` `{"count": N, "status": 400…599, "headers": {"Retry-After": "2"}}`
///   (503 by default);
/// - `POST /_lab/unauthorized-next` `{"count": N, "mode": "status401"|"graphQLError200"}`:
///   answer 401 with `WWW-Authenticate: Bearer error="invalid_token"`, or 200 with an
///   `UNAUTHENTICATED` GraphQL error, without forwarding;
/// - `POST /_lab/latency` `{"seconds": S}` (0 turns it off) holds matching answers back;
/// - `POST /_lab/reset`: no injections, no latency, an empty log;
/// - `GET /_lab/state`: what is queued and what the HAR holds; `GET /_lab/har`: the
///   exchanges kept as HAR 1.2, secrets masked, the proxy's own answers marked.
///
/// `/_lab/state` has no `counters`, so `chainlab --endpoint` pointed at the proxy treats it
/// as the plain server it fronts.
public final class UpstreamProxy: Sendable {
    /// How an injected answer looks.
    public enum InjectedAnswer: Sendable, Hashable {
        /// `fail-next`: a status and the extra fields to send with it.
        case status(Int, headers: [HTTPServerHeader])
        case unauthorized401
        case unauthenticatedGraphQLError200
    }

    /// Which requests a control applies to.
    public struct Match: Sendable, Hashable, CustomStringConvertible {
        public var path: String?
        public var operationName: String?

        public init(path: String? = nil, operationName: String? = nil) {
            self.path = path
            self.operationName = operationName
        }

        func matches(path: String, operationName: String?) -> Bool {
            (self.path == nil || self.path == path) && (self.operationName == nil || self.operationName == operationName)
        }

        public var description: String {
            [path.map { "path \($0)" }, operationName.map { "operation \($0)" }].compactMap { $0 }.joined(separator: ", ")
        }
    }

    /// The upstream's base URL; request targets are put under its path.
    public let upstream: URL
    private let core: ProxyCore
    private let server: HTTPServer

    /// - Parameters:
    ///   - recording: how much the HAR keeps of each body and in all.
    ///   - maxConnections: clients served at once (more get 503); each holds at most one
    ///     request body, so this and ``maxRequestBody`` bound the memory of exchanges in flight.
    ///   - otlp: where each exchange goes as a span, and the service name it carries.
    ///   - log: gets one line per exchange (time, method, path, operation, status, duration,
    ///     `injected` when the proxy answered itself, `cut` when the body broke off).
    public init(
        upstream: URL, host: String, port: UInt16, timeout: Double = 30, recording: ProxyRecordingLimits = ProxyRecordingLimits(),
        maxConnections: Int = 256, otlp: (sender: OTLPSender, serviceName: String)? = nil, log: @escaping @Sendable (String) -> Void
    ) {
        self.upstream = upstream
        let core = ProxyCore(upstream: upstream, timeout: timeout, recording: recording, otlp: otlp, log: log)
        self.core = core
        server = HTTPServer(
            host: host, port: port, limits: HTTPRequestLimits(maxHeaderBytes: 64 << 10, maxBodyBytes: Self.maxRequestBody), maxConnections: maxConnections
        ) { request in
            await core.respond(to: request)
        }
    }

    /// The largest request body the proxy takes (413 past it); each connection holds at
    /// most one request's body at a time.
    public static let maxRequestBody = 16 << 20

    /// The most memory the proxy holds for its traffic with these limits: the HAR's total;
    /// the idle upstream connections' read buffers; and, per connection in flight, its
    /// request body (twice its limit while it arrives), the read buffers of its two sides
    /// and an answer read whole. Over `https://`, URLSession may hold up to
    /// ``maxRequestBody`` more of an answer an app reads slowly; that is not counted.
    public static func memoryBound(recording: ProxyRecordingLimits, maxConnections: Int) -> Int {
        let perConnection = 2 * maxRequestBody + 2 * HTTPServer.readBufferBytes + UpstreamRoute.wholeLimit
        return recording.totalBytes + UpstreamPool.maxIdle * HTTPServer.readBufferBytes + max(0, maxConnections) * perConnection
    }

    /// Binds, starts listening and returns the port.
    @discardableResult
    public func start() throws -> UInt16 {
        try server.start()
    }

    /// Ends every upstream exchange, stops listening and closes every connection; spans
    /// not yet exported get up to `otlpGrace` to leave.
    public func stop(otlpGrace: Duration = .milliseconds(500)) async {
        core.route.stop()
        server.stop()
        await core.otlp?.finish(waitingUpTo: otlpGrace)
    }

    /// The exchanges kept, as HAR 1.2 (what `GET /_lab/har` returns).
    public func har(masking: SecretMasking = .masked) -> String {
        core.har(masking: masking)
    }
}

/// The proxy's state and its answer to each request.
private final class ProxyCore: Sendable {
    private struct Injection {
        var remaining: Int
        var match: UpstreamProxy.Match
        var answer: UpstreamProxy.InjectedAnswer
    }

    private struct State {
        var injections: [Injection] = []
        var latency: (seconds: Double, match: UpstreamProxy.Match)?
        var exchanges = 0
    }

    let upstream: URL
    let timeout: Double
    let route: UpstreamRoute
    let records: ProxyLog
    let otlp: ProxyOTLPExport?
    let log: @Sendable (String) -> Void
    private let state = Mutex(State())
    private let started = Date()
    private let startedInstant = ContinuousClock.now
    private let anchor: OTLPExport.Anchor
    /// `host[:port]` as the upstream's `Host` field gives it.
    private let authority: String
    /// The upstream's scheme and authority, and as logs and the HAR show them (credentials masked).
    private let originURL: URL
    private let origin: String

    init(upstream: URL, timeout: Double, recording: ProxyRecordingLimits, otlp: (sender: OTLPSender, serviceName: String)?, log: @escaping @Sendable (String) -> Void) {
        self.upstream = upstream
        self.timeout = timeout
        route = UpstreamRoute.forUpstream(upstream, timeout: timeout)
        records = ProxyLog(limits: recording)
        self.log = log
        let anchor = OTLPExport.Anchor(epoch: started, idSeed: "chainlab serve --upstream \(upstream.absoluteString) \(started.timeIntervalSince1970)")
        self.anchor = anchor
        self.otlp = otlp.map { otlp in
            var options = OTLPExport.Options(serviceName: otlp.serviceName, anchor: anchor, masking: .masked)
            options.tlsUnverified = HTTPSTrust.current == .unverified
            return ProxyOTLPExport(sender: otlp.sender, options: options, report: log)
        }
        let host = upstream.host ?? ""
        authority = upstream.port.map { "\(host):\($0)" } ?? host
        originURL = upstream.withPath("")
        origin = RemoteFailure.displayURL(originURL)
    }

    func har(masking: SecretMasking) -> String {
        HARExport.archive(events: ProxyLog.events(of: records.exchanges()), masking: masking, anchor: anchor, tlsUnverified: HTTPSTrust.current == .unverified)
    }

    private static func json(_ status: Int, _ value: JSONValue, headers: [HTTPServerHeader] = []) -> HTTPServerResponse {
        HTTPServerResponse(status: status, headers: [HTTPServerHeader(name: "Content-Type", value: "application/json")] + headers, body: Data((value.jsonString + "\n").utf8))
    }

    private var now: Double { (ContinuousClock.now - startedInstant) / .seconds(1) }

    func respond(to request: HTTPServerRequest) async -> HTTPServerResponse {
        let path = String(request.target.prefix { $0 != "?" })
        if path.hasPrefix("/_lab/") { return control(request, path: path) }
        let began = now
        let operation = Self.operationName(of: request)
        let (number, injected, latency) = state.withLock { state -> (Int, UpstreamProxy.InjectedAnswer?, Double) in
            state.exchanges += 1
            var answer: UpstreamProxy.InjectedAnswer?
            if let index = state.injections.firstIndex(where: { $0.match.matches(path: path, operationName: operation) }) {
                answer = state.injections[index].answer
                state.injections[index].remaining -= 1
                if state.injections[index].remaining == 0 { state.injections.remove(at: index) }
            }
            let latency = state.latency.flatMap { $0.match.matches(path: path, operationName: operation) ? $0.seconds : nil } ?? 0
            return (state.exchanges, answer, latency)
        }
        if latency > 0 { try? await Task.sleep(for: .seconds(latency)) }
        let limit = records.limits.bodyBytes
        var exchange = ProxyExchange(
            number: number, sent: began, received: began, method: request.method, url: origin + request.target,
            requestHeaders: Self.fields(request.headers), requestBody: ProxyExchange.kept(request.body, limit: limit), requestBodySize: request.body.count,
            status: 0, responseHeaders: HTTPFields(), responseBody: Data(), responseBodySize: 0, note: nil, isError: false)
        let line = LogLine(method: request.method, path: path, operation: operation, began: ContinuousClock.now)

        let target: String
        switch ProxyTarget.resolve(request.target, basePath: upstream.path) {
        case .failure(let refusal):
            let response = Self.json(400, ["error": "bad target", "message": .string(refusal.description)])
            finish(&exchange, line, response: response, note: "refused: \(refusal.description)", logNote: "refused")
            return response
        case .success(let resolved):
            target = resolved
        }
        exchange.url = origin + target
        var forwarded = [HTTPServerHeader(name: "Host", value: authority)] + HopByHop.removed(from: request.headers, also: ["host", "expect"])
        if !request.body.isEmpty || request.values(forHeader: "Content-Length").count > 0 || request.values(forHeader: "Transfer-Encoding").count > 0 {
            forwarded.append(HTTPServerHeader(name: "Content-Length", value: String(request.body.count)))
        }
        exchange.requestHeaders = Self.fields(forwarded)

        if let injected {
            let response = Self.answer(injected)
            finish(&exchange, line, response: response, note: "injected: \(response.status) (\(injected.control))", logNote: "injected")
            return response
        }
        let answer: UpstreamAnswer
        do {
            answer = try await route.forward(method: request.method, origin: originURL, target: target, headers: forwarded, body: request.body, timeout: timeout)
        } catch {
            let failure = (error as? HTTPClientError).map { RemoteFailure(url: exchange.url, client: $0, timeout: timeout) }
                ?? RemoteFailure(url: upstream.withPath(target), outcome: error is URLSessionTransportError ? .notHTTP : .error(error), timeout: timeout)
            let response = Self.json(502, ["error": "bad gateway", "message": .string("\(failure)")])
            exchange.isError = true
            finish(&exchange, line, response: response, note: "\(failure)", logNote: "bad-gateway")
            return response
        }
        exchange.status = answer.status
        exchange.responseHeaders = Self.fields(answer.headers)
        exchange.received = now
        if case .whole(let body) = answer.body {
            let response = HTTPServerResponse(status: answer.status, headers: answer.headers, body: body)
            finish(&exchange, line, response: response, note: nil, logNote: nil)
            return response
        }
        return HTTPServerResponse(status: answer.status, headers: answer.headers, stream: HTTPServerBodyStream { [self, exchange] writer in
            var exchange = exchange
            var kept = Data()
            var size = 0
            let relay = { (piece: Data) throws(HTTPServerClientGone) in
                size += piece.count
                if kept.count < limit { kept.append(piece.prefix(limit - kept.count)) }
                try writer.write(piece)
            }
            var failure: (any Error)?
            do {
                try await Self.pump(answer.body, relay)
            } catch {
                failure = error
            }
            exchange.responseBody = kept
            exchange.responseBodySize = size
            record(&exchange, line, status: answer.status, note: failure.map { "cut: \($0)" }, logNote: failure.map { _ in "cut" })
            if let failure { throw failure }
        })
    }

    /// Reads a streamed body and hands each piece on as it comes. When handing on fails
    /// (the client left) or the task is cancelled (the proxy stops), the upstream connection
    /// is closed, so nothing more is pulled from the upstream.
    private static func pump(_ body: UpstreamBody, _ relay: (Data) throws(HTTPServerClientGone) -> Void) async throws {
        switch body {
        case .whole(let data):
            try relay(data)
        case .connection(let connection, let pool):
            do {
                try await withTaskCancellationHandler {
                    while let piece = try connection.readBody() { try relay(piece) }
                } onCancel: {
                    connection.interrupt()
                }
                pool.release(connection)
            } catch {
                pool.discard(connection)
                throw error
            }
        case .session(let chunks):
            for try await piece in chunks { try relay(piece) }
        }
    }

    /// What a log line names, and when the exchange began.
    private struct LogLine {
        let method: String
        let path: String
        let operation: String?
        let began: ContinuousClock.Instant
    }

    /// Records an exchange the proxy answered whole.
    private func finish(_ exchange: inout ProxyExchange, _ line: LogLine, response: HTTPServerResponse, note: String?, logNote: String?) {
        exchange.status = response.status
        exchange.responseHeaders = Self.fields(response.headers)
        exchange.responseBody = ProxyExchange.kept(response.body, limit: records.limits.bodyBytes)
        exchange.responseBodySize = response.body.count
        record(&exchange, line, status: response.status, note: note, logNote: logNote)
    }

    /// Keeps an exchange for the HAR and the OTLP export once its answer has gone out, and
    /// prints its line.
    private func record(_ exchange: inout ProxyExchange, _ line: LogLine, status: Int, note: String?, logNote: String?) {
        exchange.note = note
        exchange.received = now
        records.append(exchange)
        otlp?.add(exchange)
        let milliseconds = Int((ContinuousClock.now - line.began) / .milliseconds(1))
        let time = Date().formatted(Date.ISO8601FormatStyle(timeZone: .gmt).time(includingFractionalSeconds: true))
        let words = [time, VisibleEscapes.escape(line.method), VisibleEscapes.escape(line.path), line.operation.map(VisibleEscapes.escape) ?? "-",
                     "\(status)", "\(milliseconds)ms"] + (logNote.map { [$0] } ?? [])
        log(words.joined(separator: " "))
    }

    private static func fields(_ headers: [HTTPServerHeader]) -> HTTPFields {
        HTTPFields(headers.compactMap { try? HTTPField(name: $0.name, value: $0.value) })
    }

    /// The GraphQL `operationName` of a request: from a JSON body, or from the query string.
    static func operationName(of request: HTTPServerRequest) -> String? {
        if !request.body.isEmpty, request.body.first == UInt8(ascii: "{"), let name = (try? JSONValue(parsing: request.body))?["operationName"]?.stringValue { return name }
        guard let query = request.target.split(separator: "?", maxSplits: 1).dropFirst().first else { return nil }
        for pair in query.split(separator: "&") where pair.hasPrefix("operationName=") {
            return String(pair.dropFirst("operationName=".count)).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
        }
        return nil
    }

    static func answer(_ injected: UpstreamProxy.InjectedAnswer) -> HTTPServerResponse {
        switch injected {
        case .status(let status, let headers):
            json(status, ["error": "injected", "message": .string("chainlab serve --upstream answered \(status) instead of forwarding (fail-next)")], headers: headers)
        case .unauthorized401:
            json(401, ["errors": [["message": "Unauthorized (injected by chainlab serve)", "extensions": ["code": "UNAUTHENTICATED"]]]],
                 headers: [HTTPServerHeader(name: "WWW-Authenticate", value: "Bearer error=\"invalid_token\"")])
        case .unauthenticatedGraphQLError200:
            json(200, ["data": .null, "errors": [["message": "Unauthenticated (injected by chainlab serve)", "extensions": ["code": "UNAUTHENTICATED"]]]])
        }
    }

    private func control(_ request: HTTPServerRequest, path: String) -> HTTPServerResponse {
        switch (request.method, path) {
        case ("GET", "/_lab/state"):
            let usage = records.usage
            return state.withLock { state in
                let injections: [JSONValue] = state.injections.map { injection in
                    let kind: JSONValue = switch injection.answer {
                    case .status(let status, _): ["failNext": .number(Double(status))]
                    case .unauthorized401: ["unauthorizedNext": "status401"]
                    case .unauthenticatedGraphQLError200: ["unauthorizedNext": "graphQLError200"]
                    }
                    return ["remaining": .number(Double(injection.remaining)), "answer": kind, "match": .string(injection.match.description)]
                }
                return Self.json(200, [
                    "upstream": .string(RemoteFailure.displayURL(upstream)), "exchanges": .number(Double(state.exchanges)),
                    "injections": .array(injections),
                    "latency": state.latency.map { ["seconds": .number($0.seconds), "match": .string($0.match.description)] } ?? .null,
                    "har": [
                        "exchanges": .number(Double(usage.exchanges)), "bytes": .number(Double(usage.bytes)),
                        "maxBodyBytes": .number(Double(records.limits.bodyBytes)), "maxTotalBytes": .number(Double(records.limits.totalBytes)),
                        "droppedBodies": .number(Double(usage.droppedBodies)), "droppedExchanges": .number(Double(usage.droppedExchanges)),
                    ],
                ])
            }
        case ("GET", "/_lab/har"):
            return HTTPServerResponse(status: 200, headers: [HTTPServerHeader(name: "Content-Type", value: "application/json")], body: Data(har(masking: .masked).utf8))
        case ("POST", "/_lab/reset"):
            state.withLock { state in
                state.injections = []
                state.latency = nil
            }
            records.reset()
            return Self.json(200, ["reset": true])
        case ("POST", "/_lab/fail-next"), ("POST", "/_lab/unauthorized-next"), ("POST", "/_lab/latency"):
            switch ProxyControl.command(path: path, body: request.body) {
            case .failure(let error):
                return Self.json(400, ["error": "bad control", "message": .string(error.reason)])
            case .success(let command):
                return state.withLock { state in
                    switch command {
                    case .inject(let count, let match, let answer):
                        state.injections.append(Injection(remaining: count, match: match, answer: answer))
                        return Self.json(200, ["queued": .number(Double(count))])
                    case .latency(let seconds, let match):
                        state.latency = seconds > 0 ? (seconds, match) : nil
                        return Self.json(200, ["latency": .number(seconds)])
                    }
                }
            }
        default:
            return Self.json(404, ["error": "unknown control", "message": .string("controls: \(ProxyControl.list)")])
        }
    }
}

extension UpstreamProxy.InjectedAnswer {
    /// The control that queued it, as the HAR names it.
    var control: String {
        if case .status = self { "fail-next" } else { "unauthorized-next" }
    }
}

private extension URL {
    /// The scheme and authority of this URL with `target` (path and query) after them.
    func withPath(_ target: String) -> URL {
        var base = absoluteString
        if let pathStart = base.range(of: "://").flatMap({ base[$0.upperBound...].firstIndex(of: "/") }) { base = String(base[..<pathStart]) }
        return URL(string: base + target) ?? self
    }
}
