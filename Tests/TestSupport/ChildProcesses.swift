public import Foundation
import Synchronization

/// Runs `start` (which creates a child's pipes or files and starts it) while no other test
/// in this process is doing the same.
///
/// On Linux, Foundation's `Process.run()` emulates Darwin's `POSIX_SPAWN_CLOEXEC_DEFAULT`:
/// it lists the descriptors open at that moment and closes those in the child (see
/// `Sources/Foundation/Process.swift` in swiftlang/swift-corelibs-foundation). A descriptor
/// another thread opens between that listing and the spawn is inherited: another child's
/// pipe, or the socket by which Foundation learns that another child has exited. When the
/// inheriting child lives on (a `chainlab serve`), the other child's output never reaches
/// end of file and its exit is not seen until the long-lived one ends, and the test waiting
/// on it times out. Tests run in parallel in one process, so every test that
/// starts a process does it inside this function.
public func spawnSerially<T>(_ start: () throws -> T) throws -> T {
    try spawning.withLock { _ in try start() }
}

private let spawning = Mutex(())

/// Starts `process` with its standard output and error each going into a new pipe, inside
/// ``spawnSerially(_:)``, and returns the pipes to read.
public func startPiped(_ process: Process) throws -> (stdout: Pipe, stderr: Pipe) {
    try spawnSerially {
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        return (stdout, stderr)
    }
}

/// Runs blocking work (a process wait, a pipe read, a blocking socket) on a thread of its
/// own and returns its result, throwing what it throws. Blocking on the concurrency pool, or
/// on Dispatch's global queues (which back the pool on Linux), would starve what runs there:
/// a server's handlers, other tests. Assert on the result in the test, where issues are
/// attributed to it.
public func onOwnThread<T: Sendable, E: Error>(_ work: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
    let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, E>, Never>) in
        Thread.detachNewThread { continuation.resume(returning: Result(catching: work)) }
    }
    return try result.get()
}
