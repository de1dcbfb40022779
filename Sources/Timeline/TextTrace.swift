import ChainKit
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
/// note in parentheses. Text that came from a server or a person passes through
/// ``VisibleEscapes/escape(_:)``, so no control character reaches the terminal.
public enum TextTrace {
    /// One line per event, with the request column padded to the widest one.
    public static func lines(_ events: [TimelineEvent], masking: SecretMasking) -> [String] {
        let width = events.map { requestColumn($0).count }.max() ?? 0
        return events.map { line(for: $0, requestWidth: width, masking: masking) }
    }

    /// The lines joined, each ending in a newline.
    public static func render(_ events: [TimelineEvent], masking: SecretMasking) -> String {
        lines(events, masking: masking).map { $0 + "\n" }.joined()
    }

    /// The line for one event; `requestWidth` pads the `#request.attempt` column.
    public static func line(for event: TimelineEvent, requestWidth: Int = 0, masking: SecretMasking) -> String {
        let request = requestColumn(event)
        var line = time(event.time) + " " + request + String(repeating: " ", count: max(0, requestWidth - request.count))
        line += " " + String(repeating: "  ", count: max(0, event.hop)) + arrow(event.phase)
        line += " " + VisibleEscapes.escape(event.name) + " " + event.phase.rawValue
        for part in details(event, masking: masking) { line += " " + VisibleEscapes.escape(part) }
        return line
    }

    private static func requestColumn(_ event: TimelineEvent) -> String {
        "#\(event.request).\(event.attempt)"
    }

    /// Seconds with millisecond precision, right-aligned to 7 characters before the `s`.
    private static func time(_ seconds: Double) -> String {
        let milliseconds = Int((seconds * 1000).rounded())
        let magnitude = abs(milliseconds)
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
        if let error = event.error { parts.append(error) }
        if let detail = event.detail { parts.append("(" + detail + ")") }
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
