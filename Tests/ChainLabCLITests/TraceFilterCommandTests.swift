import Foundation
import Testing

/// `chainlab trace --filter` and `--break`, from the built binary.
@Suite("chainlab trace --filter and --break")
struct TraceFilterCommandTests {
    func chainlab(_ arguments: String...) throws -> (status: Int32, stdout: String, stderr: String) {
        try runProcess(try builtChainlab().path, arguments)
    }

    @Test("--filter prints only the matching requests, says how many, and exports only them")
    func filterText() throws {
        // The storm's requests fail: exit 1 whatever the filter shows.
        let result = try chainlab("trace", "refresh-storm", "--filter", "!~retry & ~c 401")
        #expect(result.status == 1)
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.prefix(2) == ["scenario refresh-storm", "filter !~retry & ~c 401: 4 requests match"])
        #expect(lines.filter { $0.hasPrefix("#") }.map { $0.prefix(3) } == ["#2 ", "#3 ", "#4 ", "#5 "])
        #expect(!lines.contains { $0.contains(" #1.") })
        #expect(lines.contains { $0.contains(" #2.1 ") })
        let json = try chainlab("trace", "refresh-storm", "--format", "json", "--filter", "~retry")
        #expect(json.status == 1)
        #expect(json.stdout.contains("\"requests\":[\n{\"id\":1,"))
        #expect(!json.stdout.contains(#"{"id":2,"#))
        #expect(!json.stdout.contains(#""request":2,"#))
        let har = try chainlab("trace", "refresh-storm", "--format", "har", "--filter", "~cache")
        #expect(har.status == 1)
        #expect(har.stdout.contains(#""entries":[]"#))
    }

    @Test("a bad --filter or --break exits 2 with the position and what was expected")
    func badArguments() throws {
        let filter = try chainlab("trace", "basics", "--filter", "~op Hero & (~c 4xx")
        #expect(filter.status == 2)
        #expect(filter.stderr == "chainlab: --filter '~op Hero & (~c 4xx': at 19: expected ')' to close the '(' at 12, found the end\n")
        #expect(filter.stdout.isEmpty)
        let rule = try chainlab("trace", "basics", "--break", "post@AuthInterceptor when ~c 401")
        #expect(rule.status == 2)
        #expect(rule.stderr == "chainlab: --break 'post@AuthInterceptor when ~c 401': at 22: expected 'if' and a filter, or the end, found 'when'\n")
        let hop = try chainlab("trace", "openapi-middleware", "--break", "pre@AuthInterceptor")
        #expect(hop.status == 2)
        #expect(hop.stderr.hasPrefix("chainlab: --break 'pre@AuthInterceptor': no hop named 'AuthInterceptor' in the chain; hops: "))
    }

    @Test("--break records each stop and continues; --record then --replay stops in the same places")
    func breakAndReplay() throws {
        let rule = "post@AuthInterceptor if ~c 401 & !~retry"
        let result = try chainlab("trace", "token-expiry", "--break", rule)
        #expect(result.status == 0)
        let stops = result.stdout.split(separator: "\n").filter { $0.contains(" paused ") || $0.contains("resumed (continue") }
        #expect(stops == [
            "  0.012s #1.1   • AuthInterceptor paused (rule \(rule) · post-flight)",
            "  0.012s #1.1   • AuthInterceptor resumed (continue · post-flight)",
        ])
        #expect(result.stdout.contains("#1 HeroQuery: success after 2 attempts, results from server"))

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chainlab-break-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let recording = folder.appendingPathComponent("rule.json").path
        let original = try chainlab("trace", "refresh-storm", "--break", "answer if ~c 401", "--record", recording)
        #expect(original.status == 1)
        let saved = try String(contentsOfFile: recording, encoding: .utf8)
        #expect(saved.contains(#"{"command":"setBreakRules","rules":[{"rule":"answer if ~c 401"}]}"#))
        let replayed = try chainlab("trace", "--replay", recording)
        #expect(replayed.status == 1)
        #expect(replayed.stdout == original.stdout)
        #expect(original.stdout.split(separator: "\n").filter { $0.contains("paused (rule answer if ~c 401") }.count == 6)
        let both = try chainlab("trace", "--replay", recording, "--break", "refresh")
        #expect(both.status == 2)
        #expect(both.stderr == "chainlab: --break cannot be used with --replay: a recording replays the rules it was made with\n")
    }

    @Test("a scenario file's breakpoints stop a trace; a bad one is refused with its JSON path")
    func scenarioFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chainlab-rules-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let base = #"{"name": "mine", "token": "expired", "chain": [{"interceptor": "MaxRetryInterceptor"}, {"interceptor": "AuthInterceptor"}, {"interceptor": "ResponseCodeInterceptor"}], "operations": [{"name": "HeroQuery"}], "breakpoints": "#
        let good = folder.appendingPathComponent("good.json")
        try (base + #"["refresh"]}"#).write(to: good, atomically: true, encoding: .utf8)
        let run = try chainlab("trace", "--scenario-file", good.path)
        #expect(run.status == 0)
        #expect(run.stdout.contains("TokenManager paused (rule refresh · refresh)"))
        let bad = folder.appendingPathComponent("bad.json")
        try (base + #"["refresh", "pre@AuthInterceptor if ~hop"]}"#).write(to: bad, atomically: true, encoding: .utf8)
        let refused = try chainlab("trace", "--scenario-file", bad.path)
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("breakpoints[1]: rule at 28: expected a hop name after ~hop, found the end"))
    }
}
