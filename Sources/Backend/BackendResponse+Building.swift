import ChainKit
import Foundation

extension BackendResponse {
    /// A JSON response. `extraHeaders` are the backend's own names and values, all valid
    /// header fields by construction.
    static func json(_ status: Int, _ value: JSONValue, extraHeaders: [(String, String)] = []) -> BackendResponse {
        BackendResponse(
            status: status, headers: fields([("Content-Type", "application/json")] + extraHeaders),
            body: value.encoded(escaping: .minimal))
    }

    /// A GraphQL-style error body: `{"errors":[{"message","extensions":{"code"}}]}`, with
    /// `"data": null` when `nullData` is set.
    static func graphQLError(
        _ status: Int, message: String, code: String, nullData: Bool = false, extraHeaders: [(String, String)] = []
    ) -> BackendResponse {
        var body: [String: JSONValue] = [
            "errors": [["message": .string(message), "extensions": ["code": .string(code)]]]
        ]
        if nullData { body["data"] = .null }
        return json(status, .object(body), extraHeaders: extraHeaders)
    }

    /// A REST-style error body: `{"error","message"}`.
    static func restError(_ status: Int, error: String, message: String, extraHeaders: [(String, String)] = []) -> BackendResponse {
        json(status, ["error": .string(error), "message": .string(message)], extraHeaders: extraHeaders)
    }

    /// Fields from name/value pairs the backend itself wrote. Values that echo a client
    /// are never put in headers, so none holds CR, LF or NUL and none is dropped.
    static func fields(_ pairs: [(String, String)]) -> HTTPFields {
        var fields = HTTPFields()
        for (name, value) in pairs { try? fields.append(name, value) }
        return fields
    }
}

/// The media type of a `Content-Type` value, lowercased and without parameters.
func mediaType(_ contentType: String?) -> String? {
    guard let contentType else { return nil }
    let type = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
    return type.trimmingCharacters(in: .whitespaces).lowercased()
}
