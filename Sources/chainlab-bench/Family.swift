/// Subjects timed together in one interleaved run, so every ratio between two of them (and
/// every difference, such as the price of one more layer) falls on the same machine noise.
struct Family {
    var subjects: [Subject]
    /// Figures worked out from subjects' numbers, by name, with the subjects each needs.
    var derived: [String: [String]]

    /// Median nanoseconds per operation of every subject the selection asks for, directly or
    /// through a derived figure, by subject name.
    func measure(_ sampling: Sampling, _ selection: Selection) async throws -> [String: Double] {
        var wanted = Set(subjects.map(\.name).filter(selection.includes))
        for (name, needs) in derived where selection.includes(name) { wanted.formUnion(needs) }
        let chosen = subjects.filter { wanted.contains($0.name) }
        guard !chosen.isEmpty else { return [:] }
        for subject in chosen { try await subject.prepareBatch()() }
        let values = try await Sampler.nanosecondsPerOperation(chosen, sampling: sampling)
        return Dictionary(uniqueKeysWithValues: zip(chosen.map(\.name), values))
    }
}

/// The price of one more layer: `(deep − shallow) / (deepDepth − shallowDepth)`, nil unless
/// both were measured.
func perLayer(_ measured: [String: Double], _ prefix: String, from shallow: Int, to deep: Int) -> Double? {
    guard let low = measured["\(prefix).\(shallow)"], let high = measured["\(prefix).\(deep)"] else { return nil }
    return (high - low) / Double(deep - shallow)
}
