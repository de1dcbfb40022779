/// A lazy, single-consumer async sequence that does its work in the consumer's task.
///
/// Nothing runs until the sequence is iterated, and every operator (`map`, `compactMap`,
/// `mapErrors`) wraps the upstream iterator instead of buffering: a hop in the chain costs
/// one closure call per element, never a task or a queue. Because the work happens in the
/// iterating task, cancelling that task reaches every layer as `CancellationError`.
///
/// ```swift
/// let doubled = PullStream([1, 2, 3]).map { $0 * 2 }
/// for try await value in doubled { print(value) } // 2, 4, 6
/// ```
public struct PullStream<Element: Sendable>: AsyncSequence, Sendable {
    public typealias Failure = any Error

    private let makeNext: @Sendable () -> (() async throws -> Element?)

    /// What the layer that made this stream attached to it, so that layer can recognise the
    /// stream when it comes back unchanged (nil for every stream an operator makes).
    public let annotation: (any AnyObject & Sendable)?

    /// A stream whose iterator calls the closure that `makeNext` returns until it returns nil.
    /// `makeNext` runs once per iteration, so each iteration gets fresh state.
    public init(_ makeNext: @escaping @Sendable () -> (() async throws -> Element?)) {
        self.makeNext = makeNext
        self.annotation = nil
    }

    /// A stream like ``init(_:)-(()->(()->Element?))`` carrying `annotation`.
    public init(annotation: any AnyObject & Sendable, _ makeNext: @escaping @Sendable () -> (() async throws -> Element?)) {
        self.makeNext = makeNext
        self.annotation = annotation
    }

    /// A stream of fixed elements.
    public init(_ elements: [Element]) {
        self.init {
            var iterator = elements.makeIterator()
            return { iterator.next() }
        }
    }

    /// A stream that yields nothing.
    public static var empty: PullStream { PullStream([]) }

    /// A stream that fails with `error` when first pulled.
    public static func failing(_ error: any Error) -> PullStream {
        PullStream { { throw error } }
    }

    /// A stream of the one element `body` produces when pulled (nil: no element).
    public static func single(_ body: @escaping @Sendable () async throws -> Element?) -> PullStream {
        PullStream {
            var done = false
            return {
                guard !done else { return nil }
                done = true
                return try await body()
            }
        }
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let pull: () async throws -> Element?
        // Not mutating, so a wrapper can hold its upstream iterator in a `let`.
        public func next() async throws -> Element? { try await pull() }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(pull: makeNext()) }

    /// Transforms every element; a thrown error fails the stream.
    public func map<T: Sendable>(_ transform: @escaping @Sendable (Element) async throws -> T) -> PullStream<T> {
        let upstream = makeNext
        return PullStream<T> {
            let pull = upstream()
            return {
                guard let element = try await pull() else { return nil }
                return try await transform(element)
            }
        }
    }

    /// Transforms every element and drops those mapped to nil.
    public func compactMap<T: Sendable>(_ transform: @escaping @Sendable (Element) async throws -> T?) -> PullStream<T> {
        let upstream = makeNext
        return PullStream<T> {
            let pull = upstream()
            return {
                while let element = try await pull() {
                    if let mapped = try await transform(element) { return mapped }
                }
                return nil
            }
        }
    }

    /// Handles an upstream error: return an element to yield it and finish, return nil to
    /// finish silently, or throw to fail with that error.
    public func mapErrors(_ transform: @escaping @Sendable (any Error) async throws -> Element?) -> PullStream {
        let upstream = makeNext
        return PullStream {
            let pull = upstream()
            var finished = false
            return {
                guard !finished else { return nil }
                do {
                    return try await pull()
                } catch {
                    finished = true
                    return try await transform(error)
                }
            }
        }
    }

    /// Collects every element; for tests and for small, finite streams.
    public func collect() async throws -> [Element] {
        var all: [Element] = []
        for try await element in self { all.append(element) }
        return all
    }
}
