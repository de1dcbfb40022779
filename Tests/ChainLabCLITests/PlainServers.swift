import ChainKit
import Foundation
import HTTPServer
import Synchronization

/// Two servers that are not ChainLab labs, as a user's own backend would be: a plain GraphQL
/// server (no `/_lab/`, no token endpoint of its own) and a separate RFC 6749 token endpoint
/// with refresh-token rotation and reuse detection. They share one book of valid tokens.
///
/// GraphQL at `/graphql`, REST under `/api/` (answers `{"path": …}`, 201 for POST); any
/// other path: 404.
/// - a request without a valid `Bearer` access token gets 401 `{"errors":[…]}`;
/// - operation `Text` gets a `text/plain` body, `Big` a JSON body of 3 MiB, `Slow` no
///   answer for 20 s; `HeroQuery` `{"data":{"hero":{"id":"1","name":"Ada"}}}`; any other
///   operation `{"data":{"me":{"id":"1","name":"Ada"}}}`.
///
/// Token endpoint at `/token` (client `app`, secret `s3cret`, by Basic or in the body):
/// `refresh_token` issues `access-N`/`refresh-N` and invalidates the refresh token used; a
/// second use of it is `400 invalid_grant`; `client_credentials` issues an access token only.
final class PlainServers: Sendable {
    struct Exchange: Sendable {
        var method: String
        var target: String
        var headers: [HTTPServerHeader]
        var body: Data

        func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }

        var form: [String: String] {
            var result: [String: String] = [:]
            for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0) }
                result[parts[0]] = parts.count > 1 ? parts[1] : ""
            }
            return result
        }

        var json: JSONValue? { try? JSONValue(parsing: body) }
    }

    private struct Book {
        var access: Set<String> = ["valid-token"]
        var refresh: Set<String> = ["refresh-0"]
        var issued = 0
        var graphQL: [Exchange] = []
        var grants: [Exchange] = []
    }

    /// The state both servers share.
    private final class Ledger: Sendable {
        let book = Mutex(Book())
    }

    private let ledger = Ledger()
    private let graphQLServer: HTTPServer
    private let tokenServer: HTTPServer
    let graphQLPort: UInt16
    let tokenPort: UInt16

    /// The numeric address both listen on.
    let host: String

    init(host: String = "127.0.0.1") throws {
        let ledger = ledger
        self.host = host
        graphQLServer = HTTPServer(host: host) { request in await PlainServers.graphQL(request, ledger) }
        tokenServer = HTTPServer(host: host) { request in PlainServers.token(request, ledger) }
        graphQLPort = try graphQLServer.start()
        tokenPort = try tokenServer.start()
    }

    deinit {
        graphQLServer.stop()
        tokenServer.stop()
    }

    private var authority: String { host.contains(":") ? "[\(host)]" : host }
    var graphQLURL: String { "http://\(authority):\(graphQLPort)/graphql" }
    var tokenURL: String { "http://\(authority):\(tokenPort)/token" }
    /// Every request the GraphQL server received, in order.
    var graphQLExchanges: [Exchange] { ledger.book.withLock { $0.graphQL } }
    /// Every request the token endpoint received, in order.
    var grants: [Exchange] { ledger.book.withLock { $0.grants } }

    private static func record(_ request: HTTPServerRequest) -> Exchange {
        Exchange(method: request.method, target: request.target, headers: request.headers, body: request.body)
    }

    private static func json(_ status: Int, _ text: String) -> HTTPServerResponse {
        HTTPServerResponse(status: status, headers: [HTTPServerHeader(name: "Content-Type", value: "application/json")], body: Data(text.utf8))
    }

    private static func graphQL(_ request: HTTPServerRequest, _ ledger: Ledger) async -> HTTPServerResponse {
        let exchange = record(request)
        ledger.book.withLock { $0.graphQL.append(exchange) }
        let path = request.target.prefix { $0 != "?" }
        guard path == "/graphql" || path.hasPrefix("/api/") else { return .text("no such page\n", status: 404) }
        let authorization = request.value(forHeader: "Authorization") ?? ""
        let token = authorization.hasPrefix("Bearer ") ? String(authorization.dropFirst(7)) : ""
        guard ledger.book.withLock({ $0.access.contains(token) }) else {
            return json(401, #"{"errors":[{"message":"not signed in"}]}"#)
        }
        if request.target.hasPrefix("/api/") {
            return json(request.method == "POST" ? 201 : 200, #"{"path":"\#(request.target)"}"#)
        }
        switch exchange.json?["operationName"]?.stringValue {
        case "Text": return .text("plain words, not JSON")
        case "Big": return Self.json(200, #"{"data":{"blob":""# + String(repeating: "x", count: 3 << 20) + #""}}"#)
        case "Slow":
            try? await Task.sleep(for: .seconds(20))
            return Self.json(200, #"{"data":{}}"#)
        case "HeroQuery": return Self.json(200, #"{"data":{"hero":{"id":"1","name":"Ada"}}}"#)
        default: return Self.json(200, #"{"data":{"me":{"id":"1","name":"Ada"}}}"#)
        }
    }

    private static func token(_ request: HTTPServerRequest, _ ledger: Ledger) -> HTTPServerResponse {
        let exchange = record(request)
        ledger.book.withLock { $0.grants.append(exchange) }
        let form = exchange.form
        let basic = "Basic " + Data("app:s3cret".utf8).base64EncodedString()
        guard request.value(forHeader: "Authorization") == basic || (form["client_id"] == "app" && form["client_secret"] == "s3cret") else {
            return Self.json(401, #"{"error":"invalid_client","error_description":"unknown client or wrong secret"}"#)
        }
        return ledger.book.withLock { book in
            switch form["grant_type"] {
            case "refresh_token":
                guard let presented = form["refresh_token"], book.refresh.remove(presented) != nil else {
                    return Self.json(400, #"{"error":"invalid_grant","error_description":"refresh token unknown or already used"}"#)
                }
                book.issued += 1
                book.access.insert("access-\(book.issued)")
                book.refresh.insert("refresh-\(book.issued)")
                return Self.json(200, #"{"access_token":"access-\#(book.issued)","token_type":"Bearer","expires_in":300,"refresh_token":"refresh-\#(book.issued)"}"#)
            case "client_credentials":
                book.issued += 1
                book.access.insert("access-\(book.issued)")
                return Self.json(200, #"{"access_token":"access-\#(book.issued)","token_type":"Bearer","expires_in":300}"#)
            default:
                return Self.json(400, #"{"error":"unsupported_grant_type"}"#)
            }
        }
    }
}
