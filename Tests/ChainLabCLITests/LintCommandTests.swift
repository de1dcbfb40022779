import Foundation
import Testing

/// `chainlab lint` and the findings section of `chainlab trace`, from the built binary.
@Suite("chainlab lint and trace findings")
struct LintCommandTests {
    func chainlab(_ arguments: String...) throws -> (status: Int32, stdout: String, stderr: String) {
        try runProcess(try builtChainlab().path, arguments)
    }

    @Test("lint retry-order: the text report, exit 1")
    func retryOrderText() throws {
        let result = try chainlab("lint", "retry-order")
        #expect(result.status == 1)
        #expect(result.stderr == "")
        #expect(result.stdout == """
            retry-order: 1 finding (1 error)

            error retry-outside-max-retry: RetryOnErrorInterceptor (hop 1) turns every error into a retry from above MaxRetryInterceptor (hop 2), so MaxRetriesError becomes another retry
              why: MaxRetryInterceptor ends the passes by throwing MaxRetriesError, which travels up through the error mappers of the interceptors above it. One that turns every error into RequestChain.Retry turns MaxRetriesError into another pass, so nothing limits the retries (Apollo iOS RequestChain/Interceptors/MaxRetryInterceptor.swift).
              fix: Put MaxRetryInterceptor first, above every interceptor that retries.
              see: chainlab trace retry-order

            """)
    }

    @Test("lint basics: no findings, exit 0")
    func basics() throws {
        #expect(try chainlab("lint", "basics") == (0, "basics: no findings\n", ""))
    }

    @Test("--fail-on decides the exit status")
    func failOn() throws {
        // openapi-middleware has a warning and an info finding.
        #expect(try chainlab("lint", "openapi-middleware").status == 1)
        #expect(try chainlab("lint", "openapi-middleware", "--fail-on", "error").status == 0)
        #expect(try chainlab("lint", "openapi-middleware", "--fail-on", "warning").status == 1)
        #expect(try chainlab("lint", "basics", "--fail-on", "info").status == 0)
    }

    @Test("json: one finding per line with hops by timeline index")
    func json() throws {
        let result = try chainlab("lint", "openapi-middleware", "--format", "json", "--fail-on", "error")
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        #expect(lines.first == #"{"chain":"openapi-middleware","findings":["#)
        #expect(lines[1].contains(#""hops":[{"hop":0,"name":"AuthenticationMiddleware"},{"hop":2,"name":"RetryingMiddleware"}]"#))
        #expect(lines[1].contains(#""rule":"retry-inside-auth","scenario":"openapi-middleware","severity":"warning""#))
        #expect(lines[2].contains(#""rule":"logging-outside-retry","scenario":"openapi-middleware","severity":"info""#))
        #expect(lines.last == "]}")
    }

    @Test("sarif: a SARIF 2.1.0 log with every rule and one result per finding; a scenario file is the artifact")
    func sarif() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lint-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("retry-order.json")
        try Data(try chainlab("scenarios", "--show", "retry-order").stdout.utf8).write(to: file)
        let result = try chainlab("lint", "--scenario-file", file.path, "--format", "sarif")
        #expect(result.status == 1)
        let log = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(log["version"] as? String == "2.1.0")
        let run = try #require((log["runs"] as? [[String: Any]])?.first)
        let driver = try #require((run["tool"] as? [String: Any])?["driver"] as? [String: Any])
        #expect(driver["name"] as? String == "chainlab")
        let rules = try #require(driver["rules"] as? [[String: Any]])
        #expect(rules.count == 15)
        let results = try #require(run["results"] as? [[String: Any]])
        #expect(results.count == 1)
        let first = results[0]
        #expect(first["ruleId"] as? String == "retry-outside-max-retry")
        #expect(first["level"] as? String == "error")
        #expect(rules[first["ruleIndex"] as! Int]["id"] as? String == "retry-outside-max-retry")
        let location = try #require((first["locations"] as? [[String: Any]])?.first)
        let artifact = (location["physicalLocation"] as? [String: Any])?["artifactLocation"] as? [String: Any]
        #expect(artifact?["uri"] as? String == file.path)
        let logical = try #require(location["logicalLocations"] as? [[String: Any]])
        #expect(logical.map { $0["fullyQualifiedName"] as? String } == ["retry-order/hop 1 RetryOnErrorInterceptor", "retry-order/hop 2 MaxRetryInterceptor"])
    }

    @Test("bad input exits 2 and says what was wrong", arguments: [
        (["lint"], "chainlab: no scenario given; valid: basics, token-expiry, refresh-storm, refresh-storm-fixed, stale-token, retry-order, apq, cache-fallback, cache-and-network, cache-records, watcher, graphql-errors-200, empty-401, openapi-middleware, defer, subscription, hostile-server, partial-data, or --scenario-file FILE\n"),
        (["lint", "basics", "--format", "xml"], "chainlab: unknown format 'xml'; valid formats: text, json, sarif\n"),
        (["lint", "basics", "--fail-on", "fatal"], "chainlab: unknown level 'fatal' for --fail-on; valid: error, warning, info\n"),
        (["lint", "basics", "--color"], "chainlab: unknown option '--color' for lint; valid: --format, --fail-on, --scenario-file\n"),
        (["lint", "--scenario-file", "/nonexistent/s.json"], nil),
    ])
    func badInput(_ arguments: [String], _ message: String?) throws {
        let result = try runProcess(try builtChainlab().path, arguments)
        #expect(result.status == 2)
        #expect(result.stdout == "")
        if let message { #expect(result.stderr == message) } else { #expect(result.stderr.hasPrefix("chainlab: ") && result.stderr.contains("/nonexistent/s.json")) }
    }

    @Test("trace refresh-storm: the findings section, before the outcomes")
    func traceFindingsText() throws {
        let result = try chainlab("trace", "refresh-storm")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let start = try #require(lines.firstIndex(of: "findings:"))
        #expect(Array(lines[start...(start + 2)]) == [
            "findings:",
            "  error refresh-storm: 5 refreshes presented refresh token 1 (#1 seq 57, #2 seq 60, #3 seq 63, #4 seq 66, #5 seq 69): #1's won (200, seq 57); #2, #3, #4 and #5 got invalid_grant; the token family was revoked: #1's new access token from seq 57 was refused at seq 82 (RFC 6749 §10.4)",
            "#1 HeroQuery: failure after 2 attempts — TokenEndpointError: token endpoint refused the refresh: HTTP 400 invalid_grant (the refresh token was revoked)",
        ])
        #expect(try chainlab("trace", "basics").stdout.split(separator: "\n").contains("findings: none"))
    }

    @Test("trace --format json: a findings array citing seqs")
    func traceFindingsJSON() throws {
        let json = try chainlab("trace", "stale-token", "--format", "json").stdout
        #expect(json.hasSuffix(#"""
            "findings":[
            {"id":"stale-token-retry","severity":"error","message":"#1 retried with the Authorization the server had refused: attempt 2 (seq 21) after the 401 at seq 7, attempt 3 (seq 36) after the 401 at seq 22, attempt 4 (seq 51) after the 401 at seq 37","events":[7,21,22,36,37,51],"requests":[1]},
            {"id":"max-retries-exhausted","severity":"warning","message":"#1 ran out of retries: MaxRetriesError on attempt 5 (seq 61); retries triggered by AuthInterceptor ×4 (seq 14, 29, 44, 59)","events":[14,29,44,59,61],"requests":[1]}
            ]}

            """#))
        #expect(try chainlab("trace", "basics", "--format", "json").stdout.hasSuffix(#""findings":[]}"# + "\n"))
    }
}
