import Backend
import ChainKit
import Lab
import Testing

@Suite struct RoutingTests {
    @Test func unknownPathIs404() {
        let lab = BackendHarness()
        let response = lab.send("GET", "/graphql/extra")
        #expect(response.status == 404)
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(response.text == #"{"error":"not_found","message":"no route for /graphql/extra"}"#)
    }

    @Test func wrongMethodIs405WithAllow() {
        let lab = BackendHarness()
        let graphQL = lab.send("PUT", "/graphql")
        #expect(graphQL.status == 405)
        #expect(graphQL.headers["Allow"] == "GET, POST")
        #expect(graphQL.text == #"{"error":"method_not_allowed","message":"/graphql allows GET, POST"}"#)
        #expect(lab.send("GET", "/oauth/token").headers["Allow"] == "POST")
        #expect(lab.send("POST", "/_lab/state").headers["Allow"] == "GET")
        #expect(lab.send("get", "/heroes/2001").status == 405)
    }

    @Test func targetThatIsNotAPathIs400() {
        let lab = BackendHarness()
        let response = lab.send("GET", "http://lab.local/graphql")
        #expect(response.status == 400)
        #expect(response.json?["error"] == "bad_request")
    }
}
