#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ChainKit
import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

/// A `chainlab` process with its output collected off the concurrency pool.
private final class ChainlabProcess: Sendable {
    private let process: Process
    private let output = Collected()
    private let errors = Collected()
    private let exited = DispatchSemaphore(value: 0)

    init(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = try builtChainlab()
        process.arguments = arguments
        let exited = exited
        process.terminationHandler = { _ in exited.signal() }
        self.process = process
        let (stdout, stderr) = try startPiped(process)
        for (pipe, sink) in [(stdout, output), (stderr, errors)] {
            let handle = pipe.fileHandleForReading
            Thread.detachNewThread {
                while case let data = handle.availableData, !data.isEmpty {
                    sink.append(data)
                }
                sink.finish()
            }
        }
    }

    var processIdentifier: Int32 { process.processIdentifier }

    /// Everything written to stdout so far.
    var stdout: String { output.text }

    /// Waits (off the pool) until `condition` holds for stdout or `timeout` passes.
    func waitForStdout(within timeout: Duration, until condition: @escaping @Sendable (String) -> Bool) async -> Bool {
        await onOwnThread { [output] in output.wait(within: timeout, until: condition) }
    }

    /// The exit status and the whole stdout and stderr, once the process ends within
    /// `timeout`; nil (after killing it) when it does not.
    func finish(within timeout: Duration) async -> (status: Int32, stdout: String, stderr: String)? {
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        let ended = await onOwnThread { [exited] in exited.wait(timeout: .now() + seconds) == .success }
        guard ended else {
            kill(process.processIdentifier, SIGKILL)
            return nil
        }
        // The pipes close when the process ends; a child holding them open would be a bug.
        let drained = await onOwnThread { [output, errors] in
            output.waitUntilClosed(within: .seconds(5)) && errors.waitUntilClosed(within: .seconds(5))
        }
        guard drained else { return nil }
        return (process.terminationStatus, output.text, errors.text)
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// Runs `chainlab` to its end (within ten seconds).
    static func run(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        let process = try ChainlabProcess(arguments)
        return try #require(await process.finish(within: .seconds(10)), "chainlab \(arguments) did not exit")
    }
}

/// Output read from a pipe, with a way to wait for it.
private final class Collected: Sendable {
    private let state = Mutex<(data: Data, finished: Bool)>((Data(), false))
    private let changed = DispatchSemaphore(value: 0)

    func append(_ data: Data) {
        state.withLock { $0.data.append(data) }
        changed.signal()
    }

    func finish() {
        state.withLock { $0.finished = true }
        changed.signal()
    }

    var text: String { state.withLock { String(decoding: $0.data, as: UTF8.self) } }

    /// Blocks until `condition` holds for the text (true), or the pipe closes or `timeout`
    /// passes without it holding (false).
    func wait(within timeout: Duration, until condition: (String) -> Bool) -> Bool {
        wait(within: timeout) { text, finished in
            if condition(text) { return true }
            return finished ? false : nil
        }
    }

    /// Blocks until the pipe closes (true) or `timeout` passes (false).
    func waitUntilClosed(within timeout: Duration) -> Bool {
        wait(within: timeout) { _, finished in finished ? true : nil }
    }

    /// Blocks until `decide` gives an answer for the text so far, or `timeout` passes.
    private func wait(within timeout: Duration, decide: (String, Bool) -> Bool?) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (text, finished) = state.withLock { (String(decoding: $0.data, as: UTF8.self), $0.finished) }
            if let answer = decide(text, finished) { return answer }
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return false }
            let seconds = Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18
            _ = changed.wait(timeout: .now() + seconds)
        }
    }
}

/// The port in `chainlab serve`'s listening line, when `stdout` is exactly that line.
private func listeningPort(in stdout: String) -> UInt16? {
    let prefix = "chainlab serve: listening on http://127.0.0.1:"
    let suffix = " (GraphQL at /graphql, OAuth at /oauth/token, control at /_lab/)\n"
    guard stdout.hasPrefix(prefix), stdout.hasSuffix(suffix) else { return nil }
    let digits = stdout.dropFirst(prefix.count).dropLast(suffix.count)
    guard digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber) else { return nil }
    return UInt16(digits)
}

@Suite("chainlab serve, run as the built binary")
struct ServeCommandTests {
    @Test(arguments: [(SIGTERM, "SIGTERM"), (SIGINT, "SIGINT")])
    func servesUntilASignalThenExits0(signal: Int32, name: String) async throws {
        let serve = try ChainlabProcess(["serve", "--port", "0"])
        let announced = await serve.waitForStdout(within: .seconds(10)) { $0.hasSuffix("\n") }
        try #require(announced, "no listening line; stdout so far: \(serve.stdout.debugDescription)")
        let port = try #require(listeningPort(in: serve.stdout), "unexpected stdout \(serve.stdout.debugDescription)")

        let response = try await URLSessionTransport().send(NetworkRequest(
            method: .post, url: try #require(URL(string: "http://127.0.0.1:\(port)/oauth/token")),
            headerFields: try HTTPFields(["Content-Type": "application/x-www-form-urlencoded"]),
            body: Data("grant_type=password&username=demo&password=demo".utf8), timeoutInterval: 10))
        #expect(response.status == 200)
        #expect(try await response.chunks.collect() == [Data(#"{"access_token":"at-1-1","expires_in":300,"refresh_token":"rt-1-1","token_type":"Bearer"}"#.utf8)])

        kill(serve.processIdentifier, signal)
        let result = try #require(await serve.finish(within: .seconds(10)), "chainlab serve did not exit after \(name)")
        #expect(result.status == 0)
        #expect(result.stderr == "chainlab serve: stopped on \(name)\n")
    }

    @Test func optionsReachTheBackend() async throws {
        let serve = try ChainlabProcess(["serve", "--port", "0", "--host", "127.0.0.1", "--token-ttl", "42", "--auth-failure", "graphQLError200", "--latency", "0"])
        let announced = await serve.waitForStdout(within: .seconds(10)) { $0.hasSuffix("\n") }
        try #require(announced, "no listening line; stdout so far: \(serve.stdout.debugDescription)")
        let port = try #require(listeningPort(in: serve.stdout))
        let base = "http://127.0.0.1:\(port)"

        let grant = try await URLSessionTransport().send(NetworkRequest(
            method: .post, url: try #require(URL(string: "\(base)/oauth/token")),
            headerFields: try HTTPFields(["Content-Type": "application/x-www-form-urlencoded"]),
            body: Data("grant_type=password&username=demo&password=demo".utf8), timeoutInterval: 10))
        #expect(try await grant.chunks.collect() == [Data(#"{"access_token":"at-1-1","expires_in":42,"refresh_token":"rt-1-1","token_type":"Bearer"}"#.utf8)])
        let state = try await URLSessionTransport().send(NetworkRequest(method: .get, url: try #require(URL(string: "\(base)/_lab/state")), timeoutInterval: 10))
        let stateJSON = try JSONValue(parsing: try await state.chunks.collect().reduce(Data(), +))
        #expect(stateJSON["authFailureMode"] == "graphQLError200")

        kill(serve.processIdentifier, SIGTERM)
        #expect(await serve.finish(within: .seconds(10))?.status == 0)
    }

    @Test(arguments: [
        (["serve", "--port", "abc"], "chainlab: --port needs a whole number in 0...65535, got 'abc'\n"),
        (["serve", "--port", "70000"], "chainlab: --port needs a whole number in 0...65535, got '70000'\n"),
        (["serve", "--port"], "chainlab: --port needs a value; see 'chainlab serve --help'\n"),
        (["serve", "--auth-failure", "nope"], "chainlab: unknown auth failure mode 'nope'; valid: status401, graphQLError200, emptyBody401\n"),
        (["serve", "--bogus"], "chainlab: unknown option '--bogus' for serve; valid: --port, --host, --token-ttl, --auth-failure, --latency, --hostile, --upstream, --har-max-body, --har-max-total, --max-connections, --otlp-endpoint, --otlp-header, --service-name, --cacert, --insecure\n"),
        (["serve", "extra"], "chainlab: serve takes no arguments, got 'extra'; valid options: --port, --host, --token-ttl, --auth-failure, --latency, --hostile, --upstream, --har-max-body, --har-max-total, --max-connections, --otlp-endpoint, --otlp-header, --service-name, --cacert, --insecure\n"),
        (["serve", "--host", "localhost"], "chainlab: --host needs a numeric IPv4 or IPv6 address such as 127.0.0.1 or ::1, got 'localhost'\n"),
        (["serve", "--token-ttl", "0"], "chainlab: --token-ttl needs seconds greater than 0 and at most 86400, got '0'\n"),
        (["serve", "--latency", "-1"], "chainlab: --latency needs seconds in 0...86400, got '-1'\n"),
        (["serve", "--latency", "soon"], "chainlab: --latency needs seconds in 0...86400, got 'soon'\n"),
        (["serve", "--har-max-total", "64M"], "chainlab: --har-max-total configures the proxy; it needs --upstream URL\n"),
        (["serve", "--upstream", "http://127.0.0.1:1", "--har-max-body", "lots"],
         "chainlab: --har-max-body needs a number of bytes such as 65536, 512K, 16M or 1G (at most 1024G), got 'lots'\n"),
        (["serve", "--upstream", "http://127.0.0.1:1", "--har-max-total", "2048G"],
         "chainlab: --har-max-total needs a number of bytes such as 65536, 512K, 16M or 1G (at most 1024G), got '2048G'\n"),
        (["serve", "--upstream", "http://127.0.0.1:1", "--max-connections", "0"], "chainlab: --max-connections needs a whole number in 1...4096, got '0'\n"),
        (["serve", "--upstream", "http://127.0.0.1:1", "--otlp-endpoint", "collector:4318"],
         "chainlab: --otlp-endpoint needs an http:// or https:// URL such as http://127.0.0.1:4318, got 'collector:4318'\n"),
        (["serve", "--bogus\u{1B}[2J"], "chainlab: unknown option '--bogus\\e[2J' for serve; valid: --port, --host, --token-ttl, --auth-failure, --latency, --hostile, --upstream, --har-max-body, --har-max-total, --max-connections, --otlp-endpoint, --otlp-header, --service-name, --cacert, --insecure\n"),
    ])
    func badArgumentsExit2WithTheValidChoices(arguments: [String], message: String) async throws {
        let result = try await ChainlabProcess.run(arguments)
        #expect(result.status == 2)
        #expect(result.stderr == message)
        #expect(result.stdout == "")
    }

    @Test func aTakenPortIsExit1NamingIt() async throws {
        let first = try ChainlabProcess(["serve", "--port", "0"])
        let announced = await first.waitForStdout(within: .seconds(10)) { $0.hasSuffix("\n") }
        try #require(announced)
        let port = try #require(listeningPort(in: first.stdout))

        let second = try await ChainlabProcess.run(["serve", "--port", "\(port)"])

        #expect(second.status == 1)
        #expect(second.stderr == "chainlab: serve cannot listen on 127.0.0.1 port \(port): bind failed: \(String(cString: strerror(EADDRINUSE))) (errno \(EADDRINUSE))\n")
        kill(first.processIdentifier, SIGTERM)
        #expect(await first.finish(within: .seconds(10))?.status == 0)
    }

    @Test func aNonLoopbackHostIsWarnedAbout() async throws {
        // 192.0.2.1 (TEST-NET-1, RFC 5737) is assigned to no interface here, so the warning
        // is printed and the bind then fails: nothing is ever reachable from outside.
        let result = try await ChainlabProcess.run(["serve", "--host", "192.0.2.1", "--port", "0"])

        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(result.stderr == """
            chainlab serve: warning: 192.0.2.1 is not a loopback address; anyone who can reach it can get tokens from the lab (user demo, password demo) and reconfigure it through /_lab/
            chainlab: serve cannot listen on 192.0.2.1 port 0: bind failed: \(String(cString: strerror(EADDRNOTAVAIL))) (errno \(EADDRNOTAVAIL))

            """)
    }

    @Test func anIPv6LoopbackHostIsBracketedInTheListeningLine() async throws {
        let serve = try ChainlabProcess(["serve", "--host", "::1", "--port", "0"])
        let announced = await serve.waitForStdout(within: .seconds(10)) { $0.hasSuffix("\n") }
        try #require(announced, "no listening line; stdout so far: \(serve.stdout.debugDescription)")

        #expect(serve.stdout.hasPrefix("chainlab serve: listening on http://[::1]:"))
        kill(serve.processIdentifier, SIGTERM)
        let result = await serve.finish(within: .seconds(10))
        #expect(result?.status == 0)
        #expect(result?.stderr == "chainlab serve: stopped on SIGTERM\n")
    }

    @Test func helpListsEveryOption() async throws {
        let result = try await ChainlabProcess.run(["serve", "--help"])
        #expect(result.status == 0)
        for option in ["--port N", "--host ADDR", "--token-ttl SECONDS", "--auth-failure MODE", "--latency SECONDS", "--hostile"] {
            #expect(result.stdout.contains(option))
        }
    }

    @Test("piped to a reader that has gone, serve still stops on SIGTERM with exit 0")
    func closedPipeThenSIGTERM() async throws {
        let process = Process()
        process.executableURL = try builtChainlab()
        process.arguments = ["serve", "--port", "0"]
        let stdout = try spawnSerially {
            let stdout = Pipe()
            try stdout.fileHandleForReading.close()
            process.standardOutput = stdout
            process.standardError = FileHandle.nullDevice
            try process.run()
            return stdout
        }
        try stdout.fileHandleForWriting.close()
        // Listening (one of its sockets in LISTEN state) means its signal handlers are in
        // place: they are installed before it listens and writes its line into the closed pipe.
        let folder = "/proc/\(process.processIdentifier)/fd"
        var listening = false
        for _ in 0..<500 where !listening {
            let links = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            let inodes = Set(links.compactMap { link -> String? in
                guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(folder)/\(link)"), target.hasPrefix("socket:[") else { return nil }
                return String(target.dropFirst("socket:[".count).dropLast())
            })
            let table = (try? String(contentsOfFile: "/proc/net/tcp", encoding: .utf8)) ?? ""
            listening = table.split(separator: "\n").contains { line in
                let fields = line.split(separator: " ")
                return fields.count > 9 && fields[3] == "0A" && inodes.contains(String(fields[9]))
            }
            if !listening { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(listening)
        process.terminate()
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
    }
}
