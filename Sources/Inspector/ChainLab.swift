public import ChainKit
import Foundation
public import Lab
import Timeline
// Re-exported: `import Inspector` gives an app, the command line and the tests the state,
// the keys and the config, and the drawing, too.
@_exported public import InspectorModel
@_exported public import InspectorView

/// The library entry for an app's own interceptors: a lab scenario run through them.
///
/// The scenario (a built-in's name) still drives the launches, their concurrency, the lab
/// backend (token expiry, refresh rotation, reuse detection) and its script; the app's
/// provider replaces its chain. `provider` is given the lab's addresses and a `URLSession`
/// that reaches it (``AppBackend``): an app's token manager that refreshes with that session
/// shows each refresh on the timeline, with a stop before it.
///
/// ```swift
/// import ChainKit
/// import Inspector
///
/// try await ChainLab.inspect(scenario: "refresh-storm") { lab in
///     MyInterceptorProvider(tokens: MyTokenManager(tokenURL: lab.tokenURL, session: lab.urlSession,
///                                                  accessToken: lab.accessToken, refreshToken: lab.refreshToken))
/// }
/// ```
public enum ChainLab {
    /// Why a scenario could not be run.
    public struct ScenarioError: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// Runs `scenario` through the provider's interceptors without stopping and returns what
    /// `chainlab trace SCENARIO --format FORMAT` prints for it (secrets masked).
    public static func trace(
        scenario name: String, format: ExportFormat = .text, provider: (AppBackend) -> any InterceptorProvider
    ) async throws -> String {
        let scenario = try scenario(named: name)
        let session = LabSession(scenario: scenario, provider: provider)
        let result = await session.runHeadless()
        await session.shutDown()
        return result.export(format, scenario: scenario.name, anchor: session.otlpAnchor, masking: .masked)
    }

    /// Opens the inspector in this terminal on `scenario` run through the provider's
    /// interceptors, stopping before every hop unless `stepMode` is false; returns when the
    /// person quits.
    @discardableResult
    public static func inspect(
        scenario name: String, stepMode: Bool = true, colors: Bool = true, provider: (AppBackend) -> any InterceptorProvider
    ) async throws -> InspectorApp.Outcome {
        let session = LabSession(scenario: try scenario(named: name), provider: provider, defaultMode: stepMode ? .step : .run)
        let outcome: Result<InspectorApp.Outcome, any Error>
        do {
            outcome = .success(try await InspectorApp.open(session: session, colors: colors))
        } catch {
            outcome = .failure(error)
        }
        await session.shutDown()
        return try outcome.get()
    }

    private static func scenario(named name: String) throws -> Scenario {
        guard let scenario = Catalog.scenario(named: name) else {
            throw ScenarioError(description: "unknown scenario '\(name)'; valid: \(Catalog.names.joined(separator: ", "))")
        }
        guard case .graphQL = scenario.chain else {
            throw ScenarioError(description: "scenario '\(name)' runs a middleware stack; an interceptor provider needs a GraphQL scenario")
        }
        return scenario
    }
}
