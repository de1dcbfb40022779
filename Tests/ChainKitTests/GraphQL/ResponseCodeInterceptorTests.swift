import ChainKit
import Foundation
import Testing

@Suite("ResponseCodeInterceptor")
struct ResponseCodeInterceptorTests {
    @Test("401 with a JSON body fails with ResponseCodeError carrying the exact body and the parsed GraphQL error")
    func jsonBody() async throws {
        let body = #"{"errors":[{"message":"token expired","extensions":{"code":"UNAUTHENTICATED"}}]}"#
        let chain = makeChain(transport: .respond(status: 401, body: body))
        let outcome = await run(chain.kickoff(request: request()))
        let error = try #require(outcome.error as? ResponseCodeError)
        #expect(error.status == 401)
        #expect(error.body == Data(body.utf8))
        #expect(error.graphQLError == GraphQLError(message: "token expired", extensions: ["code": "UNAUTHENTICATED"]))
        #expect(error.graphQLError?.isUnauthenticated == true)
        #expect(error.url == endpoint)
        #expect(outcome.responses.isEmpty)
    }

    @Test("401 with a plain-text body: status 401 and no parsed error")
    func plainTextBody() async throws {
        let chain = makeChain(transport: .respond(status: 401, body: "Unauthorized"))
        let outcome = await run(chain.kickoff(request: request()))
        let error = try #require(outcome.error as? ResponseCodeError)
        #expect(error.status == 401)
        #expect(error.body == Data("Unauthorized".utf8))
        #expect(error.graphQLError == nil)
        #expect(error.description == "HTTP 401 from https://lab.example/graphql (ResponseCodeError)")
    }

    @Test("2xx passes through untouched")
    func success() async {
        let outcome = await run(makeChain(transport: .respond(status: 201, body: heroBody)).kickoff(request: request()))
        #expect(outcome.responses == [GraphQLResponse(source: .server, data: heroData)])
    }

    @Test("a body that is not JSON fails parsing with a clear error")
    func unparsableBody() async {
        let outcome = await run(makeChain(transport: .respond(status: 200, body: "<html>")).kickoff(request: request()))
        #expect("\(outcome.error!)" == "the 6-byte response body is not JSON: not valid JSON at line 1, column 1: unexpected character '<', expected a value")
    }
}
