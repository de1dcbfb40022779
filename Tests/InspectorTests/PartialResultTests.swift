import Backend
import ChainKit
import Foundation
import Inspector
import Lab
import TerminalUI
import Testing

/// A result with data and GraphQL errors is shown as partial, not as a success.
@Suite("Partial results in the Requests pane")
struct PartialResultTests {
    /// A session of one HeroQuery through ChainKit's default chain, answered with `body`.
    static func session(answering body: String) -> LabSession {
        let transport = InMemoryGraphQLTransport { _ in
            NetworkResponse(
                status: 200, headerFields: try HTTPFields(["Content-Type": "application/json"]), url: URL(string: "https://example.test/graphql")!,
                body: Data(body.utf8))
        }
        let request = ChainRequest(operation: LabOperations.heroQuery, graphQLEndpoint: URL(string: "https://example.test/graphql")!)
        return LabSession(name: "partial", chain: .graphQL(provider: DefaultChainInterceptorProvider(store: CacheStore()), transport: transport, requests: [request]), defaultMode: .run)
    }

    @Test("data with errors is partial (!), data null with errors failed (✕), data alone succeeded (✓)", arguments: [
        (#"{"data":{"hero":null},"errors":[{"message":"no hero"}]}"#, RequestRow.State.partial, "! #1 HeroQuery partial"),
        (#"{"data":null,"errors":[{"message":"no hero"}]}"#, .failed, "✕ #1 HeroQuery no data"),
        (#"{"data":{"hero":{"id":"1","name":"R2-D2"}}}"#, .succeeded, "✓ #1 HeroQuery 200"),
    ])
    func requestsPane(body: String, state: RequestRow.State, line: String) async {
        let session = Self.session(answering: body)
        _ = await session.runHeadless()
        let builder = LabViewBuilder(session: session)
        let inspector = InspectorState(scenario: session.scenario, lab: builder.view(), size: Size(width: 120, height: 40))
        #expect(inspector.lab.requests.map(\.state) == [state])
        var buffer = Buffer(size: inspector.size)
        Inspector.render(inspector, into: &buffer)
        #expect(buffer.lines.contains { $0.contains(line) }, "no '\(line)' in the Requests pane")
        await session.shutDown()
    }
}
