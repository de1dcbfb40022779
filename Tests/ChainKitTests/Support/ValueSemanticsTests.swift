import ChainKit
import Foundation
import Testing

@Suite struct ValueSemanticsTests {
    static let operation = GraphQLOperation(name: "HeroQuery", kind: .query, document: "query HeroQuery { hero { id } }")
    static let endpoint = URL(string: "https://lab.local/graphql")!

    @Test("changing a copy of a GraphQL request leaves the original as it was")
    func requestCopiesAreIndependent() throws {
        let original = GraphQLRequest(operation: Self.operation, graphQLEndpoint: Self.endpoint)
        var changed = original
        changed.additionalHeaders = try HTTPFields(["Authorization": "Bearer a"])
        changed.isPersistedQueryRetry = true
        changed.requestTimeout = 5
        #expect(original.additionalHeaders.isEmpty)
        #expect(!original.isPersistedQueryRetry)
        #expect(original.requestTimeout == nil)
        #expect(changed.additionalHeaders["authorization"] == "Bearer a")
        #expect(changed.isPersistedQueryRetry)
        #expect(changed.requestTimeout == 5)
        #expect(changed.operation == original.operation)
        #expect(changed.fetchBehavior == .CacheFirst)
        #expect(original != changed)
    }

    @Test("GraphQL requests built apart compare and hash by their fields")
    func requestEqualityIsByValue() throws {
        let one = GraphQLRequest(operation: Self.operation, graphQLEndpoint: Self.endpoint, additionalHeaders: try HTTPFields(["A": "1"]))
        var other = GraphQLRequest(operation: Self.operation, graphQLEndpoint: Self.endpoint)
        #expect(one != other)
        other.additionalHeaders = try HTTPFields(["A": "1"])
        #expect(one == other)
        #expect(one.hashValue == other.hashValue)
        other.requestTimeout = nil
        #expect(one == other)
        #expect(Set([one, other]).count == 1)
    }

    @Test("a GraphQL result copy is identical until changed, and equal by value after")
    func responseIdentityAndValue() throws {
        let parsed = try GraphQLResponse(parsing: Data(#"{"data":{"hero":{"name":"R2-D2"}}}"#.utf8), source: .server)
        var copy = parsed
        #expect(copy.isIdentical(to: parsed))
        copy.source = .cache
        #expect(!copy.isIdentical(to: parsed))
        #expect(parsed.source == .server)
        #expect(copy.data == parsed.data)
        #expect(copy != parsed)
        copy.source = .server
        #expect(!copy.isIdentical(to: parsed))
        #expect(copy == parsed)
        #expect(copy.hashValue == parsed.hashValue)
        let built = GraphQLResponse(source: .server, data: .object(["hero": .object(["name": .string("R2-D2")])]))
        #expect(built == parsed)
        #expect(!built.isIdentical(to: parsed))
    }

    @Test("a GraphQL request copy is identical to the original until one of them changes")
    func requestIdentity() {
        let original = GraphQLRequest(operation: Self.operation, graphQLEndpoint: Self.endpoint)
        var copy = original
        #expect(copy.isIdentical(to: original))
        copy.useGETForQueries = false
        #expect(!copy.isIdentical(to: original))
        #expect(copy == original)
    }

    @Test("the clock's seconds follow advances and sleeps")
    func clockSeconds() async throws {
        let clock = VirtualClock(start: .milliseconds(250))
        #expect(clock.seconds == 0.25)
        clock.advance(by: .milliseconds(1_500))
        #expect(clock.seconds == 1.75)
        #expect(clock.seconds == clock.now.seconds)
        try await clock.sleep(for: .seconds(2))
        #expect(clock.seconds == 3.75)
        try await clock.sleep(until: VirtualClock.Instant(offset: .seconds(1)))
        #expect(clock.seconds == 3.75)
    }
}
