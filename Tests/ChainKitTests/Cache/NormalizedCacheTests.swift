import ChainKit
import Foundation
import Testing

/// The normalized cache against Apollo iOS 2.4: records and keys as
/// `Sources/Apollo/Execution/ResultAccumulators/GraphQLResultNormalizer.swift`,
/// `Sources/Apollo/Caching/RecordSet.swift` and `Sources/ApolloAPI/SchemaMetadata.swift`
/// (`cacheKey(for:)`) make them, field keys as `Sources/Apollo/Internal Utilities/InputValue+Evaluation.swift`
/// (`CacheKeyForField`) formats them, and reads as `ApolloStore.load(_:)` makes them.
@Suite("Normalized cache")
struct NormalizedCacheTests {
    static let heroKeyed = CacheSchema(keyFields: ["Hero": ["id"]], fieldTypes: ["Query.hero": "Hero", "Mutation.renameHero": "Hero"])
    static let heroName = ChainOperation(name: "HeroName", kind: .query, document: "query HeroName { hero { name } }")

    func records(_ operation: ChainOperation, _ data: JSONValue, schema: CacheSchema = CacheSchema()) throws -> RecordSet {
        try ResultNormalizer(operation: operation, schema: schema).records(for: data)
    }

    // Mirrors GraphQLExecutor_ResultNormalizer_FromResponse_Tests
    // .test__execute__givenObjectWithNoCacheKey_normalizesRecordToPathFromQueryRoot.
    @Test("an object without a cache key is stored under its path from QUERY_ROOT")
    func pathKey() throws {
        let records = try records(Self.heroName, ["hero": ["__typename": "Droid", "name": "R2-D2"]])
        #expect(records.sortedKeys == ["QUERY_ROOT", "QUERY_ROOT.hero"])
        #expect(records["QUERY_ROOT"]?["hero"] == .reference(CacheReference("QUERY_ROOT.hero")))
        #expect(records["QUERY_ROOT.hero"]?["name"] == .scalar("R2-D2"))
    }

    // Mirrors ..._forFieldWithStringArgument_normalizesRecordToPathFromQueryRootIncludingArgument
    // and ..._forFieldWithEnumArgument_...: the argument is part of the field key and the path.
    @Test("a field's arguments are part of its key and of the path below it", arguments: [
        ("query Q($episode: Episode) { hero(episode: $episode) { name } }", ["episode": JSONValue.string("JEDI")] as [String: JSONValue]?, "hero(episode:JEDI)"),
        ("query Q { hero(episode: EMPIRE) { name } }", nil, "hero(episode:EMPIRE)"),
    ])
    func argumentKey(document: String, variables: [String: JSONValue]?, key: String) throws {
        let operation = ChainOperation(name: "Q", kind: .query, document: document, variables: variables)
        let records = try records(operation, ["hero": ["name": "R2-D2"]])
        #expect(records["QUERY_ROOT"]?[key] == .reference(CacheReference("QUERY_ROOT.\(key)")))
        #expect(records["QUERY_ROOT.\(key)"]?["name"] == .scalar("R2-D2"))
    }

    @Test("an id beyond a Double's 53 bits keys its record exactly as the server wrote it")
    func largeNumericID() throws {
        let operation = ChainOperation(name: "Q", kind: .query, document: "query Q { hero { id name } }")
        let data = try JSONValue(parsing: #"{"hero": {"__typename": "Hero", "id": 9007199254740993, "name": "R2-D2"}}"#)
        let records = try records(operation, data, schema: Self.heroKeyed)
        #expect(records.sortedKeys == ["Hero:9007199254740993", "QUERY_ROOT"])
        #expect(records["Hero:9007199254740993"]?["id"] == .scalar(.exactNumber("9007199254740993")))
    }

    // Mirrors ..._givenObjectWithNoCacheKey_andNestedArrayOfObjectsWithNoCacheKey_normalizesRecordsToPathsFromQueryRoot.
    @Test("list elements without a key are stored under the list's path and their index")
    func listPaths() throws {
        let operation = ChainOperation(name: "Q", kind: .query, document: "query Q { hero { name friends { name } } }")
        let records = try records(operation, ["hero": ["name": "R2-D2", "friends": [["name": "Luke Skywalker"], ["name": "Han Solo"]]]])
        #expect(records["QUERY_ROOT.hero"]?["friends"] == .list([
            .reference(CacheReference("QUERY_ROOT.hero.friends.0")), .reference(CacheReference("QUERY_ROOT.hero.friends.1")),
        ]))
        #expect(records["QUERY_ROOT.hero.friends.0"]?["name"] == .scalar("Luke Skywalker"))
    }

    // Mirrors ..._givenObjectWithCacheKey_andNestedArrayOfObjectsWithCacheKey_normalizesRecordsToIndividualReferences,
    // with the key as SchemaMetadata.cacheKey(for:) forms it: "\(typename):\(id)".
    @Test("objects with key fields get a record of their own, Type:id, with __typename or the schema's field type")
    func keyedRecords() throws {
        let operation = ChainOperation(name: "Q", kind: .query, document: "query Q { hero { id name friends { __typename id name } } }")
        let data: JSONValue = ["hero": ["id": "2001", "name": "R2-D2", "friends": [["__typename": "Hero", "id": "1000", "name": "Luke Skywalker"]]]]
        let records = try records(operation, data, schema: Self.heroKeyed)
        #expect(records.sortedKeys == ["Hero:1000", "Hero:2001", "QUERY_ROOT"])
        #expect(records["QUERY_ROOT"]?["hero"] == .reference(CacheReference("Hero:2001")))
        #expect(records["Hero:2001"]?["friends"] == .list([.reference(CacheReference("Hero:1000"))]))
        #expect(records["Hero:1000"]?.fields == ["__typename": .scalar("Hero"), "id": .scalar("1000"), "name": .scalar("Luke Skywalker")])
        #expect(records.description == """
            Hero:1000 {__typename: "Hero", id: "1000", name: "Luke Skywalker"}
            Hero:2001 {friends: [-> #Hero:1000], id: "2001", name: "R2-D2"}
            QUERY_ROOT {hero: -> #Hero:2001}
            """)
    }

    @Test("several key fields are joined with + and escaped as upstream joins them")
    func compoundKey() throws {
        let schema = CacheSchema(keyFields: ["Book": ["shelf", "title"]])
        let operation = ChainOperation(name: "Q", kind: .query, document: "query Q { book { __typename shelf title } }")
        let records = try records(operation, ["book": ["__typename": "Book", "shelf": 3, "title": "a+b\\c"]], schema: schema)
        #expect(records["QUERY_ROOT"]?["book"] == .reference(CacheReference(#"Book:3+a\+b\\c"#)))
    }

    @Test("aliases are read by response key and stored by field key")
    func aliases() throws {
        let operation = ChainOperation(name: "Q", kind: .query, document: "query Q { luke: hero(id: 1000) { name } artoo: hero(id: \"2001\") { name } }")
        let data: JSONValue = ["luke": ["name": "Luke Skywalker"], "artoo": ["name": "R2-D2"]]
        let records = try records(operation, data)
        #expect(records["QUERY_ROOT"]?.fields.keys.sorted() == ["hero(id:1000)", "hero(id:2001)"])
        #expect(try ResultNormalizer(operation: operation, schema: CacheSchema()).read(from: records) == data)
    }

    static let fieldKeyCases: [(name: String, arguments: [String: JSONValue], expected: String)] = [
        ("hero", [:], "hero"),
        ("hero", ["episode": .string("JEDI")], "hero(episode:JEDI)"),
        ("hero", ["episode": .number(1)], "hero(episode:1)"),
        ("hero", ["episode": .number(1.99)], "hero(episode:1.99)"),
        ("hero", ["episode": .null], "hero(episode:null)"),
        ("hero", ["nested": .object(["foo": .number(1), "bar": .null])], "hero([nested:bar:null,foo:1])"),
        ("hero", ["episodes": .array([.number(1), .number(1), .number(2)])], "hero(episodes:[1, 1, 2])"),
        ("hero", ["nested": .object(["foo": .number(1), "bar": .number(2)])], "hero([nested:bar:2,foo:1])"),
        ("hero", ["foo": .string("a"), "bar": .string("b")], "hero(bar:b,foo:a)"),
    ]

    // Mirrors CacheKeyForFieldTests (testFieldWithStringArgument … testFieldWithMultipleArgumentsIsOrderIndependent).
    @Test("field keys are formatted as CacheKeyForField formats them", arguments: fieldKeyCases)
    func fieldKeys(name: String, arguments: [String: JSONValue], expected: String) {
        #expect(CacheFieldKey.format(name: name, arguments: arguments) == expected)
    }

    // Mirrors RecordSet.merge(record:): a merge keeps fields it does not carry and reports
    // the key.field pairs it changed.
    @Test("merging records changes only the fields they carry and names them")
    func merge() {
        var set = RecordSet(records: [Record(key: "Hero:2001", ["id": .scalar("2001"), "name": .scalar("R2-D2"), "appearsIn": .list([.scalar("JEDI")])])])
        let changed = set.merge(records: RecordSet(records: [Record(key: "Hero:2001", ["id": .scalar("2001"), "name": .scalar("Artoo")])]))
        #expect(changed == ["Hero:2001.name"])
        #expect(set["Hero:2001"]?.fields == ["id": .scalar("2001"), "name": .scalar("Artoo"), "appearsIn": .list([.scalar("JEDI")])])
    }

    @Test("a read reassembles the result from the records")
    func loadReassembles() throws {
        let store = CacheStore(schema: Self.heroKeyed)
        let operation = ChainOperation(name: "Q", kind: .query, document: "query Q { hero { id name } }")
        try store.write(data: ["hero": ["id": "2001", "name": "R2-D2"]], for: operation)
        #expect(store.load(operation) == ChainResponse(source: .cache, data: ["hero": ["id": "2001", "name": "R2-D2"]]))
        #expect(store.records.json == ["QUERY_ROOT": ["hero": ["$reference": "Hero:2001"]], "Hero:2001": ["id": "2001", "name": "R2-D2"]])
    }

    // Mirrors ReadWriteFromStoreTests.test_readQuery_givenQueryDataDoesNotExist_throwsMissingValueError
    // and ..._givenQueryDataWithOtherVariableValueInCache_throwsMissingValueError: ApolloStore.load
    // turns the missing value into nil, a cache miss.
    @Test("a missing field, or the same field under other arguments, is a miss")
    func missingIsAMiss() throws {
        let store = CacheStore(schema: Self.heroKeyed)
        try store.write(data: ["hero": ["id": "2001", "name": "R2-D2"]], for: ChainOperation(name: "Q", kind: .query, document: "query Q { hero { id name } }"))
        let withFilms = ChainOperation(name: "F", kind: .query, document: "query F { hero { id name appearsIn } }")
        let byID = ChainOperation(name: "D", kind: .query, document: "query D($id: ID!) { hero(id: $id) { id name } }", variables: ["id": "2001"])
        #expect(store.load(withFilms) == nil)
        #expect(store.load(byID) == nil)
    }

    @Test("two operations that reach the same object share its record: a mutation's change shows in a query")
    func sharedRecord() throws {
        let store = CacheStore(schema: Self.heroKeyed)
        let hero = ChainOperation(name: "HeroQuery", kind: .query, document: "query HeroQuery { hero { id name } }")
        let rename = ChainOperation(name: "RenameHero", kind: .mutation, document: "mutation RenameHero($name: String!) { renameHero(name: $name) { id name } }", variables: ["name": "Artoo"])
        try store.write(data: ["hero": ["id": "2001", "name": "R2-D2"]], for: hero)
        let written = try store.write(data: ["renameHero": ["id": "2001", "name": "Artoo"]], for: rename)
        #expect(written.sortedKeys == ["Hero:2001", "MUTATION_ROOT"])
        #expect(written["MUTATION_ROOT"]?["renameHero(name:Artoo)"] == .reference(CacheReference("Hero:2001")))
        #expect(store.load(hero)?.data == ["hero": ["id": "2001", "name": "Artoo"]])
    }

    @Test("fragments: inline and spread fields are written; a type condition for another type is not required")
    func fragments() throws {
        let document = """
            query Q { hero { __typename id ...Names ... on Droid { primaryFunction } } }
            fragment Names on Hero { name }
            """
        let operation = ChainOperation(name: "Q", kind: .query, document: document)
        let store = CacheStore(schema: Self.heroKeyed)
        try store.write(data: ["hero": ["__typename": "Hero", "id": "2001", "name": "R2-D2"]], for: operation)
        #expect(store.records["Hero:2001"]?.fields.keys.sorted() == ["__typename", "id", "name"])
        #expect(store.load(operation)?.data == ["hero": ["__typename": "Hero", "id": "2001", "name": "R2-D2"]])
    }

    @Test("@skip and @include follow the variables")
    func conditions() throws {
        let operation = ChainOperation(name: "Q", kind: .query, document: "query Q($films: Boolean!) { hero { name appearsIn @include(if: $films) } }", variables: ["films": false])
        let store = CacheStore()
        try store.write(data: ["hero": ["name": "R2-D2"]], for: operation)
        #expect(store.load(operation)?.data == ["hero": ["name": "R2-D2"]])
        var withFilms = operation
        withFilms.variables = ["films": true]
        #expect(store.load(withFilms) == nil)
    }

    @Test("a document that cannot be read names where", arguments: [
        ("query Q { hero { name }", "at offset 23: the selection set is not closed"),
        ("query Q { hero(id: ) { name } }", "at offset 19: expected a value"),
        ("query Q { ...Missing }", "at offset 13: no fragment named Missing"),
    ])
    func parseErrors(document: String, message: String) {
        #expect(throws: SelectionParseError.self) { try SelectionSet(document: document, operationName: "Q") }
        do {
            _ = try SelectionSet(document: document, operationName: "Q")
        } catch {
            #expect(error.description == message)
        }
    }

    @Test("a persisted-only operation has no selections: nothing is written, every read misses")
    func persistedOnly() {
        let operation = ChainOperation(name: "Q", kind: .query, persistedOnlyIdentifier: "abc")
        #expect(throws: SelectionParseError.self) { try ResultNormalizer(operation: operation, schema: CacheSchema()) }
        #expect(CacheStore().load(operation) == nil)
    }
}
