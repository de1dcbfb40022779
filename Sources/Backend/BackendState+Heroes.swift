import ChainKit
import Foundation

extension BackendState {
    /// `GET /heroes` lists every character; `POST /heroes` with `{"name": "..."}` adds one.
    mutating func serveHeroes(_ request: BackendRequest, now: Double) -> BackendResponse {
        count(.restRequests)
        if let refusal = authorize(request, now: now, graphQL: false) { return refusal }
        let hostile = settings.hostile
        guard request.method == "POST" else {
            let list = heroes.order.compactMap { heroes[$0]?.json(hostile: hostile) }
            return .json(200, ["heroes": .array(list)])
        }
        if let type = mediaType(request.headers["Content-Type"]), type != "application/json" {
            return .restError(415, error: "unsupported_media_type", message: "the body must be application/json, not \(type)")
        }
        let json: JSONValue
        do {
            json = try JSONValue(parsing: request.body)
        } catch {
            return .restError(400, error: "bad_request", message: "malformed JSON body: \(error.description)")
        }
        guard let name = json["name"]?.stringValue, !name.isEmpty else {
            return .restError(400, error: "bad_request", message: "the body must be a JSON object with a non-empty string \"name\"")
        }
        guard let hero = heroes.create(name: name) else {
            return .restError(
                507, error: "insufficient_storage", message: "the lab keeps at most \(HeroStore.creationLimit) new heroes")
        }
        return .json(201, hero.json(hostile: hostile), extraHeaders: [("Location", "/heroes/\(hero.id)")])
    }

    /// `GET /heroes/{id}`: one character, or 404.
    mutating func serveHero(id: String, request: BackendRequest, now: Double) -> BackendResponse {
        count(.restRequests)
        if let refusal = authorize(request, now: now, graphQL: false) { return refusal }
        guard let hero = heroes[id] else {
            return .restError(404, error: "not_found", message: "no hero with id \"\(id)\"")
        }
        return .json(200, hero.json(hostile: settings.hostile))
    }
}
