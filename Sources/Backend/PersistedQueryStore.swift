/// Automatic persisted queries the backend has been taught: SHA-256 hex → query text.
struct PersistedQueryStore {
    /// How many queries are kept; past it the oldest is forgotten.
    static let capacity = 1_000

    private var queries: [String: String] = [:]
    private var order: [String] = []

    subscript(hash: String) -> String? { queries[hash] }

    /// Stores `query` under `hash`; true when the hash was new.
    mutating func store(_ query: String, hash: String) -> Bool {
        guard queries[hash] == nil else { return false }
        if order.count >= PersistedQueryStore.capacity {
            queries.removeValue(forKey: order.removeFirst())
        }
        queries[hash] = query
        order.append(hash)
        return true
    }
}
