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

/// The figures of a chain family (`chain` or `middleware`) at every depth, from its measured
/// subjects:
/// - `PREFIX.handcomposed.N`: the earlier floor, closures over the transport plus reading and
///   parsing the body; kept so runs compare with earlier ones, with no ratio;
/// - `PREFIX.floor.N`: closures built once, no body work;
/// - `PREFIX.bare.N`: against the floor (target at 5: ≤ 2.0);
/// - `PREFIX.instrumented.N`: against bare (target at 5: ≤ 2.0), and its ratio to the floor.
func depthFigures(_ prefix: String, depths: [Int], _ measured: [String: Double], _ selection: Selection) -> [Figure] {
    var figures: [Figure] = []
    for depth in depths {
        func figure(_ variant: String, baseline: Figure? = nil, floor: Figure? = nil, target: Target? = nil) -> Figure? {
            let name = "\(prefix).\(variant).\(depth)"
            return measured[name].map { Figure(name: name, value: $0, unit: "ns/op", baseline: baseline, floor: floor, target: target) }
        }
        let handComposed = figure("handcomposed")
        let floor = figure("floor")
        let bare = figure("bare", baseline: floor, target: depth == 5 ? .ratioAtMost(2.0) : nil)
        let instrumented = figure("instrumented", baseline: bare, floor: floor, target: depth == 5 ? .ratioAtMost(2.0) : nil)
        figures += [handComposed, floor, bare, instrumented].compactMap { $0 }.filter { selection.includes($0.name) }
    }
    return figures
}

/// `instrument.ns_per_event.KIND`: (instrumented − bare) at `depth`, divided by the events
/// one instrumented operation records, and `instrument.events_per_op.KIND`, that count.
func perEventFigures(_ kind: String, prefix: String, depth: Int, events: Int, _ measured: [String: Double], _ selection: Selection) -> [Figure] {
    var figures: [Figure] = []
    let name = "instrument.ns_per_event.\(kind)"
    if selection.includes(name), let instrumented = measured["\(prefix).instrumented.\(depth)"], let bare = measured["\(prefix).bare.\(depth)"] {
        figures.append(Figure(name: name, value: (instrumented - bare) / Double(events), unit: "ns/event", target: .atMost(150)))
    }
    let count = "instrument.events_per_op.\(kind)"
    if selection.includes(count) { figures.append(Figure(name: count, value: Double(events), unit: "events/op")) }
    return figures
}

/// The subjects `instrument.ns_per_event.KIND` needs.
func perEventNeeds(prefix: String, depth: Int) -> [String] {
    ["\(prefix).instrumented.\(depth)", "\(prefix).bare.\(depth)"]
}
