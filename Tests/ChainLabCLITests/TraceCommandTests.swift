import Foundation
import Testing

/// `chainlab trace`, `scenarios` and argument errors, from the built binary.
@Suite("chainlab trace and scenarios")
struct TraceCommandTests {
    func chainlab(_ arguments: String...) throws -> (status: Int32, stdout: String, stderr: String) {
        try runProcess(try builtChainlab().path, arguments)
    }

    @Test("trace basics prints the same bytes every time and ends with the outcome")
    func traceText() throws {
        let first = try chainlab("trace", "basics")
        let second = try chainlab("trace", "basics")
        #expect(first.status == 0)
        #expect(first.stdout == second.stdout)
        let lines = first.stdout.split(separator: "\n")
        #expect(lines.first == "scenario basics")
        #expect(lines.contains("  0.000s #1.1   ↓ AuthInterceptor preflight +Authorization"))
        #expect(lines.contains("#1 HeroQuery: success after 1 attempt, results from server"))
    }

    @Test("trace exits 0 when every operation succeeded, 1 when one failed, 2 for a usage mistake", arguments: [
        ([String](["trace", "token-expiry"]), Int32(0)),
        (["trace", "refresh-storm"], Int32(1)),
        // The filter leaves the failures out of the output, not out of the status.
        (["trace", "refresh-storm", "--filter", "~op Nothing"], Int32(1)),
        (["trace", "stale-token"], Int32(1)),
        (["trace", "no-such-scenario"], Int32(2)),
    ])
    func exitStatus(arguments: [String], status: Int32) throws {
        #expect(try runProcess(try builtChainlab().path, arguments).status == status)
    }

    @Test("token-expiry: success after 2 attempts, 1 refresh")
    func tokenExpiry() throws {
        let result = try chainlab("trace", "token-expiry")
        #expect(result.stdout.contains("#1 HeroQuery: success after 2 attempts, results from server"))
        #expect(result.stdout.contains("tokenRefreshes=1"))
    }

    @Test("json, har and curl formats; secrets masked unless asked")
    func formats() throws {
        let json = try chainlab("trace", "basics", "--format", "json")
        #expect(json.stdout.hasPrefix("{\"scenario\":\"basics\""))
        #expect(json.stdout.contains("\"Bearer ••••-1-1\""))
        let har = try chainlab("trace", "basics", "--format", "har")
        #expect(har.stdout.contains("\"version\":\"1.2\""))
        let curl = try chainlab("trace", "basics", "--format", "curl", "--include-secrets")
        #expect(curl.stdout.contains("-H 'Authorization: Bearer at-1-1'"))
    }

    @Test("--output writes the file; --record then --replay gives the same timeline")
    func recordReplay() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chainlab-trace-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let recording = folder.appendingPathComponent("storm.json").path
        let original = folder.appendingPathComponent("original.json").path
        let replayed = folder.appendingPathComponent("replayed.json").path
        // The storm fails by design: exit 1, with the file written.
        #expect(try chainlab("trace", "refresh-storm", "--format", "json", "--output", original, "--record", recording).status == 1)
        #expect(try chainlab("trace", "--replay", recording, "--format", "json", "--output", replayed).status == 1)
        #expect(try String(contentsOfFile: original, encoding: .utf8) == String(contentsOfFile: replayed, encoding: .utf8))
    }

    @Test("--format otlp prints the same OTLP/JSON bytes every time, with the service name asked for")
    func otlpFormat() throws {
        let first = try chainlab("trace", "refresh-storm-fixed", "--format", "otlp", "--service-name", "ios-app")
        let second = try chainlab("trace", "refresh-storm-fixed", "--format", "otlp", "--service-name", "ios-app")
        #expect(first.status == 0)
        #expect(first.stdout == second.stdout)
        #expect(first.stdout.hasPrefix(#"{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"ios-app"}}"#))
        #expect(first.stdout.components(separatedBy: #""name":"POST /oauth/token""#).count == 2)
    }

    @Test("bad input: a clear message naming the valid choices, exit 2", arguments: [
        (["trace", "nope"], "chainlab: unknown scenario 'nope'; valid: basics, token-expiry, refresh-storm, refresh-storm-fixed, stale-token, retry-order, apq, cache-fallback, cache-and-network, cache-records, watcher, graphql-errors-200, empty-401, openapi-middleware, defer, subscription, hostile-server, partial-data, or --scenario-file FILE\n"),
        (["trace", "basics", "--format", "xml"], "chainlab: unknown format 'xml'; valid formats: text, json, har, curl, otlp\n"),
        (["trace", "basics", "--bogus"], "chainlab: unknown option '--bogus' for trace; valid: --format, --output, --include-secrets, --record, --replay, --scenario-file, --filter, --break, --endpoint, --operation, --operation-name, --variables, --header, --mask-header, --token, --token-env, --token-file, --lab, --auth-failure, --oauth-token-url, --client-id, --client-secret-env, --client-auth, --refresh-token-env, --max-body, --client-name, --client-version, --no-client-library, --timeout, --no-traceparent, --otlp-endpoint, --otlp-header, --service-name, --cacert, --insecure\n"),
        (["trace", "--scenario-file", "/nonexistent.json"], "chainlab: cannot read scenario file /nonexistent.json: No such file or directory\n"),
        (["trace", "basics", "--output", "/nonexistent-folder/out.txt"], "chainlab: cannot write /nonexistent-folder/out.txt: the folder /nonexistent-folder does not exist\n"),
        (["scenarios", "--show", "nope"], "chainlab: unknown scenario 'nope'; valid: basics, token-expiry, refresh-storm, refresh-storm-fixed, stale-token, retry-order, apq, cache-fallback, cache-and-network, cache-records, watcher, graphql-errors-200, empty-401, openapi-middleware, defer, subscription, hostile-server, partial-data, or --scenario-file FILE\n"),
        (["trace", "basics", "--otlp-endpoint", "localhost:4318"], "chainlab: --otlp-endpoint needs an http:// or https:// URL such as http://127.0.0.1:4318, got 'localhost:4318'\n"),
        (["trace", "basics", "--otlp-header", "X-Key: 1"], "chainlab: --otlp-header needs --otlp-endpoint\n"),
        (["trace", "basics", "--otlp-endpoint", "http://127.0.0.1:4318", "--otlp-header", "X-Key"], "chainlab: --otlp-header needs 'Name: value', got 'X-Key'\n"),
        (["trace", "basics", "--service-name", ""], "chainlab: --service-name needs a non-empty name\n"),
        (["--bogus"], "chainlab: unknown option '--bogus'; valid: --scenario-file, --record, --no-step, --theme, --ascii, --no-mouse, --config, --endpoint, --operation, --operation-name, --variables, --header, --mask-header, --token, --token-env, --token-file, --lab, --auth-failure, --oauth-token-url, --client-id, --client-secret-env, --client-auth, --refresh-token-env, --max-body, --client-name, --client-version, --no-client-library, --timeout, --no-traceparent, --otlp-endpoint, --otlp-header, --service-name, --cacert, --insecure, or a command: trace, scenarios, serve, keys, help\n"),
        (["keys", "--markdown", "extra"], "chainlab: unexpected argument 'extra' for keys; valid: --markdown, --config FILE, each once\n"),
        (["keys", "extra"], "chainlab: unexpected argument 'extra' for keys; valid: --markdown, --config FILE, each once\n"),
        (["keys", "--markdown", "--markdown"], "chainlab: unexpected argument '--markdown' for keys; valid: --markdown, --config FILE, each once\n"),
        (["keys", "--config", "/nonexistent/config.json"], "chainlab: cannot read config file /nonexistent/config.json: No such file or directory\n"),
        (["keys", "--config", "/dev/zero"], "chainlab: cannot read config file /dev/zero: it goes on past 1048576 bytes; a config file may have at most 1048576\n"),
        (["trace", "--scenario-file", "/dev/zero"], "chainlab: cannot read scenario file /dev/zero: it goes on past 1048576 bytes; a scenario file may have at most 1048576\n"),
        (["--theme", "purple"], "chainlab: unknown theme 'purple'; valid: dark, light, high-contrast\n"),
        (["trace", "basics", "--endpoint", "http://127.0.0.1:9/graphql", "--auth-failure", "4O1"],
         "chainlab: --auth-failure needs a status from 400 to 599 (401, 403) or a GraphQL error code (UNAUTHENTICATED), got '4O1'\n"),
        (["trace", "basics", "--endpoint", "http://127.0.0.1:9/graphql", "--auth-failure", "200"],
         "chainlab: --auth-failure needs a status from 400 to 599 (401, 403) or a GraphQL error code (UNAUTHENTICATED), got '200'\n"),
    ])
    func badInput(arguments: [String], message: String) throws {
        let result = try runProcess(try builtChainlab().path, arguments)
        #expect(result.status == 2)
        #expect(result.stderr == message)
        #expect(result.stdout == "")
    }

    @Test("a config file of 3 GiB is refused by its size before any of it is read")
    func hugeConfigFile() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("config-\(UUID().uuidString).json")
        #expect(FileManager.default.createFile(atPath: file.path, contents: nil))
        defer { try? FileManager.default.removeItem(at: file) }
        let handle = try FileHandle(forWritingTo: file)
        try handle.truncate(atOffset: 3 << 30)
        try handle.close()
        let result = try runProcess(try builtChainlab().path, ["keys", "--config", file.path])
        #expect(result.status == 2)
        #expect(result.stderr == "chainlab: cannot read config file \(file.path): it has 3221225472 bytes; a config file may have at most 1048576\n")
    }

    @Test("an output that is one of the run's inputs, or the other output, is refused before anything is written")
    func outputOverInput() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("separate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let scenario = folder.appendingPathComponent("s.json").path
        let text = try chainlab("scenarios", "--show", "basics").stdout
        try text.write(toFile: scenario, atomically: true, encoding: .utf8)
        let link = folder.appendingPathComponent("link.json").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: scenario)
        let sameFolder = folder.path + "/./"
        let cases: [([String], String)] = [
            (["trace", "--scenario-file", scenario, "--output", sameFolder + "s.json"],
             "chainlab: --output \(sameFolder)s.json is the same file as --scenario-file \(scenario); a run never writes over what it reads\n"),
            (["trace", "--scenario-file", scenario, "--record", link],
             "chainlab: --record \(link) is the same file as --scenario-file \(scenario); a run never writes over what it reads\n"),
            (["--scenario-file", scenario, "--record", scenario],
             "chainlab: --record \(scenario) is the same file as --scenario-file \(scenario); a run never writes over what it reads\n"),
            (["trace", "basics", "--output", folder.path + "/r.json", "--record", sameFolder + "r.json"],
             "chainlab: --record \(sameFolder)r.json is the same file as --output \(folder.path)/r.json; give each its own file\n"),
        ]
        for (arguments, message) in cases {
            let result = try runProcess(try builtChainlab().path, arguments)
            #expect(result.status == 2)
            #expect(result.stderr == message)
            #expect(result.stdout == "")
        }
        #expect(try String(contentsOfFile: scenario, encoding: .utf8) == text)
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/r.json"))
    }

    @Test("a bad scenario file names the JSON path and the valid choices")
    func badScenarioFile() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(UUID().uuidString).json")
        try #"{"name":"x","chain":[{"interceptor":"Foo"}],"operations":[{"name":"HeroQuery"}]}"#.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try chainlab("trace", "--scenario-file", file.path)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("chainlab: \(file.path): chain[0].interceptor: unknown \"Foo\"; known: MaxRetryInterceptor,"))
    }

    @Test("scenarios lists every built-in; --show prints one that loads back unchanged")
    func scenarios() throws {
        let list = try chainlab("scenarios")
        #expect(list.stdout.split(separator: "\n").count == 18)
        #expect(list.stdout.split(separator: "\n").contains { $0.hasPrefix("cache-records ") })
        let shown = try chainlab("scenarios", "--show", "refresh-storm")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("storm-\(UUID().uuidString).json")
        try shown.stdout.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(try chainlab("trace", "--scenario-file", file.path).stdout == chainlab("trace", "refresh-storm").stdout)
    }

    @Test("hostile-server output contains no raw escape or bidi control")
    func hostileTrace() throws {
        for format in ["text", "json", "har", "curl"] {
            let result = try chainlab("trace", "hostile-server", "--format", format)
            #expect(result.status == 0)
            #expect(!result.stdout.contains("\u{1B}"), "raw ESC in \(format)")
            #expect(!result.stdout.contains("\u{202E}"), "raw bidi override in \(format)")
            #expect(!result.stdout.contains("\u{07}"), "raw BEL in \(format)")
        }
    }
}
