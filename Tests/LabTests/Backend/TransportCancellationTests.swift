import Backend
import ChainKit
import Foundation
import Lab
import Testing

/// The lab's transports in a cancelled task send nothing, as URLSession's async calls fail at
/// once when their task is cancelled: the backend never sees the request.
@Suite("Lab transports in a cancelled task")
struct TransportCancellationTests {
    @Test("the GraphQL transport fails with CancellationError and the backend counts no request")
    func graphQL() async throws {
        let clock = VirtualClock()
        let backend = LabBackend(now: { clock.seconds })
        let transport = LabGraphQLTransport(backend: backend, clock: clock)
        let request = NetworkRequest(method: .post, url: URL(string: "https://lab.chainlab.local/graphql")!, body: Data(#"{"query":"query HeroQuery { hero { id name } }"}"#.utf8))
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await transport.send(request)
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(backend.counters["graphqlRequests"] == 0)
        // The same request in a task that is not cancelled reaches the backend.
        _ = try await transport.send(request)
        #expect(backend.counters["graphqlRequests"] == 1)
    }

    @Test("the middleware transport fails with CancellationError and the backend counts no request")
    func middleware() async throws {
        let clock = VirtualClock()
        let backend = LabBackend(now: { clock.seconds })
        let transport = LabClientTransport(backend: backend, clock: clock)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await transport.send(HTTPRequest(method: .get, path: "/heroes/2001"), body: nil, baseURL: URL(string: "https://lab.chainlab.local")!, operationID: "getHero")
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(backend.counters["restRequests"] == 0)
        // The same call in a task that is not cancelled reaches the backend.
        _ = try await transport.send(HTTPRequest(method: .get, path: "/heroes/2001"), body: nil, baseURL: URL(string: "https://lab.chainlab.local")!, operationID: "getHero")
        #expect(backend.counters["restRequests"] == 1)
    }
}
