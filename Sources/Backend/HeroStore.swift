import ChainKit

/// The characters the GraphQL operations and the REST routes read and change.
struct HeroStore {
    struct Hero: Equatable {
        var id: String
        var name: String
        var appearsIn: [String]
    }

    /// The id `hero` (without arguments) resolves to.
    static let heroID = "2001"
    /// How many characters `POST /heroes` may add.
    static let creationLimit = 1_000

    private(set) var heroes: [String: Hero] = [:]
    /// Ids in the order they were added, for listing.
    private(set) var order: [String] = []
    private var created = 0

    init() {
        let films = ["NEWHOPE", "EMPIRE", "JEDI"]
        for (id, name) in [("1000", "Luke Skywalker"), ("2000", "C-3PO"), ("2001", "R2-D2")] {
            add(Hero(id: id, name: name, appearsIn: films))
        }
    }

    subscript(id: String) -> Hero? { heroes[id] }

    mutating func rename(id: String, to name: String) -> Hero? {
        heroes[id]?.name = name
        return heroes[id]
    }

    /// A new character with the next free id, or nil past ``creationLimit``.
    mutating func create(name: String) -> Hero? {
        guard created < HeroStore.creationLimit else { return nil }
        created += 1
        let hero = Hero(id: String(3000 + created), name: name, appearsIn: [])
        add(hero)
        return hero
    }

    private mutating func add(_ hero: Hero) {
        heroes[hero.id] = hero
        order.append(hero.id)
    }
}

extension HeroStore.Hero {
    /// `{"id","name"}`, plus `appearsIn` when asked; hostile mode poisons the name, and
    /// `omitsName` leaves it out.
    func json(hostile: Bool, appearsIn includeFilms: Bool = false, omitsName: Bool = false) -> JSONValue {
        var object: [String: JSONValue] = ["id": .string(id)]
        if !omitsName { object["name"] = .string(hostile ? HostilePayload.heroName(name) : name) }
        if includeFilms { object["appearsIn"] = .array(appearsIn.map(JSONValue.string)) }
        return .object(object)
    }
}
