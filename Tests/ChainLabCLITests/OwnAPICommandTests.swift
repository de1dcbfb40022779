#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ChainKit
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPServer
import TestSupport
import Testing

/// `chainlab trace --endpoint` against servers that are not ChainLab labs, as the README's
/// "Using ChainLab on your own API" shows it, through the built binary.
@Suite("chainlab on your own API, as a built binary", .serialized, .timeLimit(.minutes(3)))
struct OwnAPICommandTests {
    static let folder: URL = {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chainlab-own-api-\(UUID().uuidString.prefix(8))")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }()

    /// A file in a scratch folder with `text` in it; its path.
    static func file(_ name: String, _ text: String) throws -> String {
        let url = folder.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    static let operations = """
        # the app's operations
        query Me($id: ID!) { me(id: $id) { ...Who } }
        mutation Rename($name: String!) { rename(name: $name) { id } }
        fragment Who on User { id name }
        """

    static func chainlab(_ arguments: [String], environment: [String: String] = [:]) async throws -> (status: Int32, stdout: String, stderr: String) {
        let executable = try builtChainlab().path
        var merged = ProcessInfo.processInfo.environment
        merged.merge(environment) { $1 }
        return try await onOwnThread { [merged] in try runProcess(executable, arguments, environment: merged) }
    }

    static func lines(_ text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    @Test func aPlainServerGetsNoSignInAndNoLabCallsAndTheTraceSaysSo() async throws {
        let servers = try PlainServers()
        let text = try await Self.chainlab(["trace", "basics", "--endpoint", servers.graphQLURL, "--token", "valid-token"])
        #expect(text.status == 0)
        #expect(text.stderr == "")
        let lines = Self.lines(text.stdout)
        #expect(lines.suffix(3) == ["#1 HeroQuery: success after 1 attempt, results from server", "backend: not a ChainLab lab (no counters)", ""])
        // Only the operation: no /_lab/state without --lab, no /oauth/token, no counters call.
        #expect(servers.graphQLExchanges.map { "\($0.method) \($0.target)" } == ["POST /graphql"])
        #expect(servers.grants.isEmpty)

        let json = try await Self.chainlab(["trace", "basics", "--endpoint", servers.graphQLURL, "--token", "valid-token", "--format", "json"])
        #expect(json.status == 0)
        #expect(json.stdout.hasSuffix(#"],"backend":null,"findings":[]}"# + "\n"))
    }

    /// apollo-ios 2.4 `Sources/Apollo/ClientAwarenessMetadata.swift`: an ApolloClient names
    /// the library in every body by default; name and version go out as headers when set.
    @Test("client awareness: the library by default, --client-name/--client-version as headers, --no-client-library leaves it out")
    func clientAwareness() async throws {
        let servers = try PlainServers()
        let plain = try await Self.chainlab(["trace", "basics", "--endpoint", servers.graphQLURL, "--token", "valid-token"])
        #expect(plain.status == 0)
        let first = try #require(servers.graphQLExchanges.last)
        #expect(first.json?["extensions"] == ["clientLibrary": ["name": "apollo-ios", "version": "2.4.0"]])
        #expect(first.header("apollographql-client-name") == nil)
        let named = try await Self.chainlab([
            "trace", "basics", "--endpoint", servers.graphQLURL, "--token", "valid-token",
            "--client-name", "Dashboard", "--client-version", "3.1 (42)", "--no-client-library",
        ])
        #expect(named.status == 0)
        let second = try #require(servers.graphQLExchanges.last)
        #expect(second.header("apollographql-client-name") == "Dashboard")
        #expect(second.header("apollographql-client-version") == "3.1 (42)")
        #expect(second.json?["extensions"] == nil)
        let refused = try await Self.chainlab(["trace", "basics", "--client-name", "a\u{1B}b"])
        #expect(refused.status == 2)
        #expect(refused.stderr == "chainlab: --client-name needs text that can be a header value (no control characters), got 'a\\eb'\n")
    }

    @Test func operationVariablesHeadersAndTokenReachTheServerAndSecretsStayMasked() async throws {
        let servers = try PlainServers()
        let operation = try Self.file("ops.graphql", Self.operations)
        let variables = try Self.file("vars.json", #"{"id": "7", "big": 9007199254740993}"#)
        let result = try await Self.chainlab([
            "trace", "basics", "--endpoint", servers.graphQLURL, "--operation", operation, "--operation-name", "Me",
            "--variables", "@" + variables, "--header", "X-Api-Key: key-123456", "--header", "X-Client: cli", "--token-env", "MY_TOKEN",
            "--format", "json",
        ], environment: ["MY_TOKEN": "valid-token"])
        #expect(result.status == 0)
        let sent = try #require(servers.graphQLExchanges.last)
        #expect(sent.json?["operationName"] == "Me")
        #expect(sent.json?["variables"] == ["id": "7", "big": .exactNumber("9007199254740993")])
        // Me and the fragment it uses, as generated code sends it: not Rename.
        #expect(sent.json?["query"]?.stringValue == "query Me($id: ID!) { me(id: $id) { ...Who } }\n\nfragment Who on User { id name }")
        #expect(sent.header("X-Api-Key") == "key-123456")
        #expect(sent.header("X-Client") == "cli")
        #expect(sent.header("Authorization") == "Bearer valid-token")
        #expect(result.stdout.contains(#"{"id":1,"operation":"Me","outcome":"success","attempts":1,"error":null,"results":["server"]}"#))
        #expect(!result.stdout.contains("key-123456"))
        #expect(!result.stdout.contains("valid-token"))
        #expect(result.stdout.contains(#"["X-Api-Key","••••3456"]"#))
        #expect(result.stdout.contains(#"["X-Client","cli"]"#))
        // The server's answer is in the trace as it sent it.
        #expect(result.stdout.contains(#""body":"{\"data\":{\"me\":{\"id\":\"1\",\"name\":\"Ada\"}}}""#))
    }

    @Test("--record keeps the endpoint, the headers (masked) and the operation; --replay sends that operation to that server")
    func recordingKeepsWhatTheRunSent() async throws {
        let servers = try PlainServers()
        let operation = try Self.file("ops-record.graphql", Self.operations)
        let recording = Self.folder.appendingPathComponent("own-api-recording.json").path
        let recorded = try await Self.chainlab([
            "trace", "basics", "--endpoint", servers.graphQLURL, "--operation", operation, "--operation-name", "Me",
            "--variables", #"{"id": "7"}"#, "--header", "X-Api-Key: key-123456", "--header", "X-Client: cli", "--token", "valid-token",
            "--record", recording,
        ])
        #expect(recorded.status == 0)
        let saved = try String(contentsOfFile: recording, encoding: .utf8)
        #expect(saved.contains(#""endpoint": "\#(servers.graphQLURL)""#))
        #expect(saved.contains(#""headers": ["X-Api-Key: ••••3456","X-Client: cli"]"#))
        #expect(saved.contains(#""operations": [{"document":"query Me($id: ID!) { me(id: $id) { ...Who } }\n\nfragment Who on User { id name }","fetchBehavior":"CacheFirst","name":"Me","variables":{"id":"7"}}]"#))
        #expect(!saved.contains("key-123456") && !saved.contains("valid-token"))

        let replayed = try await Self.chainlab(["trace", "--replay", recording, "--token", "valid-token"])
        #expect(replayed.status == 0)
        let sent = try #require(servers.graphQLExchanges.last)
        #expect(sent.json?["operationName"] == "Me")
        #expect(sent.json?["variables"] == ["id": "7"])
        // A real server's times are its own each run: the outcome is the same.
        #expect(Self.lines(replayed.stdout).suffix(3).first == "#1 Me: success after 1 attempt, results from server")
    }

    @Test("a subscription from --operation follows upstream's default, cache-then-network, not its CacheFirst slot's")
    func subscriptionIsCacheThenNetwork() async throws {
        // apollo-ios 2.4.0, Sources/Apollo/ApolloClient.swift: `subscribe` defaults its
        // `cachePolicy` to `.cacheThenNetwork`, which Sources/Apollo/Caching/CachePolicy.swift
        // turns into `FetchBehavior.CacheAndNetwork`.
        let servers = try PlainServers()
        let operation = try Self.file("subscription.graphql", "subscription OnMe { me { id name } }")
        // cache-records launches its slots five times, one after another: CacheFirst slots.
        let result = try await Self.chainlab([
            "trace", "cache-records", "--endpoint", servers.graphQLURL, "--operation", operation, "--token", "valid-token", "--format", "json",
        ])
        #expect(result.status == 0)
        #expect(servers.graphQLExchanges.count == 5)
        let requests = try #require(JSONValue(parsing: Data(result.stdout.utf8))["requests"]?.arrayValue)
        #expect(requests.map { $0["results"] } == [["server"], ["cache", "server"], ["cache", "server"], ["cache", "server"], ["cache", "server"]])
    }

    @Test("the inspector's --record keeps the endpoint, the headers (masked) and the operation, as trace's does")
    func inspectorRecordingKeepsWhatTheRunSent() async throws {
        let servers = try PlainServers()
        let operation = try Self.file("ops-inspector.graphql", Self.operations)
        let recording = Self.folder.appendingPathComponent("inspector-recording.json").path
        let tmux = try TmuxSession(
            "\(try builtChainlab().path) basics --no-step --endpoint \(servers.graphQLURL) --operation \(operation) --operation-name Me"
                + " --variables '{\"id\": \"7\"}' --header 'X-Api-Key: key-123456' --token valid-token --record \(recording)")
        try await tmux.waitFor("Requests")
        try tmux.send("n")
        try await tmux.waitFor("✓ #1 Me")
        try tmux.send("q")
        try await tmux.waitFor("the inspector to quit") { !$0.contains("Requests") }
        let saved = try String(contentsOfFile: recording, encoding: .utf8)
        #expect(saved.contains(#""endpoint": "\#(servers.graphQLURL)""#))
        #expect(saved.contains(#""headers": ["X-Api-Key: ••••3456"]"#))
        #expect(saved.contains(#""operations": [{"document":"query Me($id: ID!) { me(id: $id) { ...Who } }\n\nfragment Who on User { id name }","fetchBehavior":"CacheFirst","name":"Me","variables":{"id":"7"}}]"#))
        #expect(!saved.contains("key-123456") && !saved.contains("valid-token"))

        let replayed = try await Self.chainlab(["trace", "--replay", recording, "--token", "valid-token"])
        #expect(replayed.status == 0)
        #expect(servers.graphQLExchanges.map { $0.json?["operationName"] } == ["Me", "Me"])
    }

    @Test("each attempt and the refresh carry a W3C traceparent with the ids of the attempt's span in the OTLP export; --no-traceparent sends none")
    func traceparentMatchesTheOTLPSpans() async throws {
        let servers = try PlainServers()
        let arguments = [
            "trace", "token-expiry", "--endpoint", servers.graphQLURL, "--token", "expired", "--oauth-token-url", servers.tokenURL,
            "--client-id", "app", "--client-secret-env", "SECRET", "--refresh-token-env", "REFRESH", "--format", "otlp",
        ]
        let environment = ["SECRET": "s3cret", "REFRESH": "refresh-0"]
        let result = try await Self.chainlab(arguments, environment: environment)
        #expect(result.status == 0)
        let document = try JSONValue(parsing: Data(result.stdout.utf8))
        let spans = try #require(document["resourceSpans"]?[0]?["scopeSpans"]?[0]?["spans"]?.arrayValue)
        func traceparent(ofSpan name: String) throws -> String {
            let span = try #require(spans.first { $0["name"]?.stringValue == name })
            return "00-\(try #require(span["traceId"]?.stringValue))-\(try #require(span["spanId"]?.stringValue))-01"
        }
        let sent = servers.graphQLExchanges.map { $0.header("traceparent") }
        #expect(sent == [try traceparent(ofSpan: "attempt 1"), try traceparent(ofSpan: "attempt 2")])
        // The refresh was needed by attempt 1: its grant carries that attempt's ids.
        #expect(servers.grants.map { $0.header("traceparent") } == [try traceparent(ofSpan: "attempt 1")])
        let format = try Regex("00-[0-9a-f]{32}-[0-9a-f]{16}-01")
        #expect(sent.allSatisfy { $0?.wholeMatch(of: format) != nil })
        // The timeline shows it where it was sent: the HAR's requests carry it.
        let har = try await Self.chainlab(["trace", "basics", "--endpoint", servers.graphQLURL, "--token", "valid-token", "--format", "har"])
        let harValue = try #require(servers.graphQLExchanges.last?.header("traceparent"))
        #expect(har.stdout.contains(#"{"name":"traceparent","value":"\#(harValue)"}"#))

        // The first refresh rotated refresh-0 into refresh-1.
        let off = try await Self.chainlab(arguments + ["--no-traceparent"], environment: ["SECRET": "s3cret", "REFRESH": "refresh-1"])
        #expect(off.status == 0)
        #expect(servers.graphQLExchanges.count == 5)
        #expect(servers.graphQLExchanges.suffix(2).map { $0.header("traceparent") } == [nil, nil])
        #expect(servers.grants.count == 2 && servers.grants[1].header("traceparent") == nil)
    }

    @Test("--token-file reads the pair and writes the rotated one back, owner-only: the next run presents the new refresh token")
    func tokenFileKeepsTheRotatedPair() async throws {
        let servers = try PlainServers()
        let file = try Self.file("tokens.json", #"{"access_token": "expired-token", "refresh_token": "refresh-0"}"#)
        let arguments = [
            "trace", "token-expiry", "--endpoint", servers.graphQLURL, "--oauth-token-url", servers.tokenURL, "--client-id", "app",
            "--client-secret-env", "SECRET", "--token-file", file,
        ]
        let first = try await Self.chainlab(arguments, environment: ["SECRET": "s3cret"])
        #expect(first.status == 0)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == #"{"access_token":"access-1","refresh_token":"refresh-1"}"# + "\n")
        let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(!first.stdout.contains("stored-refresh-token-spent"))
        // The access token expires again: the next run refreshes with the rotated token.
        try Data(#"{"access_token": "expired-again", "refresh_token": "refresh-1"}"#.utf8).write(to: URL(fileURLWithPath: file))
        let second = try await Self.chainlab(arguments, environment: ["SECRET": "s3cret"])
        #expect(second.status == 0)
        #expect(servers.grants.map { $0.form["refresh_token"] } == ["refresh-0", "refresh-1"])
        #expect(try String(contentsOfFile: file, encoding: .utf8) == #"{"access_token":"access-2","refresh_token":"refresh-2"}"# + "\n")
    }

    @Test("without --token-file, a rotated refresh token the person gave is a finding: it is now spent")
    func rotationWithoutATokenFileIsAFinding() async throws {
        let servers = try PlainServers()
        let result = try await Self.chainlab([
            "trace", "token-expiry", "--endpoint", servers.graphQLURL, "--token", "expired-token", "--oauth-token-url", servers.tokenURL,
            "--client-id", "app", "--client-secret-env", "SECRET", "--refresh-token-env", "REFRESH",
        ], environment: ["SECRET": "s3cret", "REFRESH": "refresh-0"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("was answered with a new refresh token: the one you gave is now spent, and the next run that presents it is refused; keep the new pair with --token-file FILE"))
        #expect(!result.stdout.contains("refresh-1"))
    }

    @Test("a --token-file that is not a token pair, or given with --token, is a usage mistake", arguments: [
        (#"["a"]"#, [String](), #"chainlab: --token-file FILE: expected a JSON object such as {"access_token": "…", "refresh_token": "…"}"#),
        (#"{"access_token": 3}"#, [], "chainlab: --token-file FILE: access_token: expected a non-empty string"),
        (#"{"access_token": "a", "refresh_token": ""}"#, [], "chainlab: --token-file FILE: refresh_token: expected a non-empty string"),
        (#"{"access_token": "a"}"#, ["--token", "t"], "chainlab: give --token-file or --token, not both: the file holds both tokens"),
    ])
    func badTokenFiles(contents: String, extra: [String], message: String) async throws {
        let servers = try PlainServers()
        let file = try Self.file("bad-tokens.json", contents)
        let result = try await Self.chainlab(["trace", "basics", "--endpoint", servers.graphQLURL, "--token-file", file] + extra)
        #expect(result.status == 2)
        #expect(result.stderr == message.replacingOccurrences(of: "FILE", with: file) + "\n")
    }

    @Test func aHeaderNamedWithMaskHeaderIsMaskedAndABadNameIsRefused() async throws {
        let servers = try PlainServers()
        let result = try await Self.chainlab([
            "trace", "basics", "--endpoint", servers.graphQLURL, "--token", "valid-token", "--header", "X-Tenant-Signature: sig-0123456789",
            "--mask-header", "x-tenant-signature", "--format", "json",
        ])
        #expect(result.status == 0)
        #expect(servers.graphQLExchanges.last?.header("X-Tenant-Signature") == "sig-0123456789")
        #expect(!result.stdout.contains("sig-0123456789"))
        #expect(result.stdout.contains(#"["X-Tenant-Signature","••••6789"]"#))
        let refused = try await Self.chainlab(["trace", "basics", "--mask-header", "X Sig"])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("--mask-header needs a header name (letters, digits and !#$%&'*+-.^_`|~), got 'X Sig'"))
    }

    @Test func withoutATokenAuthAttachesNothingAndSaysSo() async throws {
        let servers = try PlainServers()
        let result = try await Self.chainlab(["trace", "basics", "--endpoint", servers.graphQLURL])
        #expect(result.status == 1)
        #expect(result.stdout.contains("• AuthInterceptor log (no access token: Authorization not attached)"))
        #expect(servers.graphQLExchanges.last?.header("Authorization") == nil)
        #expect(Self.lines(result.stdout).suffix(3).first == "#1 HeroQuery: failure after 1 attempt — TokenRefreshError: the access token was rejected and there is no refresh token to renew it")
    }

    @Test func aNonJSONAnswerIsShownAsText() async throws {
        let servers = try PlainServers()
        let operation = try Self.file("text.graphql", "query Text { words }")
        let result = try await Self.chainlab(["trace", "basics", "--endpoint", servers.graphQLURL, "--token", "valid-token", "--operation", operation, "--format", "json"])
        // Not a GraphQL answer: the operation fails.
        #expect(result.status == 1)
        #expect(result.stdout.contains(#""status":200,"error":null,"body":"plain words, not JSON","bodyBytes":21"#))
    }

    @Test func naiveRefreshAgainstARealTokenEndpointStormsAndReusesTheRotatedToken() async throws {
        let servers = try PlainServers()
        let result = try await Self.chainlab([
            "trace", "refresh-storm", "--endpoint", servers.graphQLURL, "--token", "expired-token",
            "--oauth-token-url", servers.tokenURL, "--client-id", "app", "--client-secret-env", "SECRET", "--refresh-token-env", "REFRESH",
        ], environment: ["SECRET": "s3cret", "REFRESH": "refresh-0"])
        #expect(result.status == 1)
        let grants = servers.grants
        #expect(grants.count == 5)
        #expect(grants.map { $0.form["refresh_token"] } == Array(repeating: "refresh-0", count: 5))
        #expect(grants.allSatisfy { $0.header("Authorization") == "Basic " + Data("app:s3cret".utf8).base64EncodedString() })
        let summary = Self.lines(result.stdout).suffix(7)
        #expect(Array(summary) == [
            "#1 HeroQuery: success after 2 attempts, results from server",
            "#2 HeroQuery: failure after 1 attempt — TokenEndpointError: token endpoint refused the refresh: HTTP 400 invalid_grant (refresh token unknown or already used)",
            "#3 HeroQuery: failure after 1 attempt — TokenEndpointError: token endpoint refused the refresh: HTTP 400 invalid_grant (refresh token unknown or already used)",
            "#4 HeroQuery: failure after 1 attempt — TokenEndpointError: token endpoint refused the refresh: HTTP 400 invalid_grant (refresh token unknown or already used)",
            "#5 HeroQuery: failure after 1 attempt — TokenEndpointError: token endpoint refused the refresh: HTTP 400 invalid_grant (refresh token unknown or already used)",
            "backend: not a ChainLab lab (no counters)", "",
        ])
        #expect(!result.stdout.contains("s3cret") && !result.stdout.contains("refresh-0"))
    }

    @Test func singleFlightRefreshesOnceAndTheRotatedRefreshTokenIsUsedNext() async throws {
        let servers = try PlainServers()
        let arguments = [
            "trace", "refresh-storm-fixed", "--endpoint", servers.graphQLURL, "--token", "expired-token", "--oauth-token-url", servers.tokenURL,
            "--client-id", "app", "--client-secret-env", "SECRET", "--client-auth", "body", "--refresh-token-env", "REFRESH", "--format", "json",
        ]
        let result = try await Self.chainlab(arguments, environment: ["SECRET": "s3cret", "REFRESH": "refresh-0"])
        #expect(result.status == 0)
        #expect(servers.grants.count == 1)
        #expect(servers.grants[0].form == ["grant_type": "refresh_token", "refresh_token": "refresh-0", "client_id": "app", "client_secret": "s3cret"])
        #expect(servers.grants[0].header("Authorization") == nil)
        #expect(result.stdout.components(separatedBy: #""outcome":"success""#).count - 1 == 5)
        #expect(!result.stdout.contains("s3cret"))
    }

    @Test func clientCredentialsWhenThereIsNoRefreshToken() async throws {
        let servers = try PlainServers()
        let result = try await Self.chainlab(
            ["trace", "basics", "--endpoint", servers.graphQLURL, "--oauth-token-url", servers.tokenURL, "--client-id", "app", "--client-secret-env", "SECRET"],
            environment: ["SECRET": "s3cret"])
        #expect(result.status == 0)
        #expect(servers.grants.map(\.form) == [["grant_type": "client_credentials"]])
        #expect(servers.graphQLExchanges.last?.header("Authorization") == "Bearer access-1")
        #expect(result.stdout.contains("TokenManager refresh 200 (client_credentials grant)"))
        #expect(Self.lines(result.stdout).suffix(3).first == "#1 HeroQuery: success after 2 attempts, results from server")
    }

    @Test func aTokenEndpointErrorIsShownWithItsDescription() async throws {
        let servers = try PlainServers()
        let result = try await Self.chainlab(
            ["trace", "token-expiry", "--endpoint", servers.graphQLURL, "--token", "old", "--oauth-token-url", servers.tokenURL,
             "--client-id", "app", "--client-secret-env", "SECRET", "--refresh-token-env", "REFRESH"],
            environment: ["SECRET": "wrong", "REFRESH": "refresh-0"])
        #expect(result.stdout.contains("TokenManager refresh 401 invalid_client (refresh_token grant, refresh token 1, the one you gave)"))
        #expect(result.stdout.contains("#1 HeroQuery: failure after 1 attempt — TokenEndpointError: token endpoint refused the refresh: HTTP 401 invalid_client (unknown client or wrong secret)"))
    }

    @Test func aBodyOverMaxBodyStopsTheReadSaysHowLargeAndTheTimelineIsStillWritten() async throws {
        let servers = try PlainServers()
        let operation = try Self.file("big.graphql", "query Big { blob }")
        let output = Self.folder.appendingPathComponent("big.json").path
        let result = try await Self.chainlab([
            "trace", "basics", "--endpoint", servers.graphQLURL, "--token", "valid-token", "--operation", operation, "--max-body", "65536",
            "--format", "json", "--output", output,
        ])
        #expect(result.status == 1)
        let announced = (3 << 20) + #"{"data":{"blob":""}}"#.utf8.count
        #expect(result.stderr == "chainlab: the answer from \(servers.graphQLURL) announces \(announced) bytes (Content-Length), more than the 65536 bytes allowed (--max-body); it was not read\n")
        let written = try String(contentsOfFile: output, encoding: .utf8)
        #expect(written.contains(#""name":"transport","kind":"transport","phase":"send""#))
        #expect(written.contains(#""outcome":"failure""#))
    }

    @Test("bodies over the 4 KiB preview are whole in HAR, JSON and curl exports, with their secrets masked")
    func largeBodiesAreWholeInExports() async throws {
        let servers = try PlainServers()
        let operation = try Self.file("big-and-me.graphql", "query Big { blob }\nquery Me($id: ID!, $password: String!, $pad: String!) { me(id: $id) { id } }")
        let pad = String(repeating: "p", count: 6_000)
        let variables = #"{"id":"7","password":"hunter2-secret","pad":"\#(pad)"}"#
        func trace(_ name: String, _ format: String) async throws -> String {
            let result = try await Self.chainlab([
                "trace", "basics", "--endpoint", servers.graphQLURL, "--token", "valid-token", "--operation", operation,
                "--operation-name", name, "--variables", variables, "--max-body", "\(4 << 20)", "--format", format,
            ])
            #expect(result.status == 0, "\(result.stderr)")
            return result.stdout
        }
        let blob = #"{"data":{"blob":""# + String(repeating: "x", count: 3 << 20) + #""}}"#

        let har = try JSONValue(parsing: try await trace("Big", "har"))
        let response = try #require(har["log"]?["entries"]?[0]?["response"])
        #expect(response["content"]?["text"]?.stringValue == blob)
        #expect(response["content"]?["size"]?.numberValue == Double(blob.utf8.count))
        #expect(response["content"]?["_truncated"] == false)

        let json = try await trace("Me", "json")
        let events = try #require(try JSONValue(parsing: json)["events"]?.arrayValue)
        let send = try #require(events.first { $0["phase"]?.stringValue == "send" })
        let sentBody = try #require(send["body"]?.stringValue)
        #expect(sentBody.utf8.count > 6_000)
        #expect(try JSONValue(parsing: sentBody)["variables"]?["pad"]?.stringValue == pad)
        #expect(try JSONValue(parsing: sentBody)["variables"]?["password"]?.stringValue == "••••cret")
        #expect(send["bodyTruncated"] == false)
        #expect(!json.contains("hunter2-secret"))

        let curl = try await trace("Me", "curl")
        #expect(curl.contains(pad))
        #expect(!curl.contains("# body cut"))
        #expect(!curl.contains("hunter2-secret"))
        #expect(curl.contains("••••cret"))
    }

    @Test func networkFailuresAreOneLineNamingTheURLAndExitOne() async throws {
        // A port that was just listened on and closed: nothing answers there.
        let closed = HTTPServer { _ in .text("") }
        let port = try closed.start()
        closed.stop()
        // Every message names the URL given (its password masked), not a probe's.
        let refused = try await Self.chainlab(["trace", "basics", "--endpoint", "http://user:hunter2@127.0.0.1:\(port)/graphql"])
        #expect(refused.status == 1)
        #expect(refused.stderr == "chainlab: cannot connect to http://127.0.0.1:\(port)/graphql: connection refused (is the server running?)\n")
        #expect(refused.stdout.contains("#1 HeroQuery: failure after 1 attempt"))
        // With --lab the question comes first, and fails before the run.
        let refusedLab = try await Self.chainlab(["trace", "basics", "--endpoint", "http://127.0.0.1:\(port)/graphql", "--lab"])
        #expect(refusedLab.status == 1)
        #expect(refusedLab.stderr == "chainlab: cannot connect to http://127.0.0.1:\(port)/graphql: connection refused (is the server running?)\n")
        #expect(refusedLab.stdout == "")

        let dns = try await Self.chainlab(["trace", "basics", "--endpoint", "http://no-such-host.invalid/graphql"])
        #expect(dns.status == 1)
        #expect(dns.stderr == "chainlab: cannot reach http://no-such-host.invalid/graphql: the host name no-such-host.invalid does not resolve (DNS)\n")

        let servers = try PlainServers()
        let tls = try await Self.chainlab(["trace", "basics", "--endpoint", "https://127.0.0.1:\(servers.graphQLPort)/graphql"])
        #expect(tls.status == 1)
        #expect(tls.stderr.hasPrefix("chainlab: TLS failure with https://127.0.0.1:\(servers.graphQLPort)/graphql: "))
        #expect(Self.lines(tls.stderr).count == 2)

        let slow = try Self.file("slow.graphql", "query Slow { later }")
        let timeout = try await Self.chainlab(["trace", "basics", "--endpoint", servers.graphQLURL, "--token", "valid-token", "--operation", slow, "--timeout", "1"])
        #expect(timeout.status == 1)
        #expect(timeout.stderr == "chainlab: no answer from \(servers.graphQLURL) within 1 s (--timeout)\n")
        #expect(timeout.stdout.contains("#1 Slow: failure after 1 attempt — RemoteFailure: no answer from \(servers.graphQLURL) within 1 s (--timeout)"))

        let ipv6 = try await Self.chainlab(["trace", "basics", "--endpoint", "http://[::1]:\(port)/graphql"])
        #expect(ipv6.status == 1)
        #expect(ipv6.stderr == "chainlab: cannot connect to http://[::1]:\(port)/graphql: connection refused (is the server running?)\n")
    }

    @Test func anIPv6LiteralEndpointAndTokenEndpointWork() async throws {
        let servers = try PlainServers(host: "::1")
        let result = try await Self.chainlab(
            ["trace", "token-expiry", "--endpoint", servers.graphQLURL, "--token", "old", "--oauth-token-url", servers.tokenURL,
             "--client-id", "app", "--client-secret-env", "SECRET", "--refresh-token-env", "REFRESH"],
            environment: ["SECRET": "s3cret", "REFRESH": "refresh-0"])
        #expect(result.stderr == "")
        #expect(Self.lines(result.stdout).suffix(3) == ["#1 HeroQuery: success after 2 attempts, results from server", "backend: not a ChainLab lab (no counters)", ""])
        #expect(servers.graphQLExchanges.map { "\($0.method) \($0.target) \($0.header("Host") ?? "")" } == [
            "POST /graphql [::1]:\(servers.graphQLPort)", "POST /graphql [::1]:\(servers.graphQLPort)",
        ])
        #expect(servers.grants.map { $0.form["grant_type"] } == ["refresh_token"])
    }

    @Test func usageMistakesExitTwoSayingWhatAndWhere() async throws {
        let servers = try PlainServers()
        let url = servers.graphQLURL
        let twoOperations = try Self.file("two.graphql", Self.operations)
        let broken = try Self.file("broken.graphql", "query A {\n  me { id }\n")
        let cases: [([String], String)] = [
            (["--endpoint", "ftp://x"], "--endpoint needs an http:// or https:// URL such as http://127.0.0.1:4000/graphql, got 'ftp://x'"),
            (["--endpoint", url, "--operation", twoOperations], "\(twoOperations): the document has 2 operations (query Me, mutation Rename); pick one with --operation-name"),
            (["--endpoint", url, "--operation", twoOperations, "--operation-name", "Nope"], "\(twoOperations): the document has no operation named 'Nope'; it has: query Me, mutation Rename"),
            (["--endpoint", url, "--operation", broken], "\(broken): line 3, column 1: '{' opened at line 1, column 9 is never closed"),
            (["--endpoint", url, "--operation", twoOperations, "--operation-name", "Me", "--variables", "[1]"], #"--variables: expected a JSON object such as {"id": "2001"}, got [1]"#),
            (["--endpoint", url, "--operation", twoOperations, "--operation-name", "Me", "--variables", "{"], "--variables: not JSON: "),
            (["--endpoint", url, "--header", "NoColon"], "--header needs 'Name: value'; the argument has no ':'"),
            (["--endpoint", url, "--operation", twoOperations, "--operation-name", "Me", "--variables", #"{"a": 1, "a": 2}"#], #"--variables: not JSON: not valid JSON at line 1, column 10: duplicate key "a" at a"#),
            (["--endpoint", url, "--header", "Content-Length: 5"], "--header 'Content-Length: …': the client sets Content-Length, Transfer-Encoding, Host, Connection, Upgrade, TE, Trailer, Keep-Alive from the request it sends (the body's length and framing, the URL's host and the connection); a value given here would contradict them\n"),
            (["--endpoint", url, "--header", "transfer-encoding: chunked"], "--header 'transfer-encoding: …': the client sets Content-Length, Transfer-Encoding, Host, Connection, Upgrade, TE, Trailer, Keep-Alive from the request it sends (the body's length and framing, the URL's host and the connection); a value given here would contradict them\n"),
            (["--endpoint", url, "--header", "HOST:evil.example"], "--header 'HOST: …': the client sets Content-Length, Transfer-Encoding, Host, Connection, Upgrade, TE, Trailer, Keep-Alive from the request it sends (the body's length and framing, the URL's host and the connection); a value given here would contradict them\n"),
            (["--token", "t"], "--token needs --endpoint URL (a real server)"),
            (["--endpoint", url, "--client-id", "app"], "--client-id needs --oauth-token-url URL (the token endpoint)"),
            (["--endpoint", url, "--token-env", "CHAINLAB_SURELY_UNSET"], "--token-env CHAINLAB_SURELY_UNSET: the environment variable is not set or empty"),
            (["--endpoint", url, "--max-body", "0"], "--max-body needs a number of bytes from 1 to 1073741824, got '0'"),
            (["--endpoint", url, "--timeout", "-1"], "--timeout needs seconds above 0 and at most 3600, got '-1'"),
            (["--endpoint", url, "--client-auth", "digest", "--oauth-token-url", url], "--client-auth is basic or body, got 'digest'"),
        ]
        for (arguments, message) in cases {
            let result = try await Self.chainlab(["trace", "basics"] + arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr.hasPrefix("chainlab: " + message), "\(arguments): \(result.stderr)")
        }
        #expect(servers.graphQLExchanges.filter { $0.method == "POST" }.isEmpty)
    }

    @Test func restOperationsGoUnderTheEndpointWithMethodPathAndBody() async throws {
        let servers = try PlainServers()
        let scenario = try Self.file("rest.json", """
            {"name": "my-rest", "chain": [{"middleware": "AuthenticationMiddleware"}, {"middleware": "LoggingMiddleware"}],
             "operations": [{"name": "createNote", "method": "POST", "path": "/notes", "body": {"text": "hi"}}]}
            """)
        let result = try await Self.chainlab(["trace", "--scenario-file", scenario, "--endpoint", "http://127.0.0.1:\(servers.graphQLPort)/api", "--token", "valid-token"])
        #expect(result.status == 0)
        let sent = try #require(servers.graphQLExchanges.last)
        #expect(sent.method == "POST")
        #expect(sent.target == "/api/notes")
        #expect(sent.json == ["text": "hi"])
        #expect(sent.header("Content-Type") == "application/json")
        #expect(sent.header("Authorization") == "Bearer valid-token")
        #expect(Self.lines(result.stdout).suffix(3) == ["#1 createNote: success after 1 attempt, results from server 201", "backend: not a ChainLab lab (no counters)", ""])
    }

    @Test func helpListsEveryNewOption() async throws {
        let help = try await Self.chainlab(["trace", "--help"])
        for option in ["--endpoint", "--operation", "--operation-name", "--variables", "--header", "--token", "--token-env", "--oauth-token-url",
                       "--client-id", "--client-secret-env", "--client-auth", "--refresh-token-env", "--max-body", "--timeout", "--no-traceparent", "--cacert", "--insecure"] {
            #expect(help.stdout.contains(option), "\(option)")
        }
    }
}

/// A running `chainlab serve --upstream URL --port 0`, the port it announced and, once
/// stopped, everything it printed.
private final class ProxyProcess: Sendable {
    let process: Process
    let port: UInt16
    private let output: Pipe

    init(upstream: String) async throws {
        let (process, output, port, line) = try await launchServe(
            ["serve", "--upstream", upstream, "--port", "0"], announcing: "chainlab serve: proxying http://127.0.0.1:")
        self.process = process
        self.output = output
        #expect(line == "chainlab serve: proxying http://127.0.0.1:\(port) to \(upstream) (control at /_lab/: fail-next, unauthorized-next, latency, state, har; memory bound 8368 MiB)\n")
        self.port = port
    }

    var base: String { "http://127.0.0.1:\(port)" }

    /// Sends `signal`; returns the exit status and the exchange lines printed after the first.
    func stop(signal: Int32 = SIGTERM) async throws -> (status: Int32, lines: [String]) {
        kill(process.processIdentifier, signal)
        return await onOwnThread { [process, output] in
            let rest = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: rest, as: UTF8.self).split(separator: "\n").map(String.init))
        }
    }

    /// One request to the proxy: status, headers and body.
    func send(_ method: String, _ target: String, headers: [String: String] = [:], body: String? = nil) async throws -> (status: Int, headers: [String: String], body: String) {
        var request = URLRequest(url: URL(string: base + target)!)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let body { request.httpBody = Data(body.utf8) }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields { fields["\(name)".lowercased()] = "\(value)" }
        return (http.statusCode, fields, String(decoding: data, as: UTF8.self))
    }
}

@Suite("chainlab serve --upstream: a fault-injecting proxy, as a built binary", .serialized, .timeLimit(.minutes(2)))
struct UpstreamProxyCommandTests {
    static let me = #"{"operationName":"Me","query":"query Me { me { id } }"}"#

    @Test func forwardsMethodTargetHeadersAndBodyAndAnswersAsTheUpstreamDid() async throws {
        let servers = try PlainServers()
        let proxy = try await ProxyProcess(upstream: "http://127.0.0.1:\(servers.graphQLPort)")
        let answer = try await proxy.send("POST", "/graphql?trace=1", headers: [
            "Authorization": "Bearer valid-token", "Content-Type": "application/json", "X-Custom": "kept", "Proxy-Authorization": "Basic dropme",
            "Connection": "keep-alive, X-Hop", "X-Hop": "dropped",
        ], body: Self.me)
        #expect(answer.status == 200)
        #expect(answer.body == #"{"data":{"me":{"id":"1","name":"Ada"}}}"#)
        #expect(answer.headers["content-type"] == "application/json")
        let seen = try #require(servers.graphQLExchanges.last)
        #expect(seen.method == "POST")
        #expect(seen.target == "/graphql?trace=1")
        #expect(String(decoding: seen.body, as: UTF8.self) == Self.me)
        #expect(seen.header("Host") == "127.0.0.1:\(servers.graphQLPort)")
        #expect(seen.header("X-Custom") == "kept")
        #expect(seen.header("Authorization") == "Bearer valid-token")
        #expect(seen.header("Proxy-Authorization") == nil)
        #expect(seen.header("X-Hop") == nil)

        let missing = try await proxy.send("GET", "/elsewhere")
        #expect(missing.status == 404)
        let stopped = try await proxy.stop()
        #expect(stopped.status == 0)
        #expect(stopped.lines.count == 2)
        #expect(stopped.lines[0].hasSuffix(" POST /graphql Me 200 \(stopped.lines[0].split(separator: " ")[5])"))
        #expect(stopped.lines[0].split(separator: " ").count == 6)
        #expect(stopped.lines[1].split(separator: " ").dropFirst().prefix(4) == ["GET", "/elsewhere", "-", "404"])
    }

    @Test func unauthorizedNextAndFailNextAnswerMatchingRequestsWithoutForwarding() async throws {
        let servers = try PlainServers()
        let proxy = try await ProxyProcess(upstream: "http://127.0.0.1:\(servers.graphQLPort)")
        let auth = ["Authorization": "Bearer valid-token", "Content-Type": "application/json"]
        #expect(try await proxy.send("POST", "/_lab/unauthorized-next", body: #"{"count": 1, "match": {"operationName": "Me"}}"#).body == "{\"queued\":1}\n")
        let other = try await proxy.send("POST", "/graphql", headers: auth, body: #"{"operationName":"Other","query":"query Other { x }"}"#)
        #expect(other.status == 200)
        let injected = try await proxy.send("POST", "/graphql", headers: auth, body: Self.me)
        #expect(injected.status == 401)
        #expect(injected.body == #"{"errors":[{"extensions":{"code":"UNAUTHENTICATED"},"message":"Unauthorized (injected by chainlab serve)"}]}"# + "\n")
        #expect(try await proxy.send("POST", "/_lab/unauthorized-next", body: #"{"mode": "graphQLError200"}"#).status == 200)
        let in200 = try await proxy.send("POST", "/graphql", headers: auth, body: Self.me)
        #expect(in200.status == 200)
        #expect(in200.body == #"{"data":null,"errors":[{"extensions":{"code":"UNAUTHENTICATED"},"message":"Unauthenticated (injected by chainlab serve)"}]}"# + "\n")
        #expect(try await proxy.send("POST", "/_lab/fail-next", body: #"{"count": 2, "status": 500, "match": {"path": "/graphql"}}"#).status == 200)
        #expect(try await proxy.send("GET", "/api/x", headers: auth).status == 200)
        #expect(try await proxy.send("POST", "/graphql", headers: auth, body: Self.me).status == 500)
        #expect(try await proxy.send("POST", "/graphql", headers: auth, body: Self.me).status == 500)
        #expect(try await proxy.send("POST", "/graphql", headers: auth, body: Self.me).status == 200)
        // Four answers were the proxy's own: the upstream saw the other three.
        #expect(servers.graphQLExchanges.map(\.target) == ["/graphql", "/api/x", "/graphql"])
        #expect(try await proxy.send("POST", "/_lab/latency", body: #"{"seconds": 0.2, "match": {"path": "/api/x"}}"#).status == 200)
        #expect(try await proxy.send("GET", "/_lab/state").body.contains(#""latency":{"match":"path /api/x","seconds":0.2}"#))
        let bad = try await proxy.send("POST", "/_lab/fail-next", body: #"{"status": 200}"#)
        #expect(bad.status == 400)
        #expect(bad.body == #"{"error":"bad control","message":"status must be a whole number from 400 to 599 (429, 500, 503…)"}"# + "\n")

        let har = try await proxy.send("GET", "/_lab/har")
        let entries = try #require(try JSONValue(parsing: Data(har.body.utf8))["log"]?["entries"]?.arrayValue)
        #expect(entries.count == 7)
        #expect(!har.body.contains("valid-token"))
        #expect(har.body.contains(#"{"name":"Authorization","value":"Bearer ••••oken"}"#))
        let lines = try await proxy.stop().lines
        #expect(lines.filter { $0.hasSuffix(" injected") }.count == 4)
        #expect(lines.filter { $0.contains(" POST /graphql Me 401 ") && $0.hasSuffix(" injected") }.count == 1)
    }

    @Test func anUpstreamThatIsDownGets502WithAReasonAndTheProxyKeepsServing() async throws {
        let closed = HTTPServer { _ in .text("") }
        let port = try closed.start()
        closed.stop()
        let proxy = try await ProxyProcess(upstream: "http://127.0.0.1:\(port)")
        for _ in 0..<2 {
            let answer = try await proxy.send("GET", "/graphql")
            #expect(answer.status == 502)
            #expect(answer.body == #"{"error":"bad gateway","message":"cannot connect to http://127.0.0.1:\#(port)/graphql: connection refused (is the server running?)"}"# + "\n")
        }
        #expect(try await proxy.send("GET", "/_lab/state").status == 200)
        #expect(try await proxy.stop().status == 0)
    }

    /// The upstream sends the second part only after the app has read the first, so this
    /// test ends only if the proxy passed the first part on while the upstream was still
    /// answering.
    @Test func aPartReachesTheAppBeforeTheUpstreamHasFinishedAnswering() async throws {
        let (gate, open) = AsyncStream.makeStream(of: Void.self)
        let first = "\r\n--graphql\r\ncontent-type: application/json\r\n\r\n{\"data\":{\"me\":{\"id\":\"1\"}},\"hasNext\":true}\r\n--graphql"
        let second = "\r\ncontent-type: application/json\r\n\r\n{\"hasNext\":false,\"incremental\":[{\"data\":{\"name\":\"Ada\"},\"label\":\"n\",\"path\":[\"me\"]}]}\r\n--graphql--\r\n"
        let upstream = HTTPServer { _ in
            HTTPServerResponse(
                status: 200, headers: [HTTPServerHeader(name: "Content-Type", value: "multipart/mixed;boundary=\"graphql\";deferSpec=20220824")],
                stream: HTTPServerBodyStream { writer in
                    try writer.write(Data(first.utf8))
                    for await _ in gate { break }
                    try writer.write(Data(second.utf8))
                })
        }
        let port = try upstream.start()
        defer { upstream.stop() }
        let proxy = try await ProxyProcess(upstream: "http://127.0.0.1:\(port)")
        let reader = URLSessionChunkReader()
        var request = URLRequest(url: URL(string: proxy.base + "/graphql")!)
        request.httpMethod = "POST"
        request.httpBody = Data(Self.me.utf8)
        let (head, chunks) = try await reader.start(request)
        var received = ""
        for try await piece in chunks {
            received += String(decoding: piece, as: UTF8.self)
            if received == first { open.yield() }
        }
        #expect(head.statusCode == 200)
        #expect(head.value(forHTTPHeaderField: "Content-Type") == "multipart/mixed;boundary=\"graphql\";deferSpec=20220824")
        #expect(received == first + second)
        let har = try await proxy.send("GET", "/_lab/har")
        #expect(har.body.contains(#""text":"\r\n--graphql\r\ncontent-type: application/json"#))
        let stopped = try await proxy.stop()
        #expect(stopped.lines.count == 1)
        #expect(stopped.lines[0].split(separator: " ").dropFirst().prefix(4) == ["POST", "/graphql", "Me", "200"])
    }

    /// Eight clients hold endless answers without reading them, so every connection thread
    /// of the proxy is blocked writing; the signal still ends it.
    @Test(arguments: [SIGTERM, SIGINT])
    func aSignalEndsTheProxyWhileEightClientsHoldEndlessAnswers(signal: Int32) async throws {
        let upstream = HTTPServer { _ in
            HTTPServerResponse(status: 200, stream: HTTPServerBodyStream { writer in
                let piece = Data(repeating: 0x61, count: 64 << 10)
                while true { try writer.write(piece) }
            })
        }
        let port = try upstream.start()
        defer { upstream.stop() }
        let proxy = try await ProxyProcess(upstream: "http://127.0.0.1:\(port)")
        let proxyPort = proxy.port
        let (clients, heads) = try await onOwnThread { () throws(HTTPClientError) -> ([HTTPClientConnection], [Int]) in
            var clients: [HTTPClientConnection] = []
            for _ in 0..<8 {
                let client = try HTTPClientConnection.connect(host: "127.0.0.1", port: proxyPort, timeout: .seconds(30))
                try client.send(head: Array("GET /stream HTTP/1.1\r\nHost: a\r\n\r\n".utf8), body: Data())
                clients.append(client)
            }
            var heads: [Int] = []
            for client in clients { heads.append(try client.readHead(method: "GET").status) }
            return (clients, heads)
        }
        #expect(heads == Array(repeating: 200, count: 8))
        let stopped = try await proxy.stop(signal: signal)
        #expect(stopped.status == 0)
        withExtendedLifetime(clients) {}
    }

    @Test func labOnlyOptionsAndBadURLsAreRefused() async throws {
        let labOnly = try await OwnAPICommandTests.chainlab(["serve", "--upstream", "http://127.0.0.1:1", "--token-ttl", "5"])
        #expect(labOnly.status == 2)
        #expect(labOnly.stderr == "chainlab: --token-ttl configures the lab backend, which --upstream replaces; use POST /_lab/latency, /_lab/fail-next or /_lab/unauthorized-next on the proxy\n")
        let badURL = try await OwnAPICommandTests.chainlab(["serve", "--upstream", "localhost:4000"])
        #expect(badURL.status == 2)
        #expect(badURL.stderr == "chainlab: --upstream needs an http:// or https:// URL such as http://127.0.0.1:4000/graphql, got 'localhost:4000'\n")
        let help = try await OwnAPICommandTests.chainlab(["serve", "--help"])
        #expect(help.stdout.contains("--upstream URL"))
        #expect(help.stdout.contains("POST /_lab/unauthorized-next"))
    }

    @Test func anAppsRefreshBrokenByHandThroughTheProxy() async throws {
        let servers = try PlainServers()
        let proxy = try await ProxyProcess(upstream: "http://127.0.0.1:\(servers.graphQLPort)")
        _ = try await proxy.send("POST", "/_lab/unauthorized-next", body: #"{"match": {"operationName": "HeroQuery"}}"#)
        let result = try await OwnAPICommandTests.chainlab(
            ["trace", "basics", "--endpoint", proxy.base + "/graphql", "--token", "valid-token", "--oauth-token-url", servers.tokenURL,
             "--client-id", "app", "--client-secret-env", "SECRET", "--refresh-token-env", "REFRESH"],
            environment: ["SECRET": "s3cret", "REFRESH": "refresh-0"])
        #expect(result.status == 0)
        #expect(OwnAPICommandTests.lines(result.stdout).suffix(3) == ["#1 HeroQuery: success after 2 attempts, results from server", "backend: not a ChainLab lab (no counters)", ""])
        #expect(servers.grants.map { $0.form["grant_type"] } == ["refresh_token"])
        #expect(servers.graphQLExchanges.last?.header("Authorization") == "Bearer access-1")
        _ = try await proxy.stop()
    }
}

/// In the tmux suite, which runs one terminal at a time.
extension InspectorEndToEndTests {
    @Test("on a plain server T says there are no lab controls, and operations still run")
    func tSaysThereAreNoLabControlsAndOperationsStillRun() async throws {
        let servers = try PlainServers()
        let binary = try builtChainlab().path
        let session = try TmuxSession("env SWIFT_BACKTRACE=interactive=no \(binary) basics --endpoint \(servers.graphQLURL) --token valid-token --no-step")
        try await session.waitFor("Requests")
        try session.send("T")
        try await session.waitFor("this server has no lab controls: tokens cannot be expired from here")
        try session.send("n")
        try await session.waitFor("✓ #1 HeroQuery 200")
        #expect(try session.screen().contains("backend: not a ChainLab lab"))
        #expect(servers.graphQLExchanges.map { "\($0.method) \($0.target)" } == ["POST /graphql"])
    }
}
