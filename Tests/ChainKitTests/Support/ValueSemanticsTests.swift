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
