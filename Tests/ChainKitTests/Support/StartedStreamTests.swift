import ChainKit
import Foundation
import Testing

/// `PullStream.started`, the buffer between a layer that runs ahead in its own task and its
/// one reader (upstream: `AsyncThrowingStream.executingInAsyncTask` in apollographql/apollo-ios,
/// Sources/Apollo/AsyncThrowingStream+Extensions.swift).
@Suite("A started stream")
struct StartedStreamTests {
    struct Broken: Error, Equatable {}

    /// Produces `count` numbers, then ends or fails; says when it has produced them all.
    static func producing(_ count: Int, thenFailing: Bool, done: Locked<Bool>) -> PullStream<Int> {
        .started {
            PullStream {
                var next = 0
                return {
                    guard next < count else {
                        done.withLock { $0 = true }
                        if thenFailing { throw Broken() }
                        return nil
                    }
                    next += 1
                    return next
                }
            }
        }
    }

    @Test("what the producer made before anybody read waits, in order; a failure comes once, then the end", .timeLimit(.minutes(1)))
    func buffersInOrderAndFailsOnce() async throws {
        let done = Locked(false)
        let stream = Self.producing(3, thenFailing: true, done: done)
        while !done.value { try await Task.sleep(for: .milliseconds(1)) }
        let iterator = stream.makeAsyncIterator()
        #expect(try await iterator.next() == 1)
        #expect(try await iterator.next() == 2)
        #expect(try await iterator.next() == 3)
        await #expect(throws: Broken()) { try await iterator.next() }
        #expect(try await iterator.next() == nil)
    }

    @Test("a reader waiting for the next element gets it when it is made", .timeLimit(.minutes(1)))
    func aWaitingReaderIsHandedTheElement() async throws {
        let gate = AsyncStream<Int>.makeStream()
        let stream = PullStream<Int>.started {
            PullStream {
                var iterator = gate.stream.makeAsyncIterator()
                return { await iterator.next() }
            }
        }
        let reader = Task { try await stream.collect() }
        try await Task.sleep(for: .milliseconds(20))
        gate.continuation.yield(7)
        gate.continuation.yield(8)
        gate.continuation.finish()
        #expect(try await reader.value == [7, 8])
    }

    @Test("cancelling a waiting reader ends its stream without an error and cancels the producer", .timeLimit(.minutes(1)))
    func cancellingTheReaderCancelsTheProducer() async throws {
        let producerCancelled = Locked(false)
        let (stream, task) = PullStream<Int>.startedWithTask {
            PullStream {
                {
                    do {
                        try await Task.sleep(for: .seconds(60))
                    } catch {
                        producerCancelled.withLock { $0 = true }
                        throw error
                    }
                    return 1
                }
            }
        }
        let reader = Task { try await stream.collect() }
        try await Task.sleep(for: .milliseconds(20))
        reader.cancel()
        #expect(try await reader.value == [])
        _ = await task.result
        #expect(producerCancelled.value)
    }
}
