#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import TestSupport
import Testing

/// Starts `chainlab ARGUMENTS` and reads its first line, which must start with `prefix`
/// followed by the port it listens on (the pipe closes early only if the process exits).
func launchServe(_ arguments: [String], announcing prefix: String) async throws -> (process: Process, output: Pipe, port: UInt16, line: String) {
    let process = Process()
    process.executableURL = try builtChainlab()
    process.arguments = arguments
    let output = try startReadingOutput(process)
    let line = try await firstLine(of: output)
    guard line.hasPrefix(prefix), let port = UInt16(line.dropFirst(prefix.count).prefix { $0.isNumber }) else {
        process.terminate()
        throw CLITestError(message: "chainlab \(arguments.joined(separator: " ")) did not announce a port; stdout: \(line.debugDescription)")
    }
    return (process, output, port, line)
}

/// Starts `process` with its standard output going into a pipe (standard error and input
/// to the null device), inside ``spawnSerially(_:)``, and returns the pipe.
func startReadingOutput(_ process: Process) throws -> Pipe {
    try spawnSerially {
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return output
    }
}

/// The first line `output` carries, read on a thread of its own.
func firstLine(of output: Pipe) async throws -> String {
    await onOwnThread { () -> String in
        var data = Data()
        while !data.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            data.append(chunk)
        }
        return String(decoding: data, as: UTF8.self)
    }
}

/// A running `chainlab serve --port 0` and the port it announced.
private final class ServeProcess: Sendable {
    let process: Process
    let port: UInt16

    init() async throws {
        let (process, _, port, _) = try await launchServe(["serve", "--port", "0"], announcing: "chainlab serve: listening on http://127.0.0.1:")
        self.process = process
        self.port = port
    }

    /// Sends SIGTERM and returns the exit status once it has exited.
    func stop() async throws -> Int32 {
        kill(process.processIdentifier, SIGTERM)
        return await onOwnThread { [process] in
            process.waitUntilExit()
            return process.terminationStatus
        }
    }
}

@Suite("chainlab trace --endpoint against chainlab serve, as built binaries", .timeLimit(.minutes(1)))
struct EndpointCommandTests {
    @Test func tokenExpiryOverHTTPEndsLikeInProcess() async throws {
        let chainlab = try builtChainlab().path
        let serve = try await ServeProcess()
        let remote = try await onOwnThread {
            try runProcess(chainlab, ["trace", "token-expiry", "--endpoint", "http://127.0.0.1:\(serve.port)", "--lab"])
        }
        let local = try await onOwnThread { try runProcess(chainlab, ["trace", "token-expiry"]) }
        #expect(try await serve.stop() == 0)

        #expect(remote.status == 0)
        #expect(remote.stderr == "")
        let lines = remote.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        try #require(lines.count >= 3, "output: \(remote.stdout)")
        #expect(lines.last == "")
        #expect(lines[lines.count - 3] == "#1 HeroQuery: success after 2 attempts, results from server")
        #expect(lines[lines.count - 2] == "backend apqMisses=0 apqRegistered=0 familiesRevoked=0 graphqlRequests=2 injectedFailures=0 passwordGrants=1 refreshRejected=0 restRequests=0 tokenRefreshes=1 unauthorized=1")

        // Every event line matches the in-process run once the lab-clock column is dropped
        // (over HTTP the latency passes on the wall clock, so the lab clock stays at 0) and
        // the server's address is written as the in-process backend's.
        #expect(local.status == 0)
        let localLines = local.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let withoutTime = { (lines: [String]) in lines.dropLast(2).map { $0.hasPrefix(" ") ? String($0.dropFirst("  0.000s ".count)) : $0 } }
        let remoteEvents = withoutTime(lines).map { $0.replacingOccurrences(of: "http://127.0.0.1:\(serve.port)/", with: "https://lab.chainlab.local/") }
        #expect(remoteEvents == withoutTime(localLines))
        #expect(lines.dropLast(2).count == 32)
    }
}
