#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import Testing

/// A development server over HTTPS, as people run one: Python's `http.server` behind `ssl`,
/// with a certificate for `localhost` and `127.0.0.1` that a CA made for the test signed
/// (`/usr/bin/openssl`). It answers every POST with a hero and every GET with `{"ok":true}`.
private final class DevelopmentHTTPSServer: Sendable {
    let server: HTTPSTestServer

    var caFile: String { server.caFile }
    var port: UInt16 { server.port }
    var graphQLURL: String { "https://localhost:\(server.port)/graphql" }

    static let handler = #"""
        class Handler(http.server.BaseHTTPRequestHandler):
            def answer(self, body):
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length", "0")))
                self.answer(b'{"data":{"hero":{"__typename":"Droid","id":"2001","name":"R2-D2"}}}')
            def do_GET(self):
                self.answer(b'{"ok":true}')
            def log_message(self, *arguments):
                pass
        """#

    init() async throws {
        server = try await HTTPSTestServer(handler: Self.handler)
    }
}

/// `--cacert`, `--insecure` and `SSL_CERT_FILE` against a real HTTPS server, through the
/// built binary.
@Suite("HTTPS to a development server: --cacert, --insecure, SSL_CERT_FILE", .serialized, .timeLimit(.minutes(3)))
struct TLSCommandTests {
    static func chainlab(_ arguments: [String], environment: [String: String] = [:]) async throws -> (status: Int32, stdout: String, stderr: String) {
        let executable = try builtChainlab().path
        var merged = ProcessInfo.processInfo.environment
        merged["SSL_CERT_FILE"] = nil
        merged.merge(environment) { $1 }
        return try await onOwnThread { [merged] in try runProcess(executable, arguments, environment: merged) }
    }

    static let success = "#1 HeroQuery: success after 1 attempt, results from server"

    @Test("without a flag the certificate is refused, with a message that says so and what to do")
    func anUnknownCAIsRefused() async throws {
        let server = try await DevelopmentHTTPSServer()
        let result = try await Self.chainlab(["trace", "basics", "--endpoint", server.graphQLURL, "--token", "t"])
        #expect(result.status == 1)
        #expect(result.stderr == """
            chainlab: TLS failure with \(server.graphQLURL): SSL certificate problem: unable to get local issuer certificate \
            (a development server's CA: --cacert FILE; no check: --insecure)

            """)
    }

    @Test("--cacert trusts the server's CA, and so does SSL_CERT_FILE; neither is marked")
    func theCAFromAFileIsTrusted() async throws {
        let server = try await DevelopmentHTTPSServer()
        let flagged = try await Self.chainlab(["trace", "basics", "--endpoint", server.graphQLURL, "--token", "t", "--cacert", server.caFile])
        #expect(flagged.status == 0)
        #expect(flagged.stderr == "")
        #expect(flagged.stdout.contains(Self.success))
        #expect(!flagged.stdout.contains("TLS not verified"))
        let environment = try await Self.chainlab(["trace", "basics", "--endpoint", server.graphQLURL, "--token", "t"], environment: ["SSL_CERT_FILE": server.caFile])
        #expect(environment.status == 0)
        #expect(environment.stdout.contains(Self.success))
    }

    @Test("--insecure reaches the server and every output says so: text, JSON, HAR and OTLP")
    func insecureIsMarkedEverywhere() async throws {
        let server = try await DevelopmentHTTPSServer()
        let arguments = ["trace", "basics", "--endpoint", server.graphQLURL, "--token", "t", "--insecure"]
        let text = try await Self.chainlab(arguments)
        #expect(text.status == 0)
        #expect(text.stdout.split(separator: "\n").prefix(2) == ["scenario basics", "⚠ TLS not verified (--insecure): https:// certificates were not checked"])
        #expect(text.stdout.contains(Self.success))
        let json = try await Self.chainlab(arguments + ["--format", "json"])
        #expect(json.stdout.hasPrefix(#"{"scenario":"basics","tlsVerified":false,"requests":["#))
        let har = try await Self.chainlab(arguments + ["--format", "har"])
        #expect(har.stdout.contains(#""comment":"TLS certificates were not verified (--insecure): any server could have answered""#))
        let otlp = try await Self.chainlab(arguments + ["--format", "otlp"])
        #expect(otlp.stdout.contains(#"{"key":"chainlab.tls.insecure","value":{"boolValue":true}}"#))
    }

    @Test("serve --upstream https:// with --insecure forwards, and its HAR says so")
    func theProxyReachesAnHTTPSUpstream() async throws {
        let server = try await DevelopmentHTTPSServer()
        let (proxy, _, port, _) = try await launchServe(
            ["serve", "--upstream", "https://localhost:\(server.port)", "--port", "0", "--insecure"], announcing: "chainlab serve: proxying http://127.0.0.1:")
        defer { proxy.terminate() }
        let (body, response) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/status")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: body, as: UTF8.self) == #"{"ok":true}"#)
        let (har, _) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/_lab/har")!)
        #expect(String(decoding: har, as: UTF8.self).contains(#""comment":"TLS certificates were not verified (--insecure)"#))
    }

    @Test("a certificate file that cannot be read or holds no PEM certificate is a usage mistake naming it", arguments: [
        (["--cacert", "/nonexistent/ca.pem"], "chainlab: cannot read --cacert file /nonexistent/ca.pem: "),
        (["--cacert", "/etc/hostname"], "chainlab: --cacert /etc/hostname: no PEM certificate in it (expected -----BEGIN CERTIFICATE-----)\n"),
        (["--cacert", "/etc/hostname", "--insecure"], "chainlab: give --cacert or --insecure, not both\n"),
    ])
    func badCertificateFilesAreRefused(options: [String], message: String) async throws {
        let result = try await Self.chainlab(["trace", "basics", "--endpoint", "https://localhost:9/graphql"] + options)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix(message))
        #expect(result.stdout == "")
        let environment = try await Self.chainlab(["trace", "basics"], environment: ["SSL_CERT_FILE": "/etc/hostname"])
        #expect(environment.status == 2)
        #expect(environment.stderr == "chainlab: SSL_CERT_FILE /etc/hostname: no PEM certificate in it (expected -----BEGIN CERTIFICATE-----)\n")
    }
}
