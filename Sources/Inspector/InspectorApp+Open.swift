public import Lab
import Foundation
import TerminalUI
import InspectorModel
import InspectorView

extension InspectorApp {
    /// Why the inspector could not open.
    public struct OpenError: Error, Sendable, CustomStringConvertible {
        public let reason: String
        public var description: String { reason }
    }

    /// Opens the inspector in this process's terminal on your own chain and returns when the
    /// person quits. Operations stop before every hop (step mode) unless `stepMode` is false.
    ///
    /// ```swift
    /// import ChainKit
    /// import Inspector
    /// import Lab
    ///
    /// try await InspectorApp.open(name: "my app", chain: .graphQL(
    ///     provider: MyInterceptorProvider(), transport: URLSessionTransport(), requests: [heroRequest]))
    /// ```
    @discardableResult
    public static func open(name: String, chain: CustomChain, stepMode: Bool = true, colors: Bool = true) async throws -> Outcome {
        try await open(session: LabSession(name: name, chain: chain, defaultMode: stepMode ? .step : .run), colors: colors)
    }

    /// Opens the inspector in this process's terminal on `session`.
    @discardableResult
    public static func open(session: LabSession, colors: Bool = true) async throws -> Outcome {
        guard isatty(STDIN_FILENO) != 0, isatty(STDOUT_FILENO) != 0 else {
            throw OpenError(reason: "the inspector needs a terminal (standard input and output must be a TTY)")
        }
        let terminal: NcursesBackend
        do {
            terminal = try NcursesBackend(colors: colors)
        } catch {
            throw OpenError(reason: error.description)
        }
        defer { terminal.restore() }
        return await run(session: session, terminal: terminal)
    }
}
