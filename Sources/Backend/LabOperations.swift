public import ChainKit

/// The GraphQL operations the lab backend serves, ready to launch through a chain.
///
/// ```swift
/// let result = try await client.fetch(LabOperations.heroQuery)
/// // {"data":{"hero":{"id":"2001","name":"R2-D2"}}}
/// ```
public enum LabOperations {
    /// The hero: `{"hero":{"id":"2001","name":"R2-D2"}}`.
    public static let heroQuery = ChainOperation(
        name: "HeroQuery", kind: .query, document: "query HeroQuery { hero { id name } }")

    /// One character by id, with the films it appears in; `{"hero":null}` for an unknown id.
    public static func heroDetailsQuery(id: String) -> ChainOperation {
        ChainOperation(
            name: "HeroDetailsQuery", kind: .query,
            document: "query HeroDetailsQuery($id: ID!) { hero(id: $id) { id name appearsIn } }",
            variables: ["id": .string(id)])
    }

    /// Renames the hero; later ``heroQuery`` results carry the new name.
    public static func renameHero(name: String) -> ChainOperation {
        ChainOperation(
            name: "RenameHero", kind: .mutation,
            document: "mutation RenameHero($name: String!) { renameHero(name: $name) { id name } }",
            variables: ["name": .string(name)])
    }

    /// What the chain knows of the lab's schema: a `Hero` is keyed by its `id`, `hero` and
    /// `renameHero` return heroes, and a hero's `id` and `name` are non-null (`ID!`,
    /// `String!`). The backend's results carry no `__typename` (Apollo's generated operations
    /// would select it), so the field types say it instead.
    public static let cacheSchema = CacheSchema(
        keyFields: ["Hero": ["id"]],
        fieldTypes: ["Query.hero": "Hero", "Mutation.renameHero": "Hero"],
        nonNullFields: ["Hero.id", "Hero.name"])

    /// The hero with its films deferred: `{"hero":{"id","name"}}` first, and `appearsIn`
    /// as an increment 80 ms (``IncrementalAnswers/deferDelay``) later, as a
    /// `multipart/mixed;deferSpec=20220824` answer when the request accepts one.
    public static let heroDeferQuery = ChainOperation(
        name: "HeroDeferQuery", kind: .query,
        document: #"query HeroDeferQuery { hero { id name ... @defer(label: "films") { appearsIn } } }"#)

    /// A subscription over HTTP (`multipart/mixed;subscriptionSpec=1.0`): three renames of
    /// the hero, a heartbeat between the first two, then the server ends the stream.
    public static let heroNameChanged = ChainOperation(
        name: "HeroNameChanged", kind: .subscription,
        document: "subscription HeroNameChanged { heroNameChanged { id name } }")

    /// Every operation name the backend knows, with its kind.
    public static let kinds: [String: ChainOperation.Kind] = Dictionary(
        uniqueKeysWithValues: ServedOperation.allCases.map { ($0.rawValue, $0.kind) })
}

/// The operations the backend executes, by name.
enum ServedOperation: String, CaseIterable {
    case heroQuery = "HeroQuery"
    case heroDetailsQuery = "HeroDetailsQuery"
    case renameHero = "RenameHero"
    case heroDeferQuery = "HeroDeferQuery"
    case heroNameChanged = "HeroNameChanged"

    var kind: ChainOperation.Kind {
        switch self {
        case .heroQuery, .heroDetailsQuery, .heroDeferQuery: .query
        case .renameHero: .mutation
        case .heroNameChanged: .subscription
        }
    }
}
