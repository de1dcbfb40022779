public import Timeline
public import Exports
import Vocabulary

/// A format a run is exported in: one value per format, from which `chainlab trace
/// --format`, the inspector's `w` prompt and the config file's `exportFormat` take their
/// choices. Adding a format is adding one of these to ``all``.
public struct ExportFormat: Sendable, Hashable, CustomStringConvertible {
    /// What a format is handed to write a run.
    public struct Run: Sendable {
        public var result: LabSession.RunResult
        public var scenario: String
        public var anchor: OTLPExport.Anchor
        public var masking: SecretMasking
        public var serviceName: String?
    }

    /// The name `--format` and the config file use (`json`).
    public let id: String
    /// What a file of this format ends with (`otlp.json`: OTLP documents are JSON that
    /// Jaeger's UI opens).
    public let fileExtension: String
    /// Whether the inspector's `w` offers it.
    public let offeredInInspector: Bool
    /// What it holds, for `--help`.
    public let summary: String
    let write: @Sendable (Run) -> String

    public var description: String { id }

    public static func == (lhs: ExportFormat, rhs: ExportFormat) -> Bool { lhs.id == rhs.id }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }

    /// One line per event, the findings, one line per request and the backend's counters.
    public static let text = ExportFormat(
        id: "text", fileExtension: "txt", offeredInInspector: false, summary: "one line per event",
        write: { run in
            let result = run.result
            let masking = run.masking.knowing(secretsIn: result.events)
            var lines = [VisibleEscapes.escape("scenario \(run.scenario)")]
            if result.tlsUnverified { lines.append(LabSession.RunResult.tlsUnverifiedLine) }
            lines += TextTrace.lines(result.events, masking: masking)
            lines += LabSession.RunResult.findingLines(result.findings).map { VisibleEscapes.escape(masking.text($0)) }
            lines += result.requests.flatMap { [TextTrace.summaryLine(for: $0, masking: masking)] + TextTrace.resultLines(for: $0, masking: masking) }
            if let backend = result.backendCounters {
                lines.append(VisibleEscapes.escape("backend " + backend.keys.sorted().map { "\($0)=\(backend[$0]!)" }.joined(separator: " ")))
            } else {
                lines.append("backend: not a ChainLab lab (no counters)")
            }
            return lines.joined(separator: "\n") + "\n"
        })

    /// ``Exports/TraceJSON``: requests, events, the lab's counters (`null` without a lab)
    /// and findings.
    public static let json = ExportFormat(
        id: "json", fileExtension: "json", offeredInInspector: true, summary: "the whole timeline",
        write: { run in
            let result = run.result
            return TraceJSON.encode(
                TraceDocument(
                    scenario: run.scenario, requests: result.requests, events: result.events, backend: result.backendCounters,
                    findings: result.findings, tlsUnverified: result.tlsUnverified),
                masking: run.masking)
        })

    /// ``Exports/HARExport``: the transport exchanges as an HTTP Archive.
    public static let har = ExportFormat(
        id: "har", fileExtension: "har", offeredInInspector: true, summary: "HAR 1.2, one entry per transport exchange",
        write: { run in
            HARExport.archive(events: run.result.events, masking: run.masking, anchor: run.anchor, tlsUnverified: run.result.tlsUnverified)
        })

    /// ``Exports/CurlExport``: each request the transport sent, as a curl command.
    public static let curl = ExportFormat(
        id: "curl", fileExtension: "sh", offeredInInspector: false, summary: "a curl command for each request the transport sent",
        write: { run in
            let commands = run.result.events.filter { $0.kind == .transport && $0.phase == .send }.compactMap { event in
                CurlExport.command(for: event, masking: run.masking).map { "# request #\(event.request), attempt \(event.attempt)\n" + $0 }
            }
            return commands.joined(separator: "\n\n") + "\n"
        })

    /// ``Exports/OTLPExport``: OpenTelemetry traces (OTLP/JSON).
    public static let otlp = ExportFormat(
        id: "otlp", fileExtension: "otlp.json", offeredInInspector: true, summary: "OpenTelemetry traces as OTLP/JSON, one trace per operation",
        write: { run in
            var options = OTLPExport.Options(anchor: run.anchor, masking: run.masking)
            options.tlsUnverified = run.result.tlsUnverified
            if let serviceName = run.serviceName { options.serviceName = serviceName }
            return OTLPExport.document(requests: run.result.requests, events: run.result.events, options: options)
        })

    /// Every format, in the order `--help` lists them; the first is `trace`'s default.
    public static let all: [ExportFormat] = [.text, .json, .har, .curl, .otlp]

    /// The formats the inspector's `w` offers, in the order `Tab` goes through them.
    public static let inInspector: [ExportFormat] = all.filter(\.offeredInInspector)

    /// The format called `id`, if any.
    public static func named(_ id: String) -> ExportFormat? {
        all.first { $0.id == id }
    }

    /// The next format the inspector offers, as `Tab` cycles them.
    public var nextInInspector: ExportFormat {
        let offered = ExportFormat.inInspector
        return offered[((offered.firstIndex(of: self) ?? -1) + 1) % offered.count]
    }
}

extension LabSession.RunResult {
    /// This run in `format`, secrets masked unless `masking` reveals them; every string from
    /// the run is escaped in the text format. Counters appear only when the run has them
    /// (``backendCounters``): the JSON says `"backend": null` and the text `backend: not a
    /// ChainLab lab` otherwise.
    public func export(
        _ format: ExportFormat, scenario: String, anchor: OTLPExport.Anchor, masking: SecretMasking, serviceName: String? = nil
    ) -> String {
        format.write(ExportFormat.Run(result: self, scenario: scenario, anchor: anchor, masking: masking, serviceName: serviceName))
    }

    /// The text trace's second line when `https://` certificates went unchecked.
    static let tlsUnverifiedLine = "⚠ TLS not verified (--insecure): https:// certificates were not checked"

    /// The text trace's findings section: `findings: none`, or a heading and one line each.
    static func findingLines(_ findings: [Finding]) -> [String] {
        guard !findings.isEmpty else { return ["findings: none"] }
        return ["findings:"] + findings.map { "  \($0.severity.rawValue) \($0.id): \(VisibleEscapes.escape($0.message))" }
    }
}
