import ChainKit
import Dispatch
import Foundation

/// `swift run -c release chainlab-bench [--quick] [--only PREFIX] [--figure NAME]`
@main
struct ChainLabBench {
    /// A group of figures: measures those the selection includes, in its own order.
    typealias Group = @Sendable (Sampling, Selection) async throws -> [Row]

    /// Every group, in the report's order. A new benchmark file adds its group here.
    static let groups: [Group] = [
        ChainBenchmarks.run,
        MiddlewareBenchmarks.run,
        JSONBenchmarks.run,
        StoreBenchmarks.run,
        SyncBenchmarks.run,
        LabBenchmarks.run,
        ScreenBenchmarks.run,
        InputBenchmarks.run,
        WaterfallBenchmarks.run,
    ]

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
            for group in groups { rows += try await group(options.sampling, options.selection) }
            let report = Report(rows: rows, mode: "\(options.mode)\(buildNote), \(formatSeconds(Sampler.clock.now - started))")
            print(report.render())
            for line in report.jsonLines { print(line) }
            return 0
        } catch {
            FileHandle.standardError.write(Data("chainlab-bench: \(error)\n".utf8))
            return 1
        }
    }

    /// Said in the report's header of a debug build (`swift run chainlab-bench`): its figures
    /// are not the release figures the targets are set for.
    #if DEBUG
    static let buildNote = ", debug build"
    #else
    static let buildNote = ""
    #endif

    static func formatSeconds(_ duration: Duration) -> String {
        String(format: "%.1f s", Sampler.nanoseconds(duration) / 1e9)
    }
}
