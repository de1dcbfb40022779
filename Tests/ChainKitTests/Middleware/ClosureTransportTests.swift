import Foundation
import Testing
@testable import ChainKit

@Suite struct ClosureTransportTests {
    private let baseURL = URL(string: "https://api.example.com")!
    private let request = HTTPRequest(method: .get, path: "/pets")

    @Test func closureReceivesEverythingTheTransportWasAskedToSend() async throws {
        let transport = ClosureTransport { request, body, baseURL, operationID in
            let bytes = try await body?.collect(upTo: 100) ?? Data()
            let summary = "\(request.method) \(baseURL.absoluteString)\(request.path ?? "") \(operationID) \(String(decoding: bytes, as: UTF8.self))"
            return (HTTPResponse(status: 200), HTTPBody(summary))
        }

        let (_, body) = try await transport.send(request, body: HTTPBody("hello"), baseURL: baseURL, operationID: "listPets")

        #expect(String(decoding: try await body?.collect(upTo: 100) ?? Data(), as: UTF8.self)
            == "GET https://api.example.com/pets listPets hello")
    }

    @Test func statusPresetAnswersWithStatusHeadersAndBody() async throws {
        let headers = try HTTPFields(["Content-Type": "text/plain"])
        let transport = ClosureTransport.status(200, body: "ok", headerFields: headers)

        let (response, body) = try await transport.send(request, body: nil, baseURL: baseURL, operationID: "op")

        #expect(response == HTTPResponse(status: 200, headerFields: headers))
        #expect(try await body?.collect(upTo: 100) == Data("ok".utf8))
    }

    @Test func statusPresetWithoutBodyAnswersNoBody() async throws {
        let (response, body) = try await ClosureTransport.status(204).send(request, body: nil, baseURL: baseURL, operationID: "op")

        #expect(response.status == 204)
        #expect(body == nil)
    }

    @Test func failingPresetThrowsTheGivenError() async throws {
        struct Unreachable: Error, Equatable {}

        await #expect(throws: Unreachable()) {
            _ = try await ClosureTransport.failing(with: Unreachable()).send(self.request, body: nil, baseURL: self.baseURL, operationID: "op")
        }
    }

    @Test func echoPresetAnswersWithTheRequestBody() async throws {
        let (response, body) = try await ClosureTransport.echo.send(request, body: HTTPBody("ping"), baseURL: baseURL, operationID: "op")

        #expect(response.status == 200)
        #expect(try await body?.collect(upTo: 100) == Data("ping".utf8))
    }
}
