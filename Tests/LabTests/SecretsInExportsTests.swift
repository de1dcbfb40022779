import ChainKit
import Foundation
import Lab
import Testing
import Timeline
import Exports

/// Every export of a `token-expiry` run hides its credentials unless revealed. The run's
/// events carry `Authorization: Bearer at-1-1` and `Bearer at-1-2` and the token endpoint's
/// answer (`access_token` at-1-2, `refresh_token` rt-1-2) and the token manager's grant as
/// sent (`refresh_token=rt-1-1`); the same form body at the refresh stop is exported here as
/// the event a person would share from there.
@Suite("Secrets in every export")
struct SecretsInExportsTests {
    static let secrets = ["at-1-1", "rt-1-1", "at-1-2", "rt-1-2"]

    /// The headless run's events.
    static func runEvents() async throws -> [TimelineEvent] {
        let session = LabSession(scenario: try #require(Catalog.scenario(named: "token-expiry")))
        let result = await session.runHeadless()
        #expect(result.requests.map(\.outcome) == [.success])
        return result.events
    }

    /// The refresh request as it waits at the refresh stop (the form body with the refresh
    /// token), as an event.
    static func refreshRequestEvent() async throws -> TimelineEvent {
        let session = steppingSession("token-expiry")
        await session.perform(.launch(operation: 0))
        await session.step(1, until: .refresh)
        let stop = try #require(session.control.parked.first { $0.request == 1 && $0.place == .refresh })
        await session.shutDown()
        return TimelineEvent(time: 0.012, request: 1, attempt: 1, hop: TimelineEvent.noHop, name: "TokenManager", kind: .auth, phase: .refresh, snapshot: stop.snapshot)
    }

    static func leaked(_ text: String) -> [String] {
        secrets.filter { text.contains($0) }
    }

    @Test func textTraceShowsHeaderNamesAndNeverValues() async throws {
        let events = try await Self.runEvents() + [try await Self.refreshRequestEvent()]
        let masked = TextTrace.render(events, masking: .masked)

        #expect(Self.leaked(masked) == [])
        #expect(masked.contains("AuthInterceptor preflight +Authorization"))
        // The text trace prints no header value or body, so revealing changes nothing.
        #expect(TextTrace.render(events, masking: .revealed) == masked)
    }

    @Test func traceJSONMasksHeadersFormBodiesAndTokenAnswers() async throws {
        let events = try await Self.runEvents() + [try await Self.refreshRequestEvent()]
        let document = TraceDocument(scenario: "token-expiry", requests: [], events: events)
        let masked = TraceJSON.encode(document, masking: .masked)

        #expect(Self.leaked(masked) == [])
        #expect(masked.contains(#"["Authorization","Bearer ••••-1-1"]"#))
        #expect(masked.contains(#"["Authorization","Bearer ••••-1-2"]"#))
        #expect(masked.contains(#"\"access_token\":\"••••-1-2\""#))
        #expect(masked.contains(#"\"refresh_token\":\"••••-1-2\""#))
        #expect(masked.contains(#""body":"grant_type=refresh_token&refresh_token=••••-1-1""#))

        let revealed = TraceJSON.encode(document, masking: .revealed)
        #expect(Self.leaked(revealed) == Self.secrets)
        #expect(revealed.contains(#"["Authorization","Bearer at-1-1"]"#))
        #expect(revealed.contains(#""body":"grant_type=refresh_token&refresh_token=rt-1-1""#))
        #expect(!revealed.contains(SecretMasking.bullets))
    }

    @Test func harMasksTheAuthorizationOfEveryExchange() async throws {
        let events = try await Self.runEvents()
        let masked = HARExport.archive(events: events, masking: .masked, anchor: .lab(scenario: "token-expiry"))

        #expect(Self.leaked(masked) == [])
        let har = try JSONValue(parsing: Data(masked.utf8))
        let authorizations = try #require(har["log"]?["entries"]?.arrayValue).map { entry in
            entry["request"]?["headers"]?.arrayValue?.first { $0["name"]?.stringValue == "Authorization" }?["value"]?.stringValue
        }
        // The refresh entry between the two exchanges sends no Authorization.
        #expect(authorizations == ["Bearer ••••-1-1", nil, "Bearer ••••-1-2"])

        let revealed = HARExport.archive(events: events, masking: .revealed, anchor: .lab(scenario: "token-expiry"))
        #expect(Self.leaked(revealed) == Self.secrets)
        #expect(!revealed.contains(SecretMasking.bullets))
    }

    @Test func curlMasksHeadersAndFormBodies() async throws {
        let events = try await Self.runEvents()
        let sends = events.filter { $0.kind == .transport && $0.phase == .send }
        let refresh = try await Self.refreshRequestEvent()
        let commands = { (masking: SecretMasking) in
            (sends + [refresh]).compactMap { CurlExport.command(for: $0, masking: masking) }
        }

        let masked = commands(.masked)
        #expect(masked.count == 3)
        #expect(Self.leaked(masked.joined(separator: "\n")) == [])
        #expect(masked[0].contains("-H 'Authorization: Bearer ••••-1-1'"))
        #expect(masked[1].contains("-H 'Authorization: Bearer ••••-1-2'"))
        #expect(masked[2] == """
            curl 'https://lab.chainlab.local/oauth/token' \\
              -H 'Content-Type: application/x-www-form-urlencoded' \\
              --data-raw 'grant_type=refresh_token&refresh_token=••••-1-1'
            """)

        let revealed = commands(.revealed)
        #expect(Self.leaked(revealed.joined(separator: "\n")) == ["at-1-1", "rt-1-1", "at-1-2"])
        #expect(revealed[0].contains("-H 'Authorization: Bearer at-1-1'"))
        #expect(revealed[2].hasSuffix("--data-raw 'grant_type=refresh_token&refresh_token=rt-1-1'"))
    }
}
