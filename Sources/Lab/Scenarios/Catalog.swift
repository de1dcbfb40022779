public import ChainKit

/// The built-in scenarios, each making one rule or one real bug visible.
public enum Catalog {
    /// Apollo's default chain with an auth interceptor: MaxRetry, Auth, APQ; ResponseCode.
    static let defaultGraphQLChain = Scenario.Chain.graphQL(
        graphQL: [Scenario.Layer("MaxRetryInterceptor", ["maxRetries": 3]), Scenario.Layer("AuthInterceptor"), Scenario.Layer("AutomaticPersistedQueryInterceptor")],
        http: [Scenario.Layer("ResponseCodeInterceptor")])

    static let heroQuery = Scenario.Operation(name: "HeroQuery", fetchBehavior: .CacheFirst)

    /// Every built-in scenario, in the order a newcomer should try them.
    public static let scenarios: [Scenario] = [
        Scenario(
            name: "basics",
            summary: "One HeroQuery through Apollo's default chain with an auth interceptor.",
            teaches: "The onion: each GraphQL interceptor's pre-flight runs top-down, then the cache is read (CacheFirst: the empty cache misses), then the HTTP interceptors and the transport; results come back up through the post-flights in reverse. Look at AuthInterceptor's pre-flight: it adds Authorization.",
            chain: defaultGraphQLChain,
            backend: LabBackend.Settings(latency: 0.012),
            operations: [heroQuery]),
    ]

    /// The built-in scenario named `name`.
    public static func scenario(named name: String) -> Scenario? {
        scenarios.first { $0.name == name }
    }

    /// The built-in names, for messages and completion.
    public static var names: [String] { scenarios.map(\.name) }
}
