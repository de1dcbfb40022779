/// A stream that can be read once: mapping it consumes it, and only the stream a map returns
/// can be used afterwards (Apollo iOS 2.4's `NonCopyableAsyncThrowingStream`).
///
/// An interceptor's post-flight maps the stream `next` returned and hands the new one up;
/// reading the same stream twice does not compile:
///
/// ```swift
/// let stream = await next(request)
/// let mapped = await stream.map { $0 }
/// let again = await stream.map { $0 }   // error: 'stream' used after consume
/// ```
///
/// Each map runs in a task of its own that starts at once, as upstream's: what a map does
/// happens while the layers below are still working, not when somebody reads the result.
public struct NonCopyableAsyncThrowingStream<Element: Sendable>: Sendable, ~Copyable {
    private let stream: AsyncThrowingStream<Element, any Error>

    public init(stream: consuming AsyncThrowingStream<Element, any Error>) {
        self.stream = stream
    }

    public init<S: AsyncSequence & Sendable>(stream wrapped: consuming sending S) where S.Element == Element {
        self.stream = AsyncThrowingStream.executingInAsyncTask { [wrapped] continuation in
            for try await element in wrapped {
                continuation.yield(element)
            }
        }
    }

    /// A stream of `transform`'s results, one for each element.
    public consuming func map<ElementOfResult>(
        _ transform: @escaping @Sendable (Element) async throws -> ElementOfResult
    ) async -> NonCopyableAsyncThrowingStream<ElementOfResult> {
        let stream = self.stream
        return NonCopyableAsyncThrowingStream<ElementOfResult>(stream: .executingInAsyncTask { continuation in
            for try await element in stream {
                try Task.checkCancellation()
                try await continuation.yield(transform(element))
            }
        })
    }

    /// A stream of `transform`'s non-nil results.
    public consuming func compactMap<ElementOfResult>(
        _ transform: @escaping @Sendable (Element) async throws -> ElementOfResult?
    ) async -> NonCopyableAsyncThrowingStream<ElementOfResult> {
        let stream = self.stream
        return NonCopyableAsyncThrowingStream<ElementOfResult>(stream: .executingInAsyncTask { continuation in
            for try await element in stream {
                try Task.checkCancellation()
                if let result = try await transform(element) { continuation.yield(result) }
            }
        })
    }

    /// Calls `transform` with the error that ends the stream, if one does: what it returns is
    /// the stream's last element (nil ends it without an error), what it throws ends it.
    public consuming func mapErrors(
        _ transform: @escaping @Sendable (any Error) async throws -> Element?
    ) async -> NonCopyableAsyncThrowingStream<Element> {
        let stream = self.stream
        return NonCopyableAsyncThrowingStream(stream: .executingInAsyncTask { continuation in
            do {
                for try await element in stream {
                    try Task.checkCancellation()
                    continuation.yield(element)
                }
            } catch {
                if let recovered = try await transform(error) { continuation.yield(recovered) }
            }
        })
    }

    /// The stream itself, for its last reader, who must read it once.
    public consuming func getStream() -> AsyncThrowingStream<Element, any Error> {
        stream
    }
}

extension AsyncThrowingStream where Failure == any Error {
    /// A stream fed by `body`, which starts now in a task of its own; the stream ends when
    /// `body` returns or throws, and cancelling its reader cancels the task.
    static func executingInAsyncTask(
        _ body: @escaping @Sendable (AsyncThrowingStream<Element, any Error>.Continuation) async throws -> Void
    ) -> AsyncThrowingStream<Element, any Error> {
        let (stream, continuation) = AsyncThrowingStream<Element, any Error>.makeStream()
        let task = Task {
            do {
                try await body(continuation)
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}
