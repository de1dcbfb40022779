import ChainKit
import Vocabulary
public import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPServer
import Synchronization
public import Timeline

/// `chainlab serve --upstream URL`: a reverse proxy in front of a real server that breaks
/// auth and fails requests on command, so an app's own token refresh can be broken by hand.
///
/// ```swift
/// let proxy = UpstreamProxy(upstream: URL(string: "https://api.example.com")!, host: "127.0.0.1", port: 0) { print($0) }
/// let port = try proxy.start()
/// // POST /_lab/unauthorized-next {"count": 1, "match": {"operationName": "Me"}}
/// ```
///
/// Every request but `/_lab/` is forwarded: method, path and query under the upstream URL,
/// the headers without the hop-by-hop ones (RFC 9110 §7.6.1, and any `Connection` names),
/// the body; `Host` becomes the upstream's. The answer is streamed: its head goes to the
/// client as soon as it arrives, and its body with chunked transfer coding piece by piece
/// as the upstream sends it, so a multipart answer (@defer increments, subscription events)
/// reaches the app part by part. Memory stays bounded whatever the answer's size: each piece
/// is written to the app as soon as it arrives, at most 16 MiB may wait for an app slower
/// than the upstream (past that the exchange is cut; on Darwin reading from the upstream
/// pauses first, see ``URLSessionChunkReader``), and the HAR keeps at most `maxBodyBytes`
/// of each body.
/// An upstream that cannot be reached gets the client a `502` with a JSON reason, and the
/// proxy keeps serving; an upstream that fails in the middle of a body gets the client's
/// connection closed before the last chunk, so the client sees the body is incomplete.
///
/// Controls (`/_lab/`, never forwarded), each with an optional `"match"`:
/// `{"path": "/graphql"}` (the path without the query) and/or `{"operationName": "Me"}`:
/// - `POST /_lab/fail-next` `{"count": N, "status": 500…599}` (503 by default);
/// - `POST /_lab/unauthorized-next` `{"count": N, "mode": "status401"|"graphQLError200"}`:
///   answer 401, or 200 with an `UNAUTHENTICATED` GraphQL error, without forwarding;
/// - `POST /_lab/latency` `{"seconds": S}` (0 turns it off) holds matching answers back;
/// - `GET /_lab/state`: what is queued; `GET /_lab/har`: the session so far as HAR 1.2,
///   secrets masked.
///
/// `/_lab/state` has no `counters`, so `chainlab --endpoint` pointed at the proxy treats it
/// as the plain server it fronts.
public final class UpstreamProxy: Sendable {
    /// How an injected answer looks.
    public enum InjectedAnswer: Sendable, Hashable {
        case status(Int)
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

    /// The upstream's base URL; request targets are appended to its path.
    public let upstream: URL
    private let core: ProxyCore
    private let server: HTTPServer

    /// - Parameters:
    ///   - log: gets one line per exchange (time, method, path, operation, status, duration,
    ///     `injected` when the proxy answered itself).
    ///   - maxBodyBytes: the most of each body the HAR keeps; the client gets every byte.
    public init(
        upstream: URL, host: String, port: UInt16, timeout: Double = 30, maxBodyBytes: Int = 16 << 20,
        log: @escaping @Sendable (String) -> Void
    ) {
        self.upstream = upstream
        let core = ProxyCore(upstream: upstream, timeout: timeout, maxBodyBytes: maxBodyBytes, log: log)
        self.core = core
        server = HTTPServer(host: host, port: port, limits: HTTPRequestLimits(maxHeaderBytes: 64 << 10, maxBodyBytes: 16 << 20)) { request in
            await core.respond(to: request)
        }
    }

    /// Binds, starts listening and returns the port.
    @discardableResult
    public func start() throws -> UInt16 {
        try server.start()
    }

    /// Stops listening and closes every connection.
    public func stop() {
        server.stop()
    }

    /// The session so far as HAR 1.2 (what `GET /_lab/har` returns).
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

    /// Headers that describe one connection, not the message (RFC 9110 §7.6.1), plus the
    /// ones URLSession sets itself.
    static let hopByHop: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization", "te", "trailer",
        "transfer-encoding", "upgrade", "host", "content-length",
    ]

    /// The most of an answer that may wait for a slow app.
    static let maxUnread = 16 << 20

    let upstream: URL
    let timeout: Double
    /// For IPv6 address literals, which URLSession on Linux cannot reach: answers read whole.
    let client: RemoteHTTPClient
    let reader: URLSessionChunkReader
    let maxBodyBytes: Int
    let log: @Sendable (String) -> Void
    private let state = Mutex(State())
    private let store: TimelineStore
    private let started = Date()

    init(upstream: URL, timeout: Double, maxBodyBytes: Int, log: @escaping @Sendable (String) -> Void) {
        self.upstream = upstream
        let client = RemoteHTTPClient(timeout: timeout)
        self.client = client
        self.timeout = client.timeout
        let configuration = URLSessionConfiguration.ephemeral
        // The timeout is for silence: a stream (a subscription) may last longer than it.
        configuration.timeoutIntervalForRequest = client.timeout
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        reader = URLSessionChunkReader(configuration: configuration, followsRedirects: false, maxUnread: Self.maxUnread)
        self.maxBodyBytes = max(0, maxBodyBytes)
        self.log = log
        // The HAR keeps the latest exchanges; the store drops the oldest past its cap.
        store = (try? TimelineStore(cap: 20_000)) ?? TimelineStore()
    }

    func har(masking: SecretMasking) -> String {
        HARExport.archive(events: store.events(), masking: masking, anchor: OTLPExport.Anchor(epoch: started, idSeed: "chainlab serve --upstream \(upstream.absoluteString) \(started.timeIntervalSince1970)"))
    }

    private static func json(_ status: Int, _ value: JSONValue) -> HTTPServerResponse {
        HTTPServerResponse(status: status, headers: [HTTPServerHeader(name: "Content-Type", value: "application/json")], body: Data((value.jsonString + "\n").utf8))
    }

    func respond(to request: HTTPServerRequest) async -> HTTPServerResponse {
        let path = String(request.target.prefix { $0 != "?" })
        if path.hasPrefix("/_lab/") { return control(request, path: path) }
        let begin = ContinuousClock.now
        let operation = Self.operationName(of: request)
        let exchange = state.withLock { state -> (Int, UpstreamProxy.InjectedAnswer?, Double) in
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
        let (number, injected, latency) = exchange
        if latency > 0 { try? await Task.sleep(for: .seconds(latency)) }
        let exchanged = Exchanged(number: number, request: request, path: path, operation: operation, began: begin)
        if let injected {
            let response = Self.answer(injected)
            finish(exchanged, status: response.status, headers: response.headers, body: response.body, note: "injected")
            return response
        }
        switch await forward(request) {
        case .answered(let response):
            finish(exchanged, status: response.status, headers: response.headers, body: response.body, note: nil)
            return response
        case .streaming(let status, let headers, let chunks):
            let keep = maxBodyBytes
            return HTTPServerResponse(status: status, headers: headers, stream: HTTPServerBodyStream { [self] writer in
                var kept = Data()
                var failure: (any Error)?
                do {
                    for try await piece in chunks {
                        if kept.count < keep { kept.append(piece.prefix(keep - kept.count)) }
                        try writer.write(piece)
                    }
                } catch {
                    failure = error
                }
                finish(exchanged, status: status, headers: headers, body: kept, note: failure.map { _ in "cut" })
                if let failure { throw failure }
            })
        }
    }

    /// One exchange as the log and the HAR name it.
    private struct Exchanged {
        let number: Int
        let request: HTTPServerRequest
        let path: String
        let operation: String?
        let began: ContinuousClock.Instant
    }

    /// Records an exchange once its answer has gone out and prints its line; `note` is
    /// `injected` for the proxy's own answers and `cut` for a body the upstream broke off.
    private func finish(_ exchange: Exchanged, status: Int, headers: [HTTPServerHeader], body: Data, note: String?) {
        record(number: exchange.number, request: exchange.request, status: status, headers: headers, body: body, injected: note == "injected", began: exchange.began)
        let milliseconds = Int((ContinuousClock.now - exchange.began) / .milliseconds(1))
        let time = Date().formatted(Date.ISO8601FormatStyle(timeZone: .gmt).time(includingFractionalSeconds: true))
        let line = [time, VisibleEscapes.escape(exchange.request.method), VisibleEscapes.escape(exchange.path), exchange.operation.map(VisibleEscapes.escape) ?? "-",
                    "\(status)", "\(milliseconds)ms"] + (note.map { [$0] } ?? [])
        log(line.joined(separator: " "))
    }

    /// The GraphQL `operationName` of a request: from a JSON body, or from the query string.
    static func operationName(of request: HTTPServerRequest) -> String? {
        if !request.body.isEmpty, let name = (try? JSONValue(parsing: request.body))?["operationName"]?.stringValue { return name }
        guard let query = request.target.split(separator: "?", maxSplits: 1).dropFirst().first else { return nil }
        for pair in query.split(separator: "&") where pair.hasPrefix("operationName=") {
            return String(pair.dropFirst("operationName=".count)).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
        }
        return nil
    }

    static func answer(_ injected: UpstreamProxy.InjectedAnswer) -> HTTPServerResponse {
        switch injected {
        case .status(let status):
            json(status, ["error": "injected", "message": .string("chainlab serve --upstream answered \(status) instead of forwarding (fail-next)")])
        case .unauthorized401:
            json(401, ["errors": [["message": "Unauthorized (injected by chainlab serve)", "extensions": ["code": "UNAUTHENTICATED"]]]])
        case .unauthenticatedGraphQLError200:
            json(200, ["data": .null, "errors": [["message": "Unauthenticated (injected by chainlab serve)", "extensions": ["code": "UNAUTHENTICATED"]]]])
        }
    }

    private enum Forwarded {
        /// The proxy's own answer (a bad target, an upstream it could not reach).
        case answered(HTTPServerResponse)
        /// The upstream's head, and its body as it arrives.
        case streaming(status: Int, headers: [HTTPServerHeader], body: ChunkStream)
    }

    private func forward(_ request: HTTPServerRequest) async -> Forwarded {
        var base = upstream.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        guard let url = URL(string: base + request.target) else {
            return .answered(Self.json(400, ["error": "bad target", "message": .string("cannot forward \(VisibleEscapes.escape(request.target)) to \(RemoteFailure.displayURL(upstream))")]))
        }
        let named = Set(request.values(forHeader: "Connection").flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces).lowercased() })
        var headers = HTTPFields()
        // Accept-Encoding stays behind too: URLSession negotiates and decodes compression
        // itself, and the client gets the decoded body.
        for header in request.headers
        where !Self.hopByHop.contains(header.name.lowercased()) && !named.contains(header.name.lowercased()) && header.name.lowercased() != "accept-encoding" {
            if let field = try? HTTPField(name: header.name, value: header.value) { headers.append(field) }
        }
        // URLSession has already decoded a compressed body, so its encoding and length go.
        let dropped: Set<String> = Self.hopByHop.union(["content-encoding"])
        func forwarded(_ fields: HTTPFields) -> [HTTPServerHeader] {
            fields.filter { !dropped.contains($0.name.lowercased()) }.map { HTTPServerHeader(name: $0.name, value: $0.value) }
        }
        #if !canImport(Darwin)
        if let host = url.host, host.contains(":") {
            do {
                let answer = try await client.exchange(url: url, method: request.method, headers: headers, body: request.body, limit: 16 << 20)
                return .answered(HTTPServerResponse(status: answer.status, headers: forwarded(answer.headers), body: answer.body))
            } catch {
                return .answered(Self.json(502, ["error": "bad gateway", "message": .string("\(error)")]))
            }
        }
        #endif
        var urlRequest = RemoteHTTPClient.request(url: url, method: request.method, headers: headers, body: request.body)
        urlRequest.timeoutInterval = timeout
        do {
            let (head, body) = try await reader.start(urlRequest)
            return .streaming(status: head.statusCode, headers: forwarded(RemoteHTTPClient.headerFields(of: head)), body: body)
        } catch {
            let outcome: BoundedReader.Failure = error is URLSessionTransportError ? .notHTTP : .error(error)
            let failure = RemoteFailure(url: url, outcome: outcome, timeout: timeout)
            return .answered(Self.json(502, ["error": "bad gateway", "message": .string("\(failure)")]))
        }
    }

    private func record(number: Int, request: HTTPServerRequest, status: Int, headers: [HTTPServerHeader], body: Data, injected: Bool, began: ContinuousClock.Instant) {
        let sent = began - ContinuousClock.now + .seconds(Date().timeIntervalSince(started))
        let sentSeconds = Double(sent.components.seconds) + Double(sent.components.attoseconds) / 1e18
        let now = Date().timeIntervalSince(started)
        let requestHeaders = HTTPFields(request.headers.compactMap { try? HTTPField(name: $0.name, value: $0.value) })
        let responseHeaders = HTTPFields(headers.compactMap { try? HTTPField(name: $0.name, value: $0.value) })
        store.append(TimelineEvent(
            time: sentSeconds, request: number, attempt: 1, hop: 0, name: "upstream", kind: .transport, phase: .send,
            snapshot: HopSnapshot(method: request.method, url: RemoteFailure.displayURL(upstream) + request.target, headers: requestHeaders,
                                  body: request.body.isEmpty ? nil : BodyPreview(request.body))))
        store.append(TimelineEvent(
            time: now, request: number, attempt: 1, hop: 0, name: "upstream", kind: .transport, phase: .receive,
            snapshot: HopSnapshot(headers: responseHeaders, status: status, body: BodyPreview(body)),
            detail: injected ? "injected" : nil))
        store.markFinished(request: number)
    }

    private func control(_ request: HTTPServerRequest, path: String) -> HTTPServerResponse {
        switch (request.method, path) {
        case ("GET", "/_lab/state"):
            return state.withLock { state in
                let injections: [JSONValue] = state.injections.map { injection in
                    let kind: JSONValue = switch injection.answer {
                    case .status(let status): ["failNext": .number(Double(status))]
                    case .unauthorized401: ["unauthorizedNext": "status401"]
                    case .unauthenticatedGraphQLError200: ["unauthorizedNext": "graphQLError200"]
                    }
                    return ["remaining": .number(Double(injection.remaining)), "answer": kind, "match": .string(injection.match.description)]
                }
                return Self.json(200, [
                    "upstream": .string(RemoteFailure.displayURL(upstream)), "exchanges": .number(Double(state.exchanges)),
                    "injections": .array(injections),
                    "latency": state.latency.map { ["seconds": .number($0.seconds), "match": .string($0.match.description)] } ?? .null,
                ])
            }
        case ("GET", "/_lab/har"):
            return HTTPServerResponse(status: 200, headers: [HTTPServerHeader(name: "Content-Type", value: "application/json")], body: Data(har(masking: .masked).utf8))
        case ("POST", "/_lab/fail-next"), ("POST", "/_lab/unauthorized-next"), ("POST", "/_lab/latency"):
            switch Self.command(path: path, body: request.body) {
            case .failure(let error):
                return Self.json(400, ["error": "bad control", "message": .string(error.reason)])
            case .success(let command):
                return state.withLock { state in
                    switch command {
                    case .inject(let injection):
                        state.injections.append(injection)
                        return Self.json(200, ["queued": .number(Double(injection.remaining))])
                    case .latency(let seconds, let match):
                        state.latency = seconds > 0 ? (seconds, match) : nil
                        return Self.json(200, ["latency": .number(seconds)])
                    }
                }
            }
        default:
            return Self.json(404, ["error": "unknown control", "message": "controls: GET /_lab/state, GET /_lab/har, POST /_lab/fail-next, POST /_lab/unauthorized-next, POST /_lab/latency"])
        }
    }

    private enum Command {
        case inject(Injection)
        case latency(Double, UpstreamProxy.Match)
    }

    private struct ControlError: Error {
        let reason: String
    }

    private static func command(path: String, body: Data) -> Result<Command, ControlError> {
        let object: [String: JSONValue]
        if body.isEmpty {
            object = [:]
        } else {
            guard case .object(let parsed)? = try? JSONValue(parsing: body) else { return .failure(ControlError(reason: "the body must be a JSON object")) }
            object = parsed
        }
        var match = UpstreamProxy.Match()
        if let value = object["match"] {
            guard case .object(let members) = value else { return .failure(ControlError(reason: "match must be an object such as {\"path\": \"/graphql\"} or {\"operationName\": \"Me\"}")) }
            for key in members.keys where key != "path" && key != "operationName" {
                return .failure(ControlError(reason: "match has an unknown key \"\(VisibleEscapes.escape(key))\"; known: path, operationName"))
            }
            match.path = members["path"]?.stringValue
            match.operationName = members["operationName"]?.stringValue
        }
        if path == "/_lab/latency" {
            guard let seconds = object["seconds"]?.numberValue, seconds >= 0, seconds <= 600 else { return .failure(ControlError(reason: "seconds must be a number from 0 to 600")) }
            return .success(.latency(seconds, match))
        }
        let countValue = object["count"]?.numberValue ?? 1
        guard countValue >= 1, countValue <= 10_000, countValue == countValue.rounded() else { return .failure(ControlError(reason: "count must be a whole number from 1 to 10000")) }
        let count = Int(countValue)
        if path == "/_lab/fail-next" {
            let statusValue = object["status"]?.numberValue ?? 503
            guard statusValue >= 500, statusValue <= 599, statusValue == statusValue.rounded() else { return .failure(ControlError(reason: "status must be a whole number from 500 to 599")) }
            return .success(.inject(Injection(remaining: count, match: match, answer: .status(Int(statusValue)))))
        }
        switch object["mode"]?.stringValue ?? "status401" {
        case "status401": return .success(.inject(Injection(remaining: count, match: match, answer: .unauthorized401)))
        case "graphQLError200": return .success(.inject(Injection(remaining: count, match: match, answer: .unauthenticatedGraphQLError200)))
        default: return .failure(ControlError(reason: "mode must be status401 or graphQLError200"))
        }
    }
}
