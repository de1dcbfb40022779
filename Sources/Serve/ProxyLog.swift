import Foundation
import ChainKit
import Synchronization
import Timeline

/// How much of the traffic the proxy's HAR keeps.
public struct ProxyRecordingLimits: Sendable, Hashable {
    /// The most of each body (request or answer) kept; the client always gets every byte.
    public var bodyBytes: Int
    /// The most the HAR keeps in all: heads and bodies of every exchange kept. Past it the
    /// oldest exchanges lose their bodies (marked in the HAR), then, if heads alone are
    /// over, the oldest exchanges go.
    public var totalBytes: Int

    public init(bodyBytes: Int = 1 << 20, totalBytes: Int = 64 << 20) {
        self.bodyBytes = max(0, bodyBytes)
        self.totalBytes = max(0, totalBytes)
    }
}

/// One exchange as the proxy saw it: the request it sent upstream (or would have), and the
/// answer the client got.
struct ProxyExchange: Sendable {
    var number: Int
    /// Seconds after the proxy started.
    var sent: Double
    var received: Double
    var method: String
    /// The upstream URL the request went to.
    var url: String
    var requestHeaders: HTTPFields
    var requestBody: Data
    var requestBodySize: Int
    var status: Int
    var responseHeaders: HTTPFields
    var responseBody: Data
    var responseBodySize: Int
    /// What the proxy did besides forwarding: `injected 401 (unauthorized-next)`, a body cut.
    var note: String?
    var isError: Bool
    var bodiesDropped = false

    /// What keeping one exchange costs besides its bytes of text (the record, its strings'
    /// and fields' storage, the allocator's share), and each field, as measured roughly.
    static let recordOverhead = 1024
    static let fieldOverhead = 64

    /// The memory this record holds: its bytes and an estimate of their bookkeeping.
    var cost: Int {
        Self.recordOverhead + requestBody.count + responseBody.count + url.utf8.count + method.utf8.count + (note?.utf8.count ?? 0)
            + requestHeaders.reduce(0) { $0 + Self.fieldOverhead + $1.name.utf8.count + $1.value.utf8.count }
            + responseHeaders.reduce(0) { $0 + Self.fieldOverhead + $1.name.utf8.count + $1.value.utf8.count }
    }

    /// The exchange as timeline events, the form the HAR and OTLP exports read: the send,
    /// the answer, and what the proxy did itself as `chainlab serve` events. Each exchange's
    /// seqs start at 1, so the ids derived from its number and its send (HAR's `_chainlab`,
    /// its OTLP span) stay the same whatever else is kept.
    var events: [TimelineEvent] {
        let store = TimelineStore()
        store.append(TimelineEvent(
            time: sent, request: number, attempt: 1, hop: 0, name: "upstream", kind: .transport, phase: .send,
            snapshot: HopSnapshot(method: method, url: url, headers: requestHeaders, body: Self.preview(requestBody, size: requestBodySize, dropped: bodiesDropped))))
        store.append(TimelineEvent(
            time: received, request: number, attempt: 1, hop: 0, name: "upstream", kind: .transport, phase: isError ? .error : .receive,
            snapshot: HopSnapshot(headers: responseHeaders, status: status, error: isError ? note : nil,
                                  body: Self.preview(responseBody, size: responseBodySize, dropped: bodiesDropped)),
            detail: note))
        for detail in [note, bodiesDropped ? "bodies dropped: the HAR was over its total limit (--har-max-total)" : nil].compactMap({ $0 }) {
            store.append(TimelineEvent(time: received, request: number, attempt: 1, hop: 1, name: "chainlab serve", kind: .middleware, phase: .postflight, detail: detail))
        }
        return store.events()
    }

    private static func preview(_ body: Data, size: Int, dropped: Bool) -> BodyPreview? {
        if size == 0 { return nil }
        if dropped { return BodyPreview(text: "", byteCount: size, isTruncated: true) }
        if body.count < size {
            return BodyPreview(text: String(decoding: body, as: UTF8.self), byteCount: size, isTruncated: true)
        }
        return BodyPreview(body, limit: Int.max)
    }

    /// The first `limit` bytes of `body` in storage of their own, so a large body is not
    /// kept alive by a slice of it.
    static func kept(_ body: Data, limit: Int) -> Data {
        let count = min(limit, body.count)
        guard count > 0 else { return Data() }
        return body.withUnsafeBytes { Data(bytes: $0.baseAddress!, count: count) }
    }
}

/// The exchanges the proxy keeps for `GET /_lab/har`, within ``ProxyRecordingLimits``.
final class ProxyLog: Sendable {
    let limits: ProxyRecordingLimits
    private let state = Mutex(State())

    /// One kept exchange, by reference, so that growing or compacting the list moves
    /// pointers, not records, while appends wait for the lock.
    private final class Kept {
        var exchange: ProxyExchange
        init(_ exchange: ProxyExchange) { self.exchange = exchange }
    }

    private struct State {
        /// Oldest first; `first` is the index of the oldest still kept.
        var exchanges: [Kept?] = []
        var first = 0
        /// The oldest exchange whose bodies are still kept.
        var firstWithBodies = 0
        var bytes = 0
        var droppedExchanges = 0
        var droppedBodies = 0
    }

    /// What the log holds, for `GET /_lab/state`.
    struct Usage: Equatable {
        var exchanges: Int
        var bytes: Int
        var droppedBodies: Int
        var droppedExchanges: Int
    }

    init(limits: ProxyRecordingLimits) {
        self.limits = limits
    }

    func append(_ exchange: ProxyExchange) {
        let cost = exchange.cost
        state.withLock { state in
            state.exchanges.append(Kept(exchange))
            state.bytes += cost
            // The newest exchange keeps its bodies while older ones have bodies to give up.
            while state.bytes > limits.totalBytes, state.firstWithBodies < state.exchanges.count - 1 {
                let index = state.firstWithBodies
                state.firstWithBodies += 1
                guard let old = state.exchanges[index], !old.exchange.requestBody.isEmpty || !old.exchange.responseBody.isEmpty else { continue }
                let bodies = old.exchange.requestBody.count + old.exchange.responseBody.count
                old.exchange.requestBody = Data()
                old.exchange.responseBody = Data()
                old.exchange.bodiesDropped = true
                state.bytes -= bodies
                state.droppedBodies += 1
            }
            while state.bytes > limits.totalBytes, state.first < state.exchanges.count {
                state.bytes -= state.exchanges[state.first]?.exchange.cost ?? 0
                state.exchanges[state.first] = nil
                state.first += 1
                state.droppedExchanges += 1
            }
            // The dropped slots go once they are half the array, so appends stay O(1) on average.
            if state.first > 1024 && state.first * 2 > state.exchanges.count {
                state.exchanges.removeFirst(state.first)
                state.firstWithBodies = max(0, state.firstWithBodies - state.first)
                state.first = 0
            }
        }
    }

    /// Every exchange kept, oldest first.
    func exchanges() -> [ProxyExchange] {
        state.withLock { state in state.exchanges[state.first...].compactMap { $0?.exchange } }
    }

    var usage: Usage {
        state.withLock { Usage(exchanges: $0.exchanges.count - $0.first, bytes: $0.bytes, droppedBodies: $0.droppedBodies, droppedExchanges: $0.droppedExchanges) }
    }

    func reset() {
        state.withLock { $0 = State() }
    }

    static func events(of exchanges: [ProxyExchange]) -> [TimelineEvent] {
        exchanges.flatMap(\.events)
    }
}
