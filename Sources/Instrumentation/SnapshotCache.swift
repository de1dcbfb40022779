package import ChainKit
import Foundation
import Synchronization
package import Timeline

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Snapshots shared by the operations of one session (or owned by one operation).
///
/// A message usually passes several hops unchanged (a result climbs every post-flight as it
/// left the parser), and operations of a lab mostly send the same requests and get the same
/// answers. Snapshots are immutable values compared by content, so hops and operations that
/// saw the same message share one: one allocation instead of one per event, less memory per
/// event, and one JSON encoding of a result instead of one per hop.
public final class SnapshotCache: Sendable {
    private let state = Mutex(RecentSnapshots())

    public init() {}

    /// What a GraphQL hop saw going down; shared with the previous one when it showed the
    /// same (a GraphQL hop shows the method, the endpoint and the added headers).
    func snapshot(graphQL request: ChainRequest) -> HopSnapshot {
        state.withLock { recent in
            // Compared in place: binding the last pair would retain both.
            if recent.lastGraphQLRequest?.isIdentical(to: request) == true, let snapshot = recent.lastGraphQLSnapshot {
                return snapshot
            }
            let shown = ShownGraphQLRequest(
                usesGET: request.usesGET, endpoint: request.graphQLEndpoint, headers: request.additionalHeaders, operation: request.operation,
                sendsQueryDocument: request.sendsQueryDocument, sendsPersistedQueryHash: request.sendsPersistedQueryHash, clientAwareness: request.clientAwareness)
            let snapshot = recent.graphQLRequest.snapshot(for: shown) { _ in HopSnapshot(graphQL: request) }
            recent.lastGraphQLRequest = request
            recent.lastGraphQLSnapshot = snapshot
            return snapshot
        }
    }

    /// A result on its way up; shared with the previous one when it was equal (for a result
    /// read from a body: when it came from the same bytes).
    package func snapshot(result: ChainResponse) -> HopSnapshot {
        state.withLock { recent in
            // A result climbing hops that pass it on is the very one seen last: compared in
            // place, by identity, without building a key.
            if recent.lastResult?.isIdentical(to: result) == true, let snapshot = recent.lastResultSnapshot { return snapshot }
            let snapshot = if let body = result.body {
                recent.receivedResult.snapshot(where: { $0.source == result.source && $0.body.holds(body) })
                    ?? recent.receivedResult.keep(ReceivedResult(source: result.source, body: KeptBody(body))) { _ in HopSnapshot(result: result) }
            } else {
                recent.result.snapshot(for: result, make: HopSnapshot.init(result:))
            }
            recent.lastResult = result
            recent.lastResultSnapshot = snapshot
            return snapshot
        }
    }

    /// A result or a failure on its way up: the result shared as ``snapshot(result:)`` does.
    func snapshot(outcome: Result<ChainResponse, any Error>) -> HopSnapshot {
        switch outcome {
        case .success(let response): snapshot(result: response)
        case .failure(let error): HopSnapshot(error: error)
        }
    }

    /// The records a cache write wrote; shared with the previous write's when they were equal.
    func snapshot(cacheRecords records: RecordSet) -> HopSnapshot {
        state.withLock { $0.cacheRecords.snapshot(for: records) { HopSnapshot(cacheRecords: $0) } }
    }

    /// What an HTTP hop or the transport saw going down; shared with the previous one when it
    /// was equal.
    func snapshot(_ request: NetworkRequest) -> HopSnapshot {
        state.withLock { recent in
            if let snapshot = recent.networkRequest.snapshot(where: { $0.shows(request) }) { return snapshot }
            return recent.networkRequest.keep(SentRequest(request: request)) { HopSnapshot($0.request) }
        }
    }

    /// What a middleware or the middleware transport saw going down; shared with the previous
    /// one when it was equal (the URL is worked out from the base URL once, not per hop).
    func snapshot(_ request: HTTPRequest, baseURL: URL) -> HopSnapshot {
        state.withLock { recent in
            if let snapshot = recent.middlewareRequest.snapshot(where: { $0.shows(request, baseURL: baseURL) }) { return snapshot }
            return recent.middlewareRequest.keep(MiddlewareRequest(request: request, baseURL: baseURL)) { HopSnapshot($0.request, baseURL: $0.baseURL) }
        }
    }

    /// A response with its body as a transport received it; shared with the previous one
    /// when it was equal.
    func snapshot(response: some EditableResponse, body: Data) -> HopSnapshot {
        state.withLock { recent in
            if let snapshot = recent.receivedResponse.snapshot(where: {
                $0.status == response.statusCode && $0.headers == response.headerFields && $0.body.holds(body)
            }) {
                return snapshot
            }
            return recent.receivedResponse.keep(ReceivedResponse(status: response.statusCode, headers: response.headerFields, body: KeptBody(body))) {
                HopSnapshot(headers: $0.headers, status: $0.status, body: BodyPreview($0.body.data))
            }
        }
    }

    /// A response head (status and headers, no body) on its way up; shared with the previous
    /// one when it was equal, as an HTTP hop's post-flight and the parser's pre-flight are.
    func snapshot(responseHead response: some EditableResponse) -> HopSnapshot {
        state.withLock { recent in
            if let snapshot = recent.responseHead.snapshot(where: { $0.shows(response) }) { return snapshot }
            return recent.responseHead.keep(ResponseHead(status: response.statusCode, headers: response.headerFields)) {
                HopSnapshot(headers: $0.headers, status: $0.status)
            }
        }
    }
}

/// The last snapshot of each kind published and the message it shows.
private struct RecentSnapshots: Sendable {
    struct Slot<Message: Equatable & Sendable>: Sendable {
        /// The message and its snapshot, behind one reference: reading them to compare
        /// retains that reference, not every field of the message.
        final class Kept: Sendable {
            let message: Message
            let snapshot: HopSnapshot

            init(message: Message, snapshot: HopSnapshot) {
                self.message = message
                self.snapshot = snapshot
            }
        }

        /// Owns what is kept; it is read through ``keptReference``.
        private var owned: Kept?
        private var keptReference: UnretainedReference<Kept>?

        mutating func snapshot(for message: Message, make: (Message) -> HopSnapshot) -> HopSnapshot {
            if let snapshot = snapshot(where: { $0 == message }) { return snapshot }
            return keep(message, make: make)
        }

        /// The snapshot kept, when `shows` says its message is the one at hand. The message
        /// is read in place: a key built to compare with it would copy (and retain) every
        /// field of a message that nearly always matches.
        func snapshot(where shows: (Message) -> Bool) -> HopSnapshot? {
            keptReference?.read { kept in shows(kept.message) ? kept.snapshot : nil }
        }

        /// Keeps `message` and the snapshot `make` makes of it, and returns that snapshot.
        mutating func keep(_ message: Message, make: (Message) -> HopSnapshot) -> HopSnapshot {
            let made = make(message)
            made.markSharedByMaker()
            let new = Kept(message: message, snapshot: made)
            owned = new
            keptReference = UnretainedReference(new)
            return made
        }
    }

    var graphQLRequest = Slot<ShownGraphQLRequest>()
    /// The last request seen and its snapshot: a request passed on unchanged is identical to
    /// it, which is cheaper to tell than equal.
    var lastGraphQLRequest: ChainRequest?
    var lastGraphQLSnapshot: HopSnapshot?
    /// The last result seen and its snapshot, as for requests.
    var lastResult: ChainResponse?
    var lastResultSnapshot: HopSnapshot?
    var result = Slot<ChainResponse>()
    var receivedResult = Slot<ReceivedResult>()
    var networkRequest = Slot<SentRequest>()
    var cacheRecords = Slot<RecordSet>()
    var middlewareRequest = Slot<MiddlewareRequest>()
    var receivedResponse = Slot<ReceivedResponse>()
    var responseHead = Slot<ResponseHead>()
}

/// What a result read from a body shows: the same bytes from the same source make the same
/// result.
private struct ReceivedResult: Equatable, Sendable {
    var source: ChainResponse.Source
    var body: KeptBody
}

/// A request an HTTP hop or the transport saw, equal to another exactly when the requests
/// are equal, with the bodies compared as bytes (see ``KeptBody``).
private struct SentRequest: Equatable, Sendable {
    let request: NetworkRequest
    private let body: KeptBody?

    init(request: NetworkRequest) {
        self.request = request
        self.body = request.body.map(KeptBody.init)
    }

    static func == (lhs: SentRequest, rhs: SentRequest) -> Bool {
        lhs.shows(rhs.request)
    }

    /// Whether this shows `other`: the two requests are equal.
    func shows(_ other: NetworkRequest) -> Bool {
        guard request.method == other.method, request.timeoutInterval == other.timeoutInterval,
            EqualityBySameBits.areEqual(request.url, other.url), request.headerFields == other.headerFields
        else { return false }
        guard let body, let otherBody = other.body else { return body == nil && other.body == nil }
        return body.holds(otherBody)
    }
}

/// A body kept to tell whether the next ones hold the same bytes, as `Data`'s `==` would tell.
///
/// A small body's bytes are also kept in an array, so telling reads only the new body's
/// storage (docs/performance.md, `instrument.per_event.graphql`).
private struct KeptBody: Equatable, Sendable {
    /// The largest body whose bytes are copied: a copy is made only when a body changes.
    static let copiedUpTo = 64 << 10

    let data: Data
    private let bytes: [UInt8]?
    private let count: Int

    init(_ data: Data) {
        self.data = data
        self.count = data.count
        self.bytes = count <= KeptBody.copiedUpTo ? [UInt8](data) : nil
    }

    /// Whether `other` holds the same bytes. `other` is read once, its size and bytes
    /// together: each read of a `Data` runs its storage's exclusivity checks.
    func holds(_ other: Data) -> Bool {
        other.withUnsafeBytes { theirs in
            guard theirs.count == count else { return false }
            if count == 0 { return true }
            guard let bytes else {
                return data.withUnsafeBytes { memcmp($0.baseAddress!, theirs.baseAddress!, count) == 0 }
            }
            return bytes.withUnsafeBytes { memcmp($0.baseAddress!, theirs.baseAddress!, count) == 0 }
        }
    }

    static func == (lhs: KeptBody, rhs: KeptBody) -> Bool { lhs.holds(rhs.data) }
}

/// What ``HopSnapshot/init(_:baseURL:body:bodyLimit:)`` shows of a middleware's request.
private struct MiddlewareRequest: Equatable, Sendable {
    var request: HTTPRequest
    var baseURL: URL

    /// Whether this shows `request` sent from `baseURL`. A request and a base URL handed on
    /// unchanged, as most hops hand them, are told before any field is compared
    /// (``EqualityBySameBits``).
    @inline(__always)
    func shows(_ request: HTTPRequest, baseURL: URL) -> Bool {
        EqualityBySameBits.areEqual(self.request, request) && EqualityBySameBits.areEqual(self.baseURL, baseURL)
    }
}

/// What ``HopSnapshot/init(response:body:)`` shows of a response with its body.
private struct ReceivedResponse: Equatable, Sendable {
    var status: Int
    var headers: HTTPFields
    var body: KeptBody
}

/// What ``HopSnapshot/init(graphQL:)`` shows of a GraphQL request: comparing these is cheaper
/// than comparing (and keeping a copy of) the whole request.
private struct ShownGraphQLRequest: Equatable, Sendable {
    var usesGET: Bool
    var endpoint: URL
    var headers: HTTPFields
    /// What the body is made of.
    var operation: ChainOperation
    var sendsQueryDocument: Bool
    var sendsPersistedQueryHash: Bool
    var clientAwareness: ClientAwarenessMetadata?
}

/// What ``HopSnapshot/init(response:body:)`` shows of a response without its body.
private struct ResponseHead: Equatable, Sendable {
    var status: Int
    var headers: HTTPFields

    /// Whether this shows `response`'s head.
    func shows(_ response: some EditableResponse) -> Bool {
        status == response.statusCode && headers == response.headerFields
    }
}

