import ChainKit
import Foundation
import Testing

@Suite("ResponseCodeInterceptor")
struct ResponseCodeInterceptorTests {
    /// Mirrors apollo-ios-dev `ResponseCodeInterceptorTests.testResponseCodeInterceptorDoesNotLetDataThroughWithInvalidResponseCode`:
    /// the data of a 401 never reaches the caller, and `graphQLError` is the whole body read
    /// as one error object (so its message is nil and its description "GraphQL Error").
    @Test("401 with data: no result gets through; the error carries the chunk and the whole body as graphQLError")
    func invalidStatusData() async throws {
        let body = #"{"data":{"hero":{"__typename":"Human","name":"Luke Skywalker"}}}"#
        let chain = makeChain(transport: .respond(status: 401, body: body))
        let outcome = await run(chain.kickoff(request: request()))
        let error = try #require(outcome.error as? ResponseCodeError)
        #expect(outcome.responses.isEmpty)
        #expect(error.chunk == Data(body.utf8))
        #expect(error.response.status == 401)
        #expect(error.response.url == endpoint)
        #expect(error.graphQLError?["data"] == ["hero": ["__typename": "Human", "name": "Luke Skywalker"]])
        #expect(error.graphQLError?.message == nil)
        #expect(error.graphQLError?.description == "GraphQL Error")
        #expect(error.description == "Received a 401 error.")
    }

    @Test("401 with a GraphQL errors body: graphQLError is the whole body, its errors member intact")
    func errorsBody() async throws {
        let body = #"{"errors":[{"message":"token expired","extensions":{"code":"UNAUTHENTICATED"}}]}"#
        let outcome = await run(makeChain(transport: .respond(status: 401, body: body)).kickoff(request: request()))
        let error = try #require(outcome.error as? ResponseCodeError)
        #expect(error.graphQLError?["errors"] == [["message": "token expired", "extensions": ["code": "UNAUTHENTICATED"]]])
        #expect(error.graphQLError?.message == nil)
    }

    /// Mirrors apollo-ios-dev `ResponseCodeInterceptorTests.testResponseCodeInterceptorLetsAnyDataThroughWithValidResponseCode`.
    @Test("a 200 lets any bytes through to the parser, which then fails with couldNotParseToJSON")
    func validStatusAnyData() async throws {
        let outcome = await run(makeChain(transport: .respond(status: 200, body: #""invalid": {}"#)).kickoff(request: request()))
        guard case .couldNotParseToJSON = try #require(outcome.error as? JSONResponseParsingError) else {
            Issue.record("expected couldNotParseToJSON, got \(String(describing: outcome.error))")
            return
        }
    }

    /// Mirrors apollo-ios-dev `ResponseCodeInterceptorTests.testResponseCodeInterceptorDoesNotHaveGraphQLError`.
    @Test("401 with a plain-text body: status 401 and no parsed error")
    func plainTextBody() async throws {
        let chain = makeChain(transport: .respond(status: 401, body: "Unauthorized"))
        let outcome = await run(chain.kickoff(request: request()))
        let error = try #require(outcome.error as? ResponseCodeError)
        #expect(error.status == 401)
        #expect(error.body == Data("Unauthorized".utf8))
        #expect(error.graphQLError == nil)
        #expect(error.description == "Received a 401 error.")
    }

    @Test("2xx passes through untouched")
    func success() async {
        let outcome = await run(makeChain(transport: .respond(status: 201, body: heroBody)).kickoff(request: request()))
        #expect(outcome.responses == [ChainResponse(source: .server, data: heroData)])
    }

    @Test("a body that is not JSON fails parsing with a clear error")
    func unparsableBody() async {
        let outcome = await run(makeChain(transport: .respond(status: 200, body: "<html>")).kickoff(request: request()))
        #expect("\(outcome.error!)" == "the 6-byte response body is not JSON: not valid JSON at line 1, column 1: unexpected character '<', expected a value")
    }
}
