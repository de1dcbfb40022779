import ChainKit
import Foundation
import Synchronization
import Timeline

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
    /// This cache among every one the process made: what a thread keeps of it is found again
    /// only by it (an address could be a later cache's).
    private let id: UInt64
    /// Where a thread finds its slots (``ThreadSnapshots/key``), read here once rather than
    /// from the lazily made global on every look-up.
    private let threadKey: pthread_key_t?

    private static let ids = Atomic<UInt64>(1)

    public init() {
        id = SnapshotCache.ids.wrappingAdd(1, ordering: .relaxed).oldValue
        threadKey = ThreadSnapshots.key
    }

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
    func snapshot(result: ChainResponse) -> HopSnapshot {
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
    /// Found first among what this thread looked up last, without the lock.
    func snapshot(_ request: HTTPRequest, baseURL: URL) -> HopSnapshot {
        let local = ThreadSnapshots.current(threadKey)
        if let local, local.pointee.middlewareRequest.cache == id,
            let snapshot = local.pointee.middlewareRequest.slot.snapshot(where: { $0.shows(request, baseURL: baseURL) }) {
            return snapshot
        }
        let kept = kept(request, baseURL: baseURL)
        local?.pointee.middlewareRequest.keep(kept, of: id)
        return kept.snapshot
    }

    /// What the cache keeps for a middleware request this thread did not look up last: found
    /// or made under the lock. Out of line, so the look-up that nearly always finds it stays
    /// small.
    @inline(never)
    private func kept(_ request: HTTPRequest, baseURL: URL) -> RecentSnapshots.Slot<MiddlewareRequest>.Kept {
        state.withLock { recent in
            recent.middlewareRequest.kept(where: { $0.shows(request, baseURL: baseURL) }, else: MiddlewareRequest(request: request, baseURL: baseURL)) {
                HopSnapshot($0.request, baseURL: $0.baseURL)
            }
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
    /// Found first among what this thread looked up last, without the lock.
    func snapshot(responseHead response: some EditableResponse) -> HopSnapshot {
        let local = ThreadSnapshots.current(threadKey)
        if let local, local.pointee.responseHead.cache == id, let snapshot = local.pointee.responseHead.slot.snapshot(where: { $0.shows(response) }) {
            return snapshot
        }
        let kept = kept(ResponseHead(status: response.statusCode, headers: response.headerFields))
        local?.pointee.responseHead.keep(kept, of: id)
        return kept.snapshot
    }

    /// What the cache keeps for a response head this thread did not look up last, as
    /// ``kept(_:baseURL:)`` finds it for a request.
    @inline(never)
    private func kept(_ head: ResponseHead) -> RecentSnapshots.Slot<ResponseHead>.Kept {
        state.withLock { recent in
            recent.responseHead.kept(where: { $0 == head }, else: head) { HopSnapshot(headers: $0.headers, status: $0.status) }
        }
    }
}

/// What one thread looked up last in a ``SnapshotCache``, found again without the cache's
/// lock: the kinds nearly every event of a middleware operation looks up.
///
/// A middleware hands the request on as it came, and the response up as it came, far more
/// often than not, so most look-ups find what the one before them found; and an operation's
/// task runs on one thread between two suspensions. Taken per event, the cache's lock is two
/// atomic operations, as long as the rest of the look-up; a thread's own slots need none.
///
/// A slot holds the very object the cache keeps (a message and its snapshot, both immutable),
/// so it copies nothing and hands out the cache's own snapshot, and it serves only the cache
/// it was filled from (``SnapshotCache``'s `id`). A thread keeps one request and one response
/// head, without bodies, until it looks up another.
private struct ThreadSnapshots {
    var middlewareRequest = ThreadSlot<MiddlewareRequest>()
    var responseHead = ThreadSlot<ResponseHead>()

    /// A cache's slot as one thread keeps it, with the id of the cache it was filled from:
    /// what it keeps is for that cache only. Look-ups test the two fields in line (a method
    /// testing both copied the slot out: about 4 instructions more a look-up).
    struct ThreadSlot<Message: Equatable & Sendable> {
        private(set) var slot = RecentSnapshots.Slot<Message>()
        /// 0: none.
        private(set) var cache: UInt64 = 0

        /// Keeps what `cache` keeps (the same object).
        mutating func keep(_ kept: RecentSnapshots.Slot<Message>.Kept, of cache: UInt64) {
            slot.share(kept)
            self.cache = cache
        }
    }

    /// Where each thread's slots are: made on its first look-up, freed when the thread ends;
    /// nil when the system had no key left to give (the cache's lock is then taken each time).
    /// Slots in memory of their own rather than in an object: an object's stored properties
    /// are checked for exclusive access at run time on every read.
    static let key: pthread_key_t? = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key) { pointer in
            #if canImport(Darwin)
            let slots = pointer.assumingMemoryBound(to: ThreadSnapshots.self)
            #else
            guard let slots = pointer?.assumingMemoryBound(to: ThreadSnapshots.self) else { return }
            #endif
            slots.deinitialize(count: 1)
            slots.deallocate()
        }
        return status == 0 ? key : nil
    }()

    /// This thread's slots under `key` (``key``); nil without one, or when they could not be
    /// made.
    @inline(__always)
    static func current(_ key: pthread_key_t?) -> UnsafeMutablePointer<ThreadSnapshots>? {
        guard let key else { return nil }
        if let pointer = pthread_getspecific(key) { return pointer.assumingMemoryBound(to: ThreadSnapshots.self) }
        return makeCurrent(key)
    }

    @inline(never)
    private static func makeCurrent(_ key: pthread_key_t) -> UnsafeMutablePointer<ThreadSnapshots>? {
        let slots = UnsafeMutablePointer<ThreadSnapshots>.allocate(capacity: 1)
        slots.initialize(to: ThreadSnapshots())
        guard pthread_setspecific(key, slots) == 0 else {
            slots.deinitialize(count: 1)
            slots.deallocate()
            return nil
        }
        return slots
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

        /// What is kept for a message `shows` says is the one at hand: the message kept, or
        /// else `message` and the snapshot `make` makes of it, kept now.
        mutating func kept(where shows: (Message) -> Bool, else message: @autoclosure () -> Message, make: (Message) -> HopSnapshot) -> Kept {
            if snapshot(where: shows) == nil { _ = keep(message(), make: make) }
            return owned!
        }

        /// Keeps what `other` kept (the same object, not a copy).
        mutating func share(_ other: Kept) {
            owned = other
            keptReference = UnretainedReference(other)
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
/// storage: every read of a `Data`'s storage runs the dynamic exclusivity checks of `Data`'s
/// code inlined here (about 380 instructions a read, more than recording the event that
/// shows it), and `==` reads both.
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

