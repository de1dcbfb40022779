public import Timeline
import Wire
public import Foundation

/// Everything a `chainlab trace --format json` file holds.
public struct TraceDocument: Sendable, Hashable {
    public var scenario: String
    public var requests: [RequestSummary]
    public var events: [TimelineEvent]
    /// The lab backend's counters, such as `{"graphql": 2, "token.refresh": 1}`; nil (`null`)
    /// when the server was not a ChainLab lab and has none.
    public var backend: [String: Int]?

    /// What the run proves (refresh storms, stale-token retries…), each citing event seqs.
    public var findings: [Finding]

    /// Whether `https://` certificates went unchecked (`--insecure`): written as
    /// `"tlsVerified": false` after the scenario, and only then.
    public var tlsUnverified: Bool

    public init(
        scenario: String, requests: [RequestSummary], events: [TimelineEvent], backend: [String: Int]? = [:], findings: [Finding] = [],
        tlsUnverified: Bool = false
    ) {
        self.scenario = scenario
        self.requests = requests
        self.events = events
        self.backend = backend
        self.findings = findings
        self.tlsUnverified = tlsUnverified
    }
}

/// The whole timeline as JSON, and back.
///
/// The shape (absent values are `null`; keys in this order, one request or event per line,
/// so the same input always gives the same bytes and a diff of two traces reads well):
///
/// ```
/// {"scenario":"basics","requests":[
/// {"id":1,"operation":"HeroQuery","outcome":"success","attempts":1,"error":null,"results":["server"]}
/// ],"events":[
/// {"seq":1,"time":0,"request":1,"attempt":1,"hop":0,"name":"MaxRetryInterceptor","kind":"graphql",
///  "phase":"preflight","method":"POST","url":"…","headers":[["Accept","application/json"]],
///  "status":null,"error":null,"body":null,"bodyBytes":null,"bodyTruncated":null,
///  "diff":{"added":[],"changed":[],"removed":[]},"detail":null}
/// ],"backend":{"graphql":1},"findings":[
/// {"id":"stale-token-retry","severity":"error","message":"…","events":[7,16],"requests":[1]}
/// ]}
/// ```
///
/// (Each event is on one line in the output.) `bodyBytes` is the size of the whole body and
/// `bodyTruncated` says whether `body` is only its start.
public enum TraceJSON {
    /// Why a trace file could not be read, with the path of the offending value.
    public struct DecodingError: Error, Equatable, CustomStringConvertible {
        /// Where in the document, such as `events[3].kind`; empty for the document itself.
        public let path: String
        public let reason: String
        public init(path: String, reason: String) {
            self.path = path
            self.reason = reason
        }
        public var description: String { path.isEmpty ? "trace JSON: \(reason)" : "trace JSON at \(path): \(reason)" }
    }

    /// The document as JSON text ending in a newline, with secrets masked unless `masking`
    /// is `.revealed`.
    public static func encode(_ document: TraceDocument, masking: SecretMasking) -> String {
        let masking = masking.knowing(secretsIn: document.events)
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("scenario")
        writer.string(document.scenario)
        if document.tlsUnverified {
            writer.key("tlsVerified")
            writer.bool(false)
        }
        writer.key("requests")
        writer.beginArray()
        for request in document.requests {
            writer.newline()
            write(request, masking: masking, into: &writer)
        }
        if !document.requests.isEmpty { writer.newline() }
        writer.endArray()
        writer.key("events")
        writer.beginArray()
        for event in document.events {
            writer.newline()
            writer.event(event, fields: .all, masking: masking)
        }
        if !document.events.isEmpty { writer.newline() }
        writer.endArray()
        writer.key("backend")
        if let backend = document.backend {
            writer.beginObject()
            for name in backend.keys.sorted() {
                writer.key(name)
                writer.int(backend[name])
            }
            writer.endObject()
        } else {
            writer.null()
        }
        writer.key("findings")
        writer.beginArray()
        for finding in document.findings {
            writer.newline()
            write(finding, into: &writer)
        }
        if !document.findings.isEmpty { writer.newline() }
        writer.endArray()
        writer.endObject()
        return writer.text + "\n"
    }

    private static func write(_ request: RequestSummary, masking: SecretMasking, into writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("id")
        writer.int(request.id)
        writer.key("operation")
        writer.string(request.operation)
        writer.key("outcome")
        writer.string(request.outcome.rawValue)
        writer.key("attempts")
        writer.int(request.attempts)
        writer.key("error")
        writer.string(request.error.map(masking.text))
        writer.key("results")
        writer.strings(request.results)
        writer.endObject()
    }

    private static func write(_ finding: Finding, into writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("id")
        writer.string(finding.id)
        writer.key("severity")
        writer.string(finding.severity.rawValue)
        writer.key("message")
        writer.string(finding.message)
        writer.key("events")
        writer.beginArray()
        for seq in finding.events { writer.int(seq) }
        writer.endArray()
        writer.key("requests")
        writer.beginArray()
        for request in finding.requests { writer.int(request) }
        writer.endArray()
        writer.endObject()
    }

    /// Reads a document written by ``encode(_:masking:)`` (`findings` may be missing, as in
    /// traces written before it existed). Fields beyond those it writes are ignored; a missing
    /// field, a wrong type or an unknown kind or phase is an error naming
    /// where it is. Events that saw equal messages share one ``HopSnapshot`` again.
    public static func decode(_ data: Data) throws(DecodingError) -> TraceDocument {
        let root: JSONValue
        do {
            root = try JSONValue(parsing: data)
        } catch {
            throw DecodingError(path: "", reason: error.description)
        }
        let document = Field(value: root, path: "")
        var snapshots: [HopSnapshot: HopSnapshot] = [:]
        var backend: [String: Int]?
        if document.value?["backend"] != .null {
            var counters: [String: Int] = [:]
            for (name, count) in try document["backend"].object() {
                counters[name] = try count.int()
            }
            backend = counters
        }
        return TraceDocument(
            scenario: try document["scenario"].string(),
            requests: try document["requests"].array().map(decodeRequest),
            events: try document["events"].array().map { (field) throws(DecodingError) in
                var event = try decodeEvent(field)
                event.snapshot = snapshots[event.snapshot, default: event.snapshot]
                snapshots[event.snapshot] = event.snapshot
                return event
            },
            backend: backend,
            findings: try document["findings"].value == nil ? [] : document["findings"].array().map(decodeFinding),
            tlsUnverified: document.value?["tlsVerified"] == .bool(false))
    }

    /// A finding; traces written before findings existed have none.
    private static func decodeFinding(_ field: Field) throws(DecodingError) -> Finding {
        let severityField = field["severity"]
        let severityName = try severityField.string()
        guard let severity = FindingSeverity(rawValue: severityName) else {
            throw severityField.error("unknown severity \"\(severityName)\"; expected info, warning or error")
        }
        return Finding(
            id: try field["id"].string(), severity: severity, message: try field["message"].string(),
            events: try field["events"].array().map { (field) throws(DecodingError) in try field.int() },
            requests: try field["requests"].array().map { (field) throws(DecodingError) in try field.int() })
    }

    /// Reads a document from its text.
    public static func decode(_ text: String) throws(DecodingError) -> TraceDocument {
        try decode(Data(text.utf8))
    }

    private static func decodeRequest(_ field: Field) throws(DecodingError) -> RequestSummary {
        let outcomeField = field["outcome"]
        let outcomeName = try outcomeField.string()
        guard let outcome = RequestSummary.Outcome(rawValue: outcomeName) else {
            throw outcomeField.error("unknown outcome \"\(outcomeName)\"; expected success or failure")
        }
        return RequestSummary(
            id: try field["id"].int(), operation: try field["operation"].string(), outcome: outcome,
            attempts: try field["attempts"].int(), error: try field["error"].optional { (field) throws(DecodingError) in try field.string() },
            results: try field["results"].array().map { (field) throws(DecodingError) in try field.string() })
    }

    private static func decodeEvent(_ field: Field) throws(DecodingError) -> TimelineEvent {
        let kindField = field["kind"], phaseField = field["phase"]
        let kindName = try kindField.string(), phaseName = try phaseField.string()
        guard let kind = HopKind(rawValue: kindName) else {
            throw kindField.error("unknown kind \"\(kindName)\"; expected one of \(HopKind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard let phase = Phase(rawValue: phaseName) else {
            throw phaseField.error("unknown phase \"\(phaseName)\"; expected one of \(Phase.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let headers = try field["headers"].optional { (field) throws(DecodingError) -> HTTPFields in
            var fields = HTTPFields()
            for pair in try field.array() {
                let parts = try pair.array()
                guard parts.count == 2 else { throw pair.error("expected [name, value]") }
                let name = try parts[0].string(), value = try parts[1].string()
                do throws(HeaderValidationError) {
                    try fields.append(name, value)
                } catch {
                    throw pair.error(error.description)
                }
            }
            return fields
        }
        let body = try field["body"].optional { (text) throws(DecodingError) -> BodyPreview in
            let text = try text.string(), byteCount = try field["bodyBytes"].int(), isTruncated = try field["bodyTruncated"].bool()
            // A whole body is previewed again as it was when recorded.
            guard isTruncated || text.utf8.count != byteCount else { return BodyPreview(Data(text.utf8)) }
            return BodyPreview(text: text, byteCount: byteCount, isTruncated: isTruncated)
        }
        let diff = field["diff"]
        let strings = { (field: Field) throws(DecodingError) -> [String] in
            try field.array().map { (field) throws(DecodingError) in try field.string() }
        }
        let optionalString = { (field: Field) throws(DecodingError) -> String? in
            try field.optional { (field) throws(DecodingError) in try field.string() }
        }
        var event = TimelineEvent(
            time: try field["time"].double(), request: try field["request"].int(), attempt: try field["attempt"].int(),
            hop: try field["hop"].int(), name: try field["name"].string(), kind: kind, phase: phase,
            snapshot: HopSnapshot(
                method: try optionalString(field["method"]), url: try optionalString(field["url"]), headers: headers,
                status: try field["status"].optional { (field) throws(DecodingError) in try field.int() },
                error: try optionalString(field["error"]), body: body),
            diff: HeaderDiff(
                added: try strings(diff["added"]), changed: try strings(diff["changed"]),
                removed: try strings(diff["removed"])),
            detail: try optionalString(field["detail"]))
        event.seq = try field["seq"].int()
        // Only events in one of a request's two lanes have the key.
        let laneField = field["lane"]
        if laneField.value != nil, let laneName = try optionalString(laneField) {
            guard let lane = Lane(rawValue: laneName) else {
                throw laneField.error("unknown lane \"\(laneName)\"; expected one of \(Lane.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            event.lane = lane
        }
        return event
    }
}

/// A value in a document being decoded, with its path for error messages. A missing member
/// reads as `nil`, so only the accessor that needs it reports it.
private struct Field {
    let value: JSONValue?
    let path: String

    subscript(key: String) -> Field {
        Field(value: value?[key], path: path.isEmpty ? key : "\(path).\(key)")
    }

    func error(_ reason: String) -> TraceJSON.DecodingError {
        TraceJSON.DecodingError(path: path, reason: reason)
    }

    private func present() throws(TraceJSON.DecodingError) -> JSONValue {
        guard let value else { throw error("missing") }
        return value
    }

    func string() throws(TraceJSON.DecodingError) -> String {
        guard let string = try present().stringValue else { throw error("expected a string") }
        return string
    }

    func double() throws(TraceJSON.DecodingError) -> Double {
        guard let number = try present().numberValue else { throw error("expected a number") }
        return number
    }

    func int() throws(TraceJSON.DecodingError) -> Int {
        let number = try double()
        guard let integer = Int(exactly: number) else { throw error("expected an integer, found \(number)") }
        return integer
    }

    func bool() throws(TraceJSON.DecodingError) -> Bool {
        guard case .bool(let flag) = try present() else { throw error("expected true or false") }
        return flag
    }

    func array() throws(TraceJSON.DecodingError) -> [Field] {
        guard let elements = try present().arrayValue else { throw error("expected an array") }
        return elements.enumerated().map { Field(value: $0.element, path: "\(path)[\($0.offset)]") }
    }

    func object() throws(TraceJSON.DecodingError) -> [(String, Field)] {
        guard let members = try present().objectValue else { throw error("expected an object") }
        return members.keys.sorted().map { ($0, self[$0]) }
    }

    /// `nil` for JSON null, otherwise what `read` makes of the value; missing is an error.
    func optional<T>(_ read: (Field) throws(TraceJSON.DecodingError) -> T) throws(TraceJSON.DecodingError) -> T? {
        if case .null = try present() { return nil }
        return try read(self)
    }
}
