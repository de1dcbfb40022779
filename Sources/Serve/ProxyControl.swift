import ChainKit
import Foundation
import HTTPServer
import Vocabulary

/// The bodies of the proxy's `POST /_lab/` controls, checked field by field: an unknown
/// field is refused by name rather than ignored, so a typo never queues the wrong fault.
enum ProxyControl {
    enum Command {
        case inject(count: Int, match: UpstreamProxy.Match, answer: UpstreamProxy.InjectedAnswer)
        case latency(Double, UpstreamProxy.Match)
    }

    struct Failure: Error, Equatable {
        let reason: String
    }

    static let list = "GET /_lab/state, GET /_lab/har, POST /_lab/fail-next, POST /_lab/unauthorized-next, POST /_lab/latency, POST /_lab/reset"

    /// Fields a `fail-next` answer may not set: the proxy frames its answers itself.
    private static let framing: Set<String> = ["content-length", "transfer-encoding", "connection", "content-type"]

    static func command(path: String, body: Data) -> Result<Command, Failure> {
        let control = String(path.dropFirst("/_lab/".count))
        let object: [String: JSONValue]
        if body.isEmpty {
            object = [:]
        } else {
            guard case .object(let parsed)? = try? JSONValue(parsing: body) else { return .failure(Failure(reason: "the body of \(control) must be a JSON object")) }
            object = parsed
        }
        let known: [String] = switch control {
        case "latency": ["seconds", "match"]
        case "fail-next": ["count", "status", "headers", "match"]
        default: ["count", "mode", "match"]
        }
        if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) {
            return .failure(Failure(reason: "\(control) has an unknown field \"\(VisibleEscapes.escape(unknown))\"; known: \(known.joined(separator: ", "))"))
        }
        var match = UpstreamProxy.Match()
        if let value = object["match"] {
            guard case .object(let members) = value else { return .failure(Failure(reason: "match must be an object such as {\"path\": \"/graphql\"} or {\"operationName\": \"Me\"}")) }
            if let key = members.keys.sorted().first(where: { $0 != "path" && $0 != "operationName" }) {
                return .failure(Failure(reason: "match has an unknown key \"\(VisibleEscapes.escape(key))\"; known: path, operationName"))
            }
            match.path = members["path"]?.stringValue
            match.operationName = members["operationName"]?.stringValue
        }
        if control == "latency" {
            guard let seconds = object["seconds"]?.numberValue, seconds >= 0, seconds <= 600 else { return .failure(Failure(reason: "seconds must be a number from 0 to 600")) }
            return .success(.latency(seconds, match))
        }
        let countValue = object["count"]?.numberValue ?? 1
        guard countValue >= 1, countValue <= 10_000, countValue == countValue.rounded() else { return .failure(Failure(reason: "count must be a whole number from 1 to 10000")) }
        let count = Int(countValue)
        if control == "fail-next" {
            let statusValue = object["status"]?.numberValue ?? 503
            guard statusValue >= 400, statusValue <= 599, statusValue == statusValue.rounded() else {
                return .failure(Failure(reason: "status must be a whole number from 400 to 599 (429, 500, 503…)"))
            }
            switch headers(object["headers"]) {
            case .failure(let failure): return .failure(failure)
            case .success(let headers): return .success(.inject(count: count, match: match, answer: .status(Int(statusValue), headers: headers)))
            }
        }
        switch object["mode"]?.stringValue ?? "status401" {
        case "status401": return .success(.inject(count: count, match: match, answer: .unauthorized401))
        case "graphQLError200": return .success(.inject(count: count, match: match, answer: .unauthenticatedGraphQLError200))
        default: return .failure(Failure(reason: "mode must be status401 or graphQLError200"))
        }
    }

    /// `fail-next`'s `headers`: an object of field names to string (or whole number) values.
    private static func headers(_ value: JSONValue?) -> Result<[HTTPServerHeader], Failure> {
        guard let value else { return .success([]) }
        guard case .object(let members) = value else { return .failure(Failure(reason: "headers must be an object such as {\"Retry-After\": \"2\"}")) }
        var headers: [HTTPServerHeader] = []
        for name in members.keys.sorted() {
            let shown = VisibleEscapes.escape(name)
            guard HTTPSyntax.isToken(name.utf8) else { return .failure(Failure(reason: "headers: \"\(shown)\" is not a field name (letters, digits and !#$%&'*+-.^_`|~)")) }
            guard !framing.contains(name.lowercased()) else { return .failure(Failure(reason: "headers: \(shown) is set by the proxy itself")) }
            let text: String
            switch members[name] {
            case .string(let string)?: text = string
            case .number(let number)? where number == number.rounded() && abs(number) < 1e15: text = String(Int(number))
            default: return .failure(Failure(reason: "headers.\(shown) must be a string or a whole number"))
            }
            guard !text.utf8.contains(where: { $0 == HTTPSyntax.cr || $0 == HTTPSyntax.lf || $0 == 0 }) else {
                return .failure(Failure(reason: "headers.\(shown) has CR, LF or NUL in its value"))
            }
            headers.append(HTTPServerHeader(name: name, value: text))
        }
        return .success(headers)
    }
}
