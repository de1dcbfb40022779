import ChainKit
import Foundation
import Lab
import Timeline
import Vocabulary

/// `chainlab trace`: runs a scenario headless and prints what happened.
struct TraceCommand {
    enum Format: String, CaseIterable {
        case text, json, har, curl
    }

    static let usage = """
        USAGE: chainlab trace SCENARIO [--format text|json|har|curl] [--output FILE]
                                       [--include-secrets] [--record FILE] [--replay FILE]
               chainlab trace --scenario-file FILE [options]

        Runs SCENARIO headless on the lab clock and prints every hop's events. The same command
        prints the same bytes every time.

          --format FORMAT     text (default): one line per event; json: the whole timeline;
                              har: HAR 1.2, one entry per transport exchange; curl: a curl
                              command for each request the transport sent
          --output FILE       write to FILE instead of standard output ('-': standard output)
          --include-secrets   do not mask Authorization, cookies and tokens
          --record FILE       save the run's scheduling decisions for --replay
          --replay FILE       run the decisions saved with --record (SCENARIO may be omitted)
          --scenario-file F   run the scenario in the JSON file F (see 'chainlab scenarios')
          --endpoint URL      send the operations to a real server (e.g. chainlab serve) with
                              URLSessionTransport instead of the in-process backend

        Scenarios: \(ScenarioSource.builtInList)
        """

    var scenarioName: String?
    var format = Format.text
    var output: String?
    var masking = SecretMasking.masked
    var recordPath: String?
    var replayPath: String?
    var scenarioFile: String?
    var endpoint: URL?

    init(arguments: [String]) throws {
        var list = ArgumentList(arguments, command: "trace")
        while let argument = list.next() {
            switch argument {
            case "--format":
                let value = try list.value(for: argument)
                guard let format = Format(rawValue: value) else {
                    throw CommandLineError("unknown format '\(VisibleEscapes.escape(value))'; valid formats: \(Format.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                self.format = format
            case "--output", "-o": output = try list.value(for: argument)
            case "--include-secrets": masking = .revealed
            case "--record": recordPath = try list.value(for: argument)
            case "--replay": replayPath = try list.value(for: argument)
            case "--scenario-file": scenarioFile = try list.value(for: argument)
            case "--endpoint": endpoint = try Self.endpointBase(try list.value(for: argument))
            case "--help", "-h": throw HelpRequested(text: Self.usage)
            default:
                if argument.hasPrefix("-") {
                    throw CommandLineError("unknown option '\(VisibleEscapes.escape(argument))' for trace; valid: --format, --output, --include-secrets, --record, --replay, --scenario-file, --endpoint")
                }
                guard scenarioName == nil else {
                    throw CommandLineError("trace takes one scenario, got '\(VisibleEscapes.escape(scenarioName!))' and '\(VisibleEscapes.escape(argument))'")
                }
                scenarioName = argument
            }
        }
    }

    func run() async throws -> Int32 {
        if let output { try checkOutput(output, option: "--output") }
        if let recordPath { try checkOutput(recordPath, option: "--record") }
        var replay: Recording?
        if let replayPath {
            do {
                replay = try Recording(json: try readFile(replayPath, purpose: "recording", limit: LabLimits.recordingFileBytes))
            } catch let error as Recording.DecodingError {
                throw CommandLineError("\(replayPath): \(error)")
            }
        }
        let scenario = try ScenarioSource.resolve(name: scenarioName ?? (scenarioFile == nil ? replay?.scenario : nil), file: scenarioFile)
        if let replay, let replayPath {
            guard replay.scenario == scenario.name else {
                throw CommandLineError("the recording \(replayPath) is of scenario '\(VisibleEscapes.escape(replay.scenario))', not '\(VisibleEscapes.escape(scenario.name))'")
            }
            do { try replay.validate(for: scenario) } catch { throw CommandLineError("\(replayPath): \(error)") }
        }
        let session: LabSession
        if let endpoint {
            do {
                session = try await LabSession.connect(scenario: scenario, baseURL: endpoint, replay: replay?.commands)
            } catch {
                throw CommandLineError("cannot use the endpoint \(endpoint.absoluteString): \(error)")
            }
        } else {
            session = LabSession(scenario: scenario, replay: replay?.commands)
        }
        let result = await session.runHeadless()
        let text = render(result, scenario: scenario.name)
        try writeOutput(text, to: output ?? "-", option: "--output")
        if let recordPath {
            try writeOutput(Recording(scenario: scenario.name, commands: session.scheduler.log).json, to: recordPath, option: "--record")
        }
        await session.shutDown()
        for refusal in result.refusals {
            writeStandardError("chainlab: \(VisibleEscapes.escape(refusal.reason))\n")
        }
        if !result.unfinished.isEmpty {
            writeStandardError("chainlab: requests \(result.unfinished.map { "#\($0)" }.joined(separator: ", ")) did not finish\n")
            return 1
        }
        return result.refusals.isEmpty ? 0 : 1
    }

    /// The server's base URL from `--endpoint`: `http(s)://host[:port][/prefix]`, with a
    /// trailing `/graphql` taken off since the lab adds it.
    static func endpointBase(_ text: String) throws -> URL {
        guard var components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", components.host?.isEmpty == false
        else {
            throw CommandLineError("--endpoint needs an http:// or https:// URL such as http://127.0.0.1:4000, got '\(VisibleEscapes.escape(text))'")
        }
        if components.path.hasSuffix("/graphql") { components.path.removeLast("/graphql".count) }
        while components.path.hasSuffix("/") { components.path.removeLast() }
        components.query = nil
        return components.url!
    }

    func render(_ result: LabSession.RunResult, scenario: String) -> String {
        switch format {
        case .text:
            var lines = [VisibleEscapes.escape("scenario \(scenario)")] + TextTrace.lines(result.events, masking: masking)
            lines += result.requests.map { TextTrace.summaryLine(for: $0, masking: masking) }
            let counters = result.backend.keys.sorted().map { "\($0)=\(result.backend[$0]!)" }
            lines.append(VisibleEscapes.escape("backend " + counters.joined(separator: " ")))
            return lines.joined(separator: "\n") + "\n"
        case .json:
            return TraceJSON.encode(TraceDocument(scenario: scenario, requests: result.requests, events: result.events, backend: result.backend), masking: masking)
        case .har:
            return HARExport.archive(events: result.events, masking: masking)
        case .curl:
            let commands = result.events.filter { $0.kind == .transport && $0.phase == .send }.compactMap { event in
                CurlExport.command(for: event, masking: masking).map { "# request #\(event.request), attempt \(event.attempt)\n" + $0 }
            }
            return commands.joined(separator: "\n\n") + "\n"
        }
    }
}

/// Thrown by a command's parser when the person asked for its help text.
struct HelpRequested: Error {
    let text: String
}
