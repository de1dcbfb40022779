public import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// One GraphQL request as it travels down the chain (Apollo iOS 2.4's `GraphQLRequest`).
public protocol GraphQLRequest<Operation>: Sendable {
    associatedtype Operation: GraphQLOperation

    var graphQLEndpoint: URL { get set }
    var operation: Operation { get set }
    var additionalHeaders: [String: String] { get set }
    var fetchBehavior: FetchBehavior { get set }
    var writeResultsToCache: Bool { get set }
    var requestTimeout: TimeInterval? { get set }

    func toURLRequest() throws -> URLRequest
}

extension GraphQLRequest {
    /// A POST to the endpoint with ``additionalHeaders`` and the timeout, as upstream's.
    public func createDefaultRequest() -> URLRequest {
        var request = URLRequest(url: graphQLEndpoint)
        request.httpMethod = "POST"
        for (name, value) in additionalHeaders.sorted(by: { $0.key < $1.key }) {
            request.addValue(value, forHTTPHeaderField: name)
        }
        if let requestTimeout { request.timeoutInterval = requestTimeout }
        return request
    }

    public mutating func addHeader(name: String, value: String) {
        additionalHeaders[name] = value
    }

    public mutating func addHeaders(_ headers: [String: String]) {
        additionalHeaders.merge(headers) { _, new in new }
    }
}

/// A request that automatic persisted queries can change (upstream's protocol of that name).
public protocol AutoPersistedQueryCompatibleRequest: GraphQLRequest {
    var apqConfig: AutoPersistedQueryConfiguration { get set }
    var isPersistedQueryRetry: Bool { get set }
}

/// The request ``RequestChainNetworkTransport`` makes: a JSON body, sent as POST or (for
/// queries that ask for it) GET (Apollo iOS 2.4's `JSONRequest`).
public struct JSONRequest<Operation: GraphQLOperation>: AutoPersistedQueryCompatibleRequest, Hashable {
    public var graphQLEndpoint: URL
    public var operation: Operation
    public var additionalHeaders: [String: String] = [:]
    public var fetchBehavior: FetchBehavior
    public var writeResultsToCache: Bool
    public var requestTimeout: TimeInterval?
    public let requestBodyCreator: any JSONRequestBodyCreator
    public var apqConfig: AutoPersistedQueryConfiguration
    public var isPersistedQueryRetry: Bool = false
    public var useGETForQueries: Bool

    public init(
        operation: Operation,
        graphQLEndpoint: URL,
        fetchBehavior: FetchBehavior,
        writeResultsToCache: Bool,
        requestTimeout: TimeInterval?,
        apqConfig: AutoPersistedQueryConfiguration = .init(),
        useGETForQueries: Bool = false,
        requestBodyCreator: any JSONRequestBodyCreator = DefaultRequestBodyCreator()
    ) {
        self.operation = operation
        self.graphQLEndpoint = graphQLEndpoint
        self.fetchBehavior = fetchBehavior
        self.writeResultsToCache = writeResultsToCache
        self.requestTimeout = requestTimeout
        self.apqConfig = apqConfig
        self.useGETForQueries = useGETForQueries
        self.requestBodyCreator = requestBodyCreator
        addHeader(name: "Content-Type", value: "application/json")
        addHeader(name: "Accept", value: Operation.operationType == .subscription ? ChainRequest.subscriptionAccept : ChainRequest.deferAccept)
    }

    /// This request as the chain engine describes one; its headers in name order.
    public var chainRequest: ChainRequest {
        ChainRequest(
            operation: operation.chainOperation, graphQLEndpoint: graphQLEndpoint, additionalHeaders: HTTPFields(dictionary: additionalHeaders),
            fetchBehavior: fetchBehavior, writeResultsToCache: writeResultsToCache, apqConfig: apqConfig,
            useGETForQueries: useGETForQueries, isPersistedQueryRetry: isPersistedQueryRetry, requestTimeout: requestTimeout,
            requestBodyCreator: requestBodyCreator)
    }

    /// The HTTP request: body, GET URL and headers as ``ChainRequest/makeNetworkRequest()``
    /// builds them; a header whose name or value HTTP does not allow throws.
    public func toURLRequest() throws -> URLRequest {
        for (name, value) in additionalHeaders { _ = try HTTPField(name: name, value: value) }
        var network = try chainRequest.makeNetworkRequest()
        if network.method == .get { network.headerFields.remove("Content-Type") }
        return network.urlRequest
    }

    public static func == (lhs: JSONRequest, rhs: JSONRequest) -> Bool {
        lhs.graphQLEndpoint == rhs.graphQLEndpoint && lhs.operation == rhs.operation && lhs.additionalHeaders == rhs.additionalHeaders
            && lhs.fetchBehavior == rhs.fetchBehavior && lhs.writeResultsToCache == rhs.writeResultsToCache
            && lhs.requestTimeout == rhs.requestTimeout && lhs.apqConfig == rhs.apqConfig
            && lhs.isPersistedQueryRetry == rhs.isPersistedQueryRetry && lhs.useGETForQueries == rhs.useGETForQueries
            && type(of: lhs.requestBodyCreator) == type(of: rhs.requestBodyCreator)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(graphQLEndpoint)
        hasher.combine(operation)
        hasher.combine(additionalHeaders)
        hasher.combine(fetchBehavior)
        hasher.combine(writeResultsToCache)
        hasher.combine(isPersistedQueryRetry)
    }
}

extension NetworkRequest {
    /// The same request as a `URLRequest`; repeated header names are joined with `, `.
    public var urlRequest: URLRequest {
        var request = URLSessionTransport.urlRequest(url: url, method: method, headerFields: headerFields, body: body)
        if let timeoutInterval { request.timeoutInterval = timeoutInterval }
        return request
    }
}
