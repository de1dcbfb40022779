public import ChainKit
public import Foundation

/// An app's own chain for the inspector: its interceptor provider (or middlewares), its
/// transport, and the requests that `n` starts. Every interceptor is wrapped by the
/// instrumentation exactly like the lab's own.
///
/// ```swift
/// let chain = CustomChain.graphQL(
///     provider: MyInterceptorProvider(), transport: URLSessionTransport(),
///     requests: [ChainRequest(operation: heroQuery, graphQLEndpoint: endpoint)])
/// let session = LabSession(name: "my app", chain: chain)
/// ```
public enum CustomChain: Sendable {
    /// A GraphQL chain (Apollo iOS 2.x semantics) built by `provider` for each operation.
    case graphQL(provider: any ChainInterceptorProvider, transport: any GraphQLTransport, requests: [ChainRequest])
    /// A middleware stack; `middlewares` is called once per operation for fresh instances.
    case middleware(
        middlewares: @Sendable () -> [any ClientMiddleware], transport: any ClientTransport, baseURL: URL,
        requests: [CustomChain.HTTPOperation])

    /// One REST call of a middleware chain.
    public struct HTTPOperation: Sendable {
        public var operationID: String
        public var request: HTTPRequest
        public var body: Data?

        public init(operationID: String, request: HTTPRequest, body: Data? = nil) {
            self.operationID = operationID
            self.request = request
            self.body = body
        }
    }

    /// The operations' names, in order.
    var operationNames: [String] {
        switch self {
        case .graphQL(_, _, let requests): requests.map(\.operation.name)
        case .middleware(_, _, _, let requests): requests.map(\.operationID)
        }
    }

    /// The chain's layers by name, for the screen before anything runs.
    var displayChain: Scenario.Chain {
        switch self {
        case .graphQL(let provider, _, let requests):
            guard let first = requests.first else { return .graphQL(graphQL: [], http: []) }
            return .graphQL(
                graphQL: provider.graphQLInterceptors(for: first.operation).map { Scenario.Layer(typeName($0)) },
                http: provider.httpInterceptors(for: first.operation).map { Scenario.Layer(typeName($0)) })
        case .middleware(let middlewares, _, _, _):
            return .middleware(middlewares().map { Scenario.Layer($0.layerName) })
        }
    }
}
