import Backend
import ChainKit
import Foundation
import Lab
import Testing
import TestSupport

@Suite struct MalformedInputTests {
    static let garbage: [String] = [
        "", "{", "[]", "null", "\u{0}\u{1B}[2J", #"{"query": 5}"#, #"{"variables": "x"}"#,
        String(repeating: "[", count: 10_000), #"{"extensions":{"persistedQuery":"x"}}"#, "%zz&&==",
    ]

    @Test(arguments: garbage) func garbageGraphQLBodyIs400(body: String) {
        let lab = BackendHarness()
        let response = lab.send(
            "POST", "/graphql", headers: [("Authorization", "Bearer \(lab.backend.issueTokens().accessToken)")], body: body)
        #expect(response.status == 400)
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(response.json?["errors"]?[0]?["extensions"]?["code"] == "BAD_REQUEST")
    }

    @Test(arguments: garbage) func garbageTokenBodyIs400(body: String) {
        let lab = BackendHarness()
        let response = lab.token(body)
        #expect(response.status == 400)
        #expect(response.json?["error"] != nil)
    }

    @Test func badPercentEscapeInGetIs400() {
        let lab = BackendHarness()
        let response = lab.send(
            "GET", "/graphql?operationName=%ZZ", headers: [("Authorization", "Bearer \(lab.backend.issueTokens().accessToken)")])
        #expect(response.status == 400)
        #expect(response.json?["errors"]?[0]?["message"] == "bad percent escape in the query string at offset 0")
    }

    /// Seeded random requests against every route: each answer is a real status with a
    /// Content-Type, and nothing traps.
    @Test func randomRequestsNeverTrap() throws {
        var generator = SplitMix(seed: 2024)
        let methods = ["GET", "POST", "PUT", "", "\u{1B}"]
        let targets = ["/graphql", "/oauth/token", "/heroes", "/heroes/2001", "/_lab/auth-mode", "/_lab/fail-next", "/_lab/state",
                       "/_lab/expire-tokens", "/graphql?query=%", "/heroes/%", "", "?", "/heroes//x"]
        let lab = BackendHarness(LabBackend.Settings(requireAuth: false, hostile: true))
        for _ in 0..<2_000 {
            let length = Int(generator.next() % 64)
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            let method = methods[Int(generator.next() % UInt64(methods.count))]
            let target = targets[Int(generator.next() % UInt64(targets.count))]
            let response = lab.backend.handle(BackendRequest(method: method, target: target, body: Data(bytes)))
            #expect((200...599).contains(response.status))
            #expect(response.headers["Content-Type"] == "application/json")
        }
    }
}
