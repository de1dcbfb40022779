// Lint is part of the lab's API: whoever imports Lab checks chains (`ChainLint.check(provider:…)`)
// and describes their own layers (`LintDescribed`).
@_exported public import Lint
import Backend
public import ChainKit
import Foundation
import Timeline

/// The chains the lab knows, as ``LintChain`` values: a scenario's, the one an app's
/// provider builds, a middleware list. The built-in layers' traits come from their
/// definitions (``LayerTraits/builtIn``); an app's layer says its own through
/// ``LintDescribed``.
extension LintChain {
    /// A scenario's chain, operations and token setup.
    public init(scenario: Scenario) {
        var hops = HopList()
        var operations: [Operation] = []
        switch scenario.chain {
        case .graphQL(let graphQL, let http):
            for layer in graphQL { hops.add(layer.name, .graphql, LayerTraits.builtIn[layer.name] ?? []) }
            hops.add("cache", .cache, [])
            for layer in http { hops.add(layer.name, .http, LayerTraits.builtIn[layer.name] ?? []) }
            hops.add("transport", .transport, [])
            hops.add("JSONResponseParsingInterceptor", .parser, LayerTraits.builtIn["JSONResponseParsingInterceptor"])
            operations = scenario.operations.map { spec in
                Operation(LabSession.graphQLRequest(spec, endpoint: LabSession.baseURL.appendingPathComponent("graphql")))
            }
        case .middleware(let layers):
            for layer in layers { hops.add(layer.name, .middleware, Self.traits(of: layer)) }
            hops.add("transport", .transport, [])
        }
        self.init(
            hops: hops.hops, operations: operations, refreshStrategy: scenario.refreshStrategy,
            rotatesRefreshTokens: scenario.backend.rotateRefreshTokens)
    }

    /// The chain `provider` builds for the first of `requests`, with what every request asks.
    /// The refresh setup is not visible in a provider: pass it when you know it.
    public init(
        provider: any ChainInterceptorProvider, requests: [ChainRequest], refreshStrategy: RefreshStrategy? = nil,
        rotatesRefreshTokens: Bool? = nil
    ) {
        var hops = HopList()
        if let first = requests.first?.operation {
            for interceptor in provider.graphQLInterceptors(for: first) { hops.add(instance: interceptor, .graphql) }
            hops.add("cache", .cache, [])
            for interceptor in provider.httpInterceptors(for: first) { hops.add(instance: interceptor, .http) }
            hops.add("transport", .transport, [])
            hops.add(instance: provider.responseParser(for: first), .parser)
        }
        self.init(
            hops: hops.hops, operations: requests.map(Operation.init), refreshStrategy: refreshStrategy,
            rotatesRefreshTokens: rotatesRefreshTokens)
    }

    /// A middleware stack over one transport.
    public init(middlewares: [any ClientMiddleware]) {
        var hops = HopList()
        for middleware in middlewares {
            hops.add(middleware.layerName, .middleware, LayerTraits.of(middleware, name: middleware.layerName))
        }
        hops.add("transport", .transport, [])
        self.init(hops: hops.hops)
    }

    /// A scenario middleware's traits: `RetryingMiddleware` retries only with more than one
    /// attempt, and buffers single-pass bodies unless `bufferBodies` is false.
    private static func traits(of layer: Scenario.Layer) -> LayerTraits {
        guard layer.name == "RetryingMiddleware" else { return LayerTraits.builtIn[layer.name] ?? [] }
        var traits: LayerTraits = (layer.int("maxAttempts") ?? 3) > 1 ? [.retries] : []
        if layer.bool("bufferBodies") ?? true { traits.insert(.buffersSinglePassBodies) }
        return traits
    }

    /// The hops in order, numbered as they are added.
    private struct HopList {
        var hops: [Hop] = []

        mutating func add(_ name: String, _ kind: HopKind, _ traits: LayerTraits?) {
            hops.append(Hop(index: hops.count, name: name, kind: kind, traits: traits))
        }

        mutating func add(instance: Any, _ kind: HopKind) {
            let name = typeName(instance)
            let known = instance is any LintDescribed || LayerTraits.builtIn[name] != nil
            add(name, kind, known ? LayerTraits.of(instance, name: name) : nil)
        }
    }
}

extension ChainLint {
    /// The findings for a scenario's chain.
    public static func check(scenario: Scenario) -> [LintFinding] {
        check(LintChain(scenario: scenario))
    }

    /// The findings for the chain `provider` builds, with the settings of `requests`.
    ///
    /// ```swift
    /// let findings = ChainLint.check(provider: MyInterceptorProvider(), requests: [heroQuery])
    /// for finding in findings { print(finding.rule.id, finding.message) }
    /// ```
    public static func check(
        provider: any ChainInterceptorProvider, requests: [ChainRequest], refreshStrategy: RefreshStrategy? = nil,
        rotatesRefreshTokens: Bool? = nil
    ) -> [LintFinding] {
        check(LintChain(provider: provider, requests: requests, refreshStrategy: refreshStrategy, rotatesRefreshTokens: rotatesRefreshTokens))
    }

    /// The findings for a middleware stack.
    public static func check(middlewares: [any ClientMiddleware]) -> [LintFinding] {
        check(LintChain(middlewares: middlewares))
    }
}
