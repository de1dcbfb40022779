import Synchronization

/// The buffer between a layer running ahead in a task of its own and the one reader of its
/// elements (``PullStream/started(_:)``): the producing task appends, the reader takes them in
/// order and waits while there are none. One lock, one array and at most one waiting reader —
/// what `AsyncThrowingStream` offers that this use needs, at a fraction of its cost per
/// operation (`chain.bare.5` counts it once per GraphQL operation).
///
/// A reader that is cancelled while it waits, or that takes nothing more, ends its stream
/// without an error; ``PullStream/startedWithTask(_:)`` then cancels the producer.
final class StartedBuffer<Element: Sendable>: Sendable {
    private struct State {
        var elements: [Element] = []
        var head = 0
        /// How the producer ended; nil while it runs. A failure is handed on once.
        var end: Result<Void, any Error>?
        var waiter: CheckedContinuation<Element?, any Error>?
        var readerGone = false
    }

    /// What the reader gets now: an element, the end, or nothing yet.
    private enum Take {
        case element(Element)
        case end(Result<Void, any Error>)
        case wait
    }

    private let state = Mutex(State())

    init() {}

    /// Hands `element` on: to the waiting reader, or into the buffer. Dropped when the reader
    /// has gone.
    func yield(_ element: Element) {
        let waiter = state.withLock { state -> CheckedContinuation<Element?, any Error>? in
            guard !state.readerGone, state.end == nil else { return nil }
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
    func finish(throwing failure: (any Error)? = nil) {
        let end: Result<Void, any Error> = failure.map { .failure($0) } ?? .success(())
        let waiter = state.withLock { state -> CheckedContinuation<Element?, any Error>? in
            guard state.end == nil else { return nil }
            state.end = end
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(with: end.map { _ -> Element? in nil })
    }

    /// The reader is gone: its waiting `next` returns nil and later elements are dropped.
    func leave() {
        let waiter = state.withLock { state -> CheckedContinuation<Element?, any Error>? in
            state.readerGone = true
            state.elements = []
            state.head = 0
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// The next element; nil at the end or once the reader has left. A cancelled reader
    /// leaves and runs `onCancel`.
    func next(onCancel: @escaping @Sendable () -> Void) async throws -> Element? {
        switch state.withLock({ Self.take(&$0) }) {
        case .element(let element): return element
        case .end(let end): return try end.map { _ -> Element? in nil }.get()
        case .wait: break
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Element?, any Error>) in
                let now = state.withLock { state -> Take in
                    let take = Self.take(&state)
                    if case .wait = take { state.waiter = continuation }
                    return take
                }
                switch now {
                case .element(let element): continuation.resume(returning: element)
                case .end(let end): continuation.resume(with: end.map { _ -> Element? in nil })
                case .wait: break
                }
            }
        } onCancel: {
            self.leave()
            onCancel()
        }
    }

    private static func take(_ state: inout State) -> Take {
        if state.readerGone { return .end(.success(())) }
        if state.head < state.elements.count {
            let element = state.elements[state.head]
            state.head += 1
            if state.head == state.elements.count {
                state.elements.removeAll(keepingCapacity: true)
                state.head = 0
            }
            return .element(element)
        }
        guard let end = state.end else { return .wait }
        state.end = .success(())
        return .end(end)
    }
}

/// The reading end of a started stream: when the last copy of the stream is dropped, the
/// producer is cancelled.
final class StartedReader<Element: Sendable>: Sendable {
    private let buffer: StartedBuffer<Element>
    private let task: Task<Void, Never>

    init(buffer: StartedBuffer<Element>, task: Task<Void, Never>) {
        self.buffer = buffer
        self.task = task
    }

    deinit {
        buffer.leave()
        task.cancel()
    }

    func next() async throws -> Element? {
        let task = self.task
        return try await buffer.next { task.cancel() }
    }
}
