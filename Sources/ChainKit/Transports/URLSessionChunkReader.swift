public import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif
import Synchronization

/// A `URLSession` whose responses are read as their bytes arrive, through a data
/// delegate: ``start(_:)`` returns when the head is in, and the body follows as a
/// ``ChunkStream`` of the pieces the network delivered.
///
/// Memory stays bounded: when more than `highWater` bytes wait unread, the task is
/// suspended until the reader has taken them. A stream that is dropped unread cancels its
/// task, and so does cancelling the task that reads it.
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
    ///   - highWater: unread bytes past which the task is suspended.
    public init(configuration: URLSessionConfiguration = .default, followsRedirects: Bool = true, highWater: Int = 1 << 20) {
        delegate = Delegate(followsRedirects: followsRedirects, highWater: max(1, highWater))
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// Sends `request` and returns its response head and its body as it arrives.
    /// - Throws: the session's error when no head arrives, ``URLSessionTransportError/notHTTP(url:)``
    ///   when the answer is not HTTP.
    public func start(_ request: URLRequest) async throws -> (HTTPURLResponse, ChunkStream) {
        try Task.checkCancellation()
        let task = session.dataTask(with: request)
        let id = task.taskIdentifier
        let delegate = self.delegate
        let head = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPURLResponse, any Error>) in
                delegate.register(task: task, url: request.url, head: continuation)
                task.resume()
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
        }

        private let entries = Mutex<[Int: Entry]>([:])
        private let followsRedirects: Bool
        private let highWater: Int

        init(followsRedirects: Bool, highWater: Int) {
            self.followsRedirects = followsRedirects
            self.highWater = highWater
        }

        func register(task: URLSessionDataTask, url: URL?, head: CheckedContinuation<HTTPURLResponse, any Error>) {
            entries.withLock { $0[task.taskIdentifier] = Entry(task: task, url: url, head: head) }
        }

        /// Removes a body's entry; true when its task had not ended.
        func forget(_ id: Int) -> Bool {
            entries.withLock { $0.removeValue(forKey: id).map { !$0.ended } ?? false }
        }

        /// Hands the next piece to `continuation` now, or when it arrives.
        func take(_ id: Int, into continuation: CheckedContinuation<Data?, any Error>) {
            let outcome = entries.withLock { entries -> Result<Data?, any Error>? in
                guard var entry = entries[id] else { return .success(nil) }
                defer { entries[id] = entry }
                if !entry.pieces.isEmpty {
                    let piece = entry.pieces.removeFirst()
                    entry.unread -= piece.count
                    if entry.suspended && entry.unread <= highWater / 2 {
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
            let waiter = entries.withLock { entries -> CheckedContinuation<Data?, any Error>? in
                guard var entry = entries[dataTask.taskIdentifier] else { return nil }
                defer { entries[dataTask.taskIdentifier] = entry }
                if let waiter = entry.waiter {
                    entry.waiter = nil
                    return waiter
                }
                entry.pieces.append(data)
                entry.unread += data.count
                if entry.unread > highWater && !entry.suspended {
                    entry.suspended = true
                    entry.task.suspend()
                }
                return nil
            }
            waiter?.resume(returning: data)
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            let (head, waiter) = entries.withLock { entries -> (CheckedContinuation<HTTPURLResponse, any Error>?, CheckedContinuation<Data?, any Error>?) in
                guard var entry = entries[task.taskIdentifier] else { return (nil, nil) }
                let head = entry.head, waiter = entry.waiter
                entry.ended = true
                entry.failure = error
                entry.head = nil
                entry.waiter = nil
                // Without a head there is no body to read: nothing will ask for this entry.
                entries[task.taskIdentifier] = head == nil ? entry : nil
                return (head, waiter)
            }
            head?.resume(throwing: error ?? URLSessionTransportError.notHTTP(url: task.originalRequest?.url))
            if let waiter {
                if let error { waiter.resume(throwing: error) } else { waiter.resume(returning: nil) }
            }
        }
    }
}
