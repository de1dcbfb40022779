import Timeline
import Wire

/// Which of an event's fields an export writes. Every export writes them in one order, by
/// ``JSONWriter/event(_:fields:masking:)``, so a field means the same in each of them.
struct EventFields: OptionSet {
    let rawValue: Int

    /// `request` and `attempt`, for exports whose events are not already grouped by them.
    static let ids = EventFields(rawValue: 1 << 0)
    /// What the hop saw: `method`, `url`, `headers`, `body`, `bodyBytes`, `bodyTruncated`.
    static let message = EventFields(rawValue: 1 << 1)

    static let all: EventFields = [.ids, .message]
}

extension JSONWriter {
    /// One event as a JSON object, in the order (fields left out as `fields` says):
    /// `seq`, `time`, `request`, `attempt`, `hop`, `name`, `kind`, `phase`, `lane` (only while the
    /// request has two lanes, so other events are written as before), `method`, `url`,
    /// `headers`, `status`, `error`, `body`, `bodyBytes`, `bodyTruncated`, `diff`, `detail`.
    /// Headers, URLs, bodies, errors and details are masked as `masking` says.
    mutating func event(_ event: TimelineEvent, fields: EventFields, masking: SecretMasking) {
        beginObject()
        key("seq")
        int(event.seq)
        key("time")
        double(event.time)
        if fields.contains(.ids) {
            key("request")
            int(event.request)
            key("attempt")
            int(event.attempt)
        }
        key("hop")
        int(event.hop)
        key("name")
        string(event.name)
        key("kind")
        string(event.kind.rawValue)
        key("phase")
        string(event.phase.rawValue)
        if let lane = event.lane {
            key("lane")
            string(lane.rawValue)
        }
        if fields.contains(.message) {
            key("method")
            string(event.method)
            key("url")
            string(event.url.map(masking.url))
            key("headers")
            if let headers = event.headers {
                beginArray()
                for (name, value) in masking.headers(headers) { strings([name, value]) }
                endArray()
            } else {
                null()
            }
        }
        key("status")
        int(event.status)
        key("error")
        string(event.error.map(masking.text))
        if fields.contains(.message) {
            key("body")
            string(event.body.map { masking.body($0.wholeText, contentType: event.headers?["Content-Type"]) })
            key("bodyBytes")
            int(event.body?.byteCount)
            key("bodyTruncated")
            bool(event.body?.isWholeTruncated)
        }
        key("diff")
        diff(event.diff)
        key("detail")
        string(event.detail.map(masking.text))
        endObject()
    }
}
