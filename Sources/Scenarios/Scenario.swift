public import Scheduling
public import Backend
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

    /// One entry of a scheduling script (``Scheduling/ScriptStep``).
    public typealias ScriptStep = Scheduling.ScriptStep

    /// The client's credentials at the start.
    public enum InitialToken: String, Sendable, Hashable, CaseIterable {
        /// Signed in with a valid access token.
        case valid
        /// Signed in, but the access token has already expired.
        case expired
        /// No credentials.
        case none
    }

    /// One operation a request runs: a name, and settings that each default to the lab's
    /// usual request.
    ///
    /// ```swift
    /// Scenario.Operation(name: "HeroQuery") { $0.fetchBehavior = .CacheFirst }
    /// ```
    public struct Operation: Sendable, Hashable {
        /// A GraphQL operation of the lab backend (`HeroQuery`, `RenameHero`) or, for a
        /// middleware chain, an operation ID such as `getHero`.
        public var name: String
        public var fetchBehavior: FetchBehavior? = nil
        /// Whether server results are written to the cache (upstream's
        /// `RequestConfiguration.writeResultsToCache`).
        public var writeResultsToCache = true
        /// Whether the query is watched once it has a result (upstream's `GraphQLQueryWatcher`):
        /// a later write to the records it read delivers it again, read from the cache.
        public var watch = false
        public var autoPersistQueries = false
        public var useGETForQueries = false
        public var useGETForPersistedQueryRetry = false
        public var variables: [String: JSONValue]? = nil
        /// What the client reports about itself (GraphQL only). Nil is what an `ApolloClient`
        /// reports by default, `ClientAwarenessMetadata()`: no name or version, and the
        /// library in `extensions.clientLibrary`; ``ClientAwarenessMetadata/none`` sends nothing.
        public var clientAwareness: ClientAwarenessMetadata? = nil
        /// For middleware chains: method and path.
        public var method: String? = nil
        public var path: String? = nil
        /// A GraphQL document of the user's own (from `--operation` or a scenario file's
        /// `document`); nil: the lab's operation called `name`.
        public var document: String? = nil
        /// The kind of `name` in `document`; nil with the lab's operations.
        public var kind: ChainOperation.Kind? = nil
        /// For middleware chains: a JSON request body.
        public var body: JSONValue? = nil

        /// The operation called `name`, with the settings `configure` changes from their
        /// defaults.
        public init(name: String, _ configure: (inout Self) -> Void = { _ in }) {
            self.name = name
            configure(&self)
        }
    }

    public var name: String
    /// One line for lists.
    public var summary: String
    /// What the scenario teaches and what to look for.
    public var teaches: String
    public var chain: Chain
    public var backend = LabBackend.Settings()
    public var token = InitialToken.valid
    /// The refresh strategy of the token manager behind `AuthInterceptor`/`AuthenticationMiddleware`.
    public var refreshStrategy = RefreshStrategy.singleFlight
    /// The operations a person can start (`n` starts operation 0).
    public var operations: [Operation]
    /// Operation numbers launched when the scenario starts, in order (headless runs).
    public var launch = [0]
    /// Which requests advance, in order, while the script lasts; then round robin.
    public var script: [ScriptStep] = []
    /// Whether the cache holds the first operation's result before anything runs.
    public var prefillCache = false
    /// Attempts after which the lab stops an operation whose retries nothing limits.
    public var safetyCap = 20
    /// Breakpoints by rule in force from the start.
    public var breakpoints: [BreakRule] = []
    /// What to look for in the inspector, told as keys and what the screen then shows (its
    /// about overlay, `i`); nil: the overlay shows ``teaches``.
    public var onScreen: String? = nil

    /// A scenario with what every scenario needs; `configure` changes the other settings
    /// (backend, token, launches, script, …) from their defaults.
    public init(
        name: String, summary: String, teaches: String, chain: Chain, operations: [Operation],
        _ configure: (inout Self) -> Void = { _ in }
    ) {
        self.name = name
        self.summary = summary
        self.teaches = teaches
        self.chain = chain
        self.operations = operations
        configure(&self)
    }
}

extension Scenario.Operation {
    /// The GraphQL operation this runs: the user's document, or the lab's operation called
    /// ``name`` with its variables.
    package var graphQLOperation: ChainOperation {
        if let document {
            return ChainOperation(name: name, kind: kind ?? .query, document: document, variables: variables)
        }
        return switch name {
        case "RenameHero": LabOperations.renameHero(name: variables?["name"]?.stringValue ?? "Artoo")
        case "HeroDetailsQuery": LabOperations.heroDetailsQuery(id: variables?["id"]?.stringValue ?? "2001")
        case "HeroDeferQuery": LabOperations.heroDeferQuery
        case "HeroNameChanged": LabOperations.heroNameChanged
        default: LabOperations.heroQuery
        }
    }
}
