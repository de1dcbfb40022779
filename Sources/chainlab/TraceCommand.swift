import ChainKit
import Foundation
import Lab
import Outbound
import Timeline
import TimelineFilter
import Exports
import Vocabulary

/// `chainlab trace`: runs a scenario headless and prints what happened.
struct TraceCommand {
    typealias Format = ExportFormat

    static let usage = """
        USAGE: chainlab trace SCENARIO [--format \(ExportFormat.all.map(\.id).joined(separator: "|"))] [--output FILE]
                                       [--include-secrets] [--record FILE] [--replay FILE]
                                       [--filter EXPR] [--break RULE]...
                                       [--otlp-endpoint URL [--otlp-header 'Name: value']...]
                                       [--service-name NAME]
               chainlab trace --scenario-file FILE [options]

        Runs SCENARIO headless on the lab clock and prints every hop's events. The same command
        prints the same bytes every time. Exit status: 0 when every operation succeeded, 1 when
        one failed or gave a partial result (data with GraphQL errors), or the run could not
        complete; 2 for a usage mistake.

          --format FORMAT     what to print (text by default):
        \(ExportFormat.all.map { "                      \($0.id): \($0.summary)" }.joined(separator: "\n"))
          --output FILE       write to FILE instead of standard output ('-': standard output)
          --include-secrets   do not mask Authorization, cookies and tokens
          --record FILE       save the run's scheduling decisions for --replay
          --replay FILE       run the decisions saved with --record (SCENARIO may be omitted)
          --scenario-file F   run the scenario in the JSON file F (see 'chainlab scenarios')
          --filter EXPR       print and export only the requests EXPR matches, such as
                              '~op HeroQuery & ~c 401' (the grammar: docs/filters.md)
          --break RULE        a breakpoint by rule, such as 'post@AuthInterceptor if ~c 401':
                              the stop is recorded (paused, then continue) and the run goes on;
                              may be repeated
          --otlp-endpoint URL also send the traces to an OTLP/HTTP receiver (POST URL/v1/traces),
                              such as an OpenTelemetry Collector or Jaeger on port 4318
          --otlp-header H     add header H ('Name: value') to those requests; may be repeated
          --service-name NAME the traces' service.name (default chainlab)

        Real servers (exit 1 when one cannot be reached or fails mid-run; the timeline up
        to the failure is still written):
        \(EndpointOptions.usage)

        HTTPS (operations, refreshes, the OTLP export; the whole process):
        \(TLSOptions.usage)

        Scenarios: \(ScenarioSource.builtInList)
        """

    var scenarioName: String?
    var format = Format.text
    var output: String?
    var masking = SecretMasking.masked
    var recordPath: String?
    var replayPath: String?
    var scenarioFile: String?
    var endpoint = EndpointOptions()
    var otlp = OTLPOptions()
    var tls = TLSOptions()
    var filter: FilterExpression?
    var breakRules: [BreakRule] = []

    init(arguments: [String]) throws {
        try Self.parser.parse(arguments, into: &self)
        sender = try otlp.sender(timeout: endpoint.timeout)
    }

    static var parser: CommandLineParser<Self> {
        let options: [CommandOption<Self>] = [
            .value("--format") { command, value in
                guard let format = Format.named(value) else {
                    throw CommandLineError("unknown format '\(VisibleEscapes.escape(value))'; valid formats: \(Format.all.map(\.id).joined(separator: ", "))")
                }
                command.format = format
            },
            .value("--output", "-o") { $0.output = $1 },
            .flag("--include-secrets") { $0.masking = .revealed },
            .value("--record") { $0.recordPath = $1 },
            .value("--replay") { $0.replayPath = $1 },
            .value("--scenario-file") { $0.scenarioFile = $1 },
            .value("--filter") { command, text in
                do { command.filter = try FilterExpression(parsing: text) } catch { throw CommandLineError("--filter '\(VisibleEscapes.escape(text))': \(error)") }
            },
            .value("--break", repeatable: true) { command, text in
                do { command.breakRules.append(try BreakRule(parsing: text)) } catch { throw CommandLineError("--break '\(VisibleEscapes.escape(text))': \(error)") }
                guard command.breakRules.count <= BreakRule.maximumCount else { throw CommandLineError("--break: at most \(BreakRule.maximumCount) rules") }
            },
        ] + EndpointOptions.options.map { $0.on(\.endpoint) } + OTLPOptions.options.map { $0.on(\.otlp) } + TLSOptions.options.map { $0.on(\.tls) }
        return CommandLineParser(command: "trace", options: options, usage: usage) { command, argument in
            guard command.scenarioName == nil else {
                throw CommandLineError("trace takes one scenario, got '\(VisibleEscapes.escape(command.scenarioName!))' and '\(VisibleEscapes.escape(argument))'")
            }
            command.scenarioName = argument
        }
    }

    private var sender: OTLPSender?

    func run(environment: [String: String]) async throws -> Int32 {
        HTTPSTrust.install(try tls.trust(environment: environment))
        if let output { try checkOutput(output, option: "--output") }
        if let recordPath { try checkOutput(recordPath, option: "--record") }
        try checkSeparate(
            outputs: [("--output", output), ("--record", recordPath)],
            inputs: [("--scenario-file", scenarioFile), ("--replay", replayPath)] + endpoint.inputFiles)
        var replay: Recording?
        if let replayPath {
            do {
                replay = try Recording(json: try readFile(replayPath, purpose: "recording", limit: LabLimits.recordingFileBytes))
            } catch let error as Recording.DecodingError {
                throw CommandLineError("\(replayPath): \(error)")
            }
        }
        // A replay goes to the server the recording was made on unless told otherwise.
        var endpoint = self.endpoint
        if endpoint.endpoint == nil, let recorded = replay?.endpoint { endpoint.endpoint = URL(string: recorded) }
        let remote = try endpoint.remoteOptions(environment: environment)
        var scenario = try endpoint.apply(to: ScenarioSource.resolve(name: scenarioName ?? (scenarioFile == nil ? replay?.scenario : nil), file: scenarioFile))
        // ... and sends the operations it sent, unless --operation gives others.
        if endpoint.operationFile == nil, let operations = replay?.operations {
            scenario.operations = operations
            scenario.prefillCache = false
        }
        if !breakRules.isEmpty {
            guard replay == nil else { throw CommandLineError("--break cannot be used with --replay: a recording replays the rules it was made with") }
            for rule in breakRules {
                if let refusal = rule.refusal(hopNames: scenario.chain.hops().map(\.name)) { throw CommandLineError("--break '\(VisibleEscapes.escape(rule.description))': \(refusal)") }
            }
            scenario.breakpoints += breakRules
        }
        if let replay, let replayPath {
            guard replay.scenario == scenario.name else {
                throw CommandLineError("the recording \(replayPath) is of scenario '\(VisibleEscapes.escape(replay.scenario))', not '\(VisibleEscapes.escape(scenario.name))'")
            }
            do { try replay.validate(for: scenario) } catch { throw CommandLineError("\(replayPath): \(error)") }
        }
        let session: LabSession
        if let remote {
            session = try await LabSession.connect(scenario: scenario, remote: remote, replay: replay?.commands)
        } else {
            session = LabSession(scenario: scenario, replay: replay?.commands)
        }
        let anchor = session.otlpAnchor
        let run = await session.runHeadless()
        var result = run
        if let filter {
            let launched = session.control.launched.byRequest
            let names = launched.compactMapValues { scenario.operations.indices.contains($0) ? scenario.operations[$0].name : nil }
            result = run.filtered(by: filter, operationNames: names)
        }
        let text = render(result, scenario: scenario.name, anchor: anchor)
        try writeOutput(text, to: output ?? "-", option: "--output")
        var exported = true
        if let sender {
            exported = await export(otlpDocument(result, anchor: anchor), with: sender)
        }
        if let recordPath {
            let recording = endpoint.recording(of: scenario, commands: session.commandLog, remote: remote, replayedOperations: replay?.operations != nil)
            try writeOutput(recording.json, to: recordPath, option: "--record")
        }
        await session.shutDown()
        if remote != nil { try endpoint.saveTokens(await session.tokens.currentTokens) }
        if let failure = result.networkFailures.first {
            FileHandle.standardError.write(Data("chainlab: \(failure.description)\n".utf8))
            return 1
        }
        for refusal in result.refusals {
            writeStandardError("chainlab: \(VisibleEscapes.escape(refusal.reason))\n")
        }
        if !run.unfinished.isEmpty {
            writeStandardError("chainlab: requests \(run.unfinished.map { "#\($0)" }.joined(separator: ", ")) did not finish\n")
            return 1
        }
        // Every operation counts, including those a filter leaves out of the output.
        let allSucceeded = run.requests.allSatisfy { $0.outcome == .success }
        return result.refusals.isEmpty && exported && allSucceeded ? 0 : 1
    }

    /// Sends the traces; says on standard error what went wrong, and whether the file has them.
    private func export(_ document: String, with sender: OTLPSender) async -> Bool {
        do {
            let outcome = try await sender.send(document)
            guard outcome.rejectedSpans == 0 else {
                let reason = outcome.message.map { ": \(VisibleEscapes.escape($0))" } ?? ""
                FileHandle.standardError.write(Data("chainlab: the OTLP receiver took the traces but rejected \(outcome.rejectedSpans) spans\(reason)\n".utf8))
                return false
            }
            return true
        } catch {
            let kept = output.map { format == .otlp ? "; the traces are in \(VisibleEscapes.escape($0))" : "; the run is in \(VisibleEscapes.escape($0))" } ?? ""
            FileHandle.standardError.write(Data("chainlab: OTLP export failed: \(VisibleEscapes.escape(error.description))\(kept)\n".utf8))
            return false
        }
    }

    private func otlpDocument(_ result: LabSession.RunResult, anchor: OTLPExport.Anchor) -> String {
        render(result, scenario: "", anchor: anchor, format: .otlp)
    }

    func render(_ result: LabSession.RunResult, scenario: String, anchor: OTLPExport.Anchor, format: ExportFormat? = nil) -> String {
        let text = result.export(format ?? self.format, scenario: scenario, anchor: anchor, masking: masking, serviceName: otlp.serviceName)
        // The text trace says, under its scenario line, what the filter let through.
        guard let filter, (format ?? self.format) == .text, let end = text.firstIndex(of: "\n") else { return text }
        let count = result.requests.count + result.unfinished.count
        let line = VisibleEscapes.escape("filter \(filter): \(count == 1 ? "1 request" : "\(count) requests") match")
        return text[...end] + line + "\n" + text[text.index(after: end)...]
    }
}
