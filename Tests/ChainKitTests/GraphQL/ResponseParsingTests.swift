import ChainKit
import Foundation
import Testing

/// Reading single JSON responses, against Apollo iOS 2.4's `JSONResponseParser` and
/// `JSONResponseParsingInterceptor`.
@Suite("Response parsing")
struct ResponseParsingTests {
    func parse(_ body: String) throws -> ChainResponse {
        try ChainResponse(parsing: Data(body.utf8), source: .server)
    }

    /// Mirrors apollo-ios-dev `JSONResponseParsingInterceptorTests.test__intercept__givenEmptyResponse_throwsParsingError`.
    @Test("an empty chunk fails with couldNotParseToJSON")
    func emptyChunk() async throws {
        let transport = InMemoryGraphQLTransport { request in
            NetworkResponse(status: 200, url: request.url, chunks: PullStream([Data()]))
        }
        let outcome = await run(makeChain(transport: transport).kickoff(request: request()))
        guard case .couldNotParseToJSON(_, let count) = try #require(outcome.error as? JSONResponseParsingError) else {
            Issue.record("expected couldNotParseToJSON, got \(String(describing: outcome.error))")
            return
        }
        #expect(count == 0)
        #expect(outcome.responses.isEmpty)
    }

    /// Mirrors apollo-ios-dev `JSONResponseParser_SingleResponseParsingTests.test__parsing__givenErrorWithCustomKey_errorCustomKeyShouldNotBeNil`
    /// and upstream's `GraphQLError.message` being optional: an error without a message is kept whole.
    @Test("an error without a message is kept, its message nil and its other members intact")
    func errorWithoutMessage() throws {
        let response = try parse(#"{"data":null,"errors":[{"extensions":{"code":"BAD"}},{"message":"boom","path":["hero"]}]}"#)
        let errors = try #require(response.errors)
        #expect(errors.count == 2)
        #expect(errors[0].message == nil)
        #expect(errors[0].code == "BAD")
        // GraphQLError.swift: `description` is `message ?? "GraphQL Error"`, nothing more.
        #expect(errors[0].description == "GraphQL Error")
        #expect(errors[0].localizedDescription == "GraphQL Error")
        #expect(errors[1].description == "boom")
        #expect(errors[1].message == "boom")
        #expect(errors[1]["path"] == ["hero"])
    }

    /// Upstream's `GraphQLResult.errors` is optional: absent and empty are different answers.
    @Test("errors absent is nil; an empty errors list stays an empty list", arguments: [
        (#"{"data":{"hero":null}}"#, nil),
        (#"{"data":{"hero":null},"errors":[]}"#, 0),
        (#"{"errors":[{"message":"x"}]}"#, 1),
    ] as [(String, Int?)])
    func errorsAbsentOrEmpty(body: String, count: Int?) throws {
        let response = try parse(body)
        #expect(response.errors?.count == count)
        #expect(response.json == (try JSONValue(parsing: Data(body.utf8))).removingNullData)
    }

    /// ResponseParsing/BaseResponseExecutionHandler.swift reads `data` as `responseBody["data"]
    /// as? JSONObject`: anything but an object is no data.
    @Test("a data member that is not an object is no data", arguments: [
        #"{"data":5}"#, #"{"data":"hero"}"#, #"{"data":[{"hero":null}]}"#, #"{"data":true}"#, #"{"data":null}"#,
    ])
    func nonObjectData(body: String) throws {
        #expect(try parse(body).data == nil)
        #expect(try parse(#"{"data":{"hero":null}}"#).data == ["hero": .null])
    }

    /// BaseResponseExecutionHandler.swift's `parseErrors()` reads `errors` as
    /// `[JSONObject]`: one entry that is not an object, or a member that is not a list, is no
    /// errors at all.
    @Test("errors with an entry that is not an object are no errors", arguments: [
        #"{"data":{},"errors":[{"message":"a"},"b"]}"#, #"{"data":{},"errors":[null]}"#, #"{"data":{},"errors":{"message":"a"}}"#,
        #"{"data":{},"errors":"boom"}"#,
    ])
    func nonObjectErrors(body: String) throws {
        #expect(try parse(body).errors == nil)
    }

    /// Mirrors apollo-ios-dev `JSONResponseParser_SingleResponseParsingTests.test__parsing__givenMissingExtensions_extensionShouldBeNil`
    /// and `test__parsing__givenExtensionWithEmptyValue_extensionShouldNotBeNil`.
    @Test("extensions: absent is nil, an empty object is kept")
    func extensions() throws {
        #expect(try parse(#"{"data":{}}"#).extensions == nil)
        #expect(try parse(#"{"data":{},"extensions":{}}"#).extensions == [:])
    }
}

private extension JSONValue {
    /// The body as `ChainResponse.json` writes it back: a `null` data member is left out.
    var removingNullData: JSONValue {
        guard var object = objectValue else { return self }
        if object["data"] == .null { object["data"] = nil }
        return .object(object)
    }
}
