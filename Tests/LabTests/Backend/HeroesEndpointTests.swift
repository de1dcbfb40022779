import Backend
import ChainKit
import Foundation
import Lab
import Testing

@Suite struct HeroesEndpointTests {
    @Test func getHeroReturnsIt() {
        let lab = BackendHarness()
        let response = lab.send("GET", "/heroes/1000", headers: [("Authorization", "Bearer \(lab.backend.issueTokens().accessToken)")])
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(response.text == #"{"id":"1000","name":"Luke Skywalker"}"#)
    }

    @Test func unknownHeroIs404() {
        let lab = BackendHarness()
        let response = lab.send("GET", "/heroes/9%209", headers: [("Authorization", "Bearer \(lab.backend.issueTokens().accessToken)")])
        #expect(response.status == 404)
        #expect(response.text == #"{"error":"not_found","message":"no hero with id \"9 9\""}"#)
    }

    @Test func postHeroCreatesItWith201() {
        let lab = BackendHarness()
        let auth = ("Authorization", "Bearer \(lab.backend.issueTokens().accessToken)")
        let created = lab.send("POST", "/heroes", headers: [auth, ("Content-Type", "application/json")], body: #"{"name":"Han Solo"}"#)
        #expect(created.status == 201)
        #expect(created.headers["Location"] == "/heroes/3001")
        #expect(created.text == #"{"id":"3001","name":"Han Solo"}"#)
        #expect(lab.send("GET", "/heroes/3001", headers: [auth]).text == #"{"id":"3001","name":"Han Solo"}"#)
        #expect(lab.send("GET", "/heroes", headers: [auth]).text == #"{"heroes":[{"id":"1000","name":"Luke Skywalker"},{"id":"2000","name":"C-3PO"},{"id":"2001","name":"R2-D2"},{"id":"3001","name":"Han Solo"}]}"#)
    }

    @Test func postHeroWithoutANameIs400() {
        let lab = BackendHarness()
        let response = lab.send(
            "POST", "/heroes", headers: [("Authorization", "Bearer \(lab.backend.issueTokens().accessToken)")], body: #"{"name":""}"#)
        #expect(response.status == 400)
        #expect(response.text == #"{"error":"bad_request","message":"the body must be a JSON object with a non-empty string \"name\""}"#)
    }

    @Test func restRoutesNeedAToken() {
        let lab = BackendHarness()
        let response = lab.send("GET", "/heroes/2001")
        #expect(response.status == 401)
        #expect(lab.backend.counters["restRequests"] == 1)
        #expect(lab.backend.counters["unauthorized"] == 1)
    }

    @Test func middlewareRequestsConvertWithTheirPath() throws {
        let lab = BackendHarness()
        let headers = try HTTPFields(["Authorization": "Bearer \(lab.backend.issueTokens().accessToken)"])
        let request = BackendRequest(HTTPRequest(method: .get, path: "/heroes/2000", headerFields: headers), body: Data())
        #expect(request.target == "/heroes/2000")
        #expect(lab.backend.handle(request).text == #"{"id":"2000","name":"C-3PO"}"#)
    }
}
