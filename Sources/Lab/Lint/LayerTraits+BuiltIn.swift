import ChainKit
public import Lint

extension LayerTraits {
    /// The traits of the layers ChainKit and the lab ship, by type name: each definition's
    /// own (``LayerRegistry/Definition/traits``), and the response parser's.
    public static let builtIn: [String: LayerTraits] = Dictionary(
        uniqueKeysWithValues: LayerRegistry.definitions.map { ($0.name, $0.traits) }
            + [("JSONResponseParsingInterceptor", [.parsesResponses, .readsGraphQLErrors])])

    /// The traits of a layer instance: what it says of itself, else what is known of its type.
    static func of(_ layer: Any, name: String) -> LayerTraits {
        if let described = layer as? any LintDescribed { return described.lintTraits }
        if let retrying = layer as? RetryingMiddleware {
            var traits: LayerTraits = retrying.maxAttempts > 1 ? [.retries] : []
            if retrying.bufferingSinglePassBodies != nil { traits.insert(.buffersSinglePassBodies) }
            return traits
        }
        return builtIn[name] ?? []
    }
}
