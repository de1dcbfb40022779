public import Foundation
import ChainKit
import Vocabulary

/// The timeline as a HAR 1.2 archive, for browser dev tools, Charles, Proxyman or mitmproxy.
///
/// Each transport exchange becomes one entry: a transport-kind `send` event paired with the
/// next transport `receive` or `error` event of the same request and attempt (an exchange
/// with neither has status 0 and `_error` "no response recorded"). Entries carry custom
/// fields: `_request`, `_attempt`, `_error`, and `_hops`, the hop events of that request and
/// attempt (`seq`, `time`, `hop`, `name`, `kind`, `phase`, `status`, `error`, `detail`,
/// `diff`), so an archive still shows which interceptor added which header.
///
/// Times are lab-clock seconds after ``epoch``, so the same timeline always gives the same
/// archive.
///
/// ```swift
/// let har = HARExport.archive(events: store.events(), masking: .masked)
/// try har.write(to: URL(filePath: "basics.har"), atomically: true, encoding: .utf8)
/// ```
public enum HARExport {
    /// Lab time zero as a date: 2025-01-01T00:00:00Z.
    public static let epoch = Date(timeIntervalSince1970: 1_735_689_600)

    /// The archive as JSON text ending in a newline.
    public static func archive(
        events: [TimelineEvent], masking: SecretMasking, creatorVersion: String = "1.0", epoch: Date = HARExport.epoch
    ) -> String {
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
        writer.key("entries")
        writer.beginArray()
        let exchanges = self.exchanges(in: events)
        var hopsByAttempt: [AttemptKey: [TimelineEvent]] = [:]
        for event in events where event.kind != .transport {
            hopsByAttempt[AttemptKey(event), default: []].append(event)
        }
        for exchange in exchanges {
            writer.newline()
            write(exchange, hops: hopsByAttempt[AttemptKey(exchange.send)] ?? [], masking: masking, epoch: epoch, into: &writer)
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
        let send: TimelineEvent
        var answer: TimelineEvent?
    }

    /// Sends paired with their answers, in the order they were sent. A middleware that calls
    /// `next` twice sends twice in one attempt; answers pair with the oldest open send.
    private static func exchanges(in events: [TimelineEvent]) -> [Exchange] {
        var exchanges: [Exchange] = []
        var open: [AttemptKey: [Int]] = [:]
        for event in events where event.kind == .transport {
            switch event.phase {
            case .send:
                open[AttemptKey(event), default: []].append(exchanges.count)
                exchanges.append(Exchange(send: event))
            case .receive, .error:
                guard var waiting = open[AttemptKey(event)], !waiting.isEmpty else { continue }
                exchanges[waiting.removeFirst()].answer = event
                open[AttemptKey(event)] = waiting
            default:
                continue
            }
        }
        return exchanges
    }

    private static func write(
        _ exchange: Exchange, hops: [TimelineEvent], masking: SecretMasking, epoch: Date, into writer: inout JSONWriter
    ) {
        let send = exchange.send
        let answer = exchange.answer
        let received = answer?.phase == .receive ? answer : nil
        let elapsed = max(0, ((answer?.time ?? send.time) - send.time) * 1000)
        writer.beginObject()
        writer.key("startedDateTime")
        writer.string(epoch.addingTimeInterval(send.time).formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
        writer.key("time")
        writer.double(elapsed)
        writer.key("request")
        writeRequest(send, masking: masking, into: &writer)
        writer.key("response")
        writeResponse(received, masking: masking, into: &writer)
        writer.key("cache")
        writer.beginObject()
        writer.endObject()
        writer.key("timings")
        writer.beginObject()
        // The lab knows only when a request left and its answer came back: all of it is wait.
        writer.key("send")
        writer.int(0)
        writer.key("wait")
        writer.double(elapsed)
        writer.key("receive")
        writer.int(0)
        writer.endObject()
        writer.key("_request")
        writer.int(send.request)
        writer.key("_attempt")
        writer.int(send.attempt)
        writer.key("_error")
        writer.string(answer == nil ? "no response recorded" : answer?.phase == .error ? masking.text(answer?.error ?? answer?.detail ?? "error") : nil)
        writer.key("_hops")
        writer.beginArray()
        for hop in hops { writeHop(hop, masking: masking, into: &writer) }
        writer.endArray()
        writer.endObject()
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
            writer.string(masking.body(body.text, contentType: mimeType))
            writer.key("_truncated")
            writer.bool(body.isTruncated)
            writer.endObject()
        }
        writer.endObject()
    }

    private static func writeResponse(_ receive: TimelineEvent?, masking: SecretMasking, into writer: inout JSONWriter) {
        let status = receive?.status ?? 0
        let mimeType = receive?.headers?["Content-Type"]
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
        writer.int(receive?.body?.byteCount ?? 0)
        writer.key("mimeType")
        writer.string(mimeType ?? "x-unknown")
        if let body = receive?.body {
            writer.key("text")
            writer.string(masking.body(body.text, contentType: mimeType))
            writer.key("_truncated")
            writer.bool(body.isTruncated)
        }
        writer.endObject()
        writer.key("redirectURL")
        writer.string(receive?.headers?["Location"] ?? "")
        writer.key("headersSize")
        writer.int(-1)
        writer.key("bodySize")
        writer.int(receive == nil ? -1 : receive?.body?.byteCount ?? 0)
        writer.endObject()
    }

    private static func writeHop(_ hop: TimelineEvent, masking: SecretMasking, into writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("seq")
        writer.int(hop.seq)
        writer.key("time")
        writer.double(hop.time)
        writer.key("hop")
        writer.int(hop.hop)
        writer.key("name")
        writer.string(hop.name)
        writer.key("kind")
        writer.string(hop.kind.rawValue)
        writer.key("phase")
        writer.string(hop.phase.rawValue)
        writer.key("status")
        writer.int(hop.status)
        writer.key("error")
        writer.string(hop.error.map(masking.text))
        writer.key("detail")
        writer.string(hop.detail.map(masking.text))
        writer.key("diff")
        writer.diff(hop.diff)
        writer.endObject()
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
            writeNameValue(String(trimmed[..<equals]), masking == .masked ? SecretMasking.mask(value) : value, into: &writer)
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
