import Backend
import ChainKit
import Foundation
import HTTPServer
@testable import Lab
import Outbound
import Serve
@testable import Scheduling
import Testing
import Timeline

@Suite("GraphQL documents from users' files")
struct GraphQLDocumentTests {
    @Test func operationsAreFoundWithTheirKindsPastCommentsStringsAndFragments() throws {
        let text = """
            # "query" in a comment is not an operation
            query Me($id: ID! = "x{") { me(id: $id) { ...F note(text: \"\"\"a } block\"\"\") } }
            fragment F on User { id }
            mutation Rename { rename(name: "}") { id } }
            subscription OnChange { changed }
            { anonymous }
            """
        let document = try GraphQLDocument(text: text)
        #expect(document.operations == [
            .init(name: "Me", kind: .query), .init(name: "Rename", kind: .mutation), .init(name: "OnChange", kind: .subscription),
            .init(name: nil, kind: .query),
        ])
        #expect(try document.operation(named: "OnChange").kind == .subscription)
        let operation = document.graphQLOperation(try document.operation(named: "Rename"), variables: ["a": 1])
        #expect(operation == ChainOperation(name: "Rename", kind: .mutation, document: #"mutation Rename { rename(name: "}") { id } }"#, variables: ["a": 1]))
        #expect(document.document(of: try document.operation(named: "Me")) == """
            query Me($id: ID! = "x{") { me(id: $id) { ...F note(text: \"\"\"a } block\"\"\") } }

            fragment F on User { id }
            """)
        #expect(document.document(of: document.operations[3]) == "{ anonymous }")
    }

    @Test("an operation is sent with the fragments it uses, directly or through others, in document order, and no other")
    func fragmentsUsed() throws {
        let document = try GraphQLDocument(text: """
            fragment Unused on User { name }
            fragment Leaf on User { id }
            query A { me { ...Mid ... on User { ...Leaf } } }
            fragment Mid on User { ...Leaf friends { ...Leaf } }
            query B { me { ...Unused } }
            """)
        #expect(document.document(of: try document.operation(named: "A")) == """
            query A { me { ...Mid ... on User { ...Leaf } } }

            fragment Leaf on User { id }

            fragment Mid on User { ...Leaf friends { ...Leaf } }
            """)
        #expect(document.document(of: try document.operation(named: "B")) == "query B { me { ...Unused } }\n\nfragment Unused on User { name }")
    }

    @Test(arguments: [
        ("query A { me ", "line 1, column 14: '{' opened at line 1, column 9 is never closed"),
        ("query A { me ) }", "line 1, column 14: ')' does not close '{' opened at line 1, column 9"),
        ("query A", "line 1, column 8: the query at line 1, column 1 has no selection set ('{ … }')"),
        ("type User { id: ID }", "line 1, column 1: expected an operation (query, mutation, subscription or '{') or a fragment, found 'type'"),
        ("query A { me(x: \"open) }", "line 1, column 17: unterminated string"),
        ("fragment F on User { id }", "line 1, column 26: the document has no operation"),
        ("query A { me ? }", "line 1, column 14: unexpected character '?'"),
    ])
    func brokenDocumentsAreRefusedWithLineAndColumn(text: String, message: String) {
        #expect(throws: GraphQLDocument.ParseError.self) { try GraphQLDocument(text: text) }
        do {
            _ = try GraphQLDocument(text: text)
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func severalOperationsNeedANameThatExists() throws {
        let document = try GraphQLDocument(text: "query A { a } mutation B { b }")
        #expect(throws: OperationChoiceError(reason: "the document has 2 operations (query A, mutation B); pick one with --operation-name")) {
            try document.operation(named: nil)
        }
        #expect(throws: OperationChoiceError(reason: "the document has no operation named 'C'; it has: query A, mutation B")) {
            try document.operation(named: "C")
        }
    }
}

@Suite("Scenario operations with their own documents")
struct ScenarioDocumentTests {
    @Test func documentAndDocumentFileAreReadRelativeToTheScenario() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chainlab-doc-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("mutation Save($v: Int) { save(v: $v) }".utf8).write(to: folder.appendingPathComponent("save.graphql"))
        let json = """
            {"name": "mine", "chain": [{"interceptor": "AuthInterceptor"}],
             "operations": [{"name": "Me", "document": "query Me { me { id } } query Other { x }"},
                            {"name": "anything", "documentFile": "save.graphql", "variables": {"v": 3}}]}
            """
        let scenario = try ScenarioCodec.decode(Data(json.utf8), relativeTo: folder)
        #expect(scenario.operations.map(\.name) == ["Me", "Save"])
        #expect(scenario.operations.map(\.kind) == [.query, .mutation])
        #expect(scenario.operations[0].document == "query Me { me { id } }")
        #expect(scenario.operations[1].document == "mutation Save($v: Int) { save(v: $v) }")
        #expect(scenario.operations[1].variables == ["v": 3])
    }

    @Test(arguments: [
        (#"{"name": "Me", "document": "query Me {"}"#, "operations[0].document: not a GraphQL document: line 1, column 11: '{' opened at line 1, column 10 is never closed"),
        (#"{"name": "Nope", "document": "query A { a } query B { b }"}"#, "operations[0].name: the document has no operation named 'Nope'; it has: query A, query B"),
        (#"{"name": "A", "documentFile": "/nonexistent.graphql"}"#, "operations[0].documentFile: cannot read /nonexistent.graphql: No such file or directory"),
        (#"{"name": "A", "document": "{ a }", "documentFile": "x"}"#, "operations[0].documentFile: give \"document\" or \"documentFile\", not both"),
        (#"{"name": "A", "document": "{ me { id } }"}"#, "operations[0].name: the query is anonymous; name it (query Name { … }): every request carries its operationName"),
        (#"{"name": "HeroQuery", "variables": [1]}"#, "operations[0].variables: expected an object of variables such as {\"id\": \"2001\"}, got [1]"),
    ])
    func badOperationsAreRefusedWithTheirPath(operation: String, message: String) {
        let json = #"{"name": "mine", "chain": [{"interceptor": "AuthInterceptor"}], "operations": ["# + operation + "]}"
        #expect(throws: ScenarioError.self) { try ScenarioCodec.decode(Data(json.utf8)) }
        do {
            _ = try ScenarioCodec.decode(Data(json.utf8))
        } catch {
            #expect(error.description == message)
        }
    }
}

@Suite("A real token endpoint's requests (RFC 6749)")
struct OAuthClientRequestTests {
    let url = URL(string: "https://auth.example.com/token")!

    @Test func refreshTokenGrantWithBasicClientAuthentication() throws {
        let endpoint = OAuthTokenEndpoint(url: url, clientID: "my app", clientSecret: "p@ss:word", clientAuthentication: .basic)
        #expect(endpoint.form(refreshToken: "r/1+2") == "grant_type=refresh_token&refresh_token=r%2F1%2B2")
        // RFC 6749 §2.3.1: id and secret are form-encoded, then joined with ':' and base64-encoded.
        let expected = "Basic " + Data("my+app:p%40ss%3Aword".utf8).base64EncodedString()
        #expect(try endpoint.headers()["Authorization"] == expected)
    }

    @Test func clientCredentialsInTheBodyWithoutARefreshToken() throws {
        let endpoint = OAuthTokenEndpoint(url: url, clientID: "app", clientSecret: "s3cret", clientAuthentication: .body)
        #expect(endpoint.form(refreshToken: nil) == "grant_type=client_credentials&client_id=app&client_secret=s3cret")
        #expect(try endpoint.headers()["Authorization"] == nil)
        #expect(OAuthTokenEndpoint(url: url, clientID: "public").form(refreshToken: "r") == "grant_type=refresh_token&refresh_token=r&client_id=public")
    }
}

/// A session of `basics` against a started server that is not a ChainLab lab: its
/// `/graphql` answers a hero, anything else 404. The caller stops the server.
private func basicsOnAPlainServer() async throws -> (HTTPServer, LabSession) {
    let server = HTTPServer { request in
        request.target == "/graphql"
            ? HTTPServerResponse(status: 200, headers: [HTTPServerHeader(name: "Content-Type", value: "application/json")], body: Data(#"{"data":{"hero":{"id":"1","name":"R2-D2"}}}"#.utf8))
            : .text("not here", status: 404)
    }
    let port = try server.start()
    do {
        let session = try await LabSession.connect(
            scenario: try #require(Catalog.scenario(named: "basics")),
            remote: RemoteOptions(endpoint: URL(string: "http://127.0.0.1:\(port)/graphql")!, token: "t"))
        return (server, session)
    } catch {
        server.stop()
        throw error
    }
}

@Suite("Telling a lab from a plain server")
struct LabDetectionTests {
    @Test func aServerWithoutLabStateIsPlainAndHasNoCounters() async throws {
        let (server, session) = try await basicsOnAPlainServer()
        defer { server.stop() }
        let result = await session.runHeadless()
        await session.shutDown()
        #expect(!session.hasLabControls)
        #expect(result.backendCounters == nil)
        #expect(result.requests.map(\.outcome) == [.success])
        #expect(result.networkFailures == [])
    }

    @Test func aRealServersTimeIsTheTimeBetweenSendAndReceive() async throws {
        let server = HTTPServer { request in
            try? await Task.sleep(for: .milliseconds(request.target == "/graphql" ? 150 : 0))
            return request.target == "/graphql"
                ? HTTPServerResponse(status: 200, headers: [HTTPServerHeader(name: "Content-Type", value: "application/json")], body: Data(#"{"data":{"hero":{"id":"1","name":"R2-D2"}}}"#.utf8))
                : .text("not here", status: 404)
        }
        let port = try server.start()
        defer { server.stop() }
        let store = TimelineStore()
        let session = try await LabSession.connect(
            scenario: try #require(Catalog.scenario(named: "basics")),
            remote: RemoteOptions(endpoint: URL(string: "http://127.0.0.1:\(port)/graphql")!, token: "t"), store: store)
        _ = await session.runHeadless()
        await session.shutDown()
        let transport = store.events().filter { $0.kind == .transport }
        #expect(transport.map(\.phase) == [.send, .receive])
        let took = transport[1].time - transport[0].time
        #expect(took >= 0.15, "the server waited 150 ms before answering; the timeline says \(took) s")
    }

    @Test("a lab's counters beyond Int, negative or fractional are converted without trapping: clamped and rounded")
    func hostileCountersAreClamped() async throws {
        let state = #"{"counters":{"huge":1e300,"beyond":9.3e18,"negative":-1e300,"half":2.5,"plain":7,"text":"12","none":null}}"#
        let server = HTTPServer { request in
            request.target == "/_lab/state"
                ? HTTPServerResponse(status: 200, headers: [HTTPServerHeader(name: "Content-Type", value: "application/json")], body: Data(state.utf8))
                : .text("not here", status: 404)
        }
        let port = try server.start()
        defer { server.stop() }
        let lab = try await RemoteLab.detect(endpoint: URL(string: "http://127.0.0.1:\(port)/graphql")!, client: RemoteHTTPClient())
        #expect(lab.isLab)
        let counters = await lab.counters()
        #expect(counters == ["huge": .max, "beyond": .max, "negative": .min, "half": 3, "plain": 7])
    }

    @Test func aLabIsDetectedAndKeepsItsCounters() async throws {
        let lab = try ServedLab(LabBackend.Settings())
        defer { lab.service.stop() }
        let session = try await LabSession.connect(
            scenario: try #require(Catalog.scenario(named: "basics")), remote: RemoteOptions(endpoint: lab.baseURL.appendingPathComponent("graphql"), asksForLab: true))
        let result = await session.runHeadless()
        await session.shutDown()
        #expect(session.hasLabControls)
        #expect(result.backendCounters?["graphqlRequests"] == 1)
        #expect(result.backendCounters?["passwordGrants"] == 1)
    }

    @Test("in the inspector a remote lab's counters are read again as each request ends, for the Timeline title")
    func aRemoteLabsCountersFollowTheRequests() async throws {
        let lab = try ServedLab(LabBackend.Settings())
        defer { lab.service.stop() }
        let session = try await LabSession.connect(
            scenario: try #require(Catalog.scenario(named: "basics")),
            remote: RemoteOptions(endpoint: lab.baseURL.appendingPathComponent("graphql"), asksForLab: true), defaultMode: .run)
        #expect(session.labCounters == [:], "nothing read before a request ends")
        session.launch()
        await session.waitUntilSettled()
        var waited = 0
        while session.labCounters?["graphqlRequests"] == nil, waited < 100 {
            try await Task.sleep(for: .milliseconds(50))
            waited += 1
        }
        #expect(session.labCounters?["graphqlRequests"] == 1)
        #expect(session.labCounters?["passwordGrants"] == 1)
        await session.shutDown()
    }

    @Test("an app's own chain has no lab backend, so no counters to show")
    func anAppsOwnChainHasNoCounters() async throws {
        let transport = InMemoryGraphQLTransport { request in
            NetworkResponse(status: 200, headerFields: try HTTPFields(["Content-Type": "application/json"]), url: request.url, body: Data(#"{"data":{"hero":{"id":"1","name":"R2-D2"}}}"#.utf8))
        }
        let request = ChainRequest(operation: LabOperations.heroQuery, graphQLEndpoint: URL(string: "https://example.test/graphql")!)
        let session = LabSession(name: "mine", chain: .graphQL(provider: DefaultChainInterceptorProvider(store: CacheStore()), transport: transport, requests: [request]), defaultMode: .run)
        let result = await session.runHeadless()
        await session.shutDown()
        #expect(result.requests.map(\.outcome) == [.success])
        #expect(!session.hasLabControls)
        #expect(session.labCounters == nil)
        #expect(result.backendCounters == nil)
    }
}

@Suite("Credentials stay out of recordings")
struct RecordedSecretTests {
    @Test func anEditedRequestIsRecordedWithoutItsTokenAndReplaysIdentically() async throws {
        let scenario = try #require(Catalog.scenario(named: "basics"))
        let live = steppingSession(scenario: scenario)
        live.launch()
        await live.waitUntilSettled()
        _ = await live.step(1, until: .hop(2, .pre))
        var headers = try #require(live.control.parked.first { $0.request == 1 }?.currentHeaders)
        let token = try #require(headers["Authorization"])
        #expect(token.hasPrefix("Bearer at-"))
        try headers.append("X-Replay", "yes")
        await live.perform(.editRequestHeaders(request: 1, headers: headers))
        await live.perform(.resumeAll)
        let original = live.result()
        #expect(original.requests.map(\.outcome) == [.success])

        let json = Recording(scenario: scenario.name, commands: live.commandLog).json
        #expect(!json.contains(String(token.dropFirst("Bearer ".count))))
        #expect(json.contains(#"["Authorization","(credential not recorded)"]"#))
        #expect(json.contains(#"["X-Replay","yes"]"#))

        let replayed = await LabSession(scenario: scenario, defaultMode: .step, replay: try Recording(json: Data(json.utf8)).commands).runHeadless()
        #expect(replayed.refusals.isEmpty)
        #expect(replayed.events == original.events)
    }

    @Test func markersTakeTheCurrentValueAndVanishWhenThereIsNone() throws {
        let current = try HTTPFields(["Authorization": "Bearer live", "Cookie": "a=b"])
        let edited = try HTTPFields(["Authorization": RecordedSecret.marker, "Set-Cookie": RecordedSecret.marker, "X-Plain": "kept"])
        #expect(RecordedSecret.restored(edited, from: current) == (try HTTPFields(["Authorization": "Bearer live", "X-Plain": "kept"])))
        #expect(RecordedSecret.redacted(current) == (try HTTPFields(["Authorization": RecordedSecret.marker, "Cookie": RecordedSecret.marker])))
    }
}

@Suite("What an --endpoint session exports")
struct EndpointExportTests {
    /// The session keeps an in-process backend it never uses against a real server; its
    /// counters (all zero) must not appear as the server's in an export.
    @Test func anEndpointSessionsExportsCarryNoLabCounters() async throws {
        let (server, session) = try await basicsOnAPlainServer()
        defer { server.stop() }
        session.submit(.launch(operation: 0))
        await session.waitUntilSettled()
        await session.shutDown()
        #expect(session.labCounters == nil)
        let json = session.export(.json)
        #expect(json.contains(#""backend":null"#))
        #expect(!json.contains("graphqlRequests"))
        let text = session.export(.text)
        #expect(text.hasSuffix("backend: not a ChainLab lab (no counters)\n"))
    }

    /// On a lab served over HTTP the export made during a session (the inspector's `w`)
    /// carries the server's counters as read when the last request ended.
    @Test func aRemoteLabsSessionExportCarriesTheCountersLastRead() async throws {
        let lab = try ServedLab(LabBackend.Settings())
        defer { lab.service.stop() }
        let session = try await LabSession.connect(
            scenario: try #require(Catalog.scenario(named: "basics")), remote: RemoteOptions(endpoint: lab.baseURL.appendingPathComponent("graphql"), asksForLab: true))
        session.submit(.launch(operation: 0))
        await session.waitUntilSettled()
        var waited = 0
        while session.labCounters?["graphqlRequests"] == nil, waited < 100 {
            try await Task.sleep(for: .milliseconds(50))
            waited += 1
        }
        await session.shutDown()
        #expect(session.export(.json).contains(#""graphqlRequests":1"#))
        #expect(session.result().requests.map(\.outcome) == [.success])
    }

    @Test func anInProcessSessionsExportCarriesTheLabsCounters() async throws {
        let session = LabSession(scenario: try #require(Catalog.scenario(named: "basics")))
        _ = await session.runHeadless()
        await session.shutDown()
        #expect(session.labCounters?["graphqlRequests"] == 1)
        #expect(session.export(.json).contains(#""graphqlRequests":1"#))
    }
}

/// What a real server receives and how long the exchanges took.
@Suite("Truthful on a real server")
struct TruthfulOnARealServerTests {
    static func json(_ text: String, status: Int = 200) -> HTTPServerResponse {
        HTTPServerResponse(status: status, headers: [HTTPServerHeader(name: "Content-Type", value: "application/json")], body: Data(text.utf8))
    }

    @Test("a refresh at a real token endpoint lasts on the timeline as long as the server took")
    func refreshTakesItsRealTime() async throws {
        let server = HTTPServer { request in
            if request.target == "/token" {
                try? await Task.sleep(for: .milliseconds(150))
                return Self.json(#"{"access_token":"new","refresh_token":"r2","token_type":"Bearer"}"#)
            }
            let authorized = request.headers.contains { $0.name.lowercased() == "authorization" && $0.value == "Bearer new" }
            return authorized ? Self.json(#"{"data":{"hero":{"id":"1","name":"R2-D2"}}}"#) : Self.json(#"{"errors":[{"message":"expired"}]}"#, status: 401)
        }
        let port = try server.start()
        defer { server.stop() }
        let base = "http://127.0.0.1:\(port)"
        let session = try await LabSession.connect(
            scenario: try #require(Catalog.scenario(named: "token-expiry")),
            remote: RemoteOptions(
                endpoint: URL(string: "\(base)/graphql")!, token: "old", refreshToken: "r1",
                tokenEndpoint: OAuthTokenEndpoint(url: URL(string: "\(base)/token")!, clientID: "app")))
        let result = await session.runHeadless()
        await session.shutDown()
        #expect(result.requests.map(\.outcome) == [.success])
        let grant = result.events.filter { $0.kind == .auth && ($0.phase == .send || $0.phase == .refresh) }
        #expect(grant.map(\.phase) == [.send, .refresh])
        let took = grant[1].time - grant[0].time
        #expect(took >= 0.15, "the token endpoint waited 150 ms before answering; the timeline says \(took) s")
        // The retry is sent after the refresh's answer, not at the moment the refresh began.
        let sends = result.events.filter { $0.kind == .transport && $0.phase == .send }
        #expect(sends.count == 2 && sends[1].time >= grant[1].time)
    }

    @Test("a mutation in a CacheFirst slot reaches the server at every launch; a query in the same slot is answered from the cache after the first", arguments: [
        (ChainOperation.Kind.mutation, "mutation Rename { rename { id } }", 5, ["server", "server", "server", "server", "server"]),
        (.query, "query Me { rename { id } }", 1, ["server", "cache", "cache", "cache", "cache"]),
    ])
    func mutationsAreNeverReadFromTheCache(kind: ChainOperation.Kind, document: String, posts: Int, sources: [String]) async throws {
        let received = Locked(0)
        let server = HTTPServer { request in
            guard request.target == "/graphql" else { return .text("not here", status: 404) }
            received.withLock { $0 += 1 }
            return Self.json(#"{"data":{"rename":{"id":"1"}}}"#)
        }
        let port = try server.start()
        defer { server.stop() }
        // Its script runs the requests one after another, so each sees what the last wrote.
        var scenario = try #require(Catalog.scenario(named: "cache-records"))
        scenario.launch = [0, 0, 0, 0, 0]
        scenario.operations = [Scenario.Operation(name: kind == .mutation ? "Rename" : "Me") {
            $0.fetchBehavior = .CacheFirst
            $0.kind = kind
            $0.document = document
        }]
        let session = try await LabSession.connect(
            scenario: scenario, remote: RemoteOptions(endpoint: URL(string: "http://127.0.0.1:\(port)/graphql")!, token: "t"))
        let result = await session.runHeadless()
        await session.shutDown()
        #expect(received.value == posts)
        #expect(result.requests.map { $0.results.joined(separator: ",") } == sources)
    }

    @Test("upstream's defaults by kind: mutations never read the cache, subscriptions cache-then-network, queries as given")
    func fetchBehaviorByKind() {
        // apollo-ios 2.4.0: `ApolloClient.subscribe(subscription:cachePolicy:requestConfiguration:)`
        // defaults `cachePolicy` to `.cacheThenNetwork` (Sources/Apollo/ApolloClient.swift), and
        // `CachePolicy.Subscription.toFetchBehavior()` makes that `FetchBehavior.CacheAndNetwork`
        // (Sources/Apollo/Caching/CachePolicy.swift); `perform(mutation:)` takes no cache policy.
        #expect(LabSession.fetchBehavior(.CacheFirst, of: .mutation) == .NetworkOnly)
        #expect(LabSession.fetchBehavior(nil, of: .subscription) == .CacheAndNetwork)
        #expect(LabSession.fetchBehavior(.NetworkOnly, of: .subscription) == .NetworkOnly)
        #expect(LabSession.fetchBehavior(.CacheFirst, of: .query) == .CacheFirst)
        #expect(LabSession.fetchBehavior(nil, of: .query) == nil)
    }

    @Test("data with errors is partial, data null with errors a failure; the text output gives the data and every error", arguments: [
        (#"{"data":{"hero":null},"errors":[{"message":"no hero"},{"message":"denied","extensions":{"code":"FORBIDDEN"}}]}"#,
         RequestSummary.Outcome.partial, nil as String?, #"{"hero":null}"#),
        (#"{"data":null,"errors":[{"message":"no hero"},{"message":"denied","extensions":{"code":"FORBIDDEN"}}]}"#,
         .failure, "no data: 2 GraphQL errors: no hero; denied (FORBIDDEN)", "null"),
    ])
    func errorsAreReported(answer: String, outcome: RequestSummary.Outcome, error: String?, data: String) async throws {
        let server = HTTPServer { request in
            request.target == "/graphql" ? Self.json(answer) : .text("not here", status: 404)
        }
        let port = try server.start()
        defer { server.stop() }
        let session = try await LabSession.connect(
            scenario: try #require(Catalog.scenario(named: "basics")),
            remote: RemoteOptions(endpoint: URL(string: "http://127.0.0.1:\(port)/graphql")!, token: "t"))
        let result = await session.runHeadless()
        await session.shutDown()
        let summary = try #require(result.requests.first)
        #expect(summary.outcome == outcome)
        #expect(summary.error == error)
        #expect(summary.graphQLErrors == ["no hero", "denied (FORBIDDEN)"])
        let lines = result.export(.text, scenario: "basics", anchor: session.otlpAnchor, masking: .masked).split(separator: "\n").map(String.init)
        let at = try #require(lines.firstIndex { $0.hasPrefix("#1 HeroQuery: ") })
        #expect(Array(lines[at...].prefix(4)) == [
            "#1 HeroQuery: \(outcome.rawValue) after 1 attempt, results from server" + (error.map { " — " + $0 } ?? ""),
            "  data: \(data)", "  error: no hero", "  error: denied (FORBIDDEN)",
        ])
    }

    @Test("what tells an auth failure is configurable: a 403 refreshes only when asked; UNAUTHENTICATED at 400 does by default", arguments: [
        (403, #"{"errors":[{"message":"forbidden"}]}"#, AuthFailure(), RequestSummary.Outcome.failure, 1),
        (403, #"{"errors":[{"message":"forbidden"}]}"#, AuthFailure(statuses: [403], errorCodes: []), .success, 2),
        (400, #"{"errors":[{"message":"expired","extensions":{"code":"UNAUTHENTICATED"}}]}"#, AuthFailure(), .success, 2),
        (400, #"{"errors":[{"message":"expired","extensions":{"code":"UNAUTHENTICATED"}}]}"#, AuthFailure(statuses: [401], errorCodes: []), .failure, 1),
    ])
    func authFailureIsConfigurable(status: Int, refusal: String, failure: AuthFailure, outcome: RequestSummary.Outcome, attempts: Int) async throws {
        let server = HTTPServer { request in
            if request.target == "/token" { return Self.json(#"{"access_token":"new","refresh_token":"r2"}"#) }
            guard request.target == "/graphql" else { return .text("not here", status: 404) }
            let authorized = request.headers.contains { $0.name.lowercased() == "authorization" && $0.value == "Bearer new" }
            return authorized ? Self.json(#"{"data":{"hero":{"id":"1","name":"R2-D2"}}}"#) : Self.json(refusal, status: status)
        }
        let port = try server.start()
        defer { server.stop() }
        let result = try await Self.runWithRefreshes("token-expiry", port: port, endpointPath: "/graphql", failure: failure)
        #expect(result.requests.map(\.outcome) == [outcome])
        #expect(result.requests.map(\.attempts) == [attempts])
    }

    /// Runs `scenario` headless against the server on `port` (its endpoint at `endpointPath`)
    /// with access token `old`, refresh token `r1` and the server's `/token` as the token
    /// endpoint, under `failure`.
    static func runWithRefreshes(_ scenario: String, port: UInt16, endpointPath: String, failure: AuthFailure) async throws -> LabSession.RunResult {
        let base = "http://127.0.0.1:\(port)"
        var options = RemoteOptions(
            endpoint: URL(string: base + endpointPath)!, token: "old", refreshToken: "r1",
            tokenEndpoint: OAuthTokenEndpoint(url: URL(string: "\(base)/token")!, clientID: "app"))
        options.authFailure = failure
        let session = try await LabSession.connect(scenario: try #require(Catalog.scenario(named: scenario)), remote: options)
        let result = await session.runHeadless()
        await session.shutDown()
        return result
    }

    @Test("--auth-failure's statuses tell AuthenticationMiddleware too: a REST 403 refreshes and sends again only when 403 is given", arguments: [
        (AuthFailure(), RequestSummary.Outcome.failure, ["server 403"], 0),
        (AuthFailure(statuses: [403], errorCodes: []), .success, ["server 200"], 1),
        (AuthFailure(statuses: [403], errorCodes: ["UNAUTHENTICATED"]), .success, ["server 200"], 1),
        (AuthFailure(statuses: [], errorCodes: ["UNAUTHENTICATED"]), .failure, ["server 403"], 0),
    ])
    func authenticationMiddlewareReadsTheStatuses(failure: AuthFailure, outcome: RequestSummary.Outcome, results: [String], grants: Int) async throws {
        let granted = Locked(0)
        let server = HTTPServer { request in
            if request.target == "/token" {
                granted.withLock { $0 += 1 }
                return Self.json(#"{"access_token":"new","refresh_token":"r2"}"#)
            }
            guard request.target == "/heroes/2001" else { return .text("not here", status: 404) }
            let authorized = request.headers.contains { $0.name.lowercased() == "authorization" && $0.value == "Bearer new" }
            return authorized ? Self.json(#"{"id":"2001"}"#) : Self.json(#"{"error":"token refused"}"#, status: 403)
        }
        let port = try server.start()
        defer { server.stop() }
        let result = try await Self.runWithRefreshes("openapi-middleware", port: port, endpointPath: "", failure: failure)
        #expect(result.requests.map(\.outcome) == [outcome])
        #expect(result.requests.first?.results == results)
        #expect(granted.value == grants)
    }

    @Test("AuthFailure reads a status or a GraphQL error code in a non-2xx body")
    func authFailureRules() {
        let url = URL(string: "https://api.example.test/graphql")!
        let unauthenticated = ResponseCodeError(status: 400, headerFields: HTTPFields(), url: url, body: Data(#"{"errors":[{"message":"x","extensions":{"code":"UNAUTHENTICATED"}}]}"#.utf8))
        let forbidden = ResponseCodeError(status: 403, headerFields: HTTPFields(), url: url, body: Data("no".utf8))
        #expect(AuthFailure().rejects(unauthenticated))
        #expect(!AuthFailure().rejects(forbidden))
        #expect(AuthFailure(statuses: [403], errorCodes: []).rejects(forbidden))
        #expect(!AuthFailure(statuses: [403], errorCodes: []).rejects(unauthenticated))
        #expect(AuthFailure(errorCodes: ["TOKEN_EXPIRED"]).rejects([GraphQLError(message: "x", extensions: ["code": "TOKEN_EXPIRED"])]))
        #expect(!AuthFailure(errorCodes: ["TOKEN_EXPIRED"]).rejects([GraphQLError(message: "x", extensions: ["code": "UNAUTHENTICATED"])]))
    }

    @Test("a document with several operations sends the chosen one and its fragments: a server validating the whole document accepts it")
    func chosenOperationOnly() async throws {
        let received = Locked<[String]>([])
        let server = HTTPServer { request in
            guard request.target == "/graphql" else { return .text("not here", status: 404) }
            let query = (try? JSONValue(parsing: request.body))?["query"]?.stringValue ?? ""
            received.withLock { $0.append(query) }
            // As ariadne does: every operation's variables and every fragment must be used.
            let refused = query.contains("mutation") || query.contains("Unused")
            return refused
                ? Self.json(#"{"errors":[{"message":"Fragment 'Unused' is never used."}]}"#, status: 400)
                : Self.json(#"{"data":{"hero":{"id":"1","name":"R2-D2"}}}"#)
        }
        let port = try server.start()
        defer { server.stop() }
        let document = try GraphQLDocument(text: """
            query HeroQuery { hero { ...Named } }
            fragment Named on Character { id name }
            fragment Unused on Character { id }
            mutation Rename($name: String!) { rename(name: $name) { id } }
            """)
        var scenario = try #require(Catalog.scenario(named: "basics"))
        let chosen = try document.operation(named: "HeroQuery")
        scenario.operations[0].document = document.document(of: chosen)
        let session = try await LabSession.connect(
            scenario: scenario, remote: RemoteOptions(endpoint: URL(string: "http://127.0.0.1:\(port)/graphql")!, token: "t"))
        let result = await session.runHeadless()
        await session.shutDown()
        #expect(result.requests.map(\.outcome) == [.success])
        #expect(received.value == ["query HeroQuery { hero { ...Named } }\n\nfragment Named on Character { id name }"])
    }
}
