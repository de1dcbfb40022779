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
    /// `results` followed: ``state`` becomes active at the first result and finished when
    /// `results` ends, fails or is cancelled. Reading stops `results` when the reader does.
    static func following(_ results: AsyncThrowingStream<Element, any Error>) -> SubscriptionStream {
        let box = SubscriptionStateBox()
        let stream = AsyncThrowingStream<Element, any Error> { continuation in
            let task = Task {
                do {
                    for try await result in results {
                        box.set(.active)
                        continuation.yield(result)
                    }
                    box.set(.finished(Task.isCancelled ? .cancelled : .completed))
                    continuation.finish()
                } catch is CancellationError {
                    box.set(.finished(.cancelled))
                    continuation.finish(throwing: CancellationError())
                } catch {
                    box.set(.finished(.error(error)))
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { termination in
                // Set here too, so the state is final by the time the reader's loop ends.
                if case .cancelled = termination { box.set(.finished(.cancelled)) }
                task.cancel()
            }
        }
        return SubscriptionStream(stream: stream, stateProvider: { box.state })
    }
}
