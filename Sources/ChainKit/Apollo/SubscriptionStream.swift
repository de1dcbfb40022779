import Synchronization

/// A subscription's results, read with `for try await`, and where the subscription is in its
/// life (Apollo iOS 2.4's `SubscriptionStream`, what ``ApolloClient/subscribe(subscription:cachePolicy:requestConfiguration:)``
/// returns).
///
/// ```swift
/// let stream = try client.subscribe(subscription: HeroNameChangedSubscription())
/// stream.state                      // .pending
/// for try await response in stream {
///     stream.state                  // .active
/// }
/// stream.state                      // .finished(.completed)
/// ```
///
/// Cancelling the task that reads the stream ends the subscription.
public struct SubscriptionStream<Element: Sendable>: AsyncSequence, Sendable {
    public struct AsyncIterator: AsyncIteratorProtocol {
        private var base: AsyncThrowingStream<Element, any Error>.AsyncIterator

        init(_ base: AsyncThrowingStream<Element, any Error>.AsyncIterator) {
            self.base = base
        }

        public mutating func next() async throws -> Element? {
            try await base.next()
        }
    }

    /// The results, as a plain stream.
    public let stream: AsyncThrowingStream<Element, any Error>
    private let stateProvider: @Sendable () -> SubscriptionState

    /// Where the subscription is now, as the transport last set it.
    public var state: SubscriptionState { stateProvider() }

    /// `stream`'s results, with `stateProvider` asked for ``state`` each time it is read.
    public init(stream: AsyncThrowingStream<Element, any Error>, stateProvider: @escaping @Sendable () -> SubscriptionState) {
        self.stream = stream
        self.stateProvider = stateProvider
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(stream.makeAsyncIterator())
    }
}

extension SubscriptionStream {
    /// `results`, read as the reader asks for them, so ``state`` says what the reader has
    /// seen: active once it has a result, finished when it has the end or the error, or when
    /// the client let go of the results first (its task was cancelled, which ends the stream
    /// as it ends any `AsyncThrowingStream`, or it dropped the stream). Letting go of
    /// `results` stops the chain.
    static func following(_ results: AsyncThrowingStream<Element, any Error>) -> SubscriptionStream {
        let box = SubscriptionStateBox()
        let reader = Reader(results.makeAsyncIterator(), state: box)
        let stream = AsyncThrowingStream<Element, any Error> {
            do {
                guard let result = try await reader.next() else {
                    box.set(.finished(Task.isCancelled ? .cancelled : .completed))
                    return nil
                }
                box.set(.active)
                return result
            } catch is CancellationError {
                box.set(.finished(.cancelled))
                return nil
            } catch {
                box.set(.finished(.error(error)))
                throw error
            }
        }
        return SubscriptionStream(stream: stream, stateProvider: { box.state })
    }

    /// The one iterator of a subscription's results. The stream drops it when it ends, and
    /// at once when its reader's task is cancelled (it then asks for nothing more): a reader
    /// dropped before the subscription finished means the client ended it.
    ///
    /// `@unchecked Sendable`: the iterator is used by one task at a time. The stream around it
    /// calls `next()` from its reader's task, one call after another, and a second task that
    /// calls while one is waiting stops the program, as it would on the `AsyncThrowingStream`
    /// itself.
    private final class Reader: @unchecked Sendable {
        private var iterator: AsyncThrowingStream<Element, any Error>.AsyncIterator
        private let reading = Atomic(false)
        private let state: SubscriptionStateBox

        init(_ iterator: AsyncThrowingStream<Element, any Error>.AsyncIterator, state: SubscriptionStateBox) {
            self.iterator = iterator
            self.state = state
        }

        deinit {
            state.set(.finished(.cancelled))
        }

        func next() async throws -> Element? {
            precondition(!reading.exchange(true, ordering: .acquiring), "a subscription's results read by two tasks at once")
            defer { reading.store(false, ordering: .releasing) }
            return try await iterator.next()
        }
    }
}
