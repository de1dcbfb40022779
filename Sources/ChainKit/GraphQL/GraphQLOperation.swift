public import Foundation

/// A GraphQL operation: what a user asks the server for.
public struct ChainOperation: Sendable, Hashable {
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

/// Automatic persisted query settings (Apollo's `AutoPersistedQueryConfiguration`).
public struct AutoPersistedQueryConfiguration: Sendable, Hashable {
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
/// A value type whose fields live in one immutable, shared box (``CopyOnWrite``): every hop
/// of the chain (and of its instrumentation) passes and keeps copies of the request, and a
/// copy then costs one reference instead of one per string, URL and header list. Changing a
/// field replaces the box. A new field is a member of `Fields`, a one-line accessor here and a
/// parameter of `init`; equality and hashing follow `Fields`.
public struct ChainRequest: Sendable, Hashable {
    @usableFromInline struct Fields: Sendable, Hashable {
        var operation: ChainOperation
        var graphQLEndpoint: URL
        var additionalHeaders: HTTPFields
        var fetchBehavior: FetchBehavior
        var writeResultsToCache: Bool
        var apqConfig: AutoPersistedQueryConfiguration
        var useGETForQueries: Bool
        var isPersistedQueryRetry: Bool
        var requestTimeout: Double?
        var clientAwareness: ClientAwarenessMetadata?
        var requestBodyCreator: BodyCreator
    }

    /// A request's body creator, equal to another of the same type (as upstream compares them).
    struct BodyCreator: Sendable, Hashable {
        let creator: any JSONRequestBodyCreator

        static func == (lhs: BodyCreator, rhs: BodyCreator) -> Bool { type(of: lhs.creator) == type(of: rhs.creator) }
        func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(type(of: creator))) }
    }

    // Internal and usable from inlinable code, so the identity check costs no call.
    @usableFromInline var fields: CopyOnWrite<Fields>

    public var operation: ChainOperation { get { fields.value.operation } set { fields.update { $0.operation = newValue } } }
    public var graphQLEndpoint: URL { get { fields.value.graphQLEndpoint } set { fields.update { $0.graphQLEndpoint = newValue } } }
    /// Headers added to the HTTP request (an auth interceptor puts `Authorization` here).
    public var additionalHeaders: HTTPFields { get { fields.value.additionalHeaders } set { fields.update { $0.additionalHeaders = newValue } } }
    public var fetchBehavior: FetchBehavior { get { fields.value.fetchBehavior } set { fields.update { $0.fetchBehavior = newValue } } }
    /// Whether server results are written to the cache at the top of the chain.
    public var writeResultsToCache: Bool { get { fields.value.writeResultsToCache } set { fields.update { $0.writeResultsToCache = newValue } } }
    public var apqConfig: AutoPersistedQueryConfiguration { get { fields.value.apqConfig } set { fields.update { $0.apqConfig = newValue } } }
    /// Send queries as GET requests.
    public var useGETForQueries: Bool { get { fields.value.useGETForQueries } set { fields.update { $0.useGETForQueries = newValue } } }
    /// Set by ``AutomaticPersistedQueryInterceptor`` on the retry that carries the query text.
    public var isPersistedQueryRetry: Bool { get { fields.value.isPersistedQueryRetry } set { fields.update { $0.isPersistedQueryRetry = newValue } } }
    /// Seconds before the transport gives up; nil leaves the transport's default.
    public var requestTimeout: Double? { get { fields.value.requestTimeout } set { fields.update { $0.requestTimeout = newValue } } }
    /// What the client that sends this request reports about itself; nil (the default) is a
    /// request sent without a client, which reports nothing.
    public var clientAwareness: ClientAwarenessMetadata? { get { fields.value.clientAwareness } set { fields.update { $0.clientAwareness = newValue } } }
    /// What makes the JSON body; ``DefaultRequestBodyCreator`` unless the app brings its own.
    /// Two requests are equal only if their creators are of the same type, as upstream.
    public var requestBodyCreator: any JSONRequestBodyCreator {
        get { fields.value.requestBodyCreator.creator }
        set { fields.update { $0.requestBodyCreator = BodyCreator(creator: newValue) } }
    }

    public init(
        operation: ChainOperation,
        graphQLEndpoint: URL,
        additionalHeaders: HTTPFields = HTTPFields(),
        fetchBehavior: FetchBehavior? = nil,
        writeResultsToCache: Bool = true,
        apqConfig: AutoPersistedQueryConfiguration = AutoPersistedQueryConfiguration(),
        useGETForQueries: Bool = false,
        isPersistedQueryRetry: Bool = false,
        requestTimeout: Double? = nil,
        clientAwareness: ClientAwarenessMetadata? = nil,
        requestBodyCreator: any JSONRequestBodyCreator = DefaultRequestBodyCreator()
    ) {
        fields = CopyOnWrite(Fields(
            operation: operation, graphQLEndpoint: graphQLEndpoint, additionalHeaders: additionalHeaders,
            fetchBehavior: fetchBehavior ?? (operation.kind == .query ? .CacheFirst : .NetworkOnly),
            writeResultsToCache: writeResultsToCache, apqConfig: apqConfig, useGETForQueries: useGETForQueries,
            isPersistedQueryRetry: isPersistedQueryRetry, requestTimeout: requestTimeout, clientAwareness: clientAwareness,
            requestBodyCreator: BodyCreator(creator: requestBodyCreator)))
    }

    /// Whether `other` is this very value (a copy of it, never changed since): true means
    /// equal, without comparing the fields. A hop that passed the request on unchanged handed
    /// down an identical one.
    @inlinable package func isIdentical(to other: ChainRequest) -> Bool { fields.isIdentical(to: other.fields) }

    public static func == (lhs: ChainRequest, rhs: ChainRequest) -> Bool {
        lhs.isIdentical(to: rhs) || lhs.fields.value == rhs.fields.value
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(fields.value)
    }
}
