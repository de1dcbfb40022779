import Backend
import ChainKit
import Foundation
import Lab

/// A backend on a virtual clock, with verbs for the requests tests send.
struct BackendHarness {
    let clock = VirtualClock()
    let backend: LabBackend

    init(_ settings: LabBackend.Settings = LabBackend.Settings()) {
        let clock = self.clock
        backend = LabBackend(settings: settings, now: { clock.now.seconds })
    }

    func advance(seconds: Int64) {
        clock.advance(by: .seconds(seconds))
    }

    func send(_ method: String, _ target: String, headers: [(String, String)] = [], body: String = "") -> BackendResponse {
        let fields = (try? HTTPFields(pairs: headers)) ?? HTTPFields()
        return backend.handle(BackendRequest(method: method, target: target, headers: fields, body: Data(body.utf8)))
    }

    /// `POST /graphql` with a JSON body and, when given, a bearer token.
    func graphQL(_ body: JSONValue, token: String?) -> BackendResponse {
        var headers = [("Content-Type", "application/json")]
        if let token { headers.append(("Authorization", "Bearer \(token)")) }
        return send("POST", "/graphql", headers: headers, body: body.jsonString)
    }

    /// `POST /graphql` running `HeroQuery` by name and text.
    func heroQuery(token: String?) -> BackendResponse {
        graphQL(["operationName": "HeroQuery", "query": .string(LabOperations.heroQuery.document), "variables": [:]], token: token)
    }

    /// `POST /oauth/token` with a form body.
    func token(_ form: String) -> BackendResponse {
        send("POST", "/oauth/token", headers: [("Content-Type", "application/x-www-form-urlencoded")], body: form)
    }

    func refresh(_ refreshToken: String) -> BackendResponse {
        token("grant_type=refresh_token&refresh_token=\(refreshToken)")
    }
}

extension BackendResponse {
    var text: String { String(decoding: body, as: UTF8.self) }
    var json: JSONValue? { try? JSONValue(parsing: body) }
}

let heroData = #"{"data":{"hero":{"id":"2001","name":"R2-D2"}}}"#
