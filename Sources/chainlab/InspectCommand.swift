import ChainKit
import Foundation
import Inspector
import Lab
import TerminalUI
import Vocabulary

/// `chainlab [SCENARIO]`: the full-screen inspector.
struct InspectCommand {
    static let usage = """
        USAGE: chainlab [SCENARIO] [--scenario-file FILE] [--endpoint URL] [--record FILE] [--no-step]
                        [--otlp-endpoint URL [--otlp-header 'Name: value']... [--service-name NAME]]

        Opens the inspector on SCENARIO (basics when none is given): every operation stops
        before every hop, and you step, edit headers, force 401s and retries, and watch.
        Press ? inside for the keys.

          --scenario-file FILE  open the scenario in the JSON file FILE
          --endpoint URL        send the operations to a real server (e.g. chainlab serve)
          --record FILE         save the session's decisions on quit, for 'chainlab trace --replay'
          --no-step             start with step mode off (operations run to breakpoints)
          --otlp-endpoint URL   send each operation's trace to an OTLP/HTTP receiver when it
                                ends, in the background (failures show in the status line)
          --otlp-header H       add header H ('Name: value') to those requests; may be repeated
          --service-name NAME   the traces' service.name (default chainlab)

        Scenarios: \(ScenarioSource.builtInList)
        """

    var scenarioName: String?
    var scenarioFile: String?
    var endpoint: URL?
    var recordPath: String?
    var stepMode = true
    var otlp = OTLPOptions()

    init(arguments: [String]) throws {
        var list = ArgumentList(arguments, command: "")
        while let argument = list.next() {
            switch argument {
            case "--scenario-file": scenarioFile = try list.value(for: argument)
            case "--endpoint": endpoint = try TraceCommand.endpointBase(try list.value(for: argument))
            case "--record": recordPath = try list.value(for: argument)
            case "--no-step": stepMode = false
            case "--help", "-h": throw HelpRequested(text: Self.usage)
            default:
                if try otlp.read(argument, from: &list) { continue }
                if argument.hasPrefix("-") {
                    throw CommandLineError("unknown option '\(VisibleEscapes.escape(argument))'; valid: --scenario-file, --endpoint, --record, --no-step, --otlp-endpoint, --otlp-header, --service-name, or a command: trace, scenarios, serve, keys, help")
                }
                guard scenarioName == nil else {
                    throw CommandLineError("give one scenario, got '\(VisibleEscapes.escape(scenarioName!))' and '\(VisibleEscapes.escape(argument))'")
                }
                scenarioName = argument
            }
        }
        sender = try otlp.sender()
    }

    private var sender: OTLPSender?

    func run(environment: [String: String]) async throws -> Int32 {
        let scenario = try ScenarioSource.resolve(name: scenarioFile == nil ? (scenarioName ?? "basics") : scenarioName, file: scenarioFile)
        guard isatty(STDIN_FILENO) != 0, isatty(STDOUT_FILENO) != 0 else {
            throw CommandLineError("the inspector needs a terminal (standard input and output must be a TTY); for a headless run use 'chainlab trace \(scenario.name)'")
        }
        let session: LabSession
        if let endpoint {
            do {
                session = try await LabSession.connect(scenario: scenario, baseURL: endpoint, defaultMode: stepMode ? .step : .run)
            } catch {
                throw CommandLineError("cannot use the endpoint \(endpoint.absoluteString): \(error)")
            }
        } else {
            session = LabSession(scenario: scenario, defaultMode: stepMode ? .step : .run)
        }
        let terminal: NcursesBackend
        do {
            terminal = try NcursesBackend(colors: environment["NO_COLOR"].map(\.isEmpty) ?? true)
        } catch {
            throw CommandLineError("\(error)")
        }
        let liveExport = sender.map { OTLPLiveExport(session: session, sender: $0, serviceName: otlp.serviceName) }
        let outcome = await InspectorApp.run(session: session, terminal: terminal, liveExport: liveExport)
        terminal.restore()
        if let recordPath {
            try writeAtomically(Recording(scenario: scenario.name, commands: outcome.log).json, to: recordPath)
        }
        // The last operations' traces get a few seconds to leave once the screen is gone.
        if let liveExport, await liveExport.finish(waitingUpTo: .seconds(5)) > 0 {
            FileHandle.standardError.write(Data("chainlab: \(liveExport.unsent) operations' traces did not reach the OTLP receiver\n".utf8))
        }
        return 0
    }
}
