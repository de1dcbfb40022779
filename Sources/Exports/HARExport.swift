public import Timeline
public import Foundation
import Wire
import Vocabulary

/// The timeline as a HAR 1.2 archive, for browser dev tools, Charles, Proxyman or mitmproxy.
///
/// Each transport exchange becomes one entry: a transport-kind `send` event paired with the
/// next transport `receive` or `error` event of the same request and attempt (an exchange
/// with neither has status 0 and `_error` "no response recorded"). A multipart answer's
/// parts, received after its head, are put back together as its body, and the time from the
/// head to the last part is the entry's `receive` timing. Each token refresh is an
/// entry too: the `refresh_token` grant the token manager sent, and its answer. Entries carry
/// custom fields:
/// - `_chainlab`: `request`, `attempt`, `exchange` (`transport` or `refresh`), and the
///   `traceId` and `spanId` of the exchange's CLIENT span in the ``OTLPExport`` of the same
///   run, so an entry and its span can be matched;
/// - `_error`;
/// - `_hops`: the hop events of that request and attempt (`seq`, `time`, `hop`, `name`,
///   `kind`, `phase`, `status`, `error`, `diff`, `detail`), so an archive still shows which
///   interceptor added which header.
///
/// Times are lab-clock seconds after the anchor's epoch, so the same timeline always gives the
/// same archive.
///
/// ```swift
/// let har = HARExport.archive(events: store.events(), masking: .masked, anchor: .lab(scenario: "basics"))
/// try har.write(to: URL(filePath: "basics.har"), atomically: true, encoding: .utf8)
/// ```
public enum HARExport {
    /// Lab time zero as a date: 2025-01-01T00:00:00Z.
    public static let epoch = Date(timeIntervalSince1970: 1_735_689_600)

    /// What the log's `comment` says when `https://` certificates went unchecked.
    public static let tlsUnverifiedComment = "TLS certificates were not verified (--insecure): any server could have answered"

    /// The archive as JSON text ending in a newline. `tlsUnverified` (`--insecure`) puts
    /// ``tlsUnverifiedComment`` in the log's `comment`.
    public static func archive(
        events: [TimelineEvent], masking: SecretMasking, anchor: OTLPExport.Anchor, creatorVersion: String = ChainLabVersion.current,
        tlsUnverified: Bool = false
    ) -> String {
        let masking = masking.knowing(secretsIn: events)
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("log")
        writer.beginObject()
        writer.key("version")
        writer.string("1.2")
        writer.key("creator")
        writer.beginObject()
        writer.key("name")
        writer.string("ChainLab")
        writer.key("version")
        writer.string(creatorVersion)
        writer.endObject()
        if tlsUnverified {
            writer.key("comment")
            writer.string(tlsUnverifiedComment)
        }
        writer.key("entries")
        writer.beginArray()
        let exchanges = self.exchanges(in: events)
        var hopsByAttempt: [AttemptKey: [TimelineEvent]] = [:]
        for event in events where event.kind != .transport {
            hopsByAttempt[AttemptKey(event), default: []].append(event)
        }
        for exchange in exchanges {
            writer.newline()
            write(exchange, hops: hopsByAttempt[AttemptKey(exchange.send)] ?? [], masking: masking, anchor: anchor, into: &writer)
        }
        if !exchanges.isEmpty { writer.newline() }
        writer.endArray()
        writer.endObject()
        writer.endObject()
        return writer.text + "\n"
    }

    private struct AttemptKey: Hashable {
        let request: Int, attempt: Int
        init(_ event: TimelineEvent) {
            request = event.request
            attempt = event.attempt
        }
    }

    private struct Exchange {
        /// The request as sent (for a refresh whose send was not recorded, its method and URL).
        let send: TimelineEvent
        var answer: TimelineEvent?
        var isRefresh = false
        /// The parts of a multipart answer, received after its head (one `receive` each).
        var parts: [TimelineEvent] = []
    }

    /// Sends paired with their answers, and token refreshes, in the order they were sent. A
    /// middleware that calls `next` twice sends twice in one attempt; answers pair with the
    /// oldest open send. A refresh is the token manager's `send` and the `refresh` event that
    /// answers it.
    private static func exchanges(in events: [TimelineEvent]) -> [Exchange] {
        var exchanges: [Exchange] = []
        var open: [AttemptKey: [Int]] = [:]
        var lastAnswered: [AttemptKey: Int] = [:]
        var refreshRequests: [AttemptKey: TimelineEvent] = [:]
        for event in events {
            switch (event.kind, event.phase) {
            case (.transport, .send):
                open[AttemptKey(event), default: []].append(exchanges.count)
                exchanges.append(Exchange(send: event))
            case (.transport, .receive), (.transport, .error):
                guard var waiting = open[AttemptKey(event)], !waiting.isEmpty else {
                    // A receive with no send waiting is a part of the answer received last.
                    if event.phase == .receive, let index = lastAnswered[AttemptKey(event)] { exchanges[index].parts.append(event) }
                    continue
                }
                let index = waiting.removeFirst()
                exchanges[index].answer = event
                if event.phase == .receive { lastAnswered[AttemptKey(event)] = index }
                open[AttemptKey(event)] = waiting
            case (.auth, .refresh) where event.request > 0:
                var request = refreshRequests.removeValue(forKey: AttemptKey(event))
                    ?? TimelineEvent(
                        time: event.time, request: event.request, attempt: event.attempt, hop: event.hop, name: event.name,
                        kind: .auth, phase: .refresh, snapshot: HopSnapshot(method: "POST", url: event.url))
                if request.seq == 0 { request.seq = event.seq }
                exchanges.append(Exchange(send: request, answer: event, isRefresh: true))
            case (.auth, .send) where event.request > 0:
                refreshRequests[AttemptKey(event)] = event
            default:
                continue
            }
        }
        return exchanges.sorted { $0.send.seq < $1.send.seq }
    }

    private static func write(
        _ exchange: Exchange, hops: [TimelineEvent], masking: SecretMasking, anchor: OTLPExport.Anchor, into writer: inout JSONWriter
    ) {
        let send = exchange.send
        let answer = exchange.answer
        let received = answer?.phase == .receive || (exchange.isRefresh && answer?.status != nil) ? answer : nil
        // Milliseconds to the microsecond: 0.024 s - 0.012 s is 11.999999999999996 in binary.
        let wait = (max(0, ((answer?.time ?? send.time) - send.time) * 1000) * 1000).rounded() / 1000
        // A multipart answer's body is read from its head to its last part.
        let reading = (max(0, ((exchange.parts.last?.time ?? 0) - (answer?.time ?? 0)) * 1000) * 1000).rounded() / 1000
        let elapsed = exchange.parts.isEmpty ? wait : wait + reading
        writer.beginObject()
        writer.key("startedDateTime")
        writer.string(timestamp(anchor.epoch, plus: send.time))
        writer.key("time")
        writer.double(elapsed)
        writer.key("request")
        writeRequest(send, masking: masking, into: &writer)
        writer.key("response")
        writeResponse(received, parts: exchange.parts, masking: masking, into: &writer)
        writer.key("cache")
        writer.beginObject()
        writer.endObject()
        writer.key("timings")
        writer.beginObject()
        // The lab knows only when a request left and its answer came back: all of it is wait.
        writer.key("send")
        writer.int(0)
        writer.key("wait")
        writer.double(wait)
        writer.key("receive")
        if exchange.parts.isEmpty { writer.int(0) } else { writer.double(reading) }
        writer.endObject()
        writer.key("_chainlab")
        writer.beginObject()
        writer.key("request")
        writer.int(send.request)
        writer.key("attempt")
        writer.int(send.attempt)
        writer.key("exchange")
        writer.string(exchange.isRefresh ? "refresh" : "transport")
        writer.key("traceId")
        writer.string(OTLPTraceBuilder.traceID(anchor, send.request))
        writer.key("spanId")
        writer.string(
            exchange.isRefresh
                ? OTLPTraceBuilder.refreshSpanID(anchor, answer ?? send) : OTLPTraceBuilder.exchangeSpanID(anchor, send))
        writer.endObject()
        writer.key("_error")
        if exchange.isRefresh {
            writer.string(answer?.error.map(masking.text))
        } else {
            writer.string(answer == nil ? "no response recorded" : answer?.phase == .error ? masking.text(answer?.error ?? answer?.detail ?? "error") : nil)
        }
        writer.key("_hops")
        writer.beginArray()
        for hop in hops { writer.event(hop, fields: [], masking: masking) }
        writer.endArray()
        writer.endObject()
    }

    /// `2025-01-01T00:00:00.012Z`: the epoch plus lab seconds, rounded to the millisecond in
    /// integers (a `Date`'s fraction in binary would print 0.012 s as .011).
    /// 9999-12-31T23:59:59.999Z in unix milliseconds.
    static let lastISO8601Millisecond: Int64 = 253_402_300_799_999

    static func timestamp(_ epoch: Date, plus seconds: Double) -> String {
        // ISO 8601 has four-digit years: a clock moved past 9999 (a replay may move it by
        // days many times over) shows as the last millisecond of 9999, never trapping.
        let (sum, overflow) = Int64((epoch.timeIntervalSince1970 * 1000).rounded()).addingReportingOverflow(Int64(saturating: max(0, seconds) * 1000))
        let milliseconds = overflow ? lastISO8601Millisecond : min(sum, lastISO8601Millisecond)
        let whole = Date(timeIntervalSince1970: Double(milliseconds / 1000)).formatted(Date.ISO8601FormatStyle())
        let fraction = String(milliseconds % 1000)
        return whole.dropLast() + "." + String(repeating: "0", count: 3 - fraction.count) + fraction + "Z"
    }

    private static func writeRequest(_ send: TimelineEvent, masking: SecretMasking, into writer: inout JSONWriter) {
        let url = masking.url(send.url ?? "")
        writer.beginObject()
        writer.key("method")
        writer.string(send.method ?? "GET")
        writer.key("url")
        writer.string(url)
        writer.key("httpVersion")
        writer.string("HTTP/1.1")
        writer.key("cookies")
        writeCookies(send.headers?.values(for: "Cookie").flatMap { $0.split(separator: ";") } ?? [], masking: masking, into: &writer)
        writer.key("headers")
        writeHeaders(send.headers, masking: masking, into: &writer)
        writer.key("queryString")
        writer.beginArray()
        for item in URLComponents(string: url)?.queryItems ?? [] {
            writeNameValue(item.name, item.value ?? "", into: &writer)
        }
        writer.endArray()
        writer.key("headersSize")
        writer.int(-1)
        writer.key("bodySize")
        writer.int(send.body?.byteCount ?? 0)
        if let body = send.body {
            let mimeType = send.headers?["Content-Type"]
            writer.key("postData")
            writer.beginObject()
            writer.key("mimeType")
            writer.string(mimeType ?? "")
            writer.key("text")
            writer.string(masking.body(body.wholeText, contentType: mimeType))
            writer.key("_truncated")
            writer.bool(body.isWholeTruncated)
            writer.endObject()
        }
        writer.endObject()
    }

    private static func writeResponse(_ receive: TimelineEvent?, parts: [TimelineEvent], masking: SecretMasking, into writer: inout JSONWriter) {
        let status = receive?.status ?? 0
        let mimeType = receive?.headers?["Content-Type"]
        let body = parts.isEmpty ? receive?.body : multipartBody(parts, contentType: mimeType)
        writer.beginObject()
        writer.key("status")
        writer.int(status)
        writer.key("statusText")
        writer.string(ReasonPhrase.of(status))
        writer.key("httpVersion")
        writer.string(receive == nil ? "" : "HTTP/1.1")
        writer.key("cookies")
        writeCookies(
            receive?.headers?.values(for: "Set-Cookie").compactMap { $0.split(separator: ";").first } ?? [],
            masking: masking, into: &writer)
        writer.key("headers")
        writeHeaders(receive?.headers, masking: masking, into: &writer)
        writer.key("content")
        writer.beginObject()
        writer.key("size")
        writer.int(body?.byteCount ?? 0)
        writer.key("mimeType")
        writer.string(mimeType ?? "x-unknown")
        if let body {
            writer.key("text")
            writer.string(masking.body(body.wholeText, contentType: mimeType))
            writer.key("_truncated")
            writer.bool(body.isWholeTruncated)
        }
        writer.endObject()
        writer.key("redirectURL")
        writer.string(receive?.headers?["Location"].map { masking.header(name: "Location", value: $0) } ?? "")
        writer.key("headersSize")
        writer.int(-1)
        writer.key("bodySize")
        writer.int(receive == nil ? -1 : body?.byteCount ?? 0)
        writer.endObject()
    }

    /// A multipart answer's body put back together from its parts as the timeline recorded
    /// them: each part after `CRLF--boundary CRLF`, then the closing delimiter.
    private static func multipartBody(_ parts: [TimelineEvent], contentType: String?) -> BodyPreview {
        let delimiter = "\r\n--" + (MultipartContentType(contentType).boundary ?? "")
        var text = ""
        var byteCount = 0
        var isTruncated = false
        for part in parts {
            text += delimiter + "\r\n" + (part.body?.text ?? "")
            byteCount += delimiter.utf8.count + 2 + (part.body?.byteCount ?? 0)
            isTruncated = isTruncated || part.body?.isTruncated == true
        }
        text += delimiter + "--\r\n"
        byteCount += delimiter.utf8.count + 4
        return BodyPreview(text: text, byteCount: byteCount, isTruncated: isTruncated)
    }

    private static func writeHeaders(_ headers: HTTPFields?, masking: SecretMasking, into writer: inout JSONWriter) {
        writer.beginArray()
        if let headers {
            for (name, value) in masking.headers(headers) { writeNameValue(name, value, into: &writer) }
        }
        writer.endArray()
    }

    /// Cookies from `name=value` pairs, each value masked like the header it came from.
    private static func writeCookies(_ pairs: [Substring], masking: SecretMasking, into writer: inout JSONWriter) {
        writer.beginArray()
        for pair in pairs {
            let trimmed = pair.drop { $0 == " " }
            guard let equals = trimmed.firstIndex(of: "=") else { continue }
            let value = String(trimmed[trimmed.index(after: equals)...])
            writeNameValue(String(trimmed[..<equals]), masking.isMasked ? SecretMasking.mask(value) : value, into: &writer)
        }
        writer.endArray()
    }

    private static func writeNameValue(_ name: String, _ value: String, into writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("name")
        writer.string(name)
        writer.key("value")
        writer.string(value)
        writer.endObject()
    }

}
