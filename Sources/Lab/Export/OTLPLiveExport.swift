import ChainKit
import Foundation
import Timeline
import Exports
public import Outbound

/// Streams a session's traces to an OTLP/HTTP receiver while the inspector runs: each
/// operation is exported once it has ended, on a task of its own, so the screen never waits
/// for the network.
///
/// Exports go out one at a time in the order operations ended. One that fails (after the
/// sender's own five tries) is reported by ``takeStatus()`` and tried again after
/// `retryDelay`, before any later one, for as long as the session lasts.
///
/// ```swift
/// let live = OTLPLiveExport(session: session, sender: sender)
/// live.poll()                                  // after the lab changed: queues operations that ended
/// if let line = live.takeStatus() { … }        // for the status line
/// await live.finish(waitingUpTo: .seconds(5))
/// ```
public final class OTLPLiveExport: Sendable {
    private let session: LabSession
    private let queue: AsyncStream<Int>.Continuation
    private let worker: Task<Void, Never>
    /// Requests already queued, so each is exported once.
    private let queued = Locked<Set<Int>>([])
    /// Requests queued and not yet accepted by the receiver.
    private let pending = Locked(0)
    /// The latest line for the status line, until taken.
    private let status = Locked<StatusLine?>(nil)

    private struct StatusLine: Sendable {
        var text: String
        var isError: Bool
    }

    public init(
        session: LabSession, sender: OTLPSender, serviceName: String = "chainlab", retryDelay: Duration = .seconds(10),
        sleep: @escaping @Sendable (Duration) async -> Void = { try? await Task.sleep(for: $0) }
    ) {
        self.session = session
        let (stream, queue) = AsyncStream.makeStream(of: Int.self)
        self.queue = queue
        let pending = self.pending, status = self.status
        let report = { @Sendable (text: String, isError: Bool) in status.withLock { $0 = StatusLine(text: text, isError: isError) } }
        worker = Task {
            var failing = false
            // An operation's trace needs its own events and, for the links of attempts that
            // waited, the refreshes of others: those are gathered as the timeline grows, so a
            // long session is not read whole for every operation.
            var refreshes: [TimelineEvent] = []
            var scanned = 0
            for await request in stream {
                let new = session.store.events(after: scanned)
                refreshes += new.filter { $0.kind == .auth && $0.phase == .refresh }
                scanned = new.last?.seq ?? scanned
                let events = session.store.events(request: request) + refreshes.filter { $0.request != request }
                while !Task.isCancelled {
                    guard let summary = session.summary(of: request) else { break }
                    var options = OTLPExport.Options(serviceName: serviceName, anchor: session.otlpAnchor, masking: .masked)
                    options.tlsUnverified = HTTPSTrust.current == .unverified
                    let document = OTLPExport.document(requests: [summary], events: events, options: options)
                    do throws(OTLPSender.Failure) {
                        let outcome = try await sender.send(document)
                        if outcome.rejectedSpans > 0 {
                            report("OTLP: the receiver rejected \(outcome.rejectedSpans) spans of #\(request)\(outcome.message.map { ": \($0)" } ?? "")", true)
                        } else if failing {
                            report("OTLP: exporting again; #\(request) sent to \(sender.url.absoluteString)", false)
                        }
                        failing = false
                        break
                    } catch {
                        failing = true
                        report("OTLP export of #\(request) failed, retrying in \(retryDelay): \(error.description)", true)
                        await sleep(retryDelay)
                    }
                }
                pending.withLock { $0 -= 1 }
            }
        }
    }

    /// Queues every operation that has ended and was not queued yet.
    public func poll() {
        let ended = session.summaries.keys.sorted()
        let new = queued.withLock { queued in
            let new = ended.filter { !queued.contains($0) }
            queued.formUnion(new)
            return new
        }
        guard !new.isEmpty else { return }
        pending.withLock { $0 += new.count }
        for request in new { queue.yield(request) }
    }

    /// What the export has to say since the last call, for the status line: each failure, a
    /// partial success, and the first success after a failure.
    public func takeStatus() -> (text: String, isError: Bool)? {
        status.withLock { status in
            defer { status = nil }
            return status.map { ($0.text, $0.isError) }
        }
    }

    /// How many ended operations have not reached the receiver yet.
    public var unsent: Int { pending.value }

    /// Queues what ended last, gives the queue up to `limit` to drain, then stops the export
    /// task. Returns how many operations were left unsent.
    @discardableResult
    public func finish(waitingUpTo limit: Duration, pollEvery interval: Duration = .milliseconds(50)) async -> Int {
        poll()
        queue.finish()
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: limit)
        while unsent > 0, clock.now < deadline {
            try? await Task.sleep(for: interval)
        }
        worker.cancel()
        await worker.value
        return unsent
    }
}
