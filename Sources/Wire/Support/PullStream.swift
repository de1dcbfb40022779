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

    // Inlinable, with what it reads, so an operator applied in another module (a custom
    // interceptor's `map`) is specialised there for its element type, as ChainKit's own are.
    @usableFromInline
    enum Source: Sendable {
        case closure(@Sendable () -> (() async throws -> Element?))
        case object(any PullStreamSource<Element>)
        /// Fixed elements, and what iterates them (made where the stream is, so it is
        /// specialised for the element type there).
        case elements([Element], @Sendable () -> (() async throws -> Element?))
    }

    @usableFromInline let source: Source

    /// The source of a stream made with ``init(source:)``, so the layer that made it can
    /// recognise the stream when it comes back unchanged (nil for every other stream).
    package var annotation: (any AnyObject & Sendable)? {
        if case .object(let source) = source { source } else { nil }
    }

    /// A stream whose iterator calls the closure that `makeNext` returns until it returns nil.
    /// `makeNext` runs once per iteration, so each iteration gets fresh state.
    public init(_ makeNext: @escaping @Sendable () -> (() async throws -> Element?)) {
        self.source = .closure(makeNext)
    }

    /// A stream whose iterations `source` makes, carrying `source` as its annotation. A layer
    /// that is an object anyway costs no closures this way (a closure over a generic element
    /// type is wrapped, and allocated, once more when it is stored).
    package init(source: any PullStreamSource<Element>) {
        self.source = .object(source)
    }

    /// A stream of fixed elements.
    public init(_ elements: [Element]) {
        self.source = .elements(elements) {
            var iterator = elements.makeIterator()
            return { iterator.next() }
        }
    }

    /// The elements of a stream made from them (``init(_:)``), which are in memory: a reader
    /// that needs them all takes them without iterating (nil for every other stream).
    package var elementsInMemory: [Element]? {
        if case .elements(let elements, _) = source { elements } else { nil }
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
        // Two fields rather than an enum: calling the closure then borrows it, where a
        // `switch` would copy (retain and release) the payload on every element.
        @usableFromInline let pull: () async throws -> Element?
        @usableFromInline let iterator: (any PullStreamIterator<Element>)?

        @usableFromInline
        init(pull: @escaping () async throws -> Element?, iterator: (any PullStreamIterator<Element>)?) {
            self.pull = pull
            self.iterator = iterator
        }

        // Not mutating, so a wrapper can hold its upstream iterator in a `let`. Always inlined:
        // as a call of its own, it would cost every layer one more async frame per element.
        @inline(__always)
        public func next() async throws -> Element? {
            if let iterator { return try await iterator.next() }
            return try await pull()
        }
    }

    // Inlinable, so a reader in another module (an app iterating the chain's results) makes
    // its iterator specialised: unspecialised, the placeholder closure of an object's
    // iteration is allocated, its context holding the element's type.
    @inlinable
    public func makeAsyncIterator() -> AsyncIterator { Self.iterate(source) }

    /// A fresh iteration of `source`. Operators keep only the source of their upstream (not
    /// the whole stream), which is one reference.
    @inlinable
    static func iterate(_ source: Source) -> AsyncIterator {
        switch source {
        case .closure(let makeNext): return AsyncIterator(pull: makeNext(), iterator: nil)
        case .object(let source): return AsyncIterator(pull: { nil }, iterator: source.makeIterator())
        case .elements(_, let makeNext): return AsyncIterator(pull: makeNext(), iterator: nil)
        }
    }

    /// Transforms every element; a thrown error fails the stream.
    @inlinable
    public func map<T: Sendable>(_ transform: @escaping @Sendable (Element) async throws -> T) -> PullStream<T> {
        let upstream = source
        return PullStream<T> {
            let pull = Self.iterate(upstream)
            return {
                guard let element = try await pull.next() else { return nil }
                return try await transform(element)
            }
        }
    }

    /// Transforms every element and drops those mapped to nil.
    @inlinable
    public func compactMap<T: Sendable>(_ transform: @escaping @Sendable (Element) async throws -> T?) -> PullStream<T> {
        let upstream = source
        return PullStream<T> {
            let pull = Self.iterate(upstream)
            return {
                while let element = try await pull.next() {
                    if let mapped = try await transform(element) { return mapped }
                }
                return nil
            }
        }
    }

    /// Handles an upstream error: return an element to yield it and finish, return nil to
    /// finish silently, or throw to fail with that error.
    @inlinable
    public func mapErrors(_ transform: @escaping @Sendable (any Error) async throws -> Element?) -> PullStream {
        let upstream = source
        return PullStream {
            let pull = Self.iterate(upstream)
            var finished = false
            return {
                guard !finished else { return nil }
                do {
                    return try await pull.next()
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

extension PullStream {
    /// The annotation of a stream, lent: not retained, valid while the stream is (nil for a
    /// stream not made with ``init(source:)``). Inlinable, so it is read where the element
    /// type is known (the chain's results) and the source is looked at in place; a generic
    /// reader copies it through its type's metadata, and retains what it holds, to ask the same.
    @inlinable
    package var lentAnnotation: Unmanaged<AnyObject>? {
        guard case .object(let source) = source else { return nil }
        return Unmanaged.passUnretained(source)
    }
}

/// What makes the iterations of a ``PullStream`` built with ``PullStream/init(source:)``.
@usableFromInline
package protocol PullStreamSource<Element>: AnyObject, Sendable {
    associatedtype Element: Sendable
    /// A fresh iteration.
    func makeIterator() -> any PullStreamIterator<Element>
}

/// One iteration of a ``PullStreamSource``; only the iterating task uses it.
@usableFromInline
package protocol PullStreamIterator<Element>: AnyObject {
    associatedtype Element: Sendable
    /// The next element, or nil at the end.
    func next() async throws -> Element?
}
