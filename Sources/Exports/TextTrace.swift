public import Timeline
import Wire
import Vocabulary

/// The timeline as text, one line per event, for `chainlab trace --format text` and logs:
///
/// ```
///   0.000s #1.1 ↓ MaxRetryInterceptor preflight
///   0.000s #1.1   ↓ AuthInterceptor preflight +Authorization
///   0.000s #1.1       ↓ transport send POST /graphql
///   0.012s #1.1       ↑ transport receive 200
///   0.012s #1.1   ↑ AuthInterceptor postflight 200
/// ```
///
/// Columns: lab time, `#request.attempt`, then the hop indented by its depth with an arrow
/// for the direction (`↓` preflight and send, `↑` postflight and receive, `✕` error,
/// `↻` retry, `•` anything else), its name and phase, and the key detail: method and path
/// on a send, status, header diff (`+added ~changed -removed`), error text and the event's
/// note in parentheses, and `[cache]` or `[network]` for an event in one of a request's two
/// lanes (an overlapping CacheAndNetwork fetch). Text that came from a server or a person passes through
/// ``VisibleEscapes/escape(_:)``, so no control character reaches the terminal.
public enum TextTrace {
    /// One line per event, with the request column padded to the widest one.
    public static func lines(_ events: [TimelineEvent], masking: SecretMasking) -> [String] {
        let masking = masking.knowing(secretsIn: events)
        let width = events.map { requestColumn($0).count }.max() ?? 0
        return events.map { line(for: $0, requestWidth: width, masking: masking) }
    }

    /// The closing line for one request: `#1 HeroQuery: success after 2 attempts, results
    /// from server`, then ` — ` and the error when it failed.
    public static func summaryLine(for request: RequestSummary, masking: SecretMasking) -> String {
        let attempts = request.attempts == 1 ? "1 attempt" : "\(request.attempts) attempts"
        var line = "#\(request.id) \(request.operation): \(request.outcome.rawValue) after \(attempts)"
        if !request.results.isEmpty {
            line += ", results from \(request.results.joined(separator: ", "))"
        } else if request.outcome == .success {
            line += ", no result (the cache had none, and the client answers nil)"
        }
        if let error = request.error { line += " — " + masking.text(error) }
        return VisibleEscapes.escape(line)
    }

    /// What a request's last result said beside its GraphQL errors: its `data` and every
    /// error, one line each, indented under the request's summary line; none without errors.
    public static func resultLines(for request: RequestSummary, masking: SecretMasking) -> [String] {
        guard !request.graphQLErrors.isEmpty else { return [] }
        let data = ["  data: " + masking.text(request.data ?? "null")]
        return (data + request.graphQLErrors.map { "  error: " + masking.text($0) }).map(VisibleEscapes.escape)
    }

    /// The lines joined, each ending in a newline.
    public static func render(_ events: [TimelineEvent], masking: SecretMasking) -> String {
        lines(events, masking: masking).map { $0 + "\n" }.joined()
    }

    /// The line for one event; `requestWidth` pads the `#request.attempt` column.
    public static func line(for event: TimelineEvent, requestWidth: Int = 0, masking: SecretMasking) -> String {
        let request = requestColumn(event)
        var line = time(event.time) + " " + request + String(repeating: " ", count: max(0, requestWidth - request.count))
        line += " " + String(repeating: "  ", count: min(max(0, event.hop), maximumIndent)) + arrow(event.phase)
        line += " " + VisibleEscapes.escape(event.name) + " " + event.phase.rawValue
        for part in details(event, masking: masking) { line += " " + VisibleEscapes.escape(part) }
        return line
    }

    /// Hops deeper than this are indented as this one, so a line's length (and the whole
    /// trace's size) does not grow with the depth of a long chain.
    static let maximumIndent = 64

    private static func requestColumn(_ event: TimelineEvent) -> String {
        "#\(event.request).\(event.attempt)"
    }

    /// Seconds with millisecond precision, right-aligned to 7 characters before the `s`.
    private static func time(_ seconds: Double) -> String {
        let milliseconds = Int(saturating: seconds * 1000)
        let magnitude = milliseconds.magnitude
        let fraction = String(magnitude % 1000)
        let text = (milliseconds < 0 ? "-" : "") + "\(magnitude / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
        return String(repeating: " ", count: max(0, 7 - text.count)) + text + "s"
    }

    private static func arrow(_ phase: Phase) -> String {
        switch phase {
        case .preflight, .send: "↓"
        case .postflight, .receive: "↑"
        case .error: "✕"
        case .retry: "↻"
        default: "•"
        }
    }

    private static func details(_ event: TimelineEvent, masking: SecretMasking) -> [String] {
        var parts: [String] = []
        if event.phase == .send, let method = event.method {
            parts.append(method + " " + path(masking.url(event.url ?? "")))
        }
        if event.phase != .send, let status = event.status { parts.append(String(status)) }
        parts += event.diff.added.map { "+" + $0 }
        parts += event.diff.changed.map { "~" + $0 }
        parts += event.diff.removed.map { "-" + $0 }
        if let error = event.error { parts.append(masking.text(error)) }
        if let detail = event.detail { parts.append("(" + masking.text(detail) + ")") }
        if let lane = event.lane { parts.append("[" + lane.rawValue + "]") }
        return parts
    }

    /// The path and query of an absolute URL; anything else as it is.
    private static func path(_ url: String) -> String {
        guard let scheme = url.firstRange(of: "://") else { return url }
        let rest = url[scheme.upperBound...]
        guard let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) else { return "/" }
        return rest[slash] == "?" ? "/" + rest[slash...] : String(rest[slash...])
    }
}
