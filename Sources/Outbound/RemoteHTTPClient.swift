public import ChainKit
package import HTTPServer
import Vocabulary
public import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif
import Synchronization

/// HTTP exchanges with a real server, each read no further than a limit and ended after a
/// timeout, failing with a ``RemoteFailure`` that names the URL (its password masked) and
/// what actually happened.
///
/// ```swift
/// let client = RemoteHTTPClient(timeout: 30)
/// let (head, body) = try await client.fetch(URLRequest(url: url), limit: 1 << 20)
/// ```
///
/// `http://` goes over ChainLab's own client (``PlainHTTPExchange``), which inflates gzip
/// and deflate itself, no further than the limit. `https://` goes through URLSession (the
/// toolchain has no TLS of its own): `URLSession.data(for:)` reads a whole body into memory
/// however large it is announced or turns out to be, so this client reads through a data
/// delegate and cancels the task as soon as the announced `Content-Length`, or the bytes
/// received, pass the limit.
public final class RemoteHTTPClient: Sendable {
    /// Seconds without an answer after which an exchange fails, and the longest a whole
    /// exchange may take.
    public let timeout: Double
    private let session: URLSession
    private let reader: BoundedReader
    /// Reads answers as they arrive (``stream(_:limit:)``); the whole exchange is bounded by
    /// the timeout through its time limit, as a fetch is.
    private let streamReader: URLSessionChunkReader
    /// Bytes inflated from `http://` answers so far, all exchanges together.
    private let inflated = Locked(0)

    /// How many bytes this client has inflated from compressed `http://` answers: what
    /// tests read to see that a decompression bomb is inflated no further than the limit.
    package var bytesInflated: Int { inflated.value }

    /// Redirects are not followed: a 3xx is the answer, shown with its `Location`. Followed,
    /// URLSession sends the request's credentials and secret headers to whatever host the
    /// server names, and on Linux a 307 or 308 arrives there without its body.
    public init(timeout: Double = 30) {
        let timeout = timeout.isFinite ? min(max(timeout, 0.001), 86_400) : 30
        self.timeout = timeout
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        HTTPSTrust.prepare(configuration)
        let reader = BoundedReader()
        self.reader = reader
        session = URLSession(configuration: configuration, delegate: reader, delegateQueue: nil)
        let streaming = URLSessionConfiguration.ephemeral
        streaming.timeoutIntervalForRequest = timeout
        streaming.urlCache = nil
        streaming.httpCookieStorage = nil
        HTTPSTrust.prepare(streaming)
        streamReader = URLSessionChunkReader(configuration: streaming, followsRedirects: false)
    }

    /// Where whole-exchange timeouts expire: cancelling a task waits for FoundationNetworking's
    /// work queue, which must not hold a thread of the global queues (the concurrency pool's,
    /// on Linux).
    private static let deadlines = DispatchQueue(label: "chainlab.remote.deadlines")

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// Sends `request` and returns the response's head and its body, at most `limit` bytes
    /// (after decompression).
    /// - Throws: ``RemoteFailure`` when the server cannot be reached or its answer is larger
    ///   than `limit`.
    public func fetch(_ request: URLRequest, limit: Int) async throws -> (HTTPResponse, Data) {
        var request = request
        request.timeoutInterval = timeout
        if Self.isPlain(request) {
            let (head, chunks) = try await PlainHTTPExchange.start(request, limit: limit, boundsBody: true, timeout: timeout, inflated: inflated)
            var body = Data()
            for try await piece in chunks { body.append(piece) }
            return (head, body)
        }
        try Self.refuseIPv6Literal(request)
        let task = session.dataTask(with: request)
        let url = request.url
        let timeout = timeout
        let (response, body) = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                reader.register(task: task.taskIdentifier, limit: limit) { outcome in
                    continuation.resume(with: outcome.mapError { RemoteFailure(url: url, outcome: $0, timeout: timeout) })
                }
                task.resume()
                Self.deadlines.asyncAfter(deadline: .now() + timeout) { [reader] in reader.expire(task) }
            }
        } onCancel: {
            task.cancel()
        }
        guard let head = HTTPResponse(response) else { throw RemoteFailure(url: url, outcome: .notHTTP, timeout: timeout) }
        return (head, body)
    }

    /// Whether `request` goes over ChainLab's own client: every `http://` URL.
    private static func isPlain(_ request: URLRequest) -> Bool {
        request.url?.scheme?.lowercased() == "http"
    }

    /// FoundationNetworking fails IPv6 literals with NSURLErrorBadURL before connecting
    /// (swift-corelibs-foundation issue 5496); over `http://` they go through ChainLab's
    /// own client, over `https://` they cannot be reached.
    private static func refuseIPv6Literal(_ request: URLRequest) throws {
        #if !canImport(Darwin)
        if let url = request.url, let host = url.host, host.contains(":") {
            throw RemoteFailure(url: RemoteFailure.displayURL(url), cause: .ipv6Literal)
        }
        #endif
    }

    /// Sends `request` and returns as soon as the response head arrives; the body follows
    /// as the network delivers it, so a multipart answer (@defer, a subscription) reaches
    /// the chain part by part. The exchange fails when it takes longer than the timeout in
    /// all, a subscription included; an announced `Content-Length` over `limit` fails at
    /// once (the caller bounds what it holds of the body itself). Failures while the body is
    /// read are ``RemoteFailure``s too.
    public func stream(_ request: URLRequest, limit: Int) async throws -> (HTTPResponse, ChunkStream) {
        var request = request
        request.timeoutInterval = timeout
        let url = request.url
        let timeout = timeout
        if Self.isPlain(request) {
            return try await PlainHTTPExchange.start(request, limit: limit, boundsBody: false, timeout: timeout, inflated: inflated)
        }
        try Self.refuseIPv6Literal(request)
        let failure: @Sendable (any Error) -> RemoteFailure = { error in
            if let failure = error as? RemoteFailure { return failure }
            if case URLSessionTransportError.notHTTP = error { return RemoteFailure(url: url, outcome: .notHTTP, timeout: timeout) }
            if error is URLSessionChunkReader.TimeLimitExceeded { return RemoteFailure(url: url, outcome: .error(URLError(.timedOut)), timeout: timeout) }
            if let exceeded = error as? URLSessionChunkReader.ReadAheadExceeded {
                return RemoteFailure(url: url.map(RemoteFailure.displayURL) ?? "the server", cause: .other(exceeded.description))
            }
            return RemoteFailure(url: url, outcome: .error(error), timeout: timeout)
        }
        let (head, chunks): (HTTPURLResponse, ChunkStream)
        do {
            (head, chunks) = try await streamReader.start(request, timeLimit: .milliseconds(Int64((timeout * 1000).rounded())))
        } catch {
            throw failure(error)
        }
        if head.expectedContentLength > Int64(limit) {
            throw RemoteFailure(url: url, outcome: .tooLarge(limit: limit, announced: Int(exactly: head.expectedContentLength)), timeout: timeout)
        }
        guard let head = HTTPResponse(head) else { throw RemoteFailure(url: url, outcome: .notHTTP, timeout: timeout) }
        return (head, chunks.mapErrors { throw failure($0) })
    }

    /// A `URLRequest` for `method` at `url` with `headers` and `body`; repeated header
    /// names are joined with ", " as `URLRequest` holds one value per name.
    public static func request(url: URL, method: String, headers: HTTPFields, body: Data?) -> URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = method
        for field in headers {
            let joined = request.value(forHTTPHeaderField: field.name).map { $0 + ", " + field.value } ?? field.value
            request.setValue(joined, forHTTPHeaderField: field.name)
        }
        if let body, !body.isEmpty { request.httpBody = body }
        return request
    }

    /// A response's headers as ``HTTPFields``, sorted by name (a dictionary's order changes
    /// from run to run); fields ``HTTPFields`` refuses are left out.
    public static func headerFields(of response: HTTPURLResponse) -> HTTPFields {
        let pairs = response.allHeaderFields.compactMap { key, value -> (String, String)? in
            guard let name = key as? String, let value = value as? String else { return nil }
            return (name, value)
        }
        let sorted = pairs.sorted { ($0.0.lowercased(), $0.0) < ($1.0.lowercased(), $1.0) }
        return HTTPFields(sorted.compactMap { try? HTTPField(name: $0.0, value: $0.1) })
    }
}

extension HTTPResponse {
    /// The head URLSession read: its fields sorted by name, repeated ones joined. Nil for a
    /// status no HTTP answer has, which `Status` would refuse with a trap.
    init?(_ response: HTTPURLResponse) {
        guard (100...999).contains(response.statusCode) else { return nil }
        self.init(status: .init(code: response.statusCode), headerFields: RemoteHTTPClient.headerFields(of: response))
    }
}

/// Why an exchange with a real server failed, in one line: the URL (without its password)
/// and the cause.
public struct RemoteFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, without the URL.
    public enum Cause: Sendable, Hashable {
        case refused
        case hostNotFound(String)
        case timedOut(seconds: Double)
        case tls(String)
        case connectionLost
        case tooLarge(limit: Int, announced: Int?)
        /// A part of a multipart answer held more than `limit` bytes.
        case partTooLarge(limit: Int)
        case notHTTP
        /// HTTPS to an IPv6 address literal, which URLSession on Linux cannot connect to.
        case ipv6Literal
        case other(String)
    }

    /// The URL as it may be shown: a password in it is masked.
    public let url: String
    public let cause: Cause

    public init(url: String, cause: Cause) {
        self.url = url
        self.cause = cause
    }

    package init(url: URL?, outcome: BoundedReader.Failure, timeout: Double) {
        self.url = url.map(RemoteFailure.displayURL) ?? "the server"
        switch outcome {
        case .tooLarge(let limit, let announced): cause = .tooLarge(limit: limit, announced: announced)
        case .notHTTP: cause = .notHTTP
        case .error(let error): cause = RemoteFailure.cause(of: error, url: url, timeout: timeout)
        }
    }

    /// A failure of ChainLab's own HTTP client, worded as URLSession's are.
    package init(url: String, client error: HTTPClientError, timeout: Double) {
        let cause: Cause = switch error {
        case .hostNotFound(let host): .hostNotFound(host)
        case .refused: .refused
        case .timedOut: .timedOut(seconds: timeout)
        case .connectionLost: .connectionLost
        case .malformed, .failed: .other(error.description)
        }
        self.init(url: url, cause: cause)
    }

    public var description: String {
        switch cause {
        case .refused: "cannot connect to \(url): connection refused (is the server running?)"
        case .hostNotFound(let host): "cannot reach \(url): the host name \(VisibleEscapes.escape(host)) does not resolve (DNS)"
        case .timedOut(let seconds): "no answer from \(url) within \(RemoteFailure.seconds(seconds)) (--timeout)"
        case .tls(let reason):
            "TLS failure with \(url): \(VisibleEscapes.escape(reason)) (a development server's CA: --cacert FILE; no check: --insecure)"
        case .connectionLost: "\(url) closed the connection before answering completely"
        case .tooLarge(let limit, let announced?):
            "the answer from \(url) announces \(announced) bytes (Content-Length), more than the \(limit) bytes allowed (--max-body); it was not read"
        case .tooLarge(let limit, nil):
            "the answer from \(url) is larger than the \(limit) bytes allowed (--max-body); reading stopped at \(limit) bytes"
        case .partTooLarge(let limit):
            "a part of the answer from \(url) is larger than the \(limit) bytes allowed (--max-body); reading stopped at \(limit) bytes"
        case .notHTTP: "\(url) did not answer with HTTP"
        case .ipv6Literal:
            "cannot connect to \(url): URLSession on this platform cannot reach IPv6 address literals over HTTPS "
                + "(swift-corelibs-foundation issue 5496); use a host name that resolves to the address"
        case .other(let reason): "exchange with \(url) failed: \(VisibleEscapes.escape(reason))"
        }
    }

    /// `url` with a password in it replaced by bullets, escaped for a terminal.
    public static func displayURL(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false), components.password != nil else {
            return VisibleEscapes.escape(url.absoluteString)
        }
        components.password = "••••"
        return VisibleEscapes.escape(components.string ?? url.absoluteString)
    }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e9 ? "\(Int(value)) s" : "\(value) s"
    }

    /// The cause of a `URLSession` error, worded for a person: Foundation on Linux describes
    /// most of them as `"(null)"`, so the code decides, and the underlying reason (libcurl's
    /// text) is used only where it adds something.
    private static func cause(of error: any Error, url: URL?, timeout: Double) -> Cause {
        let nsError = error as NSError
        let reason = (nsError.userInfo[NSLocalizedDescriptionKey] as? String) ?? ""
        guard nsError.domain == NSURLErrorDomain else { return .other(reason.isEmpty ? "\(error)" : reason) }
        switch nsError.code {
        case NSURLErrorCannotConnectToHost: return .refused
        case NSURLErrorCannotFindHost, NSURLErrorDNSLookupFailed: return .hostNotFound(url?.host ?? "")
        case NSURLErrorTimedOut: return .timedOut(seconds: timeout)
        case NSURLErrorSecureConnectionFailed, NSURLErrorServerCertificateHasBadDate, NSURLErrorServerCertificateUntrusted,
            NSURLErrorServerCertificateHasUnknownRoot, NSURLErrorServerCertificateNotYetValid, NSURLErrorClientCertificateRejected,
            NSURLErrorClientCertificateRequired:
            return .tls(reason.isEmpty || reason == "(null)" ? "the secure connection could not be established" : reason)
        case NSURLErrorNetworkConnectionLost: return .connectionLost
        case NSURLErrorBadServerResponse: return .other(reason.isEmpty || reason == "(null)" ? "the server's answer is not valid HTTP" : reason)
        case NSURLErrorUnsupportedURL: return .other("the URL is not supported")
        default:
            if reason.contains("SSL") || reason.contains("TLS") { return .tls(reason) }
            return .other(reason.isEmpty || reason.contains("(null)") ? "URL error \(nsError.code)" : reason)
        }
    }
}

/// The data delegate behind ``RemoteHTTPClient``: collects each task's body and cancels a
/// task whose body passes its limit.
package final class BoundedReader: NSObject, URLSessionDataDelegate, Sendable {
    package enum Failure: Error {
        case tooLarge(limit: Int, announced: Int?)
        case notHTTP
        case error(any Error)
    }

    typealias Completion = @Sendable (Result<(HTTPURLResponse, Data), Failure>) -> Void

    private struct Pending {
        var limit: Int
        var completion: Completion
        var response: HTTPURLResponse?
        var body = Data()
        /// The answer was a challenge, cancelled once it had arrived whole.
        var challenged = false
    }

    private let pending = Mutex<[Int: Pending]>([:])

    /// The 3xx is the answer (see ``RemoteHTTPClient/init(timeout:)``).
    package func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    /// A 401 with a challenge is the answer: nobody here holds credentials to offer. See
    /// ``URLSessionChunkReader/challengeDisposition`` for why the task is cancelled on Linux.
    package func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        pending.withLock { $0[task.taskIdentifier]?.challenged = true }
        completionHandler(URLSessionChunkReader.challengeDisposition, nil)
    }

    func register(task: Int, limit: Int, completion: @escaping Completion) {
        pending.withLock { $0[task] = Pending(limit: limit, completion: completion) }
    }

    package func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let refused = pending.withLock { pending -> (Pending, Failure)? in
            guard var entry = pending[dataTask.taskIdentifier] else { return nil }
            guard let http = response as? HTTPURLResponse else {
                pending[dataTask.taskIdentifier] = nil
                return (entry, .notHTTP)
            }
            if http.expectedContentLength > Int64(entry.limit) {
                pending[dataTask.taskIdentifier] = nil
                return (entry, .tooLarge(limit: entry.limit, announced: Int(exactly: http.expectedContentLength)))
            }
            entry.response = http
            pending[dataTask.taskIdentifier] = entry
            return nil
        }
        // FoundationNetworking ignores `.cancel` here: the task is cancelled as well.
        completionHandler(refused == nil ? .allow : .cancel)
        if let (entry, failure) = refused { end(dataTask, entry, with: failure) }
    }

    package func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let overflow = pending.withLock { pending -> Pending? in
            guard var entry = pending[dataTask.taskIdentifier] else { return nil }
            guard entry.body.count + data.count <= entry.limit else { return pending.removeValue(forKey: dataTask.taskIdentifier) }
            entry.body.append(data)
            pending[dataTask.taskIdentifier] = entry
            return nil
        }
        if let overflow { end(dataTask, overflow, with: .tooLarge(limit: overflow.limit, announced: nil)) }
    }

    /// Ends the exchange on `task` if it is still running: `--timeout` is for the whole of it,
    /// a slow drip included.
    func expire(_ task: URLSessionTask) {
        guard let entry = pending.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        end(task, entry, with: .error(URLError(.timedOut)))
    }

    /// Answers the caller at once and cancels the task. The caller does not wait for the task
    /// to end: FoundationNetworking goes on delivering what it had read (or inflated) before
    /// the cancel reaches it, and a decompression bomb can keep it busy for long.
    private func end(_ task: URLSessionTask, _ entry: Pending, with failure: Failure) {
        entry.completion(.failure(failure))
        task.cancel()
    }

    package func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let entry = pending.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let error, !entry.challenged {
            entry.completion(.failure(.error(error)))
        } else if let response = entry.response {
            entry.completion(.success((response, entry.body)))
        } else {
            entry.completion(.failure(.notHTTP))
        }
    }
}
