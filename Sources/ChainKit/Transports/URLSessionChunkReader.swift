import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif
import Synchronization

/// A `URLSession` whose responses are read as their bytes arrive, through a data
/// delegate: ``start(_:)`` returns when the head is in, and the body follows as a
/// ``ChunkStream`` of the pieces the network delivered.
///
/// Memory stays bounded. Where `URLSessionTask.suspend()` pauses a transfer (Darwin), the
/// task is suspended while more than `readAhead` bytes wait unread, and resumed when the
/// reader has taken half of them. FoundationNetworking cannot pause one: suspending and
/// resuming a running task there restarts its transfer (measured: a 64 MiB answer read as
/// 103 MiB), so on Linux nothing is suspended. Everywhere, more than `maxUnread` bytes
/// waiting unread fail the body with ``ReadAheadExceeded`` and cancel the task. A stream
/// that is dropped unread cancels its task, and so does cancelling the task that reads it.
///
/// ```swift
/// let reader = URLSessionChunkReader()
/// let (head, chunks) = try await reader.start(URLRequest(url: url))
/// for try await piece in chunks { print(head.statusCode, piece.count) }
/// ```
public final class URLSessionChunkReader: Sendable {
    /// The session requests go through; its delegate is this reader's.
    public let session: URLSession
    private let delegate: Delegate

    /// - Parameters:
    ///   - configuration: the session's configuration (timeouts, cache, cookies).
    ///   - followsRedirects: false hands a 3xx answer back as it is (what a proxy needs).
    ///   - readAhead: unread bytes past which the task is suspended (Darwin only).
    ///   - maxUnread: unread bytes past which the body fails.
    public init(
        configuration: URLSessionConfiguration = .default, followsRedirects: Bool = true, readAhead: Int = 1 << 20, maxUnread: Int = 64 << 20
    ) {
        delegate = Delegate(followsRedirects: followsRedirects, readAhead: max(1, readAhead), maxUnread: max(1, maxUnread))
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// Sends `request` and returns its response head and its body as it arrives.
    /// - Parameter timeLimit: the longest the whole exchange may take, head and body; past
    ///   it the body (or the wait for the head) fails with ``TimeLimitExceeded`` and the task
    ///   is cancelled. Nil: only the session's timeouts apply, which a server sending a byte
    ///   now and then never meets.
    /// - Throws: the session's error when no head arrives, ``URLSessionTransportError/notHTTP(url:)``
    ///   when the answer is not HTTP.
    public func start(_ request: URLRequest, timeLimit: Duration? = nil) async throws -> (HTTPURLResponse, ChunkStream) {
        try Task.checkCancellation()
        let task = session.dataTask(with: request)
        let id = task.taskIdentifier
        let delegate = self.delegate
        let head = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPURLResponse, any Error>) in
                delegate.register(task: task, url: request.url, head: continuation)
                task.resume()
                if let timeLimit {
                    let seconds = Double(timeLimit.components.seconds) + Double(timeLimit.components.attoseconds) / 1e18
                    Self.deadlines.asyncAfter(deadline: .now() + seconds) {
                        if delegate.expire(id, limit: timeLimit) { task.cancel() }
                    }
                }
            }
        } onCancel: {
            task.cancel()
        }
        let reading = Reading(reader: self, task: task, id: id)
        return (head, PullStream { { try await reading.next() } })
    }

    /// One response's body being read; dropping it cancels a task still running.
    private final class Reading: Sendable {
        let reader: URLSessionChunkReader
        let task: URLSessionDataTask
        let id: Int

        init(reader: URLSessionChunkReader, task: URLSessionDataTask, id: Int) {
            self.reader = reader
            self.task = task
            self.id = id
        }

        deinit {
            if reader.delegate.forget(id) { task.cancel() }
        }

        func next() async throws -> Data? {
            let delegate = reader.delegate, id = self.id, task = self.task
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    delegate.take(id, into: continuation)
                }
            } onCancel: {
                task.cancel()
            }
        }
    }

    /// Where time limits expire: cancelling a task waits for FoundationNetworking's work
    /// queue, which must not hold a thread of the global queues (the concurrency pool's, on
    /// Linux).
    private static let deadlines = DispatchQueue(label: "chainlab.url-session.deadlines")

    /// A whole exchange took longer than the `timeLimit` it was started with.
    public struct TimeLimitExceeded: Error, Hashable, CustomStringConvertible {
        public let limit: Duration
        public init(limit: Duration) { self.limit = limit }
        public var description: String { "the exchange took longer than the \(limit) it may take; the transfer was stopped" }
    }

    /// How a server's authentication challenge is answered. FoundationNetworking asks only
    /// once a 401 has arrived whole (head and body already handed to the delegate), and of
    /// its answers only cancelling ends the task: without a credential to offer,
    /// `.performDefaultHandling` leaves it waiting for ever, whatever the timeouts. The
    /// delegate then ends the task as if the 401 had completed. On Darwin the default
    /// handling hands the 401 on.
    package static let challengeDisposition: URLSession.AuthChallengeDisposition = {
        #if canImport(Darwin)
        .performDefaultHandling
        #else
        .cancelAuthenticationChallenge
        #endif
    }()

    /// More of a body waited unread than the reader's `maxUnread` allows: whoever reads it
    /// fell that far behind the network.
    public struct ReadAheadExceeded: Error, Hashable, CustomStringConvertible {
        public let limit: Int
        public init(limit: Int) { self.limit = limit }
        public var description: String {
            "more than \(limit) bytes of the answer arrived without being read; the transfer was stopped to bound memory"
        }
    }

    private final class Delegate: NSObject, URLSessionDataDelegate, Sendable {
        private struct Entry {
            let task: URLSessionDataTask
            let url: URL?
            var head: CheckedContinuation<HTTPURLResponse, any Error>?
            var waiter: CheckedContinuation<Data?, any Error>?
            var pieces: [Data] = []
            var unread = 0
            var suspended = false
            var ended = false
            var failure: (any Error)?
            /// The answer was a challenge, cancelled once it had arrived whole.
            var challenged = false
        }

        private let entries = Mutex<[Int: Entry]>([:])
        private let followsRedirects: Bool
        private let readAhead: Int
        private let maxUnread: Int

        init(followsRedirects: Bool, readAhead: Int, maxUnread: Int) {
            self.followsRedirects = followsRedirects
            self.readAhead = readAhead
            self.maxUnread = maxUnread
        }

        /// Whether suspending a task pauses its transfer (see the type's comment).
        private static let canPause: Bool = {
            #if canImport(Darwin)
            true
            #else
            false
            #endif
        }()

        func register(task: URLSessionDataTask, url: URL?, head: CheckedContinuation<HTTPURLResponse, any Error>) {
            entries.withLock { $0[task.taskIdentifier] = Entry(task: task, url: url, head: head) }
        }

        /// Removes a body's entry; true when its task had not ended.
        func forget(_ id: Int) -> Bool {
            entries.withLock { $0.removeValue(forKey: id).map { !$0.ended } ?? false }
        }

        /// Fails the exchange with ``TimeLimitExceeded`` unless it has ended; true when it
        /// had not, so its task is to be cancelled.
        func expire(_ id: Int, limit: Duration) -> Bool {
            let failure = TimeLimitExceeded(limit: limit)
            let waiting = entries.withLock { entries -> (head: CheckedContinuation<HTTPURLResponse, any Error>?, body: CheckedContinuation<Data?, any Error>?)? in
                guard var entry = entries[id], !entry.ended, entry.failure == nil else { return nil }
                // Without a head nobody will read the body: the entry goes.
                guard entry.head == nil else {
                    entries[id] = nil
                    return (entry.head, nil)
                }
                let waiter = entry.waiter
                entry.waiter = nil
                entry.pieces = []
                entry.unread = 0
                entry.failure = failure
                entries[id] = entry
                return (nil, waiter)
            }
            guard let waiting else { return false }
            waiting.head?.resume(throwing: failure)
            waiting.body?.resume(throwing: failure)
            return true
        }

        /// Hands the next piece to `continuation` now, or when it arrives.
        func take(_ id: Int, into continuation: CheckedContinuation<Data?, any Error>) {
            let outcome = entries.withLock { entries -> Result<Data?, any Error>? in
                guard var entry = entries[id] else { return .success(nil) }
                defer { entries[id] = entry }
                if !entry.pieces.isEmpty {
                    let piece = entry.pieces.removeFirst()
                    entry.unread -= piece.count
                    if entry.suspended && entry.unread <= readAhead / 2 {
                        entry.suspended = false
                        entry.task.resume()
                    }
                    return .success(piece)
                }
                if let failure = entry.failure { return .failure(failure) }
                if entry.ended { return .success(nil) }
                entry.waiter = continuation
                return nil
            }
            if let outcome { continuation.resume(with: outcome) }
        }

        /// A 401 with a challenge is the answer: nobody here holds credentials to offer.
        func urlSession(
            _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
            completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
        ) {
            entries.withLock { $0[task.taskIdentifier]?.challenged = true }
            completionHandler(URLSessionChunkReader.challengeDisposition, nil)
        }

        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
            completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            completionHandler(followsRedirects ? request : nil)
        }

        func urlSession(
            _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
            completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
        ) {
            let (head, url) = entries.withLock { entries -> (CheckedContinuation<HTTPURLResponse, any Error>?, URL?) in
                let head = entries[dataTask.taskIdentifier]?.head
                entries[dataTask.taskIdentifier]?.head = nil
                return (head, entries[dataTask.taskIdentifier]?.url)
            }
            guard let http = response as? HTTPURLResponse else {
                head?.resume(throwing: URLSessionTransportError.notHTTP(url: url))
                completionHandler(.cancel)
                return
            }
            completionHandler(.allow)
            head?.resume(returning: http)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            let (waiter, overflow) = entries.withLock { entries -> (CheckedContinuation<Data?, any Error>?, Bool) in
                guard var entry = entries[dataTask.taskIdentifier], entry.failure == nil else { return (nil, false) }
                defer { entries[dataTask.taskIdentifier] = entry }
                if let waiter = entry.waiter {
                    entry.waiter = nil
                    return (waiter, false)
                }
                entry.pieces.append(data)
                entry.unread += data.count
                if entry.unread > maxUnread {
                    entry.pieces = []
                    entry.unread = 0
                    entry.failure = ReadAheadExceeded(limit: maxUnread)
                    return (nil, true)
                }
                if Self.canPause && entry.unread > readAhead && !entry.suspended {
                    entry.suspended = true
                    entry.task.suspend()
                }
                return (nil, false)
            }
            waiter?.resume(returning: data)
            if overflow { dataTask.cancel() }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            typealias Waiters = (head: CheckedContinuation<HTTPURLResponse, any Error>?, body: CheckedContinuation<Data?, any Error>?, failure: (any Error)?)
            let waiting = entries.withLock { entries -> Waiters in
                guard var entry = entries[task.taskIdentifier] else { return (nil, nil, nil) }
                let waiting: Waiters = (entry.head, entry.waiter, entry.failure ?? (entry.challenged ? nil : error))
                entry.ended = true
                entry.failure = waiting.failure
                entry.head = nil
                entry.waiter = nil
                // Without a head there is no body to read: nothing will ask for this entry.
                entries[task.taskIdentifier] = waiting.head == nil ? entry : nil
                return waiting
            }
            waiting.head?.resume(throwing: waiting.failure ?? URLSessionTransportError.notHTTP(url: task.originalRequest?.url))
            if let waiter = waiting.body {
                if let failure = waiting.failure { waiter.resume(throwing: failure) } else { waiter.resume(returning: nil) }
            }
        }
    }
}
