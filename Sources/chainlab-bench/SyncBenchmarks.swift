import Synchronization

/// `sync.mutex.ns` and `sync.atomic.ns`: what the machine charges for the synchronization an
/// event cannot do without, measured in the same run as the per-event figures.
///
/// An instrumented event takes locks (the timeline store's, the snapshot cache's, a layer's
/// handed-up headers) and retains and releases what it records; each lock and unlock, and
/// each retain or release, is an atomic read-modify-write. With the code around them they
/// are about a fifth of an event's instructions, but each atomic takes tens of cycles: these
/// figures turn an event's count of them into nanoseconds on the machine at hand
/// (docs/performance-figures.md, Per event).
enum SyncBenchmarks {
    /// What the loops work on, made fresh for each batch.
    final class Cell: Sendable {
        let lock = Mutex(0)
        let counter = Atomic<Int>(0)
    }

    static func run(_ sampling: Sampling, _ selection: Selection) async throws -> [Row] {
        // As many as the store benchmarks append in a batch, and as many batches: about 8 ms
        // a batch quick and 40 ms full at 20 ns each, long enough for the clock.
        let count = sampling.appendsPerBatch, batches = sampling.batches / 2 + 1
        var rows: [Row] = []
        if selection.includes("sync.mutex.ns") {
            let rate = try await Sampler.ratePerSecond(units: count, batches: batches, prepare: Cell.init) { cell in
                for _ in 0..<count { cell.lock.withLock { $0 &+= 1 } }
            }
            rows.append(.measured(Figure(name: "sync.mutex.ns", value: 1e9 / rate, unit: "ns/pair")))
        }
        if selection.includes("sync.atomic.ns") {
            let rate = try await Sampler.ratePerSecond(units: count, batches: batches, prepare: Cell.init) { cell in
                for _ in 0..<count { cell.counter.wrappingAdd(1, ordering: .relaxed) }
            }
            rows.append(.measured(Figure(name: "sync.atomic.ns", value: 1e9 / rate, unit: "ns/op")))
        }
        return rows
    }
}
