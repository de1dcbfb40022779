import ChainKit
import Foundation
import Inspector
import Lab
import Outbound
import TerminalUI
import Timeline
import Vocabulary

/// `chainlab [SCENARIO]`: the full-screen inspector.
struct InspectCommand {
    static let usage = """
        USAGE: chainlab [SCENARIO] [--scenario-file FILE] [--endpoint URL] [--record FILE] [--no-step]
                        [--theme dark|light|high-contrast] [--ascii] [--no-mouse] [--config FILE]
                        [--otlp-endpoint URL [--otlp-header 'Name: value']... [--service-name NAME]]

        Opens the inspector on SCENARIO (basics when none is given): every operation stops
        before every hop, and you step, edit headers, force 401s and retries, and watch.
        Press ? inside for the keys.

          --scenario-file FILE  open the scenario in the JSON file FILE
          --record FILE         save the session's decisions as it goes, for 'chainlab trace --replay'
          --no-step             start with step mode off (operations run to breakpoints)
          --theme THEME         dark, light or high-contrast (default: from COLORFGBG, else dark);
                                NO_COLOR turns colours off
          --ascii               draw borders, arrows and symbols in plain ASCII
          --no-mouse            leave the mouse to the terminal, so its text selection works
          --config FILE         read settings from FILE instead of
                                $XDG_CONFIG_HOME/chainlab/config.json (~/.config/chainlab/config.json)
          --otlp-endpoint URL   send each operation's trace to an OTLP/HTTP receiver when it
                                ends, in the background (failures show in the status line)
          --otlp-header H       add header H ('Name: value') to those requests; may be repeated
          --service-name NAME   the traces' service.name (default chainlab)

        Real servers (on one that is not a ChainLab lab, T says it has no lab controls):
        \(EndpointOptions.usage)

        HTTPS (operations, refreshes, the OTLP export; the whole process):
        \(TLSOptions.usage)

        Scenarios: \(ScenarioSource.builtInList)
        """

    var scenarioName: String?
    var scenarioFile: String?
    var endpoint = EndpointOptions()
    var recordPath: String?
    var stepMode: Bool?
    var theme: Theme?
    var ascii = false
    var mouse: Bool?
    var configPath: String?
    var otlp = OTLPOptions()
    var tls = TLSOptions()

    init(arguments: [String]) throws {
        try Self.parser.parse(arguments, into: &self)
        sender = try otlp.sender(timeout: endpoint.timeout)
    }

    static var parser: CommandLineParser<Self> {
        let options: [CommandOption<Self>] = [
            .value("--scenario-file") { $0.scenarioFile = $1 },
            .value("--record") { $0.recordPath = $1 },
            .flag("--no-step") { $0.stepMode = false },
            .value("--theme") { command, name in
                guard let chosen = Theme(rawValue: name) else {
                    throw CommandLineError("unknown theme '\(VisibleEscapes.escape(name))'; valid: \(Theme.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                command.theme = chosen
            },
            .flag("--ascii") { $0.ascii = true },
            .flag("--no-mouse") { $0.mouse = false },
            .value("--config") { $0.configPath = $1 },
        ] + EndpointOptions.options.map { $0.on(\.endpoint) } + OTLPOptions.options.map { $0.on(\.otlp) } + TLSOptions.options.map { $0.on(\.tls) }
        let valid = options.map(\.names[0]).joined(separator: ", ")
        return CommandLineParser(
            command: "", options: options, usage: usage,
            unknown: { "unknown option '\($0)'; valid: \(valid), or a command: trace, scenarios, serve, keys, help" }
        ) { command, argument in
            guard command.scenarioName == nil else {
                throw CommandLineError("give one scenario, got '\(VisibleEscapes.escape(command.scenarioName!))' and '\(VisibleEscapes.escape(argument))'")
            }
            command.scenarioName = argument
        }
    }

    private var sender: OTLPSender?

    func run(environment: [String: String]) async throws -> Int32 {
        HTTPSTrust.install(try tls.trust(environment: environment))
        let config = try ConfigFile.load(path: configPath, environment: environment)
        for name in config.maskHeaders { SecretMasking.maskHeader(named: name) }
        let stepMode = self.stepMode ?? config.stepMode ?? true
        var remote = try endpoint.remoteOptions(environment: environment)
        if config.traceparent == false { remote?.sendsTraceparent = false }
        let scenario = try endpoint.apply(to: ScenarioSource.resolve(name: scenarioFile == nil ? (scenarioName ?? "basics") : scenarioName, file: scenarioFile))
        if let recordPath { try checkOutput(recordPath, option: "--record") }
        try checkSeparate(
            outputs: [("--record", recordPath)],
            inputs: [("--scenario-file", scenarioFile), ("--config", configPath)] + endpoint.inputFiles)
        guard isatty(STDIN_FILENO) != 0, isatty(STDOUT_FILENO) != 0 else {
            throw CommandLineError("the inspector needs a terminal (standard input and output must be a TTY); for a headless run use 'chainlab trace \(scenario.name)'")
        }
        let session: LabSession
        if let remote {
            session = try await LabSession.connect(scenario: scenario, remote: remote, defaultMode: stepMode ? .step : .run)
        } else {
            session = LabSession(scenario: scenario, defaultMode: stepMode ? .step : .run)
        }
        let terminal: NcursesBackend
        do {
            let theme = theme ?? config.theme ?? Theme.following(colorFGBG: environment["COLORFGBG"])
            terminal = try NcursesBackend(
                colors: environment["NO_COLOR"].map(\.isEmpty) ?? true, mouse: mouse ?? config.mouse ?? true,
                display: Display(palette: theme.palette, asciiOnly: ascii || config.ascii == true))
        } catch {
            throw CommandLineError("\(error)")
        }
        let liveExport = sender.map { OTLPLiveExport(session: session, sender: $0, serviceName: otlp.serviceName) }
        let recording: @Sendable ([RecordedCommand]) -> Recording = { [endpoint, remote] commands in endpoint.recording(of: scenario, commands: commands, remote: remote) }
        let keeper = recordPath.map { path in Task { await Self.keepRecording(of: session, at: path, as: recording) } }
        let outcome = await InspectorApp.run(session: session, terminal: terminal, liveExport: liveExport, config: config)
        keeper?.cancel()
        await keeper?.value
        terminal.restore()
        // The pair the session ends with goes back to --token-file, so a rotation spends nothing.
        var status: Int32 = 0
        if remote != nil {
            do { try endpoint.saveTokens(await session.tokens.currentTokens) } catch {
                writeStandardError("chainlab: \(VisibleEscapes.escape("\(error)"))\n")
                status = 1
            }
        }
        if let recordPath {
            return max(status, saveRecording(recording(outcome.log).json, to: recordPath))
        }
        // The last operations' traces get a few seconds to leave once the screen is gone.
        if let liveExport, await liveExport.finish(waitingUpTo: .seconds(5)) > 0 {
            FileHandle.standardError.write(Data("chainlab: \(liveExport.unsent) operations' traces did not reach the OTLP receiver\n".utf8))
        }
        return status
    }

    /// Keeps the recording at `path` current while the session runs: written at once, then
    /// again within a quarter of a second of each new command, each time atomically. A
    /// signal (Ctrl-C, SIGTERM, SIGHUP) ends the process from its handler, where nothing
    /// may be written, so the file must already hold the session by then. Only a regular
    /// file (or a new path) is kept so; a device or pipe gets the one recording at quit.
    /// `recording` makes the file's content from the commands so far.
    static func keepRecording(of session: LabSession, at path: String, as recording: @Sendable ([RecordedCommand]) -> Recording) async {
        var attributes = stat()
        guard path != "-", stat(path, &attributes) != 0 || attributes.st_mode & S_IFMT == S_IFREG else { return }
        var written = -1
        while !Task.isCancelled {
            let log = session.commandLog
            if log.count != written, (try? writeOutput(recording(log).json, to: path, option: "--record")) != nil {
                written = log.count
            }
            try? await Task.sleep(for: .milliseconds(250))
        }
    }

    /// Writes the session's recording at quit. The path was checked before the session
    /// began, but it can stop working meanwhile (a full disk, a removed folder): then the
    /// recording goes to the temporary folder instead, so the session is not lost, and
    /// stderr says where (exit status 1).
    func saveRecording(_ json: String, to path: String) -> Int32 {
        do {
            try writeOutput(json, to: path, option: "--record")
            return 0
        } catch {
            let fallback = (NSTemporaryDirectory() as NSString).appendingPathComponent("chainlab-recording-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).json")
            do {
                try AtomicFile.write(json, to: fallback)
                writeStandardError("chainlab: \(VisibleEscapes.escape("\(error)")); the recording was saved to \(VisibleEscapes.escape(fallback)) instead\n")
            } catch let second {
                writeStandardError("chainlab: \(VisibleEscapes.escape("\(error)")), and the fallback failed too: \(VisibleEscapes.escape(second.description)); the recording is lost\n")
            }
            return 1
        }
    }
}
