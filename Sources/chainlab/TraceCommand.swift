import ChainKit
import Foundation
import Lab
import Timeline
import Vocabulary

/// `chainlab trace`: runs a scenario headless and prints what happened.
struct TraceCommand {
    enum Format: String, CaseIterable {
        case text, json, har, curl, otlp
    }

    static let usage = """
        USAGE: chainlab trace SCENARIO [--format text|json|har|curl|otlp] [--output FILE]
                                       [--include-secrets] [--record FILE] [--replay FILE]
                                       [--otlp-endpoint URL [--otlp-header 'Name: value']...]
                                       [--service-name NAME]
               chainlab trace --scenario-file FILE [options]

        Runs SCENARIO headless on the lab clock and prints every hop's events. The same command
        prints the same bytes every time.

          --format FORMAT     text (default): one line per event; json: the whole timeline;
                              har: HAR 1.2, one entry per transport exchange; curl: a curl
                              command for each request the transport sent; otlp: OpenTelemetry
                              traces as OTLP/JSON, one trace per operation
          --output FILE       write to FILE instead of standard output
          --include-secrets   do not mask Authorization, cookies and tokens
          --record FILE       save the run's scheduling decisions for --replay
          --replay FILE       run the decisions saved with --record (SCENARIO may be omitted)
          --scenario-file F   run the scenario in the JSON file F (see 'chainlab scenarios')
          --endpoint URL      send the operations to a real server (e.g. chainlab serve) with
                              URLSessionTransport instead of the in-process backend
          --otlp-endpoint URL also send the traces to an OTLP/HTTP receiver (POST URL/v1/traces),
                              such as an OpenTelemetry Collector or Jaeger on port 4318
          --otlp-header H     add header H ('Name: value') to those requests; may be repeated
          --service-name NAME the traces' service.name (default chainlab)

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
    var otlp = OTLPOptions()

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
                if try otlp.read(argument, from: &list) { continue }
                if argument.hasPrefix("-") {
                    throw CommandLineError("unknown option '\(VisibleEscapes.escape(argument))' for trace; valid: --format, --output, --include-secrets, --record, --replay, --scenario-file, --endpoint, --otlp-endpoint, --otlp-header, --service-name")
                }
                guard scenarioName == nil else {
                    throw CommandLineError("trace takes one scenario, got '\(VisibleEscapes.escape(scenarioName!))' and '\(VisibleEscapes.escape(argument))'")
                }
                scenarioName = argument
            }
        }
        sender = try otlp.sender()
    }

    private var sender: OTLPSender?

    func run() async throws -> Int32 {
        var replay: Recording?
        if let replayPath {
            do {
                replay = try Recording(json: try readFile(replayPath, purpose: "recording"))
            } catch let error as Recording.DecodingError {
                throw CommandLineError("\(replayPath): \(error)")
            }
        }
        let scenario = try ScenarioSource.resolve(name: scenarioName ?? (scenarioFile == nil ? replay?.scenario : nil), file: scenarioFile)
        if let replay, replay.scenario != scenario.name {
            throw CommandLineError("the recording \(replayPath!) is of scenario '\(VisibleEscapes.escape(replay.scenario))', not '\(VisibleEscapes.escape(scenario.name))'")
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
        let anchor = session.otlpAnchor
        let result = await session.runHeadless()
        let text = render(result, scenario: scenario.name, anchor: anchor)
        if let output { try writeAtomically(text, to: output) } else { FileHandle.standardOutput.write(Data(text.utf8)) }
        var exported = true
        if let sender {
            exported = await export(otlpDocument(result, anchor: anchor), with: sender)
        }
        if let recordPath {
            try writeAtomically(Recording(scenario: scenario.name, commands: session.scheduler.log).json, to: recordPath)
        }
        await session.shutDown()
        for refusal in result.refusals {
            FileHandle.standardError.write(Data("chainlab: \(VisibleEscapes.escape(refusal.reason))\n".utf8))
        }
        if !result.unfinished.isEmpty {
            FileHandle.standardError.write(Data("chainlab: requests \(result.unfinished.map { "#\($0)" }.joined(separator: ", ")) did not finish\n".utf8))
            return 1
        }
        return result.refusals.isEmpty && exported ? 0 : 1
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
        OTLPExport.document(
            requests: result.requests, events: result.events,
            options: OTLPExport.Options(serviceName: otlp.serviceName, anchor: anchor, masking: masking))
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

    func render(_ result: LabSession.RunResult, scenario: String, anchor: OTLPExport.Anchor) -> String {
        switch format {
        case .text:
            var lines = ["scenario \(scenario)"] + TextTrace.lines(result.events, masking: masking)
            for request in result.requests {
                let attempts = request.attempts == 1 ? "1 attempt" : "\(request.attempts) attempts"
                var line = "#\(request.id) \(request.operation): \(request.outcome.rawValue) after \(attempts)"
                if !request.results.isEmpty { line += ", results from \(request.results.joined(separator: ", "))" }
                if let error = request.error { line += " — \(VisibleEscapes.escape(error))" }
                lines.append(line)
            }
            let counters = result.backend.keys.sorted().map { "\($0)=\(result.backend[$0]!)" }
            lines.append("backend " + counters.joined(separator: " "))
            return lines.joined(separator: "\n") + "\n"
        case .json:
            return TraceJSON.encode(TraceDocument(scenario: scenario, requests: result.requests, events: result.events, backend: result.backend), masking: masking)
        case .har:
            return HARExport.archive(events: result.events, masking: masking, anchor: anchor)
        case .curl:
            let commands = result.events.filter { $0.kind == .transport && $0.phase == .send }.compactMap { event in
                CurlExport.command(for: event, masking: masking).map { "# request #\(event.request), attempt \(event.attempt)\n" + $0 }
            }
            return commands.joined(separator: "\n\n") + "\n"
        case .otlp:
            return otlpDocument(result, anchor: anchor)
        }
    }
}

/// Thrown by a command's parser when the person asked for its help text.
struct HelpRequested: Error {
    let text: String
}
