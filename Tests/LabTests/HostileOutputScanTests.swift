import Backend
import ChainKit
import Foundation
import Lab
import Testing
import Timeline
import Exports
import Vocabulary

/// Every built-in scenario, made hostile (a hostile backend, operation names and variables
/// with terminal escapes and bidi controls, secrets in query strings under percent-encoded
/// and mixed-case names, logging layers that repeat them in details), run and exported in
/// every format: no output may carry a raw control character or an unmasked secret.
@Suite("Hostile input in every output")
struct HostileOutputScanTests {
    static let hostileName = "Op\u{1B}]0;owned\u{07}\u{1B}[2J\u{202E}\u{85}\u{7F}\r"
    static let secrets = ["SECRETaccess0001", "SECRETpass0002", "SECRETclient0003", "SECRETrefresh0004", "SECRETstatic0005"]
    static let query = "?access_token=SECRETaccess0001&pass%77ord=SECRETpass0002&Client_Secret=SECRETclient0003&REFRESH%5Ftoken=SECRETrefresh0004"

    static func hostile(_ scenario: Scenario) -> Scenario {
        var hostile = scenario
        hostile.backend.hostile = true
        switch scenario.chain {
        case .graphQL(let graphQL, let http):
            let top = [Scenario.Layer("LoggingInterceptor"), Scenario.Layer("StaticAuthInterceptor", ["authorization": "Bearer SECRETstatic0005"])]
            hostile.chain = .graphQL(graphQL: top + graphQL, http: http)
            hostile.operations = scenario.operations.map { operation in
                var operation = operation
                operation.variables = ["name": .string(hostileName + query), "id": .string(hostileName)]
                return operation
            }
        case .middleware(let layers):
            hostile.chain = .middleware([Scenario.Layer("LoggingMiddleware")] + layers)
            hostile.operations = scenario.operations.map { operation in
                var operation = operation
                operation.name = hostileName
                operation.path = (operation.path ?? "/heroes/2001") + query
                return operation
            }
        }
        return hostile
    }

    /// Every output `chainlab trace` can write for `result`, masked, by format.
    static func outputs(_ result: LabSession.RunResult, scenario: String, anchor: OTLPExport.Anchor) -> [(format: String, text: String)] {
        let text = TextTrace.render(result.events, masking: .masked)
            + result.requests.map { TextTrace.summaryLine(for: $0, masking: .masked) + "\n" }.joined()
        let sends = result.events.filter { $0.kind == .transport && $0.phase == .send }
        return [
            ("text", text),
            ("json", TraceJSON.encode(
                TraceDocument(scenario: scenario, requests: result.requests, events: result.events, backend: result.backendCounters, findings: result.findings),
                masking: .masked)),
            ("har", HARExport.archive(events: result.events, masking: .masked, anchor: anchor)),
            ("otlp", OTLPExport.document(
                requests: result.requests, events: result.events, options: OTLPExport.Options(anchor: anchor, masking: .masked))),
            ("curl", sends.compactMap { CurlExport.command(for: $0, masking: .masked) }.joined(separator: "\n")),
        ]
    }

    @Test("no raw control byte and no unmasked secret in any format", arguments: Catalog.names)
    func scan(name: String) async throws {
        let scenario = Self.hostile(try #require(Catalog.scenario(named: name)))
        let session = LabSession(scenario: scenario)
        let result = await session.runHeadless()
        await session.shutDown()
        #expect(!result.events.isEmpty)
        for (format, text) in Self.outputs(result, scenario: scenario.name, anchor: session.otlpAnchor) {
            let raw = text.unicodeScalars.filter { $0 != "\n" && VisibleEscapes.isUnsafe($0) }
            #expect(raw.isEmpty, "\(name) \(format): raw \(raw.map(VisibleEscapes.escaped))")
            for secret in Self.secrets {
                #expect(!text.contains(secret), "\(name) \(format): \(secret) in clear")
            }
        }
    }

    @Test("the logging layers really carried the hostile query, so the scan saw it masked")
    func loggedDetailsAreMasked() async throws {
        let scenario = Self.hostile(try #require(Catalog.scenario(named: "openapi-middleware")))
        let session = LabSession(scenario: scenario)
        let result = await session.runHeadless()
        await session.shutDown()
        let text = Self.outputs(result, scenario: scenario.name, anchor: session.otlpAnchor)[0].text
        #expect(text.contains("access_token=••••0001&pass%77ord=••••0002&Client_Secret=••••0003&REFRESH%5Ftoken=••••0004"))
        #expect(text.contains(#"#1 Op\e]0;owned\x07\e[2J\u{202E}\x85\x7F\r: "#))
    }
}
