import Wire
import Foundation
import Testing

/// The swift-http-types API as ChainKit speaks it. Each test names the upstream file whose
/// behaviour it pins (apple/swift-http-types, Sources/HTTPTypes/).
@Suite("HTTP types as swift-http-types has them")
struct UpstreamHTTPTypesTests {
    @Test("HTTPFields.swift: a name's values join with \", \", a Cookie's with \"; \"; setting replaces them where the first was")
    func subscriptByName() {
        var fields: HTTPFields = [.accept: "text/plain", .init("X-Trace")!: "1", .contentType: "text/html", .init("x-trace")!: "2"]
        #expect(fields[.init("X-TRACE")!] == "1, 2")
        #expect(fields[values: .init("x-Trace")!] == ["1", "2"])

        fields[.init("X-Trace")!] = "3"
        #expect(fields.map(\.name) == ["Accept", "X-Trace", "Content-Type"])
        #expect(fields[.init("x-trace")!] == "3")

        fields[.cookie] = "a=1; b=2"
        #expect(fields[values: .cookie] == ["a=1", "b=2"])
        #expect(fields[.cookie] == "a=1; b=2")

        fields[.contentType] = nil
        #expect(fields.contains(.contentType) == false)
        #expect(fields[.authorization] == nil)
        #expect(fields.description == "Accept: text/plain\nX-Trace: 3\nCookie: a=1\nCookie: b=2")
    }

    @Test("HTTPFieldName.swift: names are tokens, compared without case and kept as written")
    func names() {
        #expect(HTTPField.Name("X-Request-ID")?.rawName == "X-Request-ID")
        #expect(HTTPField.Name("X-Request-ID")?.canonicalName == "x-request-id")
        #expect(HTTPField.Name("x-request-id") == HTTPField.Name("X-REQUEST-ID"))
        #expect(HTTPField.Name("bad name") == nil)
        #expect(HTTPField.Name("") == nil)
        #expect(HTTPField.Name.wwwAuthenticate.rawName == "WWW-Authenticate")
        #expect(HTTPField.Name.eTag.rawName == "ETag")
    }

    @Test("HTTPField.swift: a value set through a name has its invalid bytes made spaces and its ends trimmed")
    func legalizedValues() {
        var fields = HTTPFields()
        fields[.init("X-Note")!] = "  a\r\nb\u{0}c  "
        #expect(fields[.init("X-Note")!] == "a  b c")
        #expect(HTTPField(name: .authorization, value: "Bearer abc").value == "Bearer abc")
    }

    @Test("HTTPRequest.swift: a method is a token; the pseudo-header values are optional")
    func requests() {
        #expect(HTTPRequest.Method("PROPFIND")?.rawValue == "PROPFIND")
        #expect(HTTPRequest.Method("GE T") == nil)
        #expect(HTTPRequest.Method(rawValue: "") == nil)
        var request = HTTPRequest(method: .post, scheme: "https", authority: "api.example.com:8443", path: "/pets?limit=2")
        request.headerFields[.contentType] = "application/json"
        #expect(request.method == .post)
        #expect(request.url(relativeTo: URL(string: "http://localhost/v1")!)?.absoluteString == "https://api.example.com:8443/v1/pets?limit=2")
        let relative = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/pets")
        #expect(relative.url(relativeTo: URL(string: "http://localhost:8080/v1/")!)?.absoluteString == "http://localhost:8080/v1/pets")
        #expect(relative != HTTPRequest(method: .get, scheme: "https", authority: nil, path: "/pets"))
    }

    @Test("HTTPResponse.swift: a status is its code; its kind comes from the first digit; named ones carry their phrase")
    func statuses() {
        let response = HTTPResponse(status: 401)
        #expect(response.status == .unauthorized)
        #expect(response.status.code == 401)
        #expect(response.status.reasonPhrase == "")
        #expect(HTTPResponse.Status.unauthorized.description == "401 Unauthorized")
        #expect(HTTPResponse.Status(code: 200, reasonPhrase: "Fine\r\n").reasonPhrase == "Fine  ")
        #expect([100, 204, 302, 404, 503, 999].map { HTTPResponse.Status(code: $0).kind }
            == [.informational, .successful, .redirection, .clientError, .serverError, .invalid])
        #expect(HTTPResponse.Status.tooManyRequests.code == 429)
    }
}

/// swift-openapi-runtime's `HTTPBody` (apple/swift-openapi-runtime,
/// Sources/OpenAPIRuntime/Interface/HTTPBody.swift and AsyncSequenceCommon.swift).
@Suite("HTTPBody as swift-openapi-runtime has it")
struct UpstreamHTTPBodyTests {
    @Test("bodies made of bytes are replayable with a known length; collecting reads them whole")
    func bytes() async throws {
        let body: HTTPBody = "hello"
        #expect(body.iterationBehavior == .multiple)
        #expect(body.length == .known(5))
        #expect(try await String(collecting: body, upTo: 5) == "hello")
        #expect(try await Array(collecting: body, upTo: 5) == Array("hello".utf8))
        #expect(try await Data(collecting: HTTPBody([104, 105]), upTo: 2) == Data("hi".utf8))
        #expect(try await ArraySlice(collecting: HTTPBody(Data("ok".utf8)), upTo: 10) == ArraySlice("ok".utf8))
        #expect(HTTPBody().length == .known(0))
    }

    @Test("a stream is read once: a second reader fails with upstream's words")
    func singlePass() async throws {
        let (stream, continuation) = AsyncThrowingStream<HTTPBody.ByteChunk, any Error>.makeStream()
        continuation.yield(ArraySlice("ab".utf8))
        continuation.yield(ArraySlice("c".utf8))
        continuation.finish()
        let body = HTTPBody(stream, length: .unknown)
        #expect(body.iterationBehavior == .single)
        var chunks: [String] = []
        for try await chunk in body { chunks.append(String(decoding: chunk, as: UTF8.self)) }
        #expect(chunks == ["ab", "c"])
        let error = await #expect(throws: (any Error).self) { _ = try await Data(collecting: body, upTo: 10) }
        #expect(error.map { "\($0)" } == "OpenAPIRuntime.HTTPBody attempted to create a second iterator, but the underlying sequence is only safe to be iterated once.")
    }

    @Test("collecting more than the limit fails with upstream's words, before reading a body of known length")
    func tooManyBytes() async throws {
        let error = await #expect(throws: (any Error).self) { _ = try await String(collecting: HTTPBody("12345"), upTo: 4) }
        #expect(error.map { "\($0)" } == "OpenAPIRuntime.HTTPBody contains more than the maximum allowed 4 bytes.")
    }
}
