import Foundation
import Testing

/// Every command the README and the user docs show is run by a test or by `.ci/run`, so the
/// docs cannot rot.
@Suite("README commands")
struct ReadmeCommandsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The README and the docs a user reads (the contributors' guide and the performance
    /// record are not instructions to follow).
    static let userDocs = [
        "README.md", "docs/tour.md", "docs/scenarios.md", "docs/trace.md", "docs/filters.md", "docs/jaeger.md", "docs/findings.md",
        "docs/real-servers.md", "docs/library.md", "docs/keys.md", "docs/security.md", "docs/performance-figures.md",
    ]

    /// The text of the README and every user doc, one after the other.
    static func userDocsText() throws -> String {
        try userDocs.map { try String(contentsOf: root.appendingPathComponent($0), encoding: .utf8) }.joined(separator: "\n")
    }

    /// The command lines in the code blocks of the README and the user docs (prompts and
    /// continuation lines joined).
    static func commands() throws -> [String] {
        let readme = try userDocsText()
        var commands: [String] = [], inBlock = false, language = "", pending: String?
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("```") {
                inBlock.toggle()
                language = inBlock ? String(line.dropFirst(3)) : ""
                continue
            }
            guard inBlock, ["sh", "console", ""].contains(language) else { continue }
            var text = line.hasPrefix("$ ") ? String(line.dropFirst(2)) : line
            if let start = pending {
                text = start + " " + text.trimmingCharacters(in: .whitespaces)
                pending = nil
            } else if !(line.hasPrefix("$ ") || line.hasPrefix("swift ") || line.hasPrefix("scripts/") || line.hasPrefix("fuzz/") || line.hasPrefix("apt-get ") || line.hasPrefix("sudo ")) {
                continue
            }
            if text.hasSuffix("\\") {
                pending = String(text.dropLast()).trimmingCharacters(in: .whitespaces)
                continue
            }
            commands.append(text)
        }
        return commands
    }

    /// Where each kind of command is run, when this suite does not run it itself.
    static let runElsewhere: [(prefix: String, by: String)] = [
        ("swift test", ".ci/run"),
        ("fuzz/run.sh", ".ci/run"),
        ("apt-get install", ".ci/run (installs what is missing)"),
        ("sudo apt-get install", ".ci/run (installs what is missing)"),
        ("swift build -c release --product chainlab", ".ci/run (scripts/ci/check_release_build.sh builds the release chainlab and holds it to the debug build)"),
        ("swift run chainlab serve", "ServeCommandTests and ServeOverHTTPTests"),
        ("curl ", "ServeOverHTTPTests.curlGetsExactStatusesAndBodies"),
        ("swift run chainlab trace token-expiry --endpoint", "EndpointCommandTests"),
        ("swift run chainlab token-expiry --endpoint", "EndpointTests (the inspector's --endpoint uses the same LabSession.connect)"),
        ("swift run inspect-my-chain", "ReadmeExampleTests (the example compiles with swift build; it opens a terminal screen)"),
        ("scripts/screenshots.sh", "by hand: it needs an X server (Xvfb) and writes screenshots/"),
        ("swift run -c release chainlab-bench", "ReadmeCommandsTests.benchmarkRuns (the same executable, quick)"),
        ("scripts/instructions.sh", ".ci/run (--check against Benchmarks/instruction-budgets.json)"),
        ("swift build -c release --product chainlab-bench", ".ci/run (before scripts/instructions.sh)"),
        ("swift run chainlab refresh-storm", "InspectorEndToEndTests.raceOneThenTwo"),
        ("swift run chainlab lint", "LintCommandTests (lint exits 1 on findings; its report is pinned there)"),
        ("swift run chainlab refresh-storm-fixed --otlp-endpoint", "OTLPSenderTests.liveExport (the inspector's background export)"),
        ("swift run chainlab trace refresh-storm --otlp-endpoint", ".ci/run (scripts/ci/check_exports.py sends to OTLP/HTTP receivers)"),
        ("swift run chainlab serve --upstream", "UpstreamProxyCommandTests (against a plain test server)"),
        ("curl -s -X POST http://127.0.0.1:4001/_lab/", "UpstreamProxyCommandTests.unauthorizedNextAndFailNextAnswerMatchingRequestsWithoutForwarding"),
        ("cat me.graphql", "OwnAPICommandTests (the same document, written by the test)"),
        ("export ", "OwnAPICommandTests (through the process environment)"),
        ("swift run chainlab trace basics --endpoint https://api.example.com", "OwnAPICommandTests.operationVariablesHeadersAndTokenReachTheServerAndSecretsStayMasked (against a plain test server)"),
        ("swift run chainlab trace refresh-storm --endpoint https://api.example.com", "OwnAPICommandTests.naiveRefreshAgainstARealTokenEndpointStormsAndReusesTheRotatedToken (against a test token endpoint)"),
        ("swift run chainlab trace basics --endpoint https://localhost:8443", "TLSCommandTests (against a Python HTTPS server with a test CA)"),
    ]

    /// `swift run chainlab ARGS` with ARGS that a test can run to completion here.
    static func runnable(_ command: String) -> [String]? {
        guard command.hasPrefix("swift run chainlab ") else { return nil }
        let arguments = words(of: String(command.dropFirst("swift run chainlab ".count)))
        // --endpoint needs a running server: EndpointCommandTests runs those.
        // --otlp-endpoint needs a receiver: .ci/run runs those against small ones.
        guard let first = arguments.first, ["trace", "scenarios", "keys"].contains(first), !arguments.contains("--endpoint"),
            !arguments.contains("--otlp-endpoint")
        else { return nil }
        return arguments
    }

    /// A command line's words as a shell splits them: spaces separate, single quotes keep
    /// a word together (`--break 'post@AuthInterceptor if ~c 401'` is two words).
    static func words(of line: String) -> [String] {
        var words: [String] = [], word = "", quoted = false, started = false
        for character in line {
            if character == "'" {
                quoted.toggle()
                started = true
            } else if character == " ", !quoted {
                if started { words.append(word) }
                word = ""
                started = false
            } else {
                word.append(character)
                started = true
            }
        }
        if started { words.append(word) }
        return words
    }

    @Test("every README command is run by this suite or named as run elsewhere")
    func everyCommandIsCovered() throws {
        let commands = try Self.commands()
        #expect(commands.count >= 10)
        for command in commands {
            if command == "swift run chainlab" || command.hasPrefix("swift run chainlab  ") || command.hasPrefix("swift run chainlab #") { continue }
            if Self.runnable(command) != nil { continue }
            #expect(Self.runElsewhere.contains { command.hasPrefix($0.prefix) }, "README command not run by any test: \(command)")
        }
    }

    @Test("the runnable chainlab commands of the README exit 0, or 1 without a word on standard error when a scenario's operation fails")
    func runnableCommands() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chainlab-readme-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var ran = 0
        for command in try Self.commands() {
            guard var arguments = Self.runnable(command) else { continue }
            // Placeholders of usage lines are not commands to run.
            if arguments.contains(where: { $0.hasPrefix("[") || $0 == "SCENARIO" }) { continue }
            // A pipe or redirect in the README is the shell's; run the command itself.
            var output: String?
            if let index = arguments.firstIndex(of: ">") {
                output = folder.appendingPathComponent(arguments[index + 1]).path
                arguments = Array(arguments[..<index])
            }
            if let index = arguments.firstIndex(of: "|") { arguments = Array(arguments[..<index]) }
            arguments = arguments.map { $0 == "my-scenario.json" ? folder.appendingPathComponent($0).path : $0 }
            let result = try runProcess(try builtChainlab().path, arguments)
            // A storm or a stale token fails by design: trace says so with its status alone.
            #expect(result.status == 0 || result.status == 1 && result.stderr.isEmpty,
                "\(command) exited \(result.status): \(result.stderr)")
            if let output { try result.stdout.write(toFile: output, atomically: true, encoding: .utf8) }
            ran += 1
        }
        #expect(ran >= 3)
    }

    @Test("the benchmark the README shows runs")
    func benchmarkRuns() throws {
        let bench = try builtChainlab().deletingLastPathComponent().appendingPathComponent("chainlab-bench")
        let result = try runProcess(bench.path, ["--quick", "--only", "store.append.single"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("store.append.single"))
    }

    /// `scripts/record-run.py` keeps these lines and `scripts/benchmarks-doc.py` writes the
    /// docs' Targets table from their `target` and `met`.
    @Test("the bench's JSON line names the figure's target and whether the run met it")
    func benchmarkLineCarriesTarget() throws {
        let bench = try builtChainlab().deletingLastPathComponent().appendingPathComponent("chainlab-bench")
        let result = try runProcess(bench.path, ["--quick", "--only", "store.append.single"])
        let lines = result.stdout.split(separator: "\n").filter { $0.hasPrefix("{") }
        try #require(lines.count == 1)
        let figure = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        #expect(figure["name"] as? String == "store.append.single")
        #expect(figure["unit"] as? String == "events/s")
        #expect(figure["target"] as? String == "≥ 5,000,000 events/s")
        let value = try #require(figure["value"] as? Double)
        #expect(figure["met"] as? Bool == (value >= 5_000_000))
    }
}
