import Foundation
import Testing

/// The one argument parser every command reads its arguments with, from the built binary:
/// unknown options, missing values, options given twice and `--`.
@Suite("chainlab's argument parser")
struct CommandLineParserTests {
    @Test("refusals: exit 2, nothing on stdout, the exact message", arguments: [
        // An unknown option names the command and lists its options, escaped.
        (["lint", "--colour"], "chainlab: unknown option '--colour' for lint; valid: --format, --fail-on, --scenario-file\n"),
        (["lint", "-x\u{1B}]0;t\u{07}"], "chainlab: unknown option '-x\\e]0;t\\x07' for lint; valid: --format, --fail-on, --scenario-file\n"),
        (["scenarios", "--list"], "chainlab: unknown argument '--list' for scenarios; valid: --show NAME\n"),
        // A value that is missing, or is the next option, is refused by the option's name.
        (["trace", "basics", "--format"], "chainlab: --format needs a value; see 'chainlab trace --help'\n"),
        (["trace", "basics", "--output", "--format", "json"], "chainlab: --output needs a value; see 'chainlab trace --help'\n"),
        (["lint", "basics", "--fail-on"], "chainlab: --fail-on needs a value; see 'chainlab lint --help'\n"),
        (["--record"], "chainlab: --record needs a value; see 'chainlab --help-inspector'\n"),
        (["keys", "--config"], "chainlab: --config needs a value; see 'chainlab keys --help'\n"),
        // An option that takes one value, or a flag, given twice; aliases count as the option.
        (["trace", "basics", "--format", "json", "--format", "har"], "chainlab: --format is given twice; give it once\n"),
        (["trace", "basics", "--output", "a.txt", "-o", "b.txt"], "chainlab: -o is given twice; give it once\n"),
        (["trace", "basics", "--include-secrets", "--include-secrets"], "chainlab: --include-secrets is given twice; give it once\n"),
        (["trace", "basics", "--endpoint", "http://127.0.0.1:1", "--endpoint", "http://127.0.0.1:2"], "chainlab: --endpoint is given twice; give it once\n"),
        (["trace", "basics", "--service-name", "a", "--service-name", "b"], "chainlab: --service-name is given twice; give it once\n"),
        (["serve", "--hostile", "--hostile"], "chainlab: --hostile is given twice; give it once\n"),
        (["--ascii", "--ascii"], "chainlab: --ascii is given twice; give it once\n"),
        // After `--` every argument is the command's own, even one that looks like an option.
        (["trace", "--", "-x"], "chainlab: unknown scenario '-x'; valid: basics, token-expiry, refresh-storm, refresh-storm-fixed, stale-token, retry-order, apq, cache-fallback, cache-and-network, cache-records, watcher, graphql-errors-200, empty-401, openapi-middleware, defer, subscription, hostile-server, partial-data, or --scenario-file FILE\n"),
        (["trace", "--", "basics", "--format"], "chainlab: trace takes one scenario, got 'basics' and '--format'\n"),
        (["lint", "basics", "--", "--", "x"], "chainlab: lint takes one scenario, got 'basics' and '--'\n"),
        (["serve", "--", "--port"], "chainlab: serve takes no arguments, got '--port'; valid options: --port, --host, --token-ttl, --auth-failure, --latency, --hostile, --upstream, --har-max-body, --har-max-total, --max-connections, --otlp-endpoint, --otlp-header, --service-name, --cacert, --insecure\n"),
        (["keys", "--", "--markdown"], "chainlab: unexpected argument '--markdown' for keys; valid: --markdown, --config FILE, each once\n"),
    ])
    func refusals(arguments: [String], message: String) throws {
        let result = try runProcess(try builtChainlab().path, arguments)
        #expect(result.stderr == message)
        #expect(result.status == 2)
        #expect(result.stdout == "")
    }

    @Test("options that may be repeated add up: two --break rules are both in force")
    func repeatableOptions() throws {
        let result = try runProcess(try builtChainlab().path, [
            "trace", "basics", "--break", "pre@AuthInterceptor", "--break", "post@AuthInterceptor",
        ])
        #expect(result.status == 0)
        #expect(result.stdout.split(separator: "\n").filter { $0.contains(" paused ") } == [
            "  0.000s #1.1   • AuthInterceptor paused (rule pre@AuthInterceptor · pre-flight)",
            "  0.012s #1.1   • AuthInterceptor paused (rule post@AuthInterceptor · post-flight)",
        ])
    }

    @Test("options before `--` still count: -- then the scenario runs as asked")
    func optionsThenOperands() throws {
        let separated = try runProcess(try builtChainlab().path, ["trace", "--format", "json", "--", "basics"])
        let plain = try runProcess(try builtChainlab().path, ["trace", "basics", "--format", "json"])
        #expect(separated.status == 0)
        #expect(separated.stdout.hasPrefix("{\"scenario\":\"basics\""))
        #expect(separated.stdout == plain.stdout)
    }

    @Test("--help and -h print the command's usage and exit 0, wherever they stand")
    func help() throws {
        let keys = try runProcess(try builtChainlab().path, ["keys", "--markdown", "--help"])
        #expect(keys.status == 0)
        #expect(keys.stdout.hasPrefix("USAGE: chainlab keys [--markdown] [--config FILE]\n"))
        let lint = try runProcess(try builtChainlab().path, ["lint", "basics", "-h"])
        #expect(lint.status == 0)
        #expect(lint.stdout.hasPrefix("USAGE: chainlab lint"))
    }

    @Test("--version prints the version and exits 0")
    func version() throws {
        let result = try runProcess(try builtChainlab().path, ["--version"])
        #expect(result.status == 0)
        #expect(result.stdout == "chainlab 1.0\n")
        #expect(result.stderr == "")
    }
}
