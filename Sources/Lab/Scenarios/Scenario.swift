public import ChainKit

/// A lesson: a chain, how the backend behaves, the operations to launch and, optionally,
/// the order in which they advance.
///
/// Built-in scenarios and scenario files use the same JSON format (``ScenarioCodec``).
public struct Scenario: Sendable, Hashable {
    /// Which kind of chain the operations go through.
    public enum Chain: Sendable, Hashable {
        /// Apollo iOS 2.x `RequestChain`: GraphQL interceptors, the default cache, HTTP
        /// interceptors, the JSON parser.
        case graphQL(graphQL: [Layer], http: [Layer])
        /// swift-openapi-runtime middlewares over one transport.
        case middleware([Layer])
    }

    /// One configured interceptor or middleware.
    public struct Layer: Sendable, Hashable {
        /// The type name (`MaxRetryInterceptor`).
        public var name: String
        /// Its settings, as written in the scenario file.
        public var settings: [String: JSONValue]

        public init(_ name: String, _ settings: [String: JSONValue] = [:]) {
            self.name = name
            self.settings = settings
        }
    }

    /// One entry of a scheduling script: which request moves next, and optionally the stop
    /// it keeps moving to.
    public struct ScriptStep: Sendable, Hashable {
        public var request: Int
        /// nil: one step; otherwise the request keeps its turn until it waits at this stop.
        public var until: StopPlace?

        public init(request: Int, until: StopPlace? = nil) {
            self.request = request
            self.until = until
        }
    }

    /// The client's credentials at the start.
    public enum InitialToken: String, Sendable, Hashable, CaseIterable {
        /// Signed in with a valid access token.
        case valid
        /// Signed in, but the access token has already expired.
        case expired
        /// No credentials.
        case none
    }

    /// One operation a request runs.
    public struct Operation: Sendable, Hashable {
        /// A GraphQL operation of the lab backend (`HeroQuery`, `RenameHero`) or, for a
        /// middleware chain, an operation ID such as `getHero`.
        public var name: String
        public var fetchBehavior: FetchBehavior?
        public var autoPersistQueries: Bool
        public var useGETForQueries: Bool
        public var useGETForPersistedQueryRetry: Bool
        public var variables: [String: JSONValue]?
        /// What the client reports about itself (GraphQL only); nil sends no client awareness.
        public var clientAwareness: ClientAwarenessMetadata?
        /// For middleware chains: method and path.
        public var method: String?
        public var path: String?
        /// A GraphQL document of the user's own (from `--operation` or a scenario file's
        /// `document`); nil: the lab's operation called `name`.
        public var document: String?
        /// The kind of `name` in `document`; nil with the lab's operations.
        public var kind: GraphQLOperation.Kind?
        /// For middleware chains: a JSON request body.
        public var body: JSONValue?

        public init(
            name: String, fetchBehavior: FetchBehavior? = nil, autoPersistQueries: Bool = false, useGETForQueries: Bool = false,
            useGETForPersistedQueryRetry: Bool = false, variables: [String: JSONValue]? = nil,
            clientAwareness: ClientAwarenessMetadata? = nil, method: String? = nil, path: String? = nil,
            document: String? = nil, kind: GraphQLOperation.Kind? = nil, body: JSONValue? = nil
        ) {
            self.name = name
            self.fetchBehavior = fetchBehavior
            self.autoPersistQueries = autoPersistQueries
            self.useGETForQueries = useGETForQueries
            self.useGETForPersistedQueryRetry = useGETForPersistedQueryRetry
            self.variables = variables
            self.clientAwareness = clientAwareness
            self.method = method
            self.path = path
            self.document = document
            self.kind = kind
            self.body = body
        }
    }

    public var name: String
    /// One line for lists.
    public var summary: String
    /// What the scenario teaches and what to look for.
    public var teaches: String
    public var chain: Chain
    public var backend: LabBackend.Settings
    public var token: InitialToken
    /// The refresh strategy of the token manager behind `AuthInterceptor`/`AuthenticationMiddleware`.
    public var refreshStrategy: RefreshStrategy
    /// The operations a person can start (`n` starts operation 0).
    public var operations: [Operation]
    /// Operation numbers launched when the scenario starts, in order (headless runs).
    public var launch: [Int]
    /// Which requests advance, in order, while the script lasts; then round robin.
    public var script: [ScriptStep]
    /// Whether the cache holds the first operation's result before anything runs.
    public var prefillCache: Bool
    /// Attempts after which the lab stops an operation whose retries nothing limits.
    public var safetyCap: Int
    /// Breakpoints by rule in force from the start.
    public var breakpoints: [BreakRule] = []

    public init(
        name: String, summary: String, teaches: String, chain: Chain, backend: LabBackend.Settings = .init(),
        token: InitialToken = .valid, refreshStrategy: RefreshStrategy = .singleFlight, operations: [Operation],
        launch: [Int] = [0], script: [ScriptStep] = [], prefillCache: Bool = false, safetyCap: Int = 20
    ) {
        self.name = name
        self.summary = summary
        self.teaches = teaches
        self.chain = chain
        self.backend = backend
        self.token = token
        self.refreshStrategy = refreshStrategy
        self.operations = operations
        self.launch = launch
        self.script = script
        self.prefillCache = prefillCache
        self.safetyCap = safetyCap
    }
}
