import Synchronization

/// How long to warm up and how to batch, for `--quick` and for the full run.
struct Sampling: Sendable {
    /// Time each subject runs before measuring, which also sizes its batches.
    var warmup: Duration
    /// Roughly how long one batch of one subject takes.
    var batch: Duration
    /// Batches per subject; the median batch is reported.
    var batches: Int
    /// Events appended per batch by the store benchmarks.
    var appendsPerBatch: Int
    /// Exactly this many operations in one batch per subject, after one warm-up operation:
    /// for counting instructions under callgrind, where time-sized batches would vary.
    var fixedOperations: Int?

    static let quick = Sampling(warmup: .milliseconds(60), batch: .milliseconds(15), batches: 9, appendsPerBatch: 400_000)
    static let full = Sampling(warmup: .milliseconds(400), batch: .milliseconds(60), batches: 31, appendsPerBatch: 2_000_000)
}

/// Something to time, one operation per call.
struct Subject: Sendable {
    typealias Operation = @Sendable () async throws -> Void

    var name: String
    /// Called, untimed, before each batch: returns the operation to repeat in that batch, so a
    /// subject can start each batch from fresh state (a new timeline store, say).
    var prepareBatch: @Sendable () throws -> Operation

    init(name: String, prepareBatch: @escaping @Sendable () throws -> Operation) {
        self.name = name
        self.prepareBatch = prepareBatch
    }

    /// A subject whose operation needs no per-batch state.
    init(name: String, operation: @escaping Operation) {
        self.init(name: name) { operation }
    }
}

enum Sampler {
    static let clock = ContinuousClock()

    /// The operations run for instruction counts (`--operations`), one per subject.
    private static let countedOperations = Mutex<[Subject.Operation]>([])

    /// Median nanoseconds per operation of each subject, in the order given.
    ///
    /// Every subject warms up first (which also sizes its batches so each takes about
    /// `sampling.batch`); then the subjects take turns batch by batch, with the order rotating
    /// each round, so machine noise (another process, frequency changes) falls on all of them
    /// alike and a ratio between two of them stays meaningful.
    static func nanosecondsPerOperation(_ subjects: [Subject], sampling: Sampling) async throws -> [Double] {
        if let fixed = sampling.fixedOperations {
            var results: [Double] = []
            for subject in subjects {
                let operation = try subject.prepareBatch()
                // Kept until the process exits, with what it holds (an instrumented subject's
                // timeline store): freed here, the count would include freeing every event or
                // not, as the last operation's task happened to let go of the store before the
                // process ended or after.
                countedOperations.withLock { $0.append(operation) }
                try await operation()
                let start = clock.now
                for _ in 0..<fixed { try await operation() }
                results.append(nanoseconds(clock.now - start) / Double(fixed))
            }
            return results
        }
        var operationsPerBatch: [Int] = []
        for subject in subjects {
            let operation = try subject.prepareBatch()
            var count = 0
            let start = clock.now
            while clock.now - start < sampling.warmup || count < 3 {
                try await operation()
                count += 1
            }
            let perOperation = nanoseconds(clock.now - start) / Double(count)
            operationsPerBatch.append(max(1, Int(nanoseconds(sampling.batch) / perOperation)))
        }
        var samples = Array(repeating: [Double](), count: subjects.count)
        for round in 0..<sampling.batches {
            for turn in subjects.indices {
                let index = (round + turn) % subjects.count
                let operation = try subjects[index].prepareBatch()
                let count = operationsPerBatch[index]
                let start = clock.now
                for _ in 0..<count { try await operation() }
                samples[index].append(nanoseconds(clock.now - start) / Double(count))
            }
        }
        return samples.map(median)
    }

    /// Median per-second rate of `work`, which does `units` units per call. Each batch (and
    /// one warm-up) gets a fresh, untimed `prepare()`.
    static func ratePerSecond<State>(
        units: Int, batches: Int, prepare: () throws -> State, _ work: (State) async throws -> Void
    ) async throws -> Double {
        try await work(try prepare())
        var rates: [Double] = []
        for _ in 0..<batches {
            let state = try prepare()
            let start = clock.now
            try await work(state)
            rates.append(Double(units) / (nanoseconds(clock.now - start) / 1e9))
        }
        return median(rates)
    }

    static func nanoseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) * 1e9 + Double(attoseconds) / 1e9
    }

    /// The value below which `percent` of `values` lie (nearest rank).
    static func percentile(_ percent: Double, of values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        let rank = Int((percent / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}

/// A benchmark found that the code under test did not do what it is supposed to measure.
struct BenchFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
