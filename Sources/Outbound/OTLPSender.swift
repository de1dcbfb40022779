import ChainKit
public import Foundation
import Vocabulary
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// Sends OTLP/JSON documents to an OTLP/HTTP receiver (an OpenTelemetry Collector, Jaeger,
/// Tempo): `POST {endpoint}/v1/traces` with `Content-Type: application/json`.
///
/// As the OTLP specification asks, 429, 502, 503 and 504 are retried with exponential
/// backoff (1 s, 2 s, 4 s, 8 s, each with jitter), or after the `Retry-After` the receiver
/// gave (at most 30 s); so are connection failures. Five tries in all. A 200 may carry a
/// partial success: spans the receiver rejected, which ``Outcome/rejectedSpans`` reports.
///
/// Each try ends within the timeout and reads at most ``answerLimit`` bytes of the answer.
/// A try the receiver leaves unanswered that long is not repeated: a silent receiver costs
/// one timeout, and a whole send ends within five timeouts and the waits between them.
///
/// ```swift
/// let sender = try OTLPSender(endpoint: "http://127.0.0.1:4318", headers: ["Authorization: Bearer …"])
/// let outcome = try await sender.send(document)
/// ```
public struct OTLPSender: Sendable {
    /// What the receiver said to a document it took.
    public struct Outcome: Sendable, Hashable {
        /// Spans the receiver rejected (a partial success), 0 when it took all of them.
        public var rejectedSpans: Int
        /// The receiver's reason for a partial success.
        public var message: String?
        /// How many tries it took, from 1.
        public var tries: Int

        public init(rejectedSpans: Int, message: String?, tries: Int) {
            self.rejectedSpans = rejectedSpans
            self.message = message
            self.tries = tries
        }
    }

    /// Why a document did not reach the receiver: what happened at the last try.
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        public var description: String

        public init(description: String) {
            self.description = description
        }
    }

    /// An HTTP exchange: the request, and the answer's status, headers and body.
    public typealias Post = @Sendable (URLRequest) async throws -> (status: Int, headers: [String: String], body: Data)

    /// Where documents go: the endpoint with `/v1/traces`.
    public let url: URL
    public let headers: [(name: String, value: String)]
    public let maxTries: Int
    private let post: Post
    private let sleep: @Sendable (Duration) async -> Void
    private let jitter: @Sendable () -> Double

    /// The most of a receiver's answer read: its status, or a partial success, fits in far less.
    public static let answerLimit = 64 << 10

    /// - Parameters:
    ///   - endpoint: the receiver's base URL, such as `http://127.0.0.1:4318`; `/v1/traces`
    ///     is added unless the URL already ends with it.
    ///   - headers: extra request headers as `Name: value`, such as a hosted backend's key.
    ///   - timeout: seconds each try may take (`--timeout`).
    ///   - post: the exchange; by default a ``RemoteHTTPClient`` with `timeout`.
    ///   - jitter: a factor in 0.5…1 each backoff is multiplied by (random by default).
    public init(
        endpoint: String, headers: [String] = [], maxTries: Int = 5, timeout: Double = 30,
        post: Post? = nil,
        sleep: @escaping @Sendable (Duration) async -> Void = { try? await Task.sleep(for: $0) },
        jitter: @escaping @Sendable () -> Double = { Double.random(in: 0.5...1) }
    ) throws(Failure) {
        guard var components = URLComponents(string: endpoint), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", components.host?.isEmpty == false
        else {
            throw Failure(description: "--otlp-endpoint needs an http:// or https:// URL such as http://127.0.0.1:4318, got '\(VisibleEscapes.escape(endpoint))'")
        }
        while components.path.hasSuffix("/") { components.path.removeLast() }
        if !components.path.hasSuffix("/v1/traces") { components.path += "/v1/traces" }
        self.url = components.url!
        self.headers = try headers.map { (line) throws(Failure) in
            guard let colon = line.firstIndex(of: ":") else {
                throw Failure(description: "--otlp-header needs 'Name: value', got '\(VisibleEscapes.escape(line))'")
            }
            let name = String(line[..<colon]).trimmingCharacters(in: .whitespaces)
            let value = String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
            do throws(HeaderValidationError) {
                _ = try HTTPField(name: name, value: value)
            } catch {
                throw Failure(description: "--otlp-header '\(VisibleEscapes.escape(name))': \(error)")
            }
            return (name, value)
        }
        self.maxTries = maxTries
        self.post = post ?? Self.post(through: RemoteHTTPClient(timeout: timeout))
        self.sleep = sleep
        self.jitter = jitter
    }

    /// Posts `document`, retrying as the type's documentation says.
    public func send(_ document: String) async throws(Failure) -> Outcome {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.httpBody = Data(document.utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        var backoff = 1.0
        var tries = 0
        while true {
            tries += 1
            let (problem, wait): (String, Double)
            switch try await attempt(request, tries: tries) {
            case .done(let outcome):
                return outcome
            case .retry(let reason, let retryAfter):
                (problem, wait) = (reason, retryAfter ?? backoff * jitter())
            }
            guard tries < maxTries else { throw Failure(description: "\(problem) (gave up after \(tries) tries)") }
            await sleep(.milliseconds(Int64((min(wait, 30) * 1000).rounded())))
            backoff *= 2
        }
    }

    private enum TryResult {
        case done(Outcome)
        /// Worth another try: why this one failed, and the receiver's `Retry-After`.
        case retry(String, retryAfter: Double?)
    }

    /// One try: accepted, failed for good (thrown), or worth trying again.
    private func attempt(_ request: URLRequest, tries: Int) async throws(Failure) -> TryResult {
        let answer: (status: Int, headers: [String: String], body: Data)
        do {
            answer = try await post(request)
        } catch let failure as RemoteFailure {
            switch failure.cause {
            case .timedOut: throw Failure(description: failure.description)
            case .tooLarge:
                throw Failure(description: "the receiver at \(url.absoluteString) answered with more than \(Self.answerLimit) bytes; reading stopped there")
            default: return .retry(failure.description, retryAfter: nil)
            }
        } catch {
            return .retry("cannot reach the receiver at \(url.absoluteString): \(error.localizedDescription)", retryAfter: nil)
        }
        if (200..<300).contains(answer.status) { return .done(Self.outcome(of: answer.body, tries: tries)) }
        let problem = "the receiver at \(url.absoluteString) answered \(answer.status) \(ReasonPhrase.of(answer.status))"
            + Self.reason(in: answer.body)
        guard [429, 502, 503, 504].contains(answer.status) else { throw Failure(description: problem) }
        return .retry(problem, retryAfter: Self.retryAfter(answer.headers))
    }

    /// A `Retry-After` in seconds, or as an HTTP date (seconds from now), from a response's
    /// headers (any case).
    public static func retryAfter(_ headers: [String: String]) -> Double? {
        guard let value = headers.first(where: { $0.key.lowercased() == "retry-after" })?.value.trimmingCharacters(in: .whitespaces) else {
            return nil
        }
        if let seconds = Double(value), seconds >= 0 { return seconds }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: value).map { max(0, $0.timeIntervalSinceNow) }
    }

    /// The partial success in a 200's body, if any (`{"partialSuccess": {"rejectedSpans": "2", "errorMessage": "…"}}`).
    static func outcome(of body: Data, tries: Int) -> Outcome {
        let partial = (try? JSONValue(parsing: body))?["partialSuccess"]
        let rejectedValue = partial?["rejectedSpans"]
        let rejected = rejectedValue?.stringValue.flatMap { Int($0) } ?? rejectedValue?.numberValue.flatMap { Int(exactly: $0) } ?? 0
        let message = partial?["errorMessage"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        return Outcome(rejectedSpans: rejected, message: message, tries: tries)
    }

    /// `: why` from a receiver's error body (a `google.rpc.Status` with a `message`), escaped.
    private static func reason(in body: Data) -> String {
        if let message = (try? JSONValue(parsing: body))?["message"]?.stringValue, !message.isEmpty {
            return ": " + VisibleEscapes.escape(message)
        }
        return ""
    }

    /// Posts through `client`, reading at most ``answerLimit`` bytes of the answer.
    public static func post(through client: RemoteHTTPClient) -> Post {
        { request in
            let (head, data) = try await client.fetch(request, limit: answerLimit)
            var headers: [String: String] = [:]
            for field in head.headerFields { headers[field.name] = headers[field.name].map { $0 + ", " + field.value } ?? field.value }
            return (head.status.code, headers, data)
        }
    }
}
