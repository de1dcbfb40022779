import ChainKit
import Timeline

extension PullStream where Element == GraphQLResponse {
    /// The same stream with every result and the failure passed through the junction on the
    /// way up, as the answer to `handed` (what the upper hop handed down, having received
    /// `received`); after a failure the stream ends.
    ///
    /// When this stream is itself one made here, handed back unchanged by a hop that passes
    /// its results through, the new arrival joins it instead of wrapping it: the results meet
    /// the same junctions in the same order, through one stream layer instead of one per hop.
    func arriving(at junction: GraphQLJunction, handed: GraphQLRequest, received: GraphQLRequest) -> PullStream {
        // Arrival is final: comparing the annotation's type is the whole of the cast, without
        // the runtime's search through the conformances of an existential.
        let below = annotation.flatMap { type(of: $0) == Arrival.self ? unsafeDowncast($0, to: Arrival.self) : nil }
        return PullStream(source: Arrival(upstream: below == nil ? self : nil, junction: junction, handed: handed, received: received, inner: below))
    }
}

/// Where results climb from one GraphQL hop into the next, for one request handed down: the
/// lower hop's post-flight events are recorded here, and the upper hop's post-flight stop is
/// held here. Arrivals above one upstream stream form a chain, innermost first.
///
/// A class, so the stream layer and its closures share one reference instead of each
/// holding (and retaining every field of) a copy of the requests. It keeps the requests as
/// they were handed (copy-on-write values: a reference each); their snapshots are taken from
/// them only when an event or a stop needs one.
///
/// A chain of arrivals is as long as the chain has GraphQL hops; nothing walks it by
/// recursion (finding the stream, passing an outcome, reporting it, or releasing it), so
/// its length costs heap, not stack.
final class Arrival: PullStreamSource {
    /// The stream the results come from; only the innermost arrival keeps it.
    private let stream: InterceptorResultStream?
    let junction: GraphQLJunction
    /// What the upper hop handed down (its endpoint is the URL of a forced 401).
    let handed: GraphQLRequest
    /// What the upper hop had received, for a forced retry; nil when that is `handed` itself,
    /// as it is for a hop that passed the request on unchanged (one reference less to keep).
    private let receivedIfChanged: GraphQLRequest?
    /// The arrivals below this one, which the results cross first.
    // Written only by init and by deinit, which has the instance to itself; read-only in
    // between, which is what makes the unchecked access safe.
    nonisolated(unsafe) private(set) var inner: Arrival?
    /// ``inner``, to walk the arrivals without retaining each (it is set with ``inner`` and
    /// outlived by it).
    private let innerUnretained: Unmanaged<Arrival>?

    /// `upstream` is nil exactly when `inner` is not: the innermost arrival holds the stream.
    init(upstream: InterceptorResultStream?, junction: GraphQLJunction, handed: GraphQLRequest, received: GraphQLRequest, inner: Arrival?) {
        self.stream = upstream
        self.junction = junction
        self.handed = handed
        self.receivedIfChanged = received.isIdentical(to: handed) ? nil : received
        self.inner = inner
        self.innerUnretained = inner.map(Unmanaged.passUnretained)
    }

    /// Releases the arrivals below one by one: letting each release the next would nest
    /// one deinit per hop on the stack.
    deinit {
        var below = inner.take()
        while var arrival = below {
            below = nil
            guard isKnownUniquelyReferenced(&arrival) else { return }
            // Moved out, not copied: a copy would be a retain and a release per arrival.
            below = arrival.inner.take()
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
        // Walked without retaining each arrival: this one holds those below it.
        var arrival = Unmanaged.passUnretained(self)
        while let below = arrival._withUnsafeGuaranteedRef({ $0.stream == nil ? $0.innerUnretained : nil }) { arrival = below }
        return arrival._withUnsafeGuaranteedRef { $0.stream! }
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
            if !arrival.junction.hasInto || arrival.junction.context.passesStraight { continue }
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
        // Every junction shows the same result: its snapshot is looked up once, not at each.
        let shown = outcome.map { junction.context.snapshots.snapshot(result: $0) }
        // The hot path of a free run. This arrival holds the ones below it for as long as
        // this runs, so they are walked without a retain each, and listed innermost first
        // in scratch space (on the stack when small), not in an array on the heap.
        var count = 1
        var below = innerUnretained
        while let arrival = below {
            count += 1
            below = arrival._withUnsafeGuaranteedRef { $0.innerUnretained }
        }
        withUnsafeTemporaryAllocation(of: Unmanaged<Arrival>.self, capacity: count) { buffer in
            var arrival = Unmanaged.passUnretained(self)
            for index in stride(from: count - 1, through: 0, by: -1) {
                buffer[index] = arrival
                if index > 0 { arrival = arrival._withUnsafeGuaranteedRef { $0.innerUnretained! } }
            }
            for element in buffer { element._withUnsafeGuaranteedRef { $0.report(outcome, shown: shown) } }
        }
    }

    /// Records `outcome` leaving the lower hop; `shown`, when given, is the snapshot of a
    /// result that `outcome` carries.
    func report(_ outcome: Result<GraphQLResponse, any Error>, shown: Result<HopSnapshot, any Error>? = nil) {
        guard junction.hasFrom else { return }
        let context = junction.context
        switch outcome {
        case .success(let result):
            let snapshot = if case .success(let snapshot) = shown { snapshot } else { context.snapshots.snapshot(result: result) }
            context.emit(junction.from, .postflight, snapshot, detail: result.source.rawValue)
        case .failure(let error as RequestChain.Retry):
            if let note = context.takeForcedRetryNote(at: junction.from) {
                context.emit(junction.from, .retry, detail: note)
            } else {
                context.emit(junction.from, .retry, HopSnapshot(error: error))
            }
        case .failure(let error):
            context.emit(junction.from, .error, HopSnapshot(error: error))
        }
    }

    /// The upper hop's post-flight stop: returns or throws what that hop gets.
    func stop(_ outcome: Result<GraphQLResponse, any Error>) async throws -> GraphQLResponse {
        let context = junction.context
        guard junction.hasInto else { return try outcome.get() }
        let release = await context.gate(junction.into, .post, context.snapshots.snapshot(outcome: outcome), StopCapabilities(canForce401: true))
        return try release.applied(to: outcome, handed: handed, received: received)
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

    // Inlined into the conformance's witness, which would otherwise call it in an async frame of its own.
    @inline(__always)
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
