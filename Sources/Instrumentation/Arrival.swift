import Stops
import ChainKit
import Synchronization
import Timeline

extension PullStream where Element == ChainResponse {
    /// The same stream with every result and the failure passed through the junction into
    /// GraphQL hop `into` of `instrumentation` on the way up, as the answer to `handed` (what
    /// that hop handed down, having received `received`); after a failure the stream ends.
    ///
    /// When this stream is itself one made here for the same operation, handed back unchanged
    /// by a hop that passes its results through and not read yet, the junction joins it
    /// instead of wrapping it: the results meet the same junctions in the same order, through
    /// one stream layer and one object for all of them instead of one per hop. The stream is
    /// taken over (handed back or wrapped without a copy), and the arrival below is lent.
    consuming func arriving(into: Int, of instrumentation: GraphQLInstrumentation, handed: ChainRequest, received: ChainRequest) -> PullStream {
        if ArrivalBelow.join(self, into: into, of: instrumentation, handed: handed, received: received) { return self }
        return PullStream(source: Arrival(upstream: self, instrumentation: instrumentation, first: Arrival.Passage(into: into, handed: handed, received: received)))
    }
}

/// Where results climb from one GraphQL hop into the next, for every junction they cross
/// between one upstream stream and the hop that reads them: at each, the lower hop's
/// post-flight events are recorded and the upper hop's post-flight stop is held.
///
/// One object for all of an operation's junctions that pass results through unchanged (a
/// hop that hands its results up as they came adds its junction here, ``join(_:)``), so a
/// chain of pass-through hops costs one allocation and one list, not an object per hop. It
/// keeps the requests as they were handed (copy-on-write values: a reference each); their
/// snapshots are taken from them only when an event or a stop needs one.
final class Arrival: PullStreamSource {
    /// What the upper hop of one junction handed down, and what it had received.
    struct Passage: Sendable {
        /// The hop the results enter (``GraphQLJunction/intoIndex``).
        let into: Int
        /// What that hop handed down (its endpoint is the URL of a forced 401).
        let handed: ChainRequest
        /// What it had received, for a forced retry; nil when that is `handed` itself, as it
        /// is for a hop that passed the request on unchanged (one reference less to keep).
        private let receivedIfChanged: ChainRequest?

        init(into: Int, handed: ChainRequest, received: ChainRequest) {
            self.into = into
            self.handed = handed
            self.receivedIfChanged = received.isIdentical(to: handed) ? nil : received
        }

        var received: ChainRequest { receivedIfChanged ?? handed }
    }

    private struct Passages {
        /// Innermost first: the order the results cross them.
        var list: [Passage]
        /// Set by the first iteration, after which no junction joins: an iteration crosses
        /// the junctions there were when it started.
        var iterated = false
    }

    /// The stream the results come from.
    private let stream: ChainResultStream
    let instrumentation: GraphQLInstrumentation
    // Locked only to join and to start an iteration, a few times an operation: a hop that
    // kept its results to read them in a task of its own must not find the list changing.
    private let passages: Mutex<Passages>

    init(upstream: ChainResultStream, instrumentation: GraphQLInstrumentation, first: Passage) {
        self.stream = upstream
        self.instrumentation = instrumentation
        var list: [Passage] = []
        // Room for every junction of the operation's GraphQL hops, which pass-through hops
        // join: one allocation for all of them.
        list.reserveCapacity(instrumentation.graphQLCount + 1)
        list.append(first)
        self.passages = Mutex(Passages(list: list))
    }

    /// Adds the junction into hop `into` of `instrumentation`'s operation, which results cross
    /// after the last one here; false when these results are another operation's or are
    /// already read. The passage is made only when it joins.
    func join(into: Int, of instrumentation: GraphQLInstrumentation, handed: ChainRequest, received: ChainRequest) -> Bool {
        guard self.instrumentation === instrumentation else { return false }
        return passages.withLock { passages in
            guard !passages.iterated else { return false }
            passages.list.append(Passage(into: into, handed: handed, received: received))
            return true
        }
    }

    func makeIterator() -> any PullStreamIterator<ChainResponse> {
        let list = passages.withLock { passages in
            passages.iterated = true
            return passages.list
        }
        return ArrivalIterator(upstream: stream.makeAsyncIterator(), instrumentation: instrumentation, passages: list)
    }
}

/// One iteration over the upstream of an ``Arrival``: every outcome passes the arrival's
/// junctions; after a failure the iteration ends.
private final class ArrivalIterator: PullStreamIterator {
    let upstream: ChainResultStream.AsyncIterator
    let instrumentation: GraphQLInstrumentation
    let passages: [Arrival.Passage]
    var failed = false

    init(upstream: ChainResultStream.AsyncIterator, instrumentation: GraphQLInstrumentation, passages: [Arrival.Passage]) {
        self.upstream = upstream
        self.instrumentation = instrumentation
        self.passages = passages
    }

    // Inlined into the conformance's witness, which would otherwise call it in an async frame of its own.
    @inline(__always)
    func next() async throws -> ChainResponse? {
        guard !failed else { return nil }
        let outcome: Result<ChainResponse, any Error>
        do {
            guard let next = try await upstream.next() else { return nil }
            outcome = .success(next)
        } catch {
            outcome = .failure(error)
        }
        do {
            // The common case without an async call: nothing waits anywhere.
            guard instrumentation.context.passesStraight else { return try await pass(outcome) }
            reportAll(outcome)
            return try outcome.get()
        } catch {
            failed = true
            throw error
        }
    }

    /// `outcome` after every junction: reported at each, and stopped at those where the
    /// operation has to wait.
    private func pass(_ outcome: Result<ChainResponse, any Error>) async throws -> ChainResponse {
        var outcome = outcome
        for index in passages.indices {
            let junction = GraphQLJunction(instrumentation, into: passages[index].into)
            junction.report(outcome)
            if !junction.hasInto || junction.context.passesStraight { continue }
            do { outcome = .success(try await junction.stop(outcome, passages[index])) } catch { outcome = .failure(error) }
        }
        return try outcome.get()
    }

    /// Reports `outcome` at every junction, innermost first.
    private func reportAll(_ outcome: Result<ChainResponse, any Error>) {
        // Every junction shows the same result: its snapshot is looked up once, not at each.
        let shown = passages.count > 1 ? outcome.map { instrumentation.context.snapshots.snapshot(result: $0) } : nil
        // By index: only each junction's hop is read, where a loop over the passages would
        // copy (and retain) the requests of each.
        for index in passages.indices { GraphQLJunction(instrumentation, into: passages[index].into).report(outcome, shown: shown) }
    }
}

extension GraphQLJunction {
    /// Records `outcome` leaving the lower hop; `shown`, when given, is the snapshot of a
    /// result that `outcome` carries.
    func report(_ outcome: Result<ChainResponse, any Error>, shown: Result<HopSnapshot, any Error>? = nil) {
        guard hasFrom else { return }
        let context = self.context
        switch outcome {
        case .success(let result):
            let snapshot = if case .success(let snapshot) = shown { snapshot } else { context.snapshots.snapshot(result: result) }
            context.emit(instrumentation.hops, intoIndex &+ 1, .postflight, snapshot, detail: result.source.rawValue)
        case .failure(let error as ChainRunner.Retry):
            if let note = context.takeForcedRetryNote(at: from) {
                context.emit(from, .retry, detail: note)
            } else {
                context.emit(from, .retry, HopSnapshot(error: error))
            }
        case .failure(let error):
            context.emit(from, .error, HopSnapshot(error: error))
        }
    }

    /// The upper hop's post-flight stop: returns or throws what that hop gets, having handed
    /// down and received what `passage` holds.
    func stop(_ outcome: Result<ChainResponse, any Error>, _ passage: Arrival.Passage) async throws -> ChainResponse {
        let context = self.context
        guard hasInto else { return try outcome.get() }
        let release = await context.gate(into, .post, context.snapshots.snapshot(outcome: outcome), StopCapabilities(canForce401: true))
        return try release.applied(to: outcome, handed: passage.handed, received: passage.received)
    }
}
