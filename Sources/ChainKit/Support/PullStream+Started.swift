import Wire

extension PullStream {
    /// A stream whose elements `makeStream` starts producing now, in a task of its own, before
    /// anybody reads them; they wait in a buffer until they are read. Dropping the stream or
    /// cancelling the task that reads it cancels the producing task. This is how Apollo iOS 2.x
    /// runs a layer (`AsyncThrowingStream.executingInAsyncTask`); read it only once.
    public static func started(_ makeStream: @escaping @Sendable () async throws -> PullStream) -> PullStream {
        startedWithTask(makeStream).stream
    }

    /// ``started(_:)``, with the producing task, for a caller that must know when that task
    /// has ended (a cancelled reader's stream ends before it does).
    package static func startedWithTask(_ makeStream: @escaping @Sendable () async throws -> PullStream) -> (stream: PullStream, task: StartedTask) {
        let buffer = StartedBuffer<Element>()
        let task = StartedTask {
            do {
                await buffer.fill(from: try await makeStream())
            } catch {
                buffer.finish(throwing: error)
            }
        }
        return (PullStream(source: StartedReader(buffer: buffer, task: task)), task)
    }
}
