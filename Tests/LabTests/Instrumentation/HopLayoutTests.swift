import ChainKit
import Foundation
@testable import Instrumentation
@testable import Lab
@testable import Scheduling
import Testing
import Timeline

/// Hops are numbered in one place, for running operations, for a session's chain and for a
/// reordered one alike.
@Suite("Hop layout")
struct HopLayoutTests {
    struct Pass: ClientMiddleware {
        func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String, next: MiddlewareNext) async throws -> (HTTPResponse, HTTPBody?) {
            try await next(request, body, baseURL)
        }
    }

    /// A wrapper whose name is its instance's: the wrapped middleware it was given.
    struct Observer: WrappingMiddleware {
        let wrapped: String
        var wrappedMiddlewareName: String { wrapped }
        func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String, next: MiddlewareNext) async throws -> (HTTPResponse, HTTPBody?) {
            try await next(request, body, baseURL)
        }
    }

    /// A middleware class with subclasses: held as `BaseLayer`, an instance's type is only
    /// known from the instance.
    // Unchecked: a class with subclasses cannot be checked Sendable, and these hold no
    // state at all, so nothing is shared between tasks.
    class BaseLayer: ClientMiddleware, @unchecked Sendable {
        func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String, next: MiddlewareNext) async throws -> (HTTPResponse, HTTPBody?) {
            try await next(request, body, baseURL)
        }
    }
    final class FirstLayer: BaseLayer, @unchecked Sendable {}
    final class SecondLayer: BaseLayer, @unchecked Sendable {}

    @Test("a layout is kept for layers of the same types: instances of two subclasses held as their base class are not")
    func subclassesHeldAsTheirBase() {
        let layouts = HopLayouts()
        let first: BaseLayer = FirstLayer(), second: BaseLayer = SecondLayer()
        #expect(layouts.hops(of: [Pass(), first]).map(\.name) == ["Pass", "FirstLayer", "transport"])
        #expect(layouts.hops(of: [Pass(), second]).map(\.name) == ["Pass", "SecondLayer", "transport"])
        #expect(layouts.hops(of: [Pass(), BaseLayer()]).map(\.name) == ["Pass", "BaseLayer", "transport"])
        #expect(layouts.hops(of: [first, Pass()]).map(\.name) == ["FirstLayer", "Pass", "transport"])
        // The same types again share the kept hops, names and all.
        let again = layouts.hops(of: [FirstLayer(), Pass()])
        #expect(again == [HopInfo(index: 0, name: "FirstLayer", kind: .middleware), HopInfo(index: 1, name: "Pass", kind: .middleware), HopInfo(index: 2, name: "transport", kind: .transport)])
    }

    @Test("a GraphQL chain: interceptors, the cache step, HTTP interceptors, the transport, the parser")
    func graphQLLayout() {
        #expect(HopLayout.graphQL(graphQL: ["MaxRetryInterceptor"], http: ["ResponseCodeInterceptor", "LoggingInterceptor"], parser: "MyParser").hops == [
            HopInfo(index: 0, name: "MaxRetryInterceptor", kind: .graphql), HopInfo(index: 1, name: "cache", kind: .cache),
            HopInfo(index: 2, name: "ResponseCodeInterceptor", kind: .http), HopInfo(index: 3, name: "LoggingInterceptor", kind: .http),
            HopInfo(index: 4, name: "transport", kind: .transport), HopInfo(index: 5, name: "MyParser", kind: .parser),
        ])
        #expect(HopLayout.middleware([]).hops == [HopInfo(index: 0, name: "transport", kind: .transport)])
    }

    @Test("a scenario's chain and the interceptors built from it are laid out alike")
    func scenarioChainMatchesInstances() {
        let chain = Scenario.Chain.graphQL(graphQL: [Scenario.Layer("MaxRetryInterceptor")], http: [Scenario.Layer("ResponseCodeInterceptor")])
        let interceptors = ChainRunner.Interceptors(
            graphQL: [MaxRetryInterceptor()], cache: DefaultCacheInterceptor(store: CacheStore()),
            http: [ResponseCodeInterceptor()], parser: JSONResponseParsingInterceptor())
        #expect(HopLayouts().hops(of: interceptors) == chain.hops())
    }

    @Test("middleware names: the type's, a wrapper's the middleware it wraps, each operation's own even when the types repeat")
    func middlewareNames() {
        let layouts = HopLayouts()
        #expect(layouts.hops(of: [Pass(), Observer(wrapped: "RetryingMiddleware")]).map(\.name) == ["Pass", "RetryingMiddleware", "transport"])
        #expect(layouts.hops(of: [Pass(), Observer(wrapped: "LoggingMiddleware")]).map(\.name) == ["Pass", "LoggingMiddleware", "transport"])
        #expect(layouts.hops(of: [Observer(wrapped: "A"), Pass()]).map(\.name) == ["A", "Pass", "transport"])
        #expect(layouts.hops(of: [Pass(), Pass()]).map(\.name) == ["Pass", "Pass", "transport"])
    }
}
