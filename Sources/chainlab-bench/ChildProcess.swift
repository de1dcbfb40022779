import Foundation

/// Measurements that need a process of their own: this executable started again with
/// `--child NAME`, printing one line for the parent to read.
enum ChildProcess {
    static let flag = "--child"

    /// The measurements a child can run, by name.
    static let measurements: [String: @Sendable () throws -> String] = [
        "store.bytes_per_event": StoreBenchmarks.measureBytesPerEvent,
        ScreenBenchmarks.startupFlag: ScreenBenchmarks.measureFirstFrame,
    ]

    /// Starts this executable with `arguments` and returns what it printed.
    static func run(arguments: [String]) throws -> String {
        let process = Process()
        let selfPath = "/proc/self/exe"
        process.executableURL = URL(fileURLWithPath: FileManager.default.fileExists(atPath: selfPath) ? selfPath : CommandLine.arguments[0])
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchFailure("\(arguments.joined(separator: " ")) exited with status \(process.terminationStatus)")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
