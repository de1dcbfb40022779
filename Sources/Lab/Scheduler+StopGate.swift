import Instrumentation
import Scheduling

/// The scheduler is the gate at every stop of the lab's instrumentation.
extension Scheduler: StopGate {}

extension OperationContext {
    /// The scheduler of the lab session this operation runs in, for what the lab (not the
    /// instrumentation) asks of it: refreshes, who waits for one, who is running. Every
    /// context the lab makes has one; nil for a context made around another gate.
    var labScheduler: Scheduler? { scheduler as? Scheduler }
}
