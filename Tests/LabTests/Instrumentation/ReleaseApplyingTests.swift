import ChainKit
import Foundation
@testable import Instrumentation
@testable import Lab
@testable import Scheduling
import Testing

/// What each disposition does to what waits at a stop: the one place that decides it.
@Suite("A release applied to a request or a response")
struct ReleaseApplyingTests {
    static let endpoint = URL(string: "https://lab.example/graphql")!
    static let hero = ChainOperation(name: "HeroQuery", kind: .query, document: "query HeroQuery { hero { id } }")
    static let forcedBody = #"{"errors":[{"message":"Unauthorized (401 forced in ChainLab)","extensions":{"code":"UNAUTHENTICATED"}}]}"#

    static func fields(_ pairs: KeyValuePairs<String, String>) -> HTTPFields {
        var fields = HTTPFields()
        for (name, value) in pairs { try! fields.append(name, value) }
        return fields
    }

    static let edited = fields(["Authorization": "Bearer edited", "X-Trace": "1"])
    static let graphQL = ChainRequest(operation: hero, graphQLEndpoint: endpoint, additionalHeaders: fields(["Authorization": "Bearer old"]))
    static let network = NetworkRequest(method: .post, url: endpoint, headerFields: fields(["Accept": "application/json"]), body: Data("{}".utf8))
    static let okResponse = NetworkResponse(status: 200, headerFields: fields(["Content-Type": "application/json"]), url: endpoint, body: Data(#"{"data":{}}"#.utf8))

    static func body(of response: NetworkResponse) async throws -> String {
        var data = Data()
        for try await chunk in response.chunks { data.append(chunk) }
        return String(decoding: data, as: UTF8.self)
    }

    // MARK: pre-flight

    @Test("a GraphQL pre-flight: edits replace the additional headers; a forced retry throws Retry with the edited request; a fault is thrown")
    func graphQLPreflight() throws {
        #expect(try Release.proceed.applied(to: Self.graphQL).isIdentical(to: Self.graphQL))
        let edited = try Release(requestHeaders: Self.edited).applied(to: Self.graphQL)
        #expect(edited.additionalHeaders == Self.edited)
        #expect(edited.operation == Self.hero)
        do {
            _ = try Release(disposition: .forceRetry, requestHeaders: Self.edited).applied(to: Self.graphQL)
            Issue.record("a forced retry must throw")
        } catch let retry as ChainRunner.Retry {
            #expect(retry.request.additionalHeaders == Self.edited)
        }
        #expect(throws: LabFault.timeout) { try Release(disposition: .fail(.timeout)).applied(to: Self.graphQL) }
    }

    @Test("an HTTP pre-flight: edits replace the header fields, nothing else changes; a fault is thrown")
    func httpPreflight() throws {
        var expected = Self.network
        expected.headerFields = Self.edited
        #expect(try Release(requestHeaders: Self.edited).applied(to: Self.network) == expected)
        #expect(try Release.proceed.applied(to: Self.network) == Self.network)
        let middleware = HTTPRequest(method: .get, path: "/heroes/1", headerFields: Self.fields(["Accept": "*/*"]))
        #expect(try Release(requestHeaders: Self.edited).applied(to: middleware) == HTTPRequest(method: .get, path: "/heroes/1", headerFields: Self.edited))
        #expect(throws: LabFault.transportError) { try Release(disposition: .fail(.transportError)).applied(to: Self.network) }
        #expect(throws: LabFault.cancellation) { try Release(disposition: .fail(.cancellation)).pass() }
        try Release(disposition: .force401).pass()
    }

    @Test("a transport's pre-flight: a forced 401 sends nothing; otherwise the edited request goes")
    func transportPreflight() throws {
        #expect(try Release(disposition: .force401, requestHeaders: Self.edited).sending(Self.network) == nil)
        #expect(try Release(requestHeaders: Self.edited).sending(Self.network)?.headerFields == Self.edited)
        #expect(throws: LabFault.timeout) { try Release(disposition: .fail(.timeout)).sending(Self.network) }
    }

    // MARK: post-flight

    @Test("an HTTP post-flight: a forced 401 replaces the answer with the forced body; status and headers edits apply on top")
    func httpPostflight() async throws {
        let forced = try Release(disposition: .force401).applied(to: .success(Self.okResponse), url: Self.endpoint)
        #expect(forced.status == 401)
        #expect(forced.headerFields == Self.fields(["Content-Type": "application/json"]))
        #expect(forced.url == Self.endpoint)
        #expect(try await Self.body(of: forced) == Self.forcedBody)
        // A forced 401 stands in for a failure too.
        let instead = try Release(disposition: .force401).applied(to: Result<NetworkResponse, any Error>.failure(LabFault.timeout), url: Self.endpoint)
        #expect(instead.status == 401)
        let edited = try Release(responseStatus: 503, responseHeaders: Self.edited).applied(to: .success(Self.okResponse), url: Self.endpoint)
        #expect(edited.status == 503)
        #expect(edited.headerFields == Self.edited)
        #expect(try await Self.body(of: edited) == #"{"data":{}}"#)
        #expect(throws: LabFault.cancellation) {
            try Release(disposition: .fail(.cancellation)).applied(to: .success(Self.okResponse), url: Self.endpoint)
        }
        #expect(throws: LabFault.timeout) {
            try Release.proceed.applied(to: Result<NetworkResponse, any Error>.failure(LabFault.timeout), url: Self.endpoint)
        }
    }

    @Test("a transport's answer: a forced 401 carries the forced body as its bytes")
    func transportAnswer() throws {
        let received = ReceivedAnswer(HTTPResponse(status: 200), body: Data("ok".utf8))
        let forced = try Release(disposition: .force401, responseHeaders: Self.edited).applied(to: .success(received), url: Self.endpoint)
        #expect(forced.head == HTTPResponse(status: 401, headerFields: Self.edited))
        #expect(String(decoding: forced.body, as: UTF8.self) == Self.forcedBody)
        let kept = try Release(responseStatus: 418).applied(to: .success(received), url: Self.endpoint)
        #expect(kept.head == HTTPResponse(status: 418))
        #expect(String(decoding: kept.body, as: UTF8.self) == "ok")
    }

    @Test("a middleware's post-flight: a forced retry says call next again (nil), even after a failure; a forced 401 answers with the forced body")
    func middlewarePostflight() async throws {
        let answer = MiddlewareAnswer(HTTPResponse(status: 200), HTTPBody("fine"))
        #expect(try Release(disposition: .forceRetry).appliedOrRetried(to: .success(answer)) == nil)
        #expect(try Release(disposition: .forceRetry).appliedOrRetried(to: .failure(LabFault.timeout)) == nil)
        let forced = try #require(try Release(disposition: .force401).appliedOrRetried(to: .success(answer)))
        #expect(forced.head == HTTPResponse(status: 401, headerFields: Self.fields(["Content-Type": "application/json"])))
        #expect(String(decoding: try await forced.body!.collect(upTo: 1024), as: UTF8.self) == Self.forcedBody)
        let edited = try #require(try Release(responseHeaders: Self.edited).appliedOrRetried(to: .success(answer)))
        #expect(edited.head == HTTPResponse(status: 200, headerFields: Self.edited))
        #expect(throws: LabFault.transportError) { try Release(disposition: .fail(.transportError)).appliedOrRetried(to: .success(answer)) }
    }

    @Test("a GraphQL post-flight: a forced 401 is a ResponseCodeError naming the handed endpoint; a forced retry starts again from what the hop received")
    func graphQLPostflight() throws {
        let result = ChainResponse(source: .server, data: ["hero": ["id": "1"]])
        var handed = Self.graphQL
        handed.graphQLEndpoint = URL(string: "https://elsewhere.example/graphql")!
        #expect(try Release.proceed.applied(to: .success(result), handed: handed, received: Self.graphQL) == result)
        do {
            _ = try Release(disposition: .force401).applied(to: .success(result), handed: handed, received: Self.graphQL)
            Issue.record("a forced 401 must throw")
        } catch let error as ResponseCodeError {
            #expect(error.status == 401)
            #expect(error.url == handed.graphQLEndpoint)
            #expect(String(decoding: error.body, as: UTF8.self) == Self.forcedBody)
        }
        do {
            _ = try Release(disposition: .forceRetry).applied(to: .failure(LabFault.timeout), handed: handed, received: Self.graphQL)
            Issue.record("a forced retry must throw")
        } catch let retry as ChainRunner.Retry {
            #expect(retry.request.isIdentical(to: Self.graphQL))
        }
        #expect(throws: LabFault.sessionEnded) {
            try Release(disposition: .fail(.sessionEnded)).applied(to: .success(result), handed: handed, received: Self.graphQL)
        }
    }
}
