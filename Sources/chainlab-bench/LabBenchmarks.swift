import Lab
import Timeline

/// `lab.ops_per_s`: operations per second through the `basics` scenario's chain against the
/// in-process backend, free run, 64 operations launched at once into one session.
///
/// The session is built untimed; the timed part is `runHeadless()`: launching, every hop's
/// turn and events, the backend's work, and collecting the result.
enum LabBenchmarks {
    static let concurrent = 64

    static func run(_ sampling: Sampling, _ selection: Selection) async throws -> [Row] {
        guard selection.includes("lab.ops_per_s") else { return [] }
        guard var scenario = Catalog.scenario(named: "basics") else { throw BenchFailure("no basics scenario") }
        scenario.launch = Array(repeating: 0, count: concurrent)
        let rate = try await Sampler.ratePerSecond(units: concurrent, batches: sampling.batches) {
            LabSession(scenario: scenario, recordsLog: false)
        } _: { session in
            let result = await session.runHeadless()
            let succeeded = result.requests.filter { $0.outcome == .success }.count
            guard succeeded == concurrent else { throw BenchFailure("\(succeeded) of \(concurrent) basics operations succeeded") }
        }
        return [.measured(Figure(name: "lab.ops_per_s", value: rate, unit: "ops/s"))]
    }
}
