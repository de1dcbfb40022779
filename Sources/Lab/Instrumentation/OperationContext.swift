import ChainKit
import Synchronization
import Foundation
public import Timeline

/// One hop of the flattened chain, as the timeline and the screen name it.
public struct HopInfo: Sendable, Hashable {
    /// Position from the top, 0 being the outermost hop.
    public var index: Int
    /// The interceptor's type name (`MaxRetryInterceptor`), or `cache`/`transport` roles.
    public var name: String
    public var kind: HopKind

    public init(index: Int, name: String, kind: HopKind) {
        self.index = index
        self.name = name
        self.kind = kind
    }
}

/// Thrown when an operation makes more attempts than the lab allows, which only happens when
/// nothing in the chain limits retries (no `MaxRetryInterceptor`, or one placed too low).
public struct LabSafetyCapError: Error, Sendable, Hashable, CustomStringConvertible {
    public let attempts: Int
    public var description: String {
        "the lab stopped the operation after \(attempts) attempts (safety cap): nothing in the chain limited its retries"
    }
}

/// Everything the instrumentation of one operation shares: who it is, which attempt it is
/// on, where events go, and the scheduler's gates.
public final class OperationContext: Sendable {
    public let request: Int
    public let scheduler: Scheduler
    public let safetyCap: Int
    // Where events go: `store`, or `recordClosure` when there is no store. Two constants
    // rather than an enum, so recording an event does not copy (and retain) a payload.
    private let store: TimelineStore?
    private let recordClosure: (@Sendable (TimelineEvent) -> Void)?
    private let now: @Sendable () -> Double
    private let attemptCount = Atomic<Int>(0)
    /// The last snapshots published (shared with the session's other operations), and notes
    /// about forced retries.
    private let snapshots: SnapshotCache

    /// A context whose events go to `store`; `snapshots` is shared by the operations of one
    /// session.
    public init(
        request: Int, scheduler: Scheduler, safetyCap: Int, store: TimelineStore, snapshots: SnapshotCache = SnapshotCache(),
        now: @escaping @Sendable () -> Double
    ) {
        self.request = request
        self.scheduler = scheduler
        self.safetyCap = safetyCap
        self.store = store
        self.recordClosure = nil
        self.snapshots = snapshots
        self.now = now
    }

    /// A context whose events go to `record`.
    public init(
        request: Int, scheduler: Scheduler, safetyCap: Int, record: @escaping @Sendable (TimelineEvent) -> Void,
        snapshots: SnapshotCache = SnapshotCache(), now: @escaping @Sendable () -> Double
    ) {
        self.request = request
        self.scheduler = scheduler
        self.safetyCap = safetyCap
        self.store = nil
        self.recordClosure = record
        self.snapshots = snapshots
        self.now = now
    }

    /// Whether the operation would pass its next stop straight through (see
    /// ``Scheduler/passesStraight(request:)``).
    var passesStraight: Bool { scheduler.passesStraight(request: request) }

    /// The attempt in progress, from 1.
    public var attempt: Int { attemptCount.load(ordering: .relaxed) }

    /// Starts the next attempt; fails past the safety cap.
    func beginAttempt() throws -> Int {
        let attempt = attemptCount.wrappingAdd(1, ordering: .relaxed).newValue
        guard attempt <= safetyCap else { throw LabSafetyCapError(attempts: attempt - 1) }
        return attempt
    }

    /// What a GraphQL hop saw going down; shared with the previous one when it showed the
    /// same (a GraphQL hop shows the method, the endpoint and the added headers).
    func snapshot(graphQL request: GraphQLRequest) -> HopSnapshot {
        snapshots.state.withLock { recent in
            // Compared in place: binding the last pair would retain both.
            if recent.lastGraphQLRequest?.isIdentical(to: request) == true, let snapshot = recent.lastGraphQLSnapshot {
                return snapshot
            }
            let shown = ShownGraphQLRequest(usesGET: request.usesGET, endpoint: request.graphQLEndpoint, headers: request.additionalHeaders)
            let snapshot = recent.graphQLRequest.snapshot(for: shown) { _ in HopSnapshot(graphQL: request) }
            recent.lastGraphQLRequest = request
            recent.lastGraphQLSnapshot = snapshot
            return snapshot
        }
    }

    /// A result on its way up; shared with the previous one when it was equal (for a result
    /// read from a body: when it came from the same bytes).
    func snapshot(result: GraphQLResponse) -> HopSnapshot {
        snapshots.state.withLock { recent in
            // A result climbing hops that pass it on is the very one seen last: compared in
            // place, by identity, without building a key.
            if recent.lastResult?.isIdentical(to: result) == true, let snapshot = recent.lastResultSnapshot { return snapshot }
            let snapshot = if let body = result.body {
                recent.receivedResult.snapshot(for: ReceivedResult(source: result.source, body: body)) { _ in HopSnapshot(result: result) }
            } else {
                recent.result.snapshot(for: result, make: HopSnapshot.init(result:))
            }
            recent.lastResult = result
            recent.lastResultSnapshot = snapshot
            return snapshot
        }
    }

    /// A result or a failure on its way up: the result shared as ``snapshot(result:)`` does.
    func snapshot(outcome: Result<GraphQLResponse, any Error>) -> HopSnapshot {
        switch outcome {
        case .success(let response): snapshot(result: response)
        case .failure(let error): HopSnapshot(error: error)
        }
    }

    /// The records a cache write wrote; shared with the previous write's when they were equal.
    func snapshot(cacheRecords records: RecordSet) -> HopSnapshot {
        snapshots.state.withLock { $0.cacheRecords.snapshot(for: records) { HopSnapshot(cacheRecords: $0) } }
    }

    /// What an HTTP hop or the transport saw going down; shared with the previous one when it
    /// was equal.
    func snapshot(_ request: NetworkRequest) -> HopSnapshot {
        snapshots.state.withLock { $0.networkRequest.snapshot(for: request) { HopSnapshot($0) } }
    }

    /// A response with its body as the transport received it; shared with the previous one
    /// when it was equal.
    func snapshot(response: NetworkResponse, body: Data) -> HopSnapshot {
        snapshots.state.withLock {
            $0.receivedResponse.snapshot(for: ReceivedResponse(status: response.status, headers: response.headerFields, body: body)) { _ in
                HopSnapshot(response: response, body: body)
            }
        }
    }

    /// A response head (status and headers, no body) on its way up; shared with the previous
    /// one when it was equal, as an HTTP hop's post-flight and the parser's pre-flight are.
    func snapshot(responseHead response: NetworkResponse) -> HopSnapshot {
        snapshots.state.withLock {
            $0.responseHead.snapshot(for: ResponseHead(status: response.status, headers: response.headerFields)) { _ in
                HopSnapshot(response: response)
            }
        }
    }

    /// Leaves a note that `hop` threw a retry a person forced at its pre-flight stop, for the
    /// hop above, which reports it.
    func noteForcedRetry(at hop: HopInfo) {
        snapshots.state.withLock { _ = $0.forcedRetries.insert(ForcedRetry(request: request, hop: hop.index)) }
    }

    /// The detail of a retry `hop` threw: set when a person forced it at the pre-flight stop.
    func takeForcedRetryNote(at hop: HopInfo) -> String? {
        snapshots.state.withLock { $0.forcedRetries.remove(ForcedRetry(request: request, hop: hop.index)) } == nil
            ? nil : "forced retry from pre-flight"
    }

    /// Records an event of this operation at `hop`. The snapshot, diff and detail are taken
    /// over (moved into the event, not copied: a copy is a retain and a release).
    func emit(_ hop: HopInfo?, _ phase: Phase, _ snapshot: consuming HopSnapshot = .empty, diff: consuming HeaderDiff = .none, detail: consuming String? = nil) {
        record(
            time: now(), hop: hop?.index ?? TimelineEvent.noHop, name: hop?.name ?? "TokenManager", kind: hop?.kind ?? .auth,
            phase: phase, snapshot: snapshot, diff: diff, detail: detail)
    }

    /// Records `error` as an `error` event of `hop` and returns it, to be thrown:
    /// `throw context.reported(error: fault, at: hop)`.
    func reported(error: any Error, at hop: HopInfo) -> any Error {
        emit(hop, .error, HopSnapshot(error: error))
        return error
    }

    /// Records a line a logging layer wrote, as a `log` event of that layer.
    func log(name: String, line: String) {
        record(
            time: now(), hop: TimelineEvent.noHop, name: name, kind: name.hasSuffix("Middleware") ? .middleware : .graphql,
            phase: .log, snapshot: .empty, diff: .none, detail: line)
    }

    private func record(
        time: Double, hop: Int, name: consuming String, kind: HopKind, phase: Phase, snapshot: consuming HopSnapshot,
        diff: consuming HeaderDiff, detail: consuming String?
    ) {
        if let store {
            store.append(
                time: time, request: request, attempt: attempt, hop: hop, name: name, kind: kind, phase: phase,
                snapshot: snapshot, diff: diff, detail: detail)
        } else if let recordClosure {
            recordClosure(TimelineEvent(
                time: time, request: request, attempt: attempt, hop: hop, name: name, kind: kind, phase: phase,
                snapshot: snapshot, diff: diff, detail: detail))
        }
    }

    /// Waits at a stop of `hop` until the scheduler lets the operation go. `snapshot` and
    /// `capabilities` are evaluated only when the operation waits there (held, or waiting its
    /// turn), not when it passes straight through.
    @inline(__always)
    func gate(_ hop: HopInfo, _ position: StopPosition, _ snapshot: @autoclosure () -> HopSnapshot, _ capabilities: @autoclosure () -> StopCapabilities) async -> Release {
        if passesStraight { return .proceed }
        return await wait(hop, position, snapshot(), capabilities())
    }

    /// The slow side of ``gate(_:_:_:_:)``: the operation may have to wait.
    private func wait(_ hop: HopInfo, _ position: StopPosition, _ snapshot: @autoclosure () -> HopSnapshot, _ capabilities: @autoclosure () -> StopCapabilities) async -> Release {
        let place = StopPlace.hop(hop.index, position)
        return await scheduler.arrive(request: request, place: place) {
            ParkedStop(
                request: request, attempt: attempt, place: place, hopName: hop.name, hopKind: hop.kind,
                snapshot: snapshot(), capabilities: capabilities(), held: false, pending: Release())
        }
    }

    /// Waits at a stop that belongs to no hop (launch, refresh, wake); `snapshot` and
    /// `capabilities` are evaluated only when the operation waits there.
    func gate(
        _ place: StopPlace, name: String, kind: HopKind, snapshot: @autoclosure () -> HopSnapshot = .empty,
        capabilities: @autoclosure () -> StopCapabilities = .none
    ) async -> Release {
        await scheduler.arrive(request: request, place: place) {
            ParkedStop(
                request: request, attempt: attempt, place: place, hopName: name, hopKind: kind,
                snapshot: snapshot(), capabilities: capabilities(), held: false, pending: Release())
        }
    }
}

/// Snapshots shared by the operations of one session (or owned by one operation).
///
/// A message usually passes several hops unchanged (a result climbs every post-flight as it
/// left the parser), and operations of a lab mostly send the same requests and get the same
/// answers. Snapshots are immutable values compared by content, so hops and operations that
/// saw the same message share one: one allocation instead of one per event, less memory per
/// event, and one JSON encoding of a result instead of one per hop.
public final class SnapshotCache: Sendable {
    fileprivate let state = Mutex(RecentSnapshots())

    public init() {}
}

/// The last snapshot of each kind published and the message it shows, and notes about
/// forced retries.
private struct RecentSnapshots: Sendable {
    struct Slot<Message: Equatable & Sendable>: Sendable {
        var message: Message?
        var snapshot: HopSnapshot?

        mutating func snapshot(for message: Message, make: (Message) -> HopSnapshot) -> HopSnapshot {
            if let snapshot, self.message == message { return snapshot }
            let made = make(message)
            self.message = message
            self.snapshot = made
            return made
        }
    }

    var graphQLRequest = Slot<ShownGraphQLRequest>()
    /// The last request seen and its snapshot: a request passed on unchanged is identical to
    /// it, which is cheaper to tell than equal.
    var lastGraphQLRequest: GraphQLRequest?
    var lastGraphQLSnapshot: HopSnapshot?
    /// Hops that threw a retry a person forced at their pre-flight stop, not yet reported.
    var forcedRetries: Set<ForcedRetry> = []
    /// The last result seen and its snapshot, as for requests.
    var lastResult: GraphQLResponse?
    var lastResultSnapshot: HopSnapshot?
    var result = Slot<GraphQLResponse>()
    var receivedResult = Slot<ReceivedResult>()
    var networkRequest = Slot<NetworkRequest>()
    var receivedResponse = Slot<ReceivedResponse>()
    var responseHead = Slot<ResponseHead>()
    var cacheRecords = Slot<RecordSet>()
}

/// A hop of a request that threw a retry a person forced.
private struct ForcedRetry: Hashable, Sendable {
    var request: Int
    var hop: Int
}

/// What a result read from a body shows: the same bytes from the same source make the same
/// result.
private struct ReceivedResult: Equatable, Sendable {
    var source: GraphQLResponse.Source
    var body: Data
}

/// What ``HopSnapshot/init(response:body:)`` shows of a response with its body.
private struct ReceivedResponse: Equatable, Sendable {
    var status: Int
    var headers: HTTPFields
    var body: Data
}

/// What ``HopSnapshot/init(graphQL:)`` shows of a GraphQL request: comparing these is cheaper
/// than comparing (and keeping a copy of) the whole request.
private struct ShownGraphQLRequest: Equatable, Sendable {
    var usesGET: Bool
    var endpoint: URL
    var headers: HTTPFields
}

/// What ``HopSnapshot/init(response:body:)`` shows of a response without its body.
private struct ResponseHead: Equatable, Sendable {
    var status: Int
    var headers: HTTPFields
}

extension PullStream where Element == GraphQLResponse {
    /// The same stream with every result and the failure passed through the junction on the
    /// way up, as the answer to `handed` (what the upper hop handed down, having received
    /// `received`); after a failure the stream ends.
    ///
    /// When this stream is itself one made here, handed back unchanged by a hop that passes
    /// its results through, the new arrival joins it instead of wrapping it: the results meet
    /// the same junctions in the same order, through one stream layer instead of one per hop.
    func arriving(at junction: HopJunction, handed: GraphQLRequest, received: GraphQLRequest) -> PullStream {
        let below = annotation as? Arrival
        return PullStream(source: Arrival(upstream: below == nil ? self : nil, junction: junction, handed: handed, received: received, inner: below))
    }
}

/// Where results climb from one GraphQL hop into the next, for one request handed down: the
/// lower hop's post-flight events are recorded here, and the upper hop's post-flight stop is
/// held here. Arrivals above one upstream stream form a chain, innermost first.
///
/// A class, so the stream layer and its closures share one reference instead of each
/// holding (and retaining every field of) a copy of the requests.
///
/// A chain of arrivals is as long as the chain has GraphQL hops; nothing walks it by
/// recursion (finding the stream, passing an outcome, reporting it, or releasing it), so
/// its length costs heap, not stack.
final class Arrival: PullStreamSource {
    /// The stream the results come from; only the innermost arrival keeps it.
    private let stream: InterceptorResultStream?
    let junction: HopJunction
    /// What the upper hop handed down (its endpoint is the URL of a forced 401).
    let handed: GraphQLRequest
    /// What the upper hop had received, for a forced retry; nil when that is `handed` itself,
    /// as it is for a hop that passed the request on unchanged (one reference less to keep).
    private let receivedIfChanged: GraphQLRequest?
    /// The arrivals below this one, which the results cross first.
    // Written only by init and by deinit, which has the instance to itself; read-only in
    // between, which is what makes the unchecked access safe.
    nonisolated(unsafe) private(set) var inner: Arrival?

    /// `upstream` is nil exactly when `inner` is not: the innermost arrival holds the stream.
    init(upstream: InterceptorResultStream?, junction: HopJunction, handed: GraphQLRequest, received: GraphQLRequest, inner: Arrival?) {
        self.stream = upstream
        self.junction = junction
        self.handed = handed
        self.receivedIfChanged = received.isIdentical(to: handed) ? nil : received
        self.inner = inner
    }

    /// Releases the arrivals below one by one: letting each release the next would nest
    /// one deinit per hop on the stack.
    deinit {
        var below = inner
        inner = nil
        while var arrival = below {
            below = nil
            guard isKnownUniquelyReferenced(&arrival) else { return }
            below = arrival.inner
            arrival.inner = nil
        }
    }

    /// This arrival and every one below it, innermost first.
    var joined: [Arrival] {
        var arrivals = [self]
        while let below = arrivals.last!.inner { arrivals.append(below) }
        return arrivals.reversed()
    }

    /// The stream the results come from, below every arrival joined here.
    var upstream: InterceptorResultStream {
        var arrival = self
        while arrival.stream == nil, let below = arrival.inner { arrival = below }
        return arrival.stream!
    }

    var received: GraphQLRequest { receivedIfChanged ?? handed }

    func makeIterator() -> any PullStreamIterator<GraphQLResponse> { ArrivalIterator(self) }

    /// `outcome` after every junction up to this one: reported at each, and stopped at those
    /// where the operation has to wait.
    func pass(_ outcome: Result<GraphQLResponse, any Error>) async throws -> GraphQLResponse {
        if passesStraight {
            reportAll(outcome)
            return try outcome.get()
        }
        var outcome = outcome
        for arrival in joined {
            arrival.report(outcome)
            if arrival.junction.into == nil || arrival.junction.context.passesStraight { continue }
            do { outcome = .success(try await arrival.stop(outcome)) } catch { outcome = .failure(error) }
        }
        return try outcome.get()
    }

    /// Whether no junction has a stop to wait at now. One operation's junctions share one
    /// context, so when it passes straight, the outcome only needs reporting at each.
    var passesStraight: Bool { junction.context.passesStraight }

    /// Reports `outcome` at every junction, innermost first.
    func reportAll(_ outcome: Result<GraphQLResponse, any Error>) {
        guard inner != nil else { return report(outcome) }
        var count = 1
        var arrival = self
        while let below = arrival.inner {
            count += 1
            arrival = below
        }
        // The hot path of a free run: the arrivals are listed innermost first in scratch
        // space (on the stack when small), not in an array on the heap.
        withUnsafeTemporaryAllocation(of: Unmanaged<Arrival>.self, capacity: count) { buffer in
            var arrival = self
            for index in stride(from: count - 1, through: 0, by: -1) {
                buffer[index] = Unmanaged.passUnretained(arrival)
                if index > 0 { arrival = arrival.inner! }
            }
            for element in buffer { element.takeUnretainedValue().report(outcome) }
        }
    }

    /// Records `outcome` leaving the lower hop.
    func report(_ outcome: Result<GraphQLResponse, any Error>) {
        // The junction's fields are read in place: binding them to locals would copy them.
        guard junction.from != nil else { return }
        switch outcome {
        case .success(let result):
            junction.context.emit(junction.from, .postflight, junction.context.snapshot(result: result), detail: result.source.rawValue)
        case .failure(let error as RequestChain.Retry):
            if let note = junction.context.takeForcedRetryNote(at: junction.from!) {
                junction.context.emit(junction.from, .retry, detail: note)
            } else {
                junction.context.emit(junction.from, .retry, HopSnapshot(error: error))
            }
        case .failure(let error):
            junction.context.emit(junction.from, .error, HopSnapshot(error: error))
        }
    }

    /// The upper hop's post-flight stop: returns or throws what that hop gets.
    func stop(_ outcome: Result<GraphQLResponse, any Error>) async throws -> GraphQLResponse {
        let context = junction.context
        guard let into = junction.into else { return try outcome.get() }
        let release = await context.gate(into, .post, context.snapshot(outcome: outcome), StopCapabilities(canForce401: true))
        switch release.disposition {
        case .proceed: return try outcome.get()
        case .force401:
            throw ResponseCodeError(status: 401, headerFields: jsonContentType, url: handed.graphQLEndpoint, body: forced401Body)
        case .forceRetry: throw RequestChain.Retry(request: received)
        case .fail(let fault): throw fault
        }
    }
}

/// One iteration over the upstream of an ``Arrival``: every outcome passes the arrival's
/// junctions; after a failure the iteration ends.
private final class ArrivalIterator: PullStreamIterator {
    let arrival: Arrival
    let upstream: InterceptorResultStream.AsyncIterator
    var failed = false

    init(_ arrival: Arrival) {
        self.arrival = arrival
        self.upstream = arrival.upstream.makeAsyncIterator()
    }

    func next() async throws -> GraphQLResponse? {
        guard !failed else { return nil }
        let outcome: Result<GraphQLResponse, any Error>
        do {
            guard let next = try await upstream.next() else { return nil }
            outcome = .success(next)
        } catch {
            outcome = .failure(error)
        }
        do {
            // The common case without an async call: nothing waits anywhere.
            guard arrival.passesStraight else { return try await arrival.pass(outcome) }
            arrival.reportAll(outcome)
            return try outcome.get()
        } catch {
            failed = true
            throw error
        }
    }
}
