import Instrumentation
import Scheduling
import Findings
import Backend
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
/// error has reached it), with a stop before it as the lab's own refreshes have. A request
/// whose code waits for another's refresh meanwhile is shown blocked (``AppActivity``).
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
///
/// It also sees a request wait for another's refresh, which the app's token manager does in
/// its own way (awaiting a shared task, an actor, a lock) and does not announce. While a
/// refresh is under way, a request that runs the app's code and for a while neither reaches a
/// stop nor sends anything is taken to be waiting for it: it is blocked, as the lab's own
/// single-flight token manager blocks a request, so the others take their turns. When it
/// comes back out of the app's code it wakes at its turn and records `resumed`.
///
/// "A while" is at least ``quietPeriod`` and at least ``quietTicks`` wake-ups of the watcher,
/// which shares the task pool with the app's code: on a busy machine, where the app's code
/// takes longer to get anywhere, the watcher's wake-ups come later too.
final class AppActivity: AppCodeActivity {
    /// The least time nothing may happen before a request in the app's code counts as waiting.
    static let quietPeriod: Duration = .milliseconds(250)
    /// The least number of the watcher's wake-ups, one every ``pollInterval``, that see nothing happen.
    static let quietTicks = 25
    static let pollInterval: Duration = .milliseconds(10)

    private struct Entry {
        let token: Int
        let operation: OperationContext
        let handlingError: Bool
        var claimed: Bool
        /// Taken to be waiting for another request's refresh: blocked until it leaves.
        var waiting: Bool
    }

    private struct State {
        var next = 0
        var list: [Entry] = []
        /// Checks for quiet while `list` is not empty.
        var watcher: Task<Void, Never>?
        /// Counts what the app's code did that the scheduler does not see: entering or
        /// leaving, and each request it sent to the lab.
        var pulses = 0
    }

    private let state = Locked(State())

    func enter(handlingError: Bool) -> Int? {
        guard let operation = LabContext.operation else { return nil }
        return state.withLock { state in
            state.next += 1
            state.list.append(Entry(token: state.next, operation: operation, handlingError: handlingError, claimed: false, waiting: false))
            state.pulses += 1
            if state.watcher == nil, let scheduler = operation.labScheduler {
                state.watcher = Task { [weak self] in await self?.watch(scheduler) }
            }
            return state.next
        }
    }

    func leave(_ token: Int) async {
        let left = state.withLock { state -> Entry? in
            guard let index = state.list.firstIndex(where: { $0.token == token }) else { return nil }
            let entry = state.list.remove(at: index)
            state.pulses += 1
            if state.list.isEmpty {
                state.watcher?.cancel()
                state.watcher = nil
            }
            return entry
        }
        guard let left, left.waiting else { return }
        // Back from waiting: at its own turn, so the timeline's order stays determined.
        let operation = left.operation
        _ = await operation.gate(.wake, name: "TokenManager", kind: .auth)
        operation.emitTokenEvent(.resumed, detail: RefreshNote.released)
    }

    /// The app's code sent a request to the lab: it is not waiting.
    func pulse() {
        state.withLock { $0.pulses += 1 }
    }

    /// The operation a request the app sends now belongs to: of those running the app's code,
    /// the one the scheduler lets run (the others wait at stops and send nothing), oldest
    /// first, one that has not sent a request since it entered before one that has; else the
    /// newest; nil when no request is running the app's code.
    func claim() -> OperationContext? {
        let running = state.withLock { $0.list.first }?.operation.labScheduler?.snapshot.running ?? []
        return state.withLock { state in
            let list = state.list
            let candidates = list.indices.filter { running.contains(list[$0].operation.request) && !list[$0].waiting }
            let pool = candidates.isEmpty ? Array(list.indices) : candidates
            guard let index = pool.first(where: { !list[$0].claimed }) ?? pool.last else { return nil }
            state.list[index].claimed = true
            return state.list[index].operation
        }
    }

    /// Until cancelled: whenever neither the scheduler nor the app's code has done anything
    /// for long enough while a refresh is under way, blocks the requests that run the app's
    /// code (each once).
    private func watch(_ scheduler: Scheduler) async {
        func mark() -> (version: Int, pulses: Int) { (scheduler.version, state.withLock { $0.pulses }) }
        var seen = (mark: mark(), ticks: 0, since: ContinuousClock.now)
        while !Task.isCancelled {
            try? await Task.sleep(for: Self.pollInterval)
            let now = mark()
            if now != seen.mark {
                seen = (now, 0, ContinuousClock.now)
                continue
            }
            seen.ticks += 1
            guard seen.ticks >= Self.quietTicks, ContinuousClock.now - seen.since >= Self.quietPeriod, scheduler.refreshInFlight else {
                continue
            }
            let running = scheduler.snapshot.running
            let waiting = state.withLock { state -> [OperationContext] in
                var found: [OperationContext] = []
                // The newest entry of a request is the code it is in now.
                for index in state.list.indices.reversed() {
                    let operation = state.list[index].operation
                    guard running.contains(operation.request), !found.contains(where: { $0 === operation }) else { continue }
                    guard !state.list.contains(where: { $0.operation === operation && $0.waiting }) else { continue }
                    state.list[index].waiting = true
                    found.append(operation)
                }
                return found
            }
            for operation in waiting { scheduler.block(request: operation.request) }
            seen = (mark(), 0, ContinuousClock.now)
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
        activity.pulse()
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
                try await LabSession.recordedGrant(note: note, form: form, headers: headers, url: url, exchange: exchange)
            }
            return (response.status, response.headers, response.body)
        } catch {
            return (503, HTTPFields(), Data("the lab could not answer: \(error)".utf8))
        }
    }
}
