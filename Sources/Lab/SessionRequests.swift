import Instrumentation
import ChainKit
import Timeline

/// The requests a session has started: each one's task, its hops once its chain is built, and
/// its summary once it ends. The session's launcher starts them here; its façade reads them.
final class SessionRequests: Sendable {
    private let tasks = Locked<[Int: Task<Void, Never>]>([:])
    /// Requests whose task has not returned yet.
    private let unfinished = Locked<Set<Int>>([])
    private let summariesByRequest = Locked<[Int: RequestSummary]>([:])
    private let hopLists = Locked<[Int: [HopInfo]]>([:])

    /// Runs `body` for `request` in a task of its own, counted as active until it returns.
    func start(_ request: Int, _ body: @escaping @Sendable () async -> Void) {
        unfinished.withLock { _ = $0.insert(request) }
        let task = Task {
            await body()
            self.unfinished.withLock { _ = $0.remove(request) }
        }
        tasks.withLock { $0[request] = task }
    }

    /// Request `request` ended as `summary` says.
    func end(_ request: Int, summary: RequestSummary) {
        summariesByRequest.withLock { $0[request] = summary }
    }

    /// Request `request`'s ended summary gains a result (a watched query's later delivery).
    func addResult(_ result: String, to request: Int) {
        summariesByRequest.withLock { $0[request]?.results.append(result) }
    }

    /// Request `request`'s chain is built: these are its hops, from the top.
    func setHops(_ hops: [HopInfo], of request: Int) {
        hopLists.withLock { $0[request] = hops }
    }

    /// The summaries of the requests that ended, by id.
    var summaries: [Int: RequestSummary] { summariesByRequest.value }

    func hops(of request: Int) -> [HopInfo] { hopLists.value[request] ?? [] }

    /// How many tasks have not returned yet.
    var activeCount: Int { unfinished.value.count }

    /// Cancels every task and returns when all have ended.
    func cancelAll() async {
        let all = tasks.value.values
        for task in all { task.cancel() }
        for task in all { await task.value }
    }
}
