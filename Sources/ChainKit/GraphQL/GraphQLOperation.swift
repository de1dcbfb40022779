public import Foundation

/// A GraphQL operation: what a user asks the server for.
public struct GraphQLOperation: Sendable, Hashable {
    /// Query, mutation or subscription.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case query
        case mutation
        case subscription
    }

    public var name: String
    public var kind: Kind
    /// The full document text, e.g. `query HeroQuery { hero { id name } }`; empty for a
    /// persisted-only operation.
    public var document: String
    /// Variables as a JSON object (nil when the operation takes none: the request body then
    /// has no `variables` member).
    public var variables: [String: JSONValue]?
    /// The server-side identifier of a persisted-only operation (Apollo's `.persistedOnly`
    /// operations, generated with an `operationIdentifier` and no definition); nil when the
    /// operation carries its document.
    public private(set) var persistedOnlyIdentifier: String?

    public init(name: String, kind: Kind, document: String, variables: [String: JSONValue]? = nil) {
        self.name = name
        self.kind = kind
        self.document = document
        self.variables = variables
    }

    /// A persisted-only operation: the server knows it by `identifier`, and the app has no
    /// document to send. It needs automatic persisted queries on; when the server does not
    /// know the identifier, ``AutomaticPersistedQueryInterceptor`` cannot retry with the text
    /// and fails with ``AutomaticPersistedQueryError/persistedQueryNotFoundForPersistedOnlyQuery(operationName:)``.
    public init(name: String, kind: Kind, persistedOnlyIdentifier identifier: String, variables: [String: JSONValue]? = nil) {
        self.init(name: name, kind: kind, document: "", variables: variables)
        self.persistedOnlyIdentifier = identifier
    }

    /// Whether the operation has no document, only a server-side identifier.
    public var isPersistedOnly: Bool { persistedOnlyIdentifier != nil }

    /// The hash automatic persisted queries send: the SHA-256 hex of the document, or the
    /// identifier of a persisted-only operation.
    public var documentHash: String { persistedOnlyIdentifier ?? SHA256Digest.hex(of: document) }

    /// A stable key for the cache: the name and the variables in canonical JSON.
    public var cacheKey: String {
        name + (variables.map { JSONValue.object($0).jsonString } ?? "")
    }
}

/// Automatic persisted query settings (Apollo's `AutoPersistQueryConfiguration`).
public struct AutoPersistQueryConfiguration: Sendable, Hashable {
    /// Send the hash instead of the query text on the first attempt.
    public var autoPersistQueries: Bool
    /// Send the persisted-query retry (query text included) as GET.
    public var useGETForPersistedQueryRetry: Bool

    public init(autoPersistQueries: Bool = false, useGETForPersistedQueryRetry: Bool = false) {
        self.autoPersistQueries = autoPersistQueries
        self.useGETForPersistedQueryRetry = useGETForPersistedQueryRetry
    }
}

/// How a request uses the cache and the network (Apollo 2's `FetchBehavior`).
public struct FetchBehavior: Sendable, Hashable, CustomStringConvertible {
    /// When the cache is read.
    public enum CacheRead: String, Sendable, Hashable, CaseIterable {
        case never
        case beforeNetworkFetch
        case onNetworkFailure
    }

    /// When the network is fetched.
    public enum NetworkFetch: String, Sendable, Hashable, CaseIterable {
        case never
        case always
        case onCacheMiss
    }

    public var cacheRead: CacheRead
    public var networkFetch: NetworkFetch

    public init(cacheRead: CacheRead, networkFetch: NetworkFetch) {
        self.cacheRead = cacheRead
        self.networkFetch = networkFetch
    }

    /// Read the cache; fetch only on a miss. Apollo's default for queries.
    public static let CacheFirst = FetchBehavior(cacheRead: .beforeNetworkFetch, networkFetch: .onCacheMiss)
    /// Fetch; read the cache only when the network fails.
    public static let NetworkFirst = FetchBehavior(cacheRead: .onNetworkFailure, networkFetch: .always)
    /// Yield the cached result, then fetch and yield the server's.
    public static let CacheAndNetwork = FetchBehavior(cacheRead: .beforeNetworkFetch, networkFetch: .always)
    /// Read the cache and never fetch.
    public static let CacheOnly = FetchBehavior(cacheRead: .beforeNetworkFetch, networkFetch: .never)
    /// Fetch and never read the cache.
    public static let NetworkOnly = FetchBehavior(cacheRead: .never, networkFetch: .always)

    /// The named policies, for pickers and scenario files.
    public static let named: [(name: String, behavior: FetchBehavior)] = [
        ("CacheFirst", .CacheFirst), ("NetworkFirst", .NetworkFirst), ("CacheAndNetwork", .CacheAndNetwork),
        ("CacheOnly", .CacheOnly), ("NetworkOnly", .NetworkOnly),
    ]

    /// The policy's name, or `cacheRead/networkFetch` for a combination without one.
    public var description: String {
        FetchBehavior.named.first { $0.behavior == self }?.name ?? "\(cacheRead.rawValue)/\(networkFetch.rawValue)"
    }

    func shouldReadFromCache(hadFailedNetworkFetch: Bool) -> Bool {
        switch cacheRead {
        case .never: false
        case .beforeNetworkFetch: !hadFailedNetworkFetch
        case .onNetworkFailure: hadFailedNetworkFetch
        }
    }

    func shouldFetchFromNetwork(hadSuccessfulCacheRead: Bool) -> Bool {
        switch networkFetch {
        case .never: false
        case .always: true
        case .onCacheMiss: !hadSuccessfulCacheRead
        }
    }
}

/// One GraphQL request as it travels down the chain: the operation plus everything that
/// decides how it is sent (Apollo's `JSONRequest`).
///
/// A value type whose fields live in one immutable, shared box: every hop of the chain (and
/// of its instrumentation) passes and keeps copies of the request, and a copy then costs one
/// reference instead of one per string, URL and header list. Changing a field replaces the box.
public struct GraphQLRequest: Sendable, Hashable {
    @usableFromInline final class Fields: Sendable {
        let operation: GraphQLOperation
        let graphQLEndpoint: URL
        let additionalHeaders: HTTPFields
        let fetchBehavior: FetchBehavior
        let writeResultsToCache: Bool
        let apqConfig: AutoPersistQueryConfiguration
        let useGETForQueries: Bool
        let isPersistedQueryRetry: Bool
        let requestTimeout: Double?
        let clientAwareness: ClientAwarenessMetadata?
        let requestBodyCreator: any JSONRequestBodyCreator

        init(
            operation: GraphQLOperation, graphQLEndpoint: URL, additionalHeaders: HTTPFields, fetchBehavior: FetchBehavior,
            writeResultsToCache: Bool, apqConfig: AutoPersistQueryConfiguration, useGETForQueries: Bool,
            isPersistedQueryRetry: Bool, requestTimeout: Double?, clientAwareness: ClientAwarenessMetadata?,
            requestBodyCreator: any JSONRequestBodyCreator
        ) {
            self.operation = operation
            self.graphQLEndpoint = graphQLEndpoint
            self.additionalHeaders = additionalHeaders
            self.fetchBehavior = fetchBehavior
            self.writeResultsToCache = writeResultsToCache
            self.apqConfig = apqConfig
            self.useGETForQueries = useGETForQueries
            self.isPersistedQueryRetry = isPersistedQueryRetry
            self.requestTimeout = requestTimeout
            self.clientAwareness = clientAwareness
            self.requestBodyCreator = requestBodyCreator
        }
    }

    // Internal and usable from inlinable code, so the identity check costs no call.
    @usableFromInline var fields: Fields

    public var operation: GraphQLOperation {
        get { fields.operation }
        set { replace(operation: newValue) }
    }

    public var graphQLEndpoint: URL {
        get { fields.graphQLEndpoint }
        set { replace(graphQLEndpoint: newValue) }
    }

    /// Headers added to the HTTP request (an auth interceptor puts `Authorization` here).
    public var additionalHeaders: HTTPFields {
        get { fields.additionalHeaders }
        set { replace(additionalHeaders: newValue) }
    }

    public var fetchBehavior: FetchBehavior {
        get { fields.fetchBehavior }
        set { replace(fetchBehavior: newValue) }
    }

    /// Whether server results are written to the cache at the top of the chain.
    public var writeResultsToCache: Bool {
        get { fields.writeResultsToCache }
        set { replace(writeResultsToCache: newValue) }
    }

    public var apqConfig: AutoPersistQueryConfiguration {
        get { fields.apqConfig }
        set { replace(apqConfig: newValue) }
    }

    /// Send queries as GET requests.
    public var useGETForQueries: Bool {
        get { fields.useGETForQueries }
        set { replace(useGETForQueries: newValue) }
    }

    /// Set by ``AutomaticPersistedQueryInterceptor`` on the retry that carries the query text.
    public var isPersistedQueryRetry: Bool {
        get { fields.isPersistedQueryRetry }
        set { replace(isPersistedQueryRetry: newValue) }
    }

    /// Seconds before the transport gives up; nil leaves the transport's default.
    public var requestTimeout: Double? {
        get { fields.requestTimeout }
        set { replace(requestTimeout: newValue) }
    }

    /// What the client that sends this request reports about itself; nil (the default) is a
    /// request sent without a client, which reports nothing.
    public var clientAwareness: ClientAwarenessMetadata? {
        get { fields.clientAwareness }
        set { replace(clientAwareness: newValue) }
    }

    /// What makes the JSON body; ``DefaultRequestBodyCreator`` unless the app brings its own.
    /// Two requests are equal only if their creators are of the same type, as upstream.
    public var requestBodyCreator: any JSONRequestBodyCreator {
        get { fields.requestBodyCreator }
        set { replace(requestBodyCreator: newValue) }
    }

    public init(
        operation: GraphQLOperation,
        graphQLEndpoint: URL,
        additionalHeaders: HTTPFields = HTTPFields(),
        fetchBehavior: FetchBehavior? = nil,
        writeResultsToCache: Bool = true,
        apqConfig: AutoPersistQueryConfiguration = AutoPersistQueryConfiguration(),
        useGETForQueries: Bool = false,
        isPersistedQueryRetry: Bool = false,
        requestTimeout: Double? = nil,
        clientAwareness: ClientAwarenessMetadata? = nil,
        requestBodyCreator: any JSONRequestBodyCreator = DefaultRequestBodyCreator()
    ) {
        fields = Fields(
            operation: operation, graphQLEndpoint: graphQLEndpoint, additionalHeaders: additionalHeaders,
            fetchBehavior: fetchBehavior ?? (operation.kind == .query ? .CacheFirst : .NetworkOnly),
            writeResultsToCache: writeResultsToCache, apqConfig: apqConfig, useGETForQueries: useGETForQueries,
            isPersistedQueryRetry: isPersistedQueryRetry, requestTimeout: requestTimeout, clientAwareness: clientAwareness,
            requestBodyCreator: requestBodyCreator)
    }

    /// A new box with the given fields changed and the others kept.
    private mutating func replace(
        operation: GraphQLOperation? = nil, graphQLEndpoint: URL? = nil, additionalHeaders: HTTPFields? = nil,
        fetchBehavior: FetchBehavior? = nil, writeResultsToCache: Bool? = nil, apqConfig: AutoPersistQueryConfiguration? = nil,
        useGETForQueries: Bool? = nil, isPersistedQueryRetry: Bool? = nil, requestTimeout: Double?? = nil,
        clientAwareness: ClientAwarenessMetadata?? = nil, requestBodyCreator: (any JSONRequestBodyCreator)? = nil
    ) {
        let old = fields
        fields = Fields(
            operation: operation ?? old.operation, graphQLEndpoint: graphQLEndpoint ?? old.graphQLEndpoint,
            additionalHeaders: additionalHeaders ?? old.additionalHeaders, fetchBehavior: fetchBehavior ?? old.fetchBehavior,
            writeResultsToCache: writeResultsToCache ?? old.writeResultsToCache, apqConfig: apqConfig ?? old.apqConfig,
            useGETForQueries: useGETForQueries ?? old.useGETForQueries,
            isPersistedQueryRetry: isPersistedQueryRetry ?? old.isPersistedQueryRetry,
            requestTimeout: requestTimeout ?? old.requestTimeout, clientAwareness: clientAwareness ?? old.clientAwareness,
            requestBodyCreator: requestBodyCreator ?? old.requestBodyCreator)
    }

    /// Whether `other` is this very value (a copy of it, never changed since): true means
    /// equal, without comparing the fields. A hop that passed the request on unchanged handed
    /// down an identical one.
    @inlinable package func isIdentical(to other: GraphQLRequest) -> Bool { fields === other.fields }

    public static func == (lhs: GraphQLRequest, rhs: GraphQLRequest) -> Bool {
        let l = lhs.fields, r = rhs.fields
        return l === r
            || (l.operation == r.operation && l.graphQLEndpoint == r.graphQLEndpoint
                && l.additionalHeaders == r.additionalHeaders && l.fetchBehavior == r.fetchBehavior
                && l.writeResultsToCache == r.writeResultsToCache && l.apqConfig == r.apqConfig
                && l.useGETForQueries == r.useGETForQueries && l.isPersistedQueryRetry == r.isPersistedQueryRetry
                && l.requestTimeout == r.requestTimeout && l.clientAwareness == r.clientAwareness
                && type(of: l.requestBodyCreator) == type(of: r.requestBodyCreator))
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(fields.operation)
        hasher.combine(fields.graphQLEndpoint)
        hasher.combine(fields.additionalHeaders)
        hasher.combine(fields.fetchBehavior)
        hasher.combine(fields.writeResultsToCache)
        hasher.combine(fields.apqConfig)
        hasher.combine(fields.useGETForQueries)
        hasher.combine(fields.isPersistedQueryRetry)
        hasher.combine(fields.requestTimeout)
        hasher.combine(fields.clientAwareness)
        hasher.combine(ObjectIdentifier(type(of: fields.requestBodyCreator)))
    }
}
