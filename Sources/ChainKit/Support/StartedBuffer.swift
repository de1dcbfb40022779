import Wire
import Synchronization

/// The task that runs a started layer ahead of its reader. Typed as throwing though its work
/// never throws: a non-throwing operation is handed to the runtime through a thunk that
/// makes it throwing, one more allocation, frame and executor check for every task started.
package typealias StartedTask = Task<Void, any Error>

/// The buffer between a layer running ahead in a task of its own and the one reader of its
/// elements (``PullStream/started(_:)``, ``ChainRunner/kickoff(request:)``): the producing
/// task appends, the reader takes them in order and waits while there are none. One lock, one
/// array and at most one waiting reader — what `AsyncThrowingStream` offers that this use
/// needs, at a fraction of its cost per operation (`chain.bare.5` counts it once per GraphQL
/// operation).
///
/// A reader that is cancelled while it waits, or that takes nothing more, ends its stream
/// without an error; ``StartedReader`` then cancels the producer.
///
/// Open only so that a producer's state for one run can be the buffer itself (one object an
/// operation rather than two: ``ChainRunner``'s operation); its members are final. Sendable
/// unchecked because a class open to subclassing cannot be checked: its state is read and
/// written only under `lock`, and a subclass adds only constants and state behind a lock
/// of its own.
class StartedBuffer<Element: Sendable>: @unchecked Sendable {
    /// Every field has the same layout whatever `Element` is (no `Element?`, no generic
    /// `Mutex`), so destroying a buffer needs no generic type looked up at run time: its
    /// `deinit` is generic code, and looking up `Mutex<State>` there cost more than the lock.
    private struct State {
        /// Elements not read yet, from `head` on.
        var elements: [Element] = []
        var head = 0
        /// Whether the producer has ended; a failure it ended with is handed on once.
        var ended = false
        var failure: (any Error)?
        /// The reader waiting for an element, only ever while none is buffered.
        var waiter: UnsafeContinuation<Element?, any Error>?
        var readerGone = false
    }

    /// What the reader gets now: an element, the end, a failure, or nothing yet.
    private enum Take {
        case element(Element)
        case end
        case failure(any Error)
        case wait
    }

    private let lock = Mutex(())
    /// Read and written only under `lock`.
    private var state = State()

    init() {}

    private func withState<Result>(_ body: (inout State) -> Result) -> Result {
        lock.withLock { _ in body(&state) }
    }

    /// Hands `element` on: to the waiting reader, or into the buffer. Dropped when the reader
    /// has gone.
    final func yield(_ element: Element) {
        let waiter = withState { state -> UnsafeContinuation<Element?, any Error>? in
            guard !state.readerGone, !state.ended else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.elements.append(element)
            return nil
        }
        waiter?.resume(returning: element)
    }

    /// Ends the elements: after those buffered the reader gets nil, or `failure` once.
    final func finish(throwing failure: (any Error)? = nil) {
        let waiter = withState { state -> UnsafeContinuation<Element?, any Error>? in
            guard !state.ended else { return nil }
            state.ended = true
            state.failure = failure
            guard let waiter = state.waiter else { return nil }
            // A waiting reader means nothing is buffered: it takes the end now.
            state.waiter = nil
            state.failure = nil
            return waiter
        }
        guard let waiter else { return }
        if let failure { waiter.resume(throwing: failure) } else { waiter.resume(returning: nil) }
    }

    /// Runs `elements` to their end in the calling task, handing each on, then the end.
    final func fill(from elements: PullStream<Element>) async {
        do {
            for try await element in elements { yield(element) }
            finish()
        } catch {
            finish(throwing: error)
        }
    }

    /// The reader is gone: its waiting `next` returns nil and later elements are dropped.
    /// Returns whether the producer had already ended.
    @discardableResult
    final func leave() -> Bool {
        let (waiter, ended) = withState { state -> (UnsafeContinuation<Element?, any Error>?, Bool) in
            state.readerGone = true
            if !state.elements.isEmpty { state.elements = [] }
            state.head = 0
            state.failure = nil
            defer { state.waiter = nil }
            return (state.waiter, state.ended)
        }
        waiter?.resume(returning: nil)
        return ended
    }

    /// The reader is gone without reading to the end: `producer`, when it has not ended, is
    /// cancelled. What a reading end's `deinit` calls.
    final func abandon(cancelling producer: StartedTask) {
        if !leave() { producer.cancel() }
    }

    /// The next element; nil at the end or once the reader has left. A cancelled reader
    /// leaves and cancels `producer`.
    final func next(cancelling producer: StartedTask) async throws -> Element? {
        switch withState({ Self.take(&$0) }) {
        case .element(let element): return element
        case .end: return nil
        case .failure(let failure): throw failure
        case .wait: break
        }
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Element?, any Error>) in
                let now = withState { state -> Take in
                    let take = Self.take(&state)
                    if case .wait = take { state.waiter = continuation }
                    return take
                }
                switch now {
                case .element(let element): continuation.resume(returning: element)
                case .end: continuation.resume(returning: nil)
                case .failure(let failure): continuation.resume(throwing: failure)
                case .wait: break
                }
            }
        } onCancel: {
            self.leave()
            producer.cancel()
        }
    }

    private static func take(_ state: inout State) -> Take {
        if state.readerGone { return .end }
        if state.head < state.elements.count {
            let element = state.elements[state.head]
            state.head += 1
            if state.head == state.elements.count {
                state.elements.removeAll(keepingCapacity: true)
                state.head = 0
            }
            return .element(element)
        }
        guard state.ended else { return .wait }
        guard let failure = state.failure else { return .end }
        state.failure = nil
        return .failure(failure)
    }
}

/// The reading end of a started stream, and its one iteration: when the last copy of the
/// stream and its iterator are dropped, the producer is cancelled (unless it has ended).
/// ``ChainRunner`` has a reader of its own for its results, of a concrete type: a generic
/// class's methods reached through the iterator protocol run unspecialised, and look up the
/// buffer's generic types at run time on every call.
final class StartedReader<Element: Sendable>: PullStreamSource, PullStreamIterator {
    private let buffer: StartedBuffer<Element>
    private let task: StartedTask

    init(buffer: StartedBuffer<Element>, task: StartedTask) {
        self.buffer = buffer
        self.task = task
    }

    deinit {
        buffer.abandon(cancelling: task)
    }

    /// The stream is read once, so its iteration is the reader itself.
    func makeIterator() -> any PullStreamIterator<Element> { self }

    func next() async throws -> Element? {
        try await buffer.next(cancelling: task)
    }
}
