public import Timeline
public import Foundation
import Wire

/// The timeline as OpenTelemetry traces: one OTLP/JSON document, the protobuf JSON mapping of
/// `ExportTraceServiceRequest`, as Jaeger, Tempo and every OpenTelemetry Collector accept it.
///
/// Each operation is one trace:
///
/// ```
/// HeroQuery                     INTERNAL  graphql.operation.name, chainlab.outcome, chainlab.attempts
/// ├─ attempt 1                  INTERNAL  links to the refreshes it waited for
/// │  ├─ MaxRetryInterceptor     INTERNAL  pre-/post-flight, retry… as span events
/// │  ├─ cache                   INTERNAL  cacheMiss
/// │  ├─ POST /graphql           CLIENT    http.request.method, url.full, http.response.status_code 401
/// │  └─ POST /oauth/token       CLIENT    the token refresh this attempt started
/// └─ attempt 2                  INTERNAL
///    └─ POST /graphql           CLIENT    http.request.resend_count 1
/// ```
///
/// Middleware chains are alike: one span per middleware pass, the transport a CLIENT span.
/// Forced 401s, edits and retries are span events with `chainlab.origin` (`person` for a
/// command given at a stop, `scenario` for a fault the scenario configured, `server` for a
/// retry the server's answer caused).
///
/// With ``Anchor/lab(scenario:)`` times count from ``HARExport/epoch`` and ids derive from
/// the scenario, requests and sequence numbers, so the same run gives the same bytes.
public enum OTLPExport {
    /// Where times start and where ids come from.
    public struct Anchor: Sendable, Hashable {
        /// The date of lab time zero.
        public var epoch: Date
        /// Every trace and span id is derived from this text, the request and the span's place.
        public var idSeed: String

        public init(epoch: Date, idSeed: String) {
            self.epoch = epoch
            self.idSeed = idSeed
        }

        /// A run on the lab clock: the fixed epoch, ids derived from the scenario's name.
        public static func lab(scenario: String) -> Anchor {
            Anchor(epoch: HARExport.epoch, idSeed: "chainlab lab run \(scenario)")
        }

        /// A run against a real endpoint: lab time zero is `start` and ids are random, yet
        /// stable within the session (every export of it derives them from one random seed).
        public static func wallClock(start: Date = Date()) -> Anchor {
            Anchor(epoch: start, idSeed: UUID().uuidString)
        }

        /// The W3C Trace Context `traceparent` for attempt `attempt` of request `request`:
        /// version `00`, the request's trace id and the attempt's span id as the export
        /// gives them, flags `01` (sampled). Both ids depend on nothing recorded later, so the
        /// header can go out with the attempt. A middleware chain's one pass (attempt 0) is
        /// attempt 1 in the export, and here.
        ///
        /// ```swift
        /// anchor.traceparent(request: 1, attempt: 2) // "00-<32 hex>-<16 hex>-01"
        /// ```
        public func traceparent(request: Int, attempt: Int) -> String {
            let span = OTLPTraceBuilder.spanID(self, request, OTLPTraceBuilder.attemptPlace(max(attempt, 1)))
            return "00-\(OTLPTraceBuilder.traceID(self, request))-\(span)-01"
        }
    }

    public struct Options: Sendable, Hashable {
        /// The resource's `service.name`.
        public var serviceName: String
        /// ChainLab's version, for `service.version`, `telemetry.sdk.version` and the scope.
        public var version: String
        public var anchor: Anchor
        public var masking: SecretMasking
        /// Whether `https://` certificates went unchecked (`--insecure`): the resource then
        /// says `chainlab.tls.insecure = true`.
        public var tlsUnverified = false

        public init(serviceName: String = "chainlab", version: String = ChainLabVersion.current, anchor: Anchor, masking: SecretMasking) {
            self.serviceName = serviceName
            self.version = version
            self.anchor = anchor
            self.masking = masking
        }
    }

    /// The document for `requests` (one trace each, in id order), built from `events`, as JSON
    /// text ending in a newline, one span per line.
    public static func document(requests: [RequestSummary], events: [TimelineEvent], options: Options) -> String {
        document(spans: OTLPTraceBuilder(events: events, anchor: options.anchor, masking: options.masking.knowing(secretsIn: events)).spans(for: requests.sorted { $0.id < $1.id }), options: options)
    }

    /// The document for the transport exchanges of `events` alone: one CLIENT span each, the
    /// root of its request's trace, with the ids HAR's `_chainlab` gives the same exchange.
    public static func exchangesDocument(events: [TimelineEvent], options: Options) -> String {
        document(spans: OTLPTraceBuilder(events: events, anchor: options.anchor, masking: options.masking.knowing(secretsIn: events)).exchangeSpans(), options: options)
    }

    private static func document(spans: [OTLPSpan], options: Options) -> String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("resourceSpans")
        writer.beginArray()
        writer.beginObject()
        writer.key("resource")
        writer.beginObject()
        writer.key("attributes")
        writer.attributes([
            ("service.name", .string(options.serviceName)),
            ("service.version", .string(options.version)),
            ("telemetry.sdk.name", .string("chainlab")),
            ("telemetry.sdk.language", .string("swift")),
            ("telemetry.sdk.version", .string(options.version)),
        ] + (options.tlsUnverified ? [("chainlab.tls.insecure", .bool(true))] : []))
        writer.endObject()
        writer.key("scopeSpans")
        writer.beginArray()
        writer.beginObject()
        writer.key("scope")
        writer.beginObject()
        writer.key("name")
        writer.string("chainlab")
        writer.key("version")
        writer.string(options.version)
        writer.endObject()
        writer.key("spans")
        writer.beginArray()
        let epoch = OTLPTime(epoch: options.anchor.epoch)
        for span in spans {
            writer.newline()
            writer.span(span, epoch: epoch)
        }
        if !spans.isEmpty { writer.newline() }
        writer.endArray()
        writer.endObject()
        writer.endArray()
        writer.endObject()
        writer.endArray()
        writer.endObject()
        return writer.text + "\n"
    }
}

/// One span before it is written: times are lab seconds.
struct OTLPSpan {
    enum Kind: Int {
        case `internal` = 1
        case client = 3
    }

    enum Status: Equatable {
        case unset
        case error(String)
    }

    struct Event {
        var time: Double
        var name: String
        var attributes: [(String, OTLPValue)]
    }

    struct Link {
        var traceID: String
        var spanID: String
        var attributes: [(String, OTLPValue)]
    }

    var traceID: String
    var spanID: String
    var parentSpanID: String?
    var name: String
    var kind: Kind
    var start: Double
    var end: Double
    var attributes: [(String, OTLPValue)] = []
    var events: [Event] = []
    var links: [Link] = []
    var status = Status.unset
}

/// An attribute value: the `AnyValue` kinds ChainLab writes.
enum OTLPValue {
    case string(String)
    case int(Int)
    case bool(Bool)
    case strings([String])
}

/// Lab seconds as unix nanoseconds.
struct OTLPTime {
    /// The epoch in whole microseconds, so the sum stays exact in integers.
    let epochMicroseconds: Int64

    init(epoch: Date) {
        epochMicroseconds = Int64((epoch.timeIntervalSince1970 * 1_000_000).rounded())
    }

    func nanoseconds(_ seconds: Double) -> String {
        // A replayed clock can be moved by days many times over: clamped, never trapping.
        let (sum, overflow) = (epochMicroseconds &* 1000).addingReportingOverflow(Int64(saturating: max(0, seconds) * 1_000_000_000))
        return String(overflow ? .max : sum)
    }
}

extension JSONWriter {
    mutating func span(_ span: OTLPSpan, epoch: OTLPTime) {
        beginObject()
        key("traceId")
        string(span.traceID)
        key("spanId")
        string(span.spanID)
        if let parent = span.parentSpanID {
            key("parentSpanId")
            string(parent)
        }
        key("name")
        string(span.name)
        key("kind")
        int(span.kind.rawValue)
        key("startTimeUnixNano")
        string(epoch.nanoseconds(span.start))
        key("endTimeUnixNano")
        string(epoch.nanoseconds(max(span.start, span.end)))
        key("attributes")
        attributes(span.attributes)
        key("events")
        beginArray()
        for event in span.events {
            beginObject()
            key("timeUnixNano")
            string(epoch.nanoseconds(event.time))
            key("name")
            string(event.name)
            key("attributes")
            attributes(event.attributes)
            endObject()
        }
        endArray()
        key("links")
        beginArray()
        for link in span.links {
            beginObject()
            key("traceId")
            string(link.traceID)
            key("spanId")
            string(link.spanID)
            key("attributes")
            attributes(link.attributes)
            endObject()
        }
        endArray()
        key("status")
        beginObject()
        if case .error(let message) = span.status {
            key("message")
            string(message)
            key("code")
            int(2)
        }
        endObject()
        endObject()
    }

    mutating func attributes(_ attributes: [(String, OTLPValue)]) {
        beginArray()
        for (name, value) in attributes {
            beginObject()
            key("key")
            string(name)
            key("value")
            anyValue(value)
            endObject()
        }
        endArray()
    }

    private mutating func anyValue(_ value: OTLPValue) {
        beginObject()
        switch value {
        case .string(let text):
            key("stringValue")
            string(text)
        case .int(let number):
            // int64 is a string in the protobuf JSON mapping.
            key("intValue")
            string(String(number))
        case .bool(let flag):
            key("boolValue")
            bool(flag)
        case .strings(let texts):
            key("arrayValue")
            beginObject()
            key("values")
            beginArray()
            for text in texts { anyValue(.string(text)) }
            endArray()
            endObject()
        }
        endObject()
    }
}
