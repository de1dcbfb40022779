import ChainKit
import Foundation
import Testing

/// Results checked against their operation's selections, as Apollo iOS 2.4's executor checks
/// a network response (`Sources/Apollo/Execution/GraphQLExecutor.swift`: `GraphQLExecutionError`
/// and its text; `Sources/ApolloAPI/JSONDecodingError.swift`: `missingValue`, `nullValue`,
/// `wrongType`; `Sources/Apollo/Execution/ExecutionSources/NetworkResponseExecutionSource.swift`:
/// an absent field is `missingValue`).
@Suite("Result execution against the selections")
struct ResultExecutionTests {
    static let schema = CacheSchema(fieldTypes: ["Query.hero": "Hero", "Hero.friends": "Hero"], nonNullFields: ["Hero.name"])

    func failure(_ document: String, _ data: JSONValue, schema: CacheSchema = schema, variables: [String: JSONValue]? = nil) throws -> String? {
        let executor = try ResultNormalizer(operation: ChainOperation(name: "Q", kind: .query, document: document, variables: variables), schema: schema)
        do {
            try executor.execute(try #require(data.objectValue))
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test("what fails, where, in upstream's words", arguments: [
        ("query Q { hero { id name } }", #"{"hero":{"id":"1"}}"#, #"Error at path "hero.name)": missingValue"#),
        ("query Q { hero { id name } }", #"{}"#, #"Error at path "hero)": missingValue"#),
        ("query Q { hero { id name } }", #"{"hero":{"id":"1","name":null}}"#, #"Error at path "hero.name)": nullValue"#),
        ("query Q { hero { id name } }", #"{"hero":"R2"}"#, #"Error at path "hero)": wrongType"#),
        ("query Q { hero { friends { name } } }", #"{"hero":{"friends":[{"name":"Luke"},null,{}]}}"#, #"Error at path "hero.friends.2.name)": missingValue"#),
        ("query Q { r2: hero { id } }", #"{"hero":{"id":"1"}}"#, #"Error at path "r2)": missingValue"#),
    ])
    func failures(document: String, data: String, expected: String) throws {
        #expect(try failure(document, try JSONValue(parsing: data)) == expected)
    }

    @Test("what passes: null where allowed, extra fields, deferred, skipped and type-conditioned fields", arguments: [
        ("query Q { hero { id name } }", #"{"hero":null}"#),
        ("query Q { hero { id } }", #"{"hero":{"id":null,"extra":1}}"#),
        (#"query Q { hero { id ... @defer(label: "n") { name } } }"#, #"{"hero":{"id":"1"}}"#),
        ("query Q($s: Boolean!) { hero { id name @skip(if: $s) } }", #"{"hero":{"id":"1"}}"#),
        ("query Q { villain { id ... on Droid { function } } }", #"{"villain":{"id":"1"}}"#),
        ("query Q { hero { friends { name } } }", #"{"hero":{"friends":null}}"#),
    ])
    func passes(document: String, data: String) throws {
        #expect(try failure(document, try JSONValue(parsing: data), variables: ["s": true]) == nil)
    }

    @Test("without nullability from a schema, only absent fields and wrong types fail")
    func withoutSchema() throws {
        #expect(try failure("query Q { hero { id name } }", ["hero": ["id": "1", "name": .null]], schema: Self.schema.withoutNullability) == nil)
        #expect(try failure("query Q { hero { id name } }", ["hero": ["id": "1"]], schema: CacheSchema()) == #"Error at path "hero.name)": missingValue"#)
    }

    @Test("JSONDecodingError's own texts are upstream's")
    func decodingErrorTexts() {
        #expect([JSONDecodingError.missingValue, .nullValue, .wrongType].map(\.errorDescription) == ["Missing value", "Unexpected null value", "Wrong type"])
    }

    /// The error leaves the parser as the stream's failure, so an interceptor's `mapErrors`
    /// sees it (where an auth interceptor might take it for a refused token), and nothing is
    /// written to the cache.
    @Test("a result missing a field fails through every interceptor's mapErrors and is not cached")
    func throughTheChain() async throws {
        let seen = Locked<[String]>([])
        struct Watching: ChainInterceptor {
            let seen: Locked<[String]>
            func intercept(request: ChainRequest, next: ChainNext) async throws -> ChainResultStream {
                let seen = self.seen
                return await next(request).mapErrors { error in
                    seen.withLock { $0.append("\(type(of: error)): \(error)") }
                    throw error
                }
            }
        }
        let store = CacheStore()
        let transport = InMemoryGraphQLTransport { request in
            NetworkResponse(status: 200, headerFields: try HTTPFields(["Content-Type": "application/json"]), url: request.url, body: Data(#"{"data":{"hero":{"id":"1"}}}"#.utf8))
        }
        let outcome = await run(makeChain(graphQL: [Watching(seen: seen), Watching(seen: seen)], store: store, transport: transport)
            .kickoff(request: request(fetchBehavior: .CacheFirst)))
        let error = try #require(outcome.error as? GraphQLExecutionError)
        #expect(error.pathString == "hero.name")
        #expect(error.underlying as? JSONDecodingError == .missingValue)
        #expect(seen.withLock { $0 } == Array(repeating: #"GraphQLExecutionError: Error at path "hero.name)": missingValue"#, count: 2))
        #expect(outcome.responses.isEmpty)
        #expect(store.count == 0)
    }
}
