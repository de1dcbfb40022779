import ChainKit
import Foundation

/// The backend's multipart answers, written as Apollo Router writes them: the
/// `Content-Type` `multipart/mixed;boundary="graphql";deferSpec=20220824` (or
/// `subscriptionSpec=1.0`), each part `CRLF--graphql CRLF content-type: application/json
/// CRLF CRLF json`, the delimiter sent right after each part so the client knows it is
/// complete, and `--graphql--` at the end.
enum IncrementalAnswers {
    /// Seconds between the initial payload of a @defer answer and its increment.
    static let deferDelay = 0.08
    /// Seconds between two parts of a subscription answer.
    static let eventInterval = 0.1
    /// The names `HeroNameChanged` reports, one event each.
    static let heroNames = ["R2-D2", "Artoo", "Artoo-Detoo"]

    private static let boundary = "graphql"

    /// A query with one deferred fragment: `initial` first, then `fields` merged at `path`
    /// `deferDelay` later. A client that does not accept `deferSpec=20220824` gets the whole
    /// result at once, as a server without incremental delivery answers.
    static func deferred(
        initial: [String: JSONValue], path: [JSONValue], label: String, fields: [String: JSONValue], accept: String?
    ) -> BackendResponse {
        guard accepts(accept, MultipartResponseDeferParser.specification) else {
            return .json(200, ["data": .object(merged(initial, fields, at: path))])
        }
        let first: JSONValue = ["data": .object(initial), "hasNext": true]
        let increment: JSONValue = ["incremental": [["data": .object(fields), "path": .array(path), "label": .string(label)]], "hasNext": false]
        return multipart(MultipartResponseDeferParser.specification, parts: [(0, first), (deferDelay, increment)], closeDelay: 0)
    }

    /// A subscription: one event per payload, a heartbeat after the first, then the server
    /// closes the stream.
    static func subscription(events: [JSONValue], accept: String?) -> BackendResponse {
        guard accepts(accept, MultipartResponseSubscriptionParser.specification) else {
            return .graphQLError(
                406, message: "subscriptions over HTTP need Accept: multipart/mixed;subscriptionSpec=1.0", code: "NOT_ACCEPTABLE")
        }
        var parts: [(Double, JSONValue)] = []
        for (index, event) in events.enumerated() {
            parts.append((index == 0 ? 0 : eventInterval, ["payload": ["data": event]]))
            if index == 0 { parts.append((eventInterval, [:])) }
        }
        return multipart(MultipartResponseSubscriptionParser.specification, parts: parts, closeDelay: eventInterval / 2)
    }

    private static func accepts(_ accept: String?, _ specification: String) -> Bool {
        guard let accept else { return false }
        return accept.split(separator: ",").contains { range in
            let directives = range.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            return directives.first?.lowercased() == "multipart/mixed" && directives.contains(specification)
        }
    }

    private static func multipart(_ specification: String, parts: [(delay: Double, json: JSONValue)], closeDelay: Double) -> BackendResponse {
        var pieces: [BackendResponse.Piece] = []
        for (index, part) in parts.enumerated() {
            let opening = index == 0 ? "\r\n--\(boundary)" : ""
            let text = opening + "\r\ncontent-type: application/json\r\n\r\n" + part.json.jsonString(escaping: .minimal) + "\r\n--\(boundary)"
            pieces.append(BackendResponse.Piece(delay: part.delay, bytes: Data(text.utf8)))
        }
        pieces.append(BackendResponse.Piece(delay: closeDelay, bytes: Data("--\r\n".utf8)))
        return BackendResponse(
            status: 200,
            headers: BackendResponse.fields([("Content-Type", "multipart/mixed;boundary=\"\(boundary)\";\(specification)")]),
            pieces: pieces)
    }

    private static func merged(_ object: [String: JSONValue], _ fields: [String: JSONValue], at path: [JSONValue]) -> [String: JSONValue] {
        guard case .string(let key)? = path.first, case .object(let child)? = object[key] else {
            return object.merging(fields) { current, _ in current }
        }
        var copy = object
        copy[key] = .object(merged(child, fields, at: Array(path.dropFirst())))
        return copy
    }
}
