import ChainKit
import Foundation
import Testing

/// What goes over the wire for a GraphQL request, against Apollo iOS 2.4's `JSONRequest`,
/// `DefaultRequestBodyCreator` and `ClientAwarenessMetadata`.
@Suite("JSONRequest wire format")
struct JSONRequestTests {
    static let subscription = ChainOperation(name: "HeroMoved", kind: .subscription, document: "subscription HeroMoved { heroMoved { id } }")

    /// Mirrors apollo-ios-dev `JSONRequestTests.test__init__givenQuery_shouldAddMultipartAcceptHeader`
    /// and `test__init__givenMutation_shouldAddMultipartAcceptHeader`; no `X-APOLLO-*` headers (1.x).
    @Test("queries and mutations send Content-Type and the deferSpec Accept, nothing else", arguments: [heroQuery, heroMutation])
    func defaultHeaders(operation: ChainOperation) throws {
        let sent = try request(operation).makeNetworkRequest()
        #expect(sent.headerFields == (try HTTPFields(pairs: [
            ("Content-Type", "application/json"),
            ("Accept", "multipart/mixed;deferSpec=20220824,application/graphql-response+json,application/json"),
        ])))
    }

    /// Mirrors apollo-ios-dev `JSONRequestTests.test__init__givenSubscription_shouldAddMultipartAcceptHeader`.
    @Test("subscriptions accept the subscriptionSpec multipart format")
    func subscriptionAccept() throws {
        let sent = try request(Self.subscription).makeNetworkRequest()
        #expect(sent.method == .post)
        #expect(sent.headerFields["Accept"] == "multipart/mixed;subscriptionSpec=1.0,application/graphql-response+json,application/json")
    }

    /// Mirrors apollo-ios-dev `JSONRequestTests.test__URLRequest__givenQuery_withGETMethod_shouldSetPreflightHeader`
    /// and `AutomaticPersistedQueriesTests.testUseGETForQueriesRequest` (additional headers kept on a GET).
    @Test("a GET drops Content-Type, keeps additional headers and adds Apollo-Require-Preflight")
    func getHeaders() throws {
        var get = request()
        get.useGETForQueries = true
        try get.additionalHeaders.set("Authorization", "Bearer 1234")
        let sent = try get.makeNetworkRequest()
        #expect(sent.method == .get)
        #expect(sent.body == nil)
        #expect(sent.headerFields == (try HTTPFields(pairs: [
            ("Accept", ChainRequest.deferAccept),
            ("Authorization", "Bearer 1234"),
            ("Apollo-Require-Preflight", "true"),
        ])))
        let query = try #require(URLComponents(url: sent.url, resolvingAgainstBaseURL: false)?.queryItems)
        #expect(query.map(\.name) == ["operationName", "query"])
        #expect(query.first { $0.name == "query" }?.value == heroQuery.document)
    }

    /// Mirrors apollo-ios-dev `AutomaticPersistedQueriesTests.testNotUseGETForQueriesRequest`.
    @Test("useGETForQueries off: a query is a POST with the document in the body")
    func postByDefault() throws {
        let sent = try request().makeNetworkRequest()
        #expect(sent.method == .post)
        #expect(sent.url == endpoint)
    }

    @Test("additional headers replace defaults of the same name and keep their own order")
    func additionalHeadersReplaceDefaults() throws {
        var post = request()
        try post.additionalHeaders.set("accept", "application/json")
        try post.additionalHeaders.set("X-Trace", "1")
        #expect(try post.makeNetworkRequest().headerFields.map(\.name) == ["Content-Type", "accept", "X-Trace"])
    }

    /// Mirrors apollo-ios-dev `RequestBodyCreatorTests.testRequestBodyWithApolloRequestBodyCreator`.
    @Test("the body has operationName, variables and query")
    func bodyWithVariables() throws {
        #expect(try bodyJSON(try request(heroMutation).makeNetworkRequest()) == [
            "operationName": "RenameHero", "variables": ["name": "Luke"], "query": .string(heroMutation.document),
        ])
    }

    /// `DefaultRequestBodyCreator` writes `variables` only when the operation has some;
    /// an empty variables object is still sent.
    @Test("variables are left out when the operation has none, and kept when empty")
    func variablesLeftOut() throws {
        #expect(try bodyJSON(try request().makeNetworkRequest())["variables"] == nil)
        var empty = heroQuery
        empty.variables = [:]
        #expect(try bodyJSON(try request(empty).makeNetworkRequest())["variables"] == .object([:]))
    }

    /// Mirrors apollo-ios-dev `RequestClientMetadataTests.test__fetch__usingDefaultMetadata__shouldAddClientLibraryExtensionToBody__shouldNotIncludeClientApplicationHeaders`.
    @Test("default client awareness: the clientLibrary extension and no client headers")
    func defaultClientAwareness() throws {
        var aware = request()
        aware.clientAwareness = ClientAwarenessMetadata()
        let sent = try aware.makeNetworkRequest()
        #expect(sent.headerFields["apollographql-client-name"] == nil)
        #expect(sent.headerFields["apollographql-client-version"] == nil)
        #expect(try bodyJSON(sent)["extensions"] == ["clientLibrary": ["name": "apollo-ios", "version": "2.4.0"]])
    }

    /// Mirrors apollo-ios-dev `RequestClientMetadataTests.test__fetch__givenApplicationNameAndVersion__shouldAddClientApplicationHeaders__shouldNotAddClientLibraryExtension`.
    @Test("a name and version without library awareness: the two headers, no extension")
    func headersOnly() throws {
        var aware = request()
        aware.clientAwareness = ClientAwarenessMetadata(clientApplicationName: "MyApp", clientApplicationVersion: "3.1", includeApolloLibraryAwareness: false)
        let sent = try aware.makeNetworkRequest()
        #expect(sent.headerFields.map(\.name) == ["apollographql-client-name", "apollographql-client-version", "Content-Type", "Accept"])
        #expect(sent.headerFields["apollographql-client-name"] == "MyApp")
        #expect(sent.headerFields["apollographql-client-version"] == "3.1")
        #expect(try bodyJSON(sent)["extensions"] == nil)
    }

    /// Mirrors apollo-ios-dev `RequestClientMetadataTests.test__fetch__givenMetadataNone__shouldNotAddHeadersOrExtension`;
    /// a request without a client (nil) sends nothing either.
    @Test("ClientAwarenessMetadata.none and no client send neither headers nor extension", arguments: [nil, ClientAwarenessMetadata.none])
    func noAwareness(metadata: ClientAwarenessMetadata?) throws {
        var aware = request()
        aware.clientAwareness = metadata
        let sent = try aware.makeNetworkRequest()
        #expect(sent.headerFields.map(\.name) == ["Content-Type", "Accept"])
        #expect(try bodyJSON(sent)["extensions"] == nil)
    }

    /// Mirrors apollo-ios-dev `RequestClientMetadataTests.test__fetch__givenAPQEnabledWithLibraryAwareness__extensionsShouldContainBothPersistedQueryAndClientLibrary`.
    @Test("APQ and library awareness share the extensions object")
    func apqAndLibrary() throws {
        var aware = request()
        aware.apqConfig = AutoPersistedQueryConfiguration(autoPersistQueries: true)
        aware.clientAwareness = ClientAwarenessMetadata(clientApplicationName: "MyApp", clientApplicationVersion: "3.1")
        let sent = try aware.makeNetworkRequest()
        #expect(try bodyJSON(sent)["extensions"] == [
            "persistedQuery": ["sha256Hash": .string(heroQuery.documentHash), "version": 1],
            "clientLibrary": ["name": "apollo-ios", "version": "2.4.0"],
        ])
        #expect(sent.headerFields["apollographql-client-name"] == "MyApp")
    }

    @Test("a client name that is not a valid header value is refused with the reason")
    func invalidClientName() throws {
        var aware = request()
        aware.clientAwareness = ClientAwarenessMetadata(clientApplicationName: "My\nApp")
        #expect(throws: HeaderValidationError.self) { try aware.makeNetworkRequest() }
    }

    /// Mirrors apollo-ios-dev `RequestBodyCreatorTests.testRequestBodyWithCustomRequestBodyCreator`.
    @Test("a custom body creator's body goes out as it made it; requests with different creator types differ")
    func customBodyCreator() throws {
        struct Stubbed: JSONRequestBodyCreator {
            func requestBody(for operation: ChainOperation, sendQueryDocument: Bool, autoPersistQuery: Bool, clientAwareness: ClientAwarenessMetadata?) -> [String: JSONValue] {
                ["TestKey": "TestValue", "sendQueryDocument": .bool(sendQueryDocument), "autoPersistQuery": .bool(autoPersistQuery)]
            }
        }
        var custom = request()
        custom.requestBodyCreator = Stubbed()
        custom.apqConfig = AutoPersistedQueryConfiguration(autoPersistQueries: true)
        #expect(try bodyJSON(try custom.makeNetworkRequest()) == ["TestKey": "TestValue", "sendQueryDocument": false, "autoPersistQuery": true])
        var plain = custom
        plain.requestBodyCreator = DefaultRequestBodyCreator()
        #expect(plain != custom)
        plain.requestBodyCreator = Stubbed()
        #expect(plain == custom)
    }
}
