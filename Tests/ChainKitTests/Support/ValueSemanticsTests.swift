import ChainKit
import Foundation
import Testing

@Suite struct ValueSemanticsTests {
    static let operation = ChainOperation(name: "HeroQuery", kind: .query, document: "query HeroQuery { hero { id } }")
    static let endpoint = URL(string: "https://lab.local/graphql")!

    @Test("changing a copy of a GraphQL request leaves the original as it was")
    func requestCopiesAreIndependent() throws {
        let original = ChainRequest(operation: Self.operation, graphQLEndpoint: Self.endpoint)
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
        let one = ChainRequest(operation: Self.operation, graphQLEndpoint: Self.endpoint, additionalHeaders: try HTTPFields(["A": "1"]))
        var other = ChainRequest(operation: Self.operation, graphQLEndpoint: Self.endpoint)
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
        let parsed = try ChainResponse(parsing: Data(#"{"data":{"hero":{"name":"R2-D2"}}}"#.utf8), source: .server)
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
        let built = ChainResponse(source: .server, data: .object(["hero": .object(["name": .string("R2-D2")])]))
        #expect(built == parsed)
        #expect(!built.isIdentical(to: parsed))
    }

    @Test("a GraphQL request copy is identical to the original until one of them changes")
    func requestIdentity() {
        let original = ChainRequest(operation: Self.operation, graphQLEndpoint: Self.endpoint)
        var copy = original
        #expect(copy.isIdentical(to: original))
        copy.useGETForQueries = false
        #expect(!copy.isIdentical(to: original))
        #expect(copy == original)
    }

    /// A body creator of another type: requests differ by their creator's type alone.
    struct OtherBodyCreator: JSONRequestBodyCreator {
        func requestBody(
            for operation: ChainOperation, sendQueryDocument: Bool, autoPersistQuery: Bool, clientAwareness: ClientAwarenessMetadata?
        ) -> [String: JSONValue] { [:] }
    }

    @Test("every field of a GraphQL request is set on its own: the others, and the original, stay as they were")
    func everyRequestFieldIsItsOwn() throws {
        let original = ChainRequest(operation: Self.operation, graphQLEndpoint: Self.endpoint)
        let changes: [(String, (inout ChainRequest) -> Void)] = [
            ("operation", { $0.operation = ChainOperation(name: "Other", kind: .mutation, document: "mutation Other { x }") }),
            ("graphQLEndpoint", { $0.graphQLEndpoint = URL(string: "https://elsewhere.local/graphql")! }),
            ("additionalHeaders", { $0.additionalHeaders = try! HTTPFields(["A": "1"]) }),
            ("fetchBehavior", { $0.fetchBehavior = .NetworkOnly }),
            ("writeResultsToCache", { $0.writeResultsToCache = false }),
            ("apqConfig", { $0.apqConfig = AutoPersistedQueryConfiguration(autoPersistQueries: true) }),
            ("useGETForQueries", { $0.useGETForQueries = true }),
            ("isPersistedQueryRetry", { $0.isPersistedQueryRetry = true }),
            ("requestTimeout", { $0.requestTimeout = 3 }),
            ("clientAwareness", { $0.clientAwareness = ClientAwarenessMetadata(clientApplicationName: "app", clientApplicationVersion: "1") }),
            ("requestBodyCreator", { $0.requestBodyCreator = OtherBodyCreator() }),
        ]
        func fieldsDiffering(_ a: ChainRequest, _ b: ChainRequest) -> [String] {
            var names: [String] = []
            if a.operation != b.operation { names.append("operation") }
            if a.graphQLEndpoint != b.graphQLEndpoint { names.append("graphQLEndpoint") }
            if a.additionalHeaders != b.additionalHeaders { names.append("additionalHeaders") }
            if a.fetchBehavior != b.fetchBehavior { names.append("fetchBehavior") }
            if a.writeResultsToCache != b.writeResultsToCache { names.append("writeResultsToCache") }
            if a.apqConfig != b.apqConfig { names.append("apqConfig") }
            if a.useGETForQueries != b.useGETForQueries { names.append("useGETForQueries") }
            if a.isPersistedQueryRetry != b.isPersistedQueryRetry { names.append("isPersistedQueryRetry") }
            if a.requestTimeout != b.requestTimeout { names.append("requestTimeout") }
            if a.clientAwareness != b.clientAwareness { names.append("clientAwareness") }
            if type(of: a.requestBodyCreator) != type(of: b.requestBodyCreator) { names.append("requestBodyCreator") }
            return names
        }
        for (name, change) in changes {
            var changed = original
            change(&changed)
            #expect(fieldsDiffering(original, changed) == [name])
            #expect(changed != original, "\(name)")
            #expect(!changed.isIdentical(to: original), "\(name)")
            #expect(original == ChainRequest(operation: Self.operation, graphQLEndpoint: Self.endpoint), "\(name)")
        }
    }

    @Test("a GraphQL result read from a body keeps it until a field changes")
    func responseBodyGoesWithAChange() throws {
        let body = Data(#"{"data":{"hero":{"name":"R2-D2"}}}"#.utf8)
        let parsed = try ChainResponse(parsing: body, source: .server)
        #expect(parsed.body == body)
        var copy = parsed
        #expect(copy.body == body)
        copy.extensions = ["cost": 1]
        #expect(copy.body == nil)
        #expect(copy.extensions == ["cost": 1])
        #expect(copy.data == parsed.data)
        #expect(parsed.body == body)
        #expect(parsed.extensions == nil)
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
