public import Timeline
import Vocabulary

/// The formats a run is exported in: what `chainlab trace --format` writes and the
/// inspector's `w` offers (JSON, HAR, OTLP).
public enum ExportFormat: String, Sendable, Hashable, CaseIterable {
    /// One line per event, the findings, one line per request and the backend's counters.
    case text
    /// ``Timeline/TraceJSON``: requests, events, the lab's counters (`null` without a lab)
    /// and findings.
    case json
    /// ``Timeline/HARExport``: the transport exchanges as an HTTP Archive.
    case har
    /// ``Timeline/CurlExport``: each request the transport sent, as a curl command.
    case curl
    /// ``Timeline/OTLPExport``: OpenTelemetry traces (OTLP/JSON).
    case otlp
}

extension LabSession.RunResult {
    /// This run in `format`, secrets masked unless `masking` reveals them; every string from
    /// the run is escaped in the text format. Counters appear only when the run has them
    /// (``backendCounters``): the JSON says `"backend": null` and the text `backend: not a
    /// ChainLab lab` otherwise.
    public func export(
        _ format: ExportFormat, scenario: String, anchor: OTLPExport.Anchor, masking: SecretMasking, serviceName: String? = nil
    ) -> String {
        switch format {
        case .text:
            let masking = masking.knowing(secretsIn: events)
            var lines = [VisibleEscapes.escape("scenario \(scenario)")]
            if tlsUnverified { lines.append(Self.tlsUnverifiedLine) }
            lines += TextTrace.lines(events, masking: masking)
            lines += Self.findingLines(findings).map { VisibleEscapes.escape(masking.text($0)) }
            lines += requests.flatMap { [TextTrace.summaryLine(for: $0, masking: masking)] + TextTrace.resultLines(for: $0, masking: masking) }
            if let backend = backendCounters {
                lines.append(VisibleEscapes.escape("backend " + backend.keys.sorted().map { "\($0)=\(backend[$0]!)" }.joined(separator: " ")))
            } else {
                lines.append("backend: not a ChainLab lab (no counters)")
            }
            return lines.joined(separator: "\n") + "\n"
        case .json:
            return TraceJSON.encode(
                TraceDocument(
                    scenario: scenario, requests: requests, events: events, backend: backendCounters, findings: findings, tlsUnverified: tlsUnverified),
                masking: masking)
        case .har:
            return HARExport.archive(events: events, masking: masking, anchor: anchor, tlsUnverified: tlsUnverified)
        case .curl:
            let commands = events.filter { $0.kind == .transport && $0.phase == .send }.compactMap { event in
                CurlExport.command(for: event, masking: masking).map { "# request #\(event.request), attempt \(event.attempt)\n" + $0 }
            }
            return commands.joined(separator: "\n\n") + "\n"
        case .otlp:
            var options = OTLPExport.Options(anchor: anchor, masking: masking)
            options.tlsUnverified = tlsUnverified
            if let serviceName { options.serviceName = serviceName }
            return OTLPExport.document(requests: requests, events: events, options: options)
        }
    }

    /// The text trace's second line when `https://` certificates went unchecked.
    static let tlsUnverifiedLine = "⚠ TLS not verified (--insecure): https:// certificates were not checked"

    /// The text trace's findings section: `findings: none`, or a heading and one line each.
    static func findingLines(_ findings: [Finding]) -> [String] {
        guard !findings.isEmpty else { return ["findings: none"] }
        return ["findings:"] + findings.map { "  \($0.severity.rawValue) \($0.id): \(VisibleEscapes.escape($0.message))" }
    }
}
