import ChainKit
public import Foundation
import Timeline
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// What an app's provider is given when its chain runs in a lab scenario: the lab backend's
/// addresses, a `URLSession` that reaches it in process, and the tokens the scenario starts
/// with.
///
/// A request the session sends to ``tokenURL`` is recorded on the timeline as the refresh of
/// the request whose interceptor code is running (its pre-flight, or its error mapper once an
/// error has reached it). It has no stop of its own, unlike the lab's refreshes: the app's
/// token manager may make a request wait for another's refresh in ways the lab cannot see,
/// and a stop there would hold both for ever. Its requests are stepped at their hops, before
/// and after the refresh.
public struct AppBackend: Sendable {
    /// Where the scenario's operations go.
    public let graphQLURL: URL
    /// The lab's OAuth token endpoint (`POST`, form-encoded grants).
    public let tokenURL: URL
    /// Reaches the lab backend in process; use it where the app uses `URLSession.shared`.
    public let urlSession: URLSession
    /// The access token the scenario starts with (expired when the scenario says so).
    public let accessToken: String
    /// The refresh token that goes with it.
    public let refreshToken: String?
}

/// Serves the `URLSession` of an ``AppBackend``: requests to a registered lab host go to that
/// lab's handler in process.
final class LabURLProtocol: URLProtocol {
    typealias Handler = @Sendable (URLRequest) async -> (status: Int, headers: HTTPFields, body: Data)

    private static let handlers = Locked<[String: Handler]>([:])
    private static let nextHost = Locked(0)

    /// A host of its own for `handler`, until ``unregister(host:)``.
    static func register(_ handler: @escaping Handler) -> String {
        let host = nextHost.withLock { number in
            number += 1
            return "app-\(number).lab.chainlab.local"
        }
        handlers.withLock { $0[host] = handler }
        return host
    }

    static func unregister(host: String) {
        _ = handlers.withLock { $0.removeValue(forKey: host) }
    }

    /// A session whose requests to registered hosts come here.
    static func session() -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [LabURLProtocol.self]
        return URLSession(configuration: configuration)
    }

    override class func canInit(with request: URLRequest) -> Bool {
        guard let host = request.url?.host else { return false }
        return handlers.withLock { $0[host] != nil }
    }

    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    /// The answer on its way; FoundationNetworking may stop it from another thread.
    private let delivery = Locked<Delivery?>(nil)

    override func startLoading() {
        guard let url = request.url, let host = url.host, let handler = Self.handlers.withLock({ $0[host] }) else {
            client?.urlProtocol(self, didFailWithError: URLError(.cannotFindHost))
            return
        }
        let started = Delivery(owner: self, url: url)
        delivery.withLock { $0 = started }
        let request = self.request
        started.start {
            let answer = await handler(request)
            started.deliver(answer)
        }
    }

    override func stopLoading() {
        delivery.withLock { $0 }?.stop()
    }

    /// One answer for the task's client.
    private final class Delivery: @unchecked Sendable {
        // `@unchecked`: `owner` and `url` never change; `stopped` and `running` are read and
        // written holding `lock`.
        private let owner: LabURLProtocol
        private let url: URL
        /// Held for every call to the client: FoundationNetworking traps on a call for a task
        /// it has forgotten, so none may start once `stop` returns. Recursive, because the
        /// client may stop the task from inside a call, on the same thread.
        private let lock = NSRecursiveLock()
        private var stopped = false
        private var running: Task<Void, Never>?

        init(owner: LabURLProtocol, url: URL) {
            self.owner = owner
            self.url = url
        }

        func start(_ body: @escaping @Sendable () async -> Void) {
            lock.lock()
            defer { lock.unlock() }
            running = Task(operation: body)
        }

        func stop() {
            lock.lock()
            defer { lock.unlock() }
            stopped = true
            running?.cancel()
        }

        func deliver(_ answer: (status: Int, headers: HTTPFields, body: Data)) {
            let response = HTTPURLResponse(url: url, statusCode: answer.status, httpVersion: "HTTP/1.1", headerFields: answer.headers.dictionary)!
            lock.lock()
            defer { lock.unlock() }
            guard !stopped else { return }
            stopped = true
            owner.client?.urlProtocol(owner, didReceive: response, cacheStoragePolicy: .notAllowed)
            if !answer.body.isEmpty { owner.client?.urlProtocol(owner, didLoad: answer.body) }
            owner.client?.urlProtocolDidFinishLoading(owner)
        }
    }
}

/// Which requests are running the app's interceptor code now, oldest first, for
/// ``LabURLProtocol``'s requests to be attributed: each belongs to the oldest request that
/// has not sent one since it entered.
final class AppActivity: AppCodeActivity {
    private struct Entry {
        let token: Int
        let operation: OperationContext
        let handlingError: Bool
        var claimed: Bool
    }

    private let entries = Locked<(next: Int, list: [Entry])>((0, []))

    func enter(handlingError: Bool) -> Int? {
        guard let operation = LabContext.operation else { return nil }
        return entries.withLock { state in
            state.next += 1
            state.list.append(Entry(token: state.next, operation: operation, handlingError: handlingError, claimed: false))
            return state.next
        }
    }

    func leave(_ token: Int) async {
        entries.withLock { $0.list.removeAll { $0.token == token } }
    }

    /// The operation a request the app sends now belongs to: of those running the app's code,
    /// the one the scheduler lets run (the others wait at stops and send nothing), oldest
    /// first, one that has not sent a request since it entered before one that has; else the
    /// newest; nil when no request is running the app's code.
    func claim() -> OperationContext? {
        let running = entries.withLock { $0.list.first }?.operation.scheduler.snapshot.running ?? []
        return entries.withLock { state in
            let list = state.list
            let candidates = list.indices.filter { running.contains(list[$0].operation.request) }
            let pool = candidates.isEmpty ? Array(list.indices) : candidates
            guard let index = pool.first(where: { !list[$0].claimed }) ?? pool.last else { return nil }
            state.list[index].claimed = true
            return state.list[index].operation
        }
    }
}

extension LabSession {
    /// Answers a request the app's ``AppBackend/urlSession`` sent: a grant to the token
    /// endpoint is recorded as a refresh of the request whose code sent it; anything else
    /// goes to the backend unrecorded.
    static func answerAppRequest(
        _ request: URLRequest, activity: AppActivity, backend: LabBackend, clock: VirtualClock, numbers: RefreshTokenNumbers
    ) async -> (status: Int, headers: HTTPFields, body: Data) {
        let headers = HTTPFields(dictionary: request.allHTTPHeaderFields ?? [:])
        let path = request.url?.path ?? "/"
        let target = path + (request.url?.query.map { "?" + $0 } ?? "")
        let body = request.httpBody ?? Data()
        let exchange: @Sendable (HTTPFields) async throws -> BackendResponse = { headers in
            try await LabTarget.inProcess(backend).exchange(
                BackendRequest(method: request.httpMethod ?? "GET", target: target, headers: headers, body: body), clock: clock)
        }
        do {
            guard path == "/oauth/token", let operation = activity.claim() else {
                let response = try await exchange(headers)
                return (response.status, response.headers, response.body)
            }
            let form = String(decoding: body, as: UTF8.self)
            let fields = (try? FormURLEncoding.parameters(Substring(form)).get()) ?? [:]
            let note = fields["refresh_token"].map { RefreshNote.grant(refreshToken: numbers.number(of: $0)) } ?? "\(fields["grant_type"] ?? "unknown") grant"
            let url = LabSession.baseURL.appendingPathComponent("oauth/token").absoluteString
            let response = try await LabContext.$operation.withValue(operation) {
                try await LabSession.recordedGrant(note: note, form: form, headers: headers, url: url, stops: false, exchange: exchange)
            }
            return (response.status, response.headers, response.body)
        } catch {
            return (503, HTTPFields(), Data("the lab could not answer: \(error)".utf8))
        }
    }
}
