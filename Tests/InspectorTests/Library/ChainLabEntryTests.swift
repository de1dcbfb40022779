import ChainKit
import Foundation
import Inspector
import Lab
import Testing

/// Adds the token and a trace header, as an app's interceptor written in Apollo iOS 2.4's
/// style would.
private struct TraceHeaderInterceptor: GraphQLInterceptor {
    let token: String

    func intercept<Request: GraphQLRequest>(request: Request, next: NextInterceptorFunction<Request>) async throws -> InterceptorResultStream<Request> {
        var request = request
        request.additionalHeaders["Authorization"] = "Bearer \(token)"
        request.additionalHeaders["X-Trace"] = Request.Operation.operationName
        return await next(request)
    }
}

private struct TracingProvider: InterceptorProvider {
    var token = ""

    func graphQLInterceptors<Operation: GraphQLOperation>(for operation: Operation) -> [any GraphQLInterceptor] {
        DefaultInterceptorProvider.shared.graphQLInterceptors(for: operation) + [TraceHeaderInterceptor(token: token)]
    }
}

@Suite("ChainLab.trace and ChainLab.inspect")
struct ChainLabEntryTests {
    @Test("trace runs a built-in scenario through the app's provider and prints what chainlab trace prints")
    func trace() async throws {
        let text = try await ChainLab.trace(scenario: "basics") { lab in TracingProvider(token: lab.accessToken) }
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.first == "scenario basics")
        #expect(lines.contains("  0.000s #1.1     ↓ TraceHeaderInterceptor preflight +Authorization +X-Trace"))
        #expect(lines.contains("#1 HeroQuery: success after 1 attempt, results from server"))
    }

    @Test("an unknown scenario and a middleware scenario are refused with the reason")
    func refusals() async throws {
        let unknown = await #expect(throws: ChainLab.ScenarioError.self) {
            try await ChainLab.trace(scenario: "nope") { _ in TracingProvider() }
        }
        #expect(unknown?.description.hasPrefix("unknown scenario 'nope'; valid: basics, token-expiry,") == true)
        let middleware = await #expect(throws: ChainLab.ScenarioError.self) {
            try await ChainLab.trace(scenario: "openapi-middleware") { _ in TracingProvider() }
        }
        #expect(middleware?.description == "scenario 'openapi-middleware' runs a middleware stack; an interceptor provider needs a GraphQL scenario")
    }
}
