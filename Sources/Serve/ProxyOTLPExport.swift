import Foundation
import ChainKit
import Timeline
import Exports
import Outbound

/// Sends each finished exchange of `chainlab serve --upstream` to an OTLP/HTTP receiver as
/// one CLIENT span, with the trace and span ids the HAR's `_chainlab` gives it. Exchanges
/// go out in batches on a task of their own, so no client waits for the receiver; at most
/// ``maxQueued`` wait, and more are dropped and counted.
final class ProxyOTLPExport: Sendable {
    static let maxQueued = 10_000

    private let queue = Locked(Queue())
    private let wake: AsyncStream<Void>.Continuation
    private let worker: Task<Void, Never>

    private struct Queue {
        var exchanges: [ProxyExchange] = []
        var dropped = 0
        var sending = false
    }

    /// - Parameter report: gets one line per failed or partly rejected batch.
    init(sender: OTLPSender, options: OTLPExport.Options, report: @escaping @Sendable (String) -> Void) {
        let (signals, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        self.wake = wake
        let queue = self.queue
        worker = Task {
            for await _ in signals {
                while true {
                    let (batch, dropped) = queue.withLock { queue in
                        let taken = (queue.exchanges, queue.dropped)
                        queue.exchanges = []
                        queue.dropped = 0
                        queue.sending = !taken.0.isEmpty
                        return taken
                    }
                    if dropped > 0 { report("chainlab serve: OTLP export dropped \(dropped) exchanges that found the queue full") }
                    guard !batch.isEmpty else { break }
                    let document = OTLPExport.exchangesDocument(events: ProxyLog.events(of: batch), options: options)
                    do throws(OTLPSender.Failure) {
                        let outcome = try await sender.send(document)
                        if outcome.rejectedSpans > 0 {
                            report("chainlab serve: the OTLP receiver rejected \(outcome.rejectedSpans) spans\(outcome.message.map { ": \($0)" } ?? "")")
                        }
                    } catch {
                        report("chainlab serve: OTLP export of \(batch.count) exchanges failed: \(error.description)")
                    }
                }
                queue.withLock { $0.sending = false }
            }
        }
    }

    func add(_ exchange: ProxyExchange) {
        queue.withLock { queue in
            if queue.exchanges.count < Self.maxQueued { queue.exchanges.append(exchange) } else { queue.dropped += 1 }
        }
        wake.yield()
    }

    /// Gives the queue up to `limit` to drain, then stops.
    func finish(waitingUpTo limit: Duration) async {
        wake.finish()
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline, queue.withLock({ !$0.exchanges.isEmpty || $0.sending }) {
            try? await Task.sleep(for: .milliseconds(20))
        }
        worker.cancel()
    }
}
