import ChainKit
import Dispatch
import Foundation

/// `swift run -c release chainlab-bench [--quick] [--only PREFIX]`
@main
struct ChainLabBench {
    /// A synchronous main that waits for the benchmarks on a semaphore: an `async` main parks
    /// the main thread in `dispatch_main`, which valgrind (3.19) cannot run, and callgrind is
    /// how a missed target is explained.
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        let status = Locked<Int32>(0)
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            let code = await run(arguments)
            status.withLock { $0 = code }
            done.signal()
        }
        done.wait()
        exit(status.value)
    }

    static func run(_ arguments: [String]) async -> Int32 {
        if arguments.contains("--help") || arguments.contains("-h") {
            print(Options.usage)
            return 0
        }
        do {
            let options = try Options(arguments: arguments)
            if let child = options.child {
                guard let measure = ChildProcess.measurements[child] else { throw BenchFailure("no child measurement '\(child)'") }
                print(try measure())
                return 0
            }
            let started = Sampler.clock.now
            var rows: [Row] = []
            rows += try await ChainBenchmarks.run(options.sampling, options.selection).map(Row.measured)
            rows += try await MiddlewareBenchmarks.run(options.sampling, options.selection).map(Row.measured)
            rows += try await StoreBenchmarks.run(options.sampling, options.selection)
            rows += try await LabBenchmarks.run(options.sampling, options.selection).map(Row.measured)
            rows += try await ScreenBenchmarks.run(options.sampling, options.selection)
            rows += try WaterfallBenchmarks.run(options.sampling, options.selection)
            let report = Report(rows: rows, mode: "\(options.mode), \(formatSeconds(Sampler.clock.now - started))")
            print(report.render())
            for line in report.jsonLines { print(line) }
            return 0
        } catch {
            FileHandle.standardError.write(Data("chainlab-bench: \(error)\n".utf8))
            return 1
        }
    }

    static func formatSeconds(_ duration: Duration) -> String {
        String(format: "%.1f s", Sampler.nanoseconds(duration) / 1e9)
    }
}
