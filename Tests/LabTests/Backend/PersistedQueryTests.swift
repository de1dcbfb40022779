import Backend
import Foundation
import ChainKit
import Lab
import Testing

@Suite struct PersistedQueryTests {
    let hash = SHA256Digest.hex(of: LabOperations.heroQuery.document)

    func persisted(_ hash: String, query: String? = nil) -> JSONValue {
        var body: [String: JSONValue] = [
            "operationName": "HeroQuery", "variables": [:],
            "extensions": ["persistedQuery": ["version": 1, "sha256Hash": .string(hash)]],
        ]
        if let query { body["query"] = .string(query) }
        return .object(body)
    }

    @Test func unknownHashWithoutQueryIsPersistedQueryNotFound() {
        let lab = BackendHarness()
        let response = lab.graphQL(persisted(hash), token: lab.backend.issueTokens().accessToken)
        #expect(response.status == 200)
        #expect(response.text == #"{"errors":[{"extensions":{"code":"PERSISTED_QUERY_NOT_FOUND"},"message":"PersistedQueryNotFound"}]}"#)
        #expect(lab.backend.counters["apqMisses"] == 1)
    }

    @Test func queryWithItsHashIsStoredThenTheHashAloneRunsIt() {
        let lab = BackendHarness()
        let token = lab.backend.issueTokens().accessToken
        #expect(lab.graphQL(persisted(hash), token: token).json?["errors"]?[0]?["message"] == "PersistedQueryNotFound")
        let register = lab.graphQL(persisted(hash, query: LabOperations.heroQuery.document), token: token)
        #expect(register.status == 200)
        #expect(register.text == heroData)
        let hashOnly = lab.graphQL(persisted(hash), token: token)
        #expect(hashOnly.status == 200)
        #expect(hashOnly.text == heroData)
        #expect(lab.backend.counters["apqMisses"] == 1)
        #expect(lab.backend.counters["apqRegistered"] == 1)
    }

    @Test func hashOnlyWorksOverGet() {
        let lab = BackendHarness()
        let token = lab.backend.issueTokens().accessToken
        _ = lab.graphQL(persisted(hash, query: LabOperations.heroQuery.document), token: token)
        let extensions = #"{"persistedQuery":{"version":1,"sha256Hash":"\#(hash)"}}"#
            .addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let response = lab.send(
            "GET", "/graphql?operationName=HeroQuery&extensions=\(extensions)", headers: [("Authorization", "Bearer \(token)")])
        #expect(response.text == heroData)
    }

    @Test func hashThatIsNotTheQuerysSHA256Is400() {
        let lab = BackendHarness()
        let token = lab.backend.issueTokens().accessToken
        let wrong = String(repeating: "0", count: 64)
        let response = lab.graphQL(persisted(wrong, query: LabOperations.heroQuery.document), token: token)
        #expect(response.status == 400)
        #expect(response.text == #"{"errors":[{"extensions":{"code":"BAD_REQUEST"},"message":"provided sha does not match query"}]}"#)
        #expect(lab.graphQL(persisted(wrong), token: token).json?["errors"]?[0]?["message"] == "PersistedQueryNotFound")
        #expect(lab.backend.counters["apqRegistered"] == 0)
    }

    @Test func unsupportedPersistedQueryVersionIs400() {
        let lab = BackendHarness()
        let body: JSONValue = ["operationName": "HeroQuery", "extensions": ["persistedQuery": ["version": 2, "sha256Hash": .string(hash)]]]
        let response = lab.graphQL(body, token: lab.backend.issueTokens().accessToken)
        #expect(response.status == 400)
        #expect(response.json?["errors"]?[0]?["message"] == "Unsupported persisted query version")
    }
}
