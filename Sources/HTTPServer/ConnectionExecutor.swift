import Dispatch

/// Runs request handlers' tasks on threads of their own instead of the concurrency pool.
///
/// Each connection thread waits for its handler's answer. When the pool is saturated by
/// other work in the same process (an app, or a test suite on a 2-core machine), a handler
/// task queued behind that work would keep its client waiting until it times out; jobs
/// enqueued here run on a concurrent dispatch queue, which adds threads as it needs them.
final class HandlerExecutor: TaskExecutor {
    static let shared = HandlerExecutor()

    private let queue = DispatchQueue(label: "chainlab.http-server.handlers", attributes: .concurrent)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
