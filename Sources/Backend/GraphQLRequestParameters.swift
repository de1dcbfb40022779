import ChainKit
import Foundation

/// The parameters of a GraphQL-over-HTTP request, from a POST body or a GET query string.
struct GraphQLRequestParameters: Equatable {
    var operationName: String?
    var query: String?
    var variables: [String: JSONValue]
    /// `extensions.persistedQuery.sha256Hash`, when the request uses APQ.
    var persistedQueryHash: String?

    /// Why a request could not be read: answered with `status` and a `BAD_REQUEST` error.
    struct Failure: Error, Equatable {
        var status: Int
        var message: String
    }

    /// Reads a POST body: a JSON object, sent as `application/json` (or without a type).
    static func parse(postBody body: Data, contentType: String?) -> Result<Self, Failure> {
        if let type = mediaType(contentType), type != "application/json", type != "application/graphql-response+json" {
            return .failure(Failure(status: 415, message: "the body must be application/json, not \(type)"))
        }
        let json: JSONValue
        do {
            json = try JSONValue(parsing: body)
        } catch {
            return .failure(Failure(status: 400, message: "malformed JSON body: \(error.description)"))
        }
        guard let members = json.objectValue else {
            return .failure(Failure(status: 400, message: "the body must be a JSON object; batched operations are not supported"))
        }
        return read(
            operationName: members["operationName"], query: members["query"],
            variables: members["variables"], extensions: members["extensions"])
    }

    /// Reads a GET query string: `operationName` and `query` as text, `variables` and
    /// `extensions` as JSON text, all percent-encoded.
    static func parse(queryString: Substring) -> Result<Self, Failure> {
        let parameters: [String: String]
        switch FormURLEncoding.parameters(queryString) {
        case .success(let decoded): parameters = decoded
        case .failure(.badPercentEscape(let offset)):
            return .failure(Failure(status: 400, message: "bad percent escape in the query string at offset \(offset)"))
        case .failure(.repeatedParameter(let name)):
            return .failure(Failure(status: 400, message: "query parameter \"\(name)\" appears more than once"))
        }
        var json: [String: JSONValue] = [:]
        for name in ["variables", "extensions"] {
            guard let text = parameters[name], !text.isEmpty else { continue }
            do {
                json[name] = try JSONValue(parsing: text)
            } catch {
                return .failure(Failure(status: 400, message: "\(name) is not JSON: \(error.description)"))
            }
        }
        return read(
            operationName: parameters["operationName"].map(JSONValue.string), query: parameters["query"].map(JSONValue.string),
            variables: json["variables"], extensions: json["extensions"])
    }

    private static func read(
        operationName: JSONValue?, query: JSONValue?, variables: JSONValue?, extensions: JSONValue?
    ) -> Result<Self, Failure> {
        func bad(_ message: String) -> Result<Self, Failure> { .failure(Failure(status: 400, message: message)) }
        let isAbsent: (JSONValue?) -> Bool = { $0 == nil || $0 == .null }
        guard isAbsent(operationName) || operationName?.stringValue != nil else { return bad("operationName must be a string") }
        guard isAbsent(query) || query?.stringValue != nil else { return bad("query must be a string") }
        guard isAbsent(variables) || variables?.objectValue != nil else { return bad("variables must be a JSON object") }
        guard isAbsent(extensions) || extensions?.objectValue != nil else { return bad("extensions must be a JSON object") }
        var hash: String?
        if let persisted = extensions?["persistedQuery"], persisted != .null {
            guard persisted.objectValue != nil else { return bad("extensions.persistedQuery must be a JSON object") }
            guard persisted["version"] == .number(1) else { return bad("Unsupported persisted query version") }
            guard let sha = persisted["sha256Hash"]?.stringValue else {
                return bad("extensions.persistedQuery.sha256Hash must be a string")
            }
            hash = sha
        }
        return .success(GraphQLRequestParameters(
            operationName: operationName?.stringValue, query: query?.stringValue,
            variables: variables?.objectValue ?? [:], persistedQueryHash: hash))
    }
}
