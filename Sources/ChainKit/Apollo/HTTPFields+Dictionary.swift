// Apollo's API holds headers as `[String: String]` (a request's `additionalHeaders`, a
// `URLRequest`'s, an `HTTPURLResponse`'s); ChainKit's engine holds them as ordered
// `HTTPFields`. These are the two ways across.
extension HTTPFields {
    /// Fields from one value per name, in name order; a name or value HTTP does not allow is
    /// left out.
    package init(dictionary: [String: String]) {
        self.init(dictionary.sorted { $0.key < $1.key }.compactMap { try? HTTPField(name: $0.key, value: $0.value) })
    }

    /// One value per name, a repeated name's values joined with `, `.
    package var dictionary: [String: String] {
        var values: [String: String] = [:]
        for field in self {
            values[field.name] = values[field.name].map { $0 + ", " + field.value } ?? field.value
        }
        return values
    }

    /// These fields, which read as `before`, changed to read as `after`: a field whose value
    /// stays keeps its place, a new or changed one follows in name order, a removed one goes.
    package func updated(from before: [String: String], to after: [String: String]) -> HTTPFields {
        guard after != before else { return self }
        let kept = filter { after[$0.name] != nil && after[$0.name] == before[$0.name] }
        return HTTPFields(kept + HTTPFields(dictionary: after.filter { before[$0.key] != $0.value }))
    }
}
