import Dispatch
import Synchronization

/// Runs one connection's handler tasks on that connection's own thread, which would
/// otherwise sit blocked waiting for them: no hop to another thread per request, and a
/// handler that blocks (a proxy reading its upstream) holds only its own connection's
/// thread. Outside ``run(_:)`` (before, between requests, after an abort) jobs go to a
/// concurrent dispatch queue, so a task that outlives its wait still runs to its end.
final class ConnectionExecutor: TaskExecutor {
    /// Where jobs run while no connection thread waits for them; it adds threads as it needs
    /// them, so a saturated concurrency pool cannot starve a handler.
    private static let spare = DispatchQueue(label: "chainlab.http-server.handlers", attributes: .concurrent)

    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)

    private struct State {
        var jobs: [UnownedJob] = []
        var serving = false
        var finished = false
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let queued = state.withLock { state in
            guard state.serving else { return false }
            state.jobs.append(job)
            return true
        }
        if queued {
            wake.signal()
        } else {
            let executor = asUnownedTaskExecutor()
            Self.spare.async { job.runSynchronously(on: executor) }
        }
    }

    /// Starts `task` with this executor preferred and runs its jobs on the calling thread
    /// until `finish()` (which the task calls last, or an abort calls early).
    func run(_ start: (ConnectionExecutor) -> Bool) -> Bool {
        state.withLock { state in
            state.serving = true
            state.finished = false
        }
        guard start(self) else {
            stopServing()
            return false
        }
        while true {
            wake.wait()
            let job = state.withLock { state -> UnownedJob? in
                state.jobs.isEmpty ? nil : state.jobs.removeFirst()
            }
            if let job {
                job.runSynchronously(on: asUnownedTaskExecutor())
            } else if state.withLock(\.finished) {
                break
            }
        }
        stopServing()
        return true
    }

    /// Ends ``run(_:)``; jobs still queued then go to the spare queue.
    func finish() {
        state.withLock { $0.finished = true }
        wake.signal()
    }

    private func stopServing() {
        let left = state.withLock { state in
            state.serving = false
            defer { state.jobs = [] }
            return state.jobs
        }
        let executor = asUnownedTaskExecutor()
        for job in left {
            Self.spare.async { job.runSynchronously(on: executor) }
        }
    }
}
