import Timeline

/// One runtime's chain (`chain`: the GraphQL `ChainRunner`, `middleware`: the middleware
/// stack) measured at every depth in four variants, interleaved in one run. The subject
/// list, the figures and the subjects each derived figure needs are written here once for
/// every runtime:
/// - `PREFIX.handcomposed.N`: the earlier floor, closures over the transport plus reading and
///   parsing the body; kept so runs compare with earlier ones, with no ratio;
/// - `PREFIX.floor.N`: closures built once, no body work;
/// - `PREFIX.bare.N`: the runtime's own chain of N pass-through layers, against the floor
///   (target at 5: ≤ 2.0);
/// - `PREFIX.instrumented.N`: the lab's instrumented chain over the same layers, on a fresh
///   free-run rig for each batch, against bare (target at 5: ≤ 2.0), and its ratio to the floor;
/// - `PREFIX.ns_per_LAYER` and `PREFIX.floor.ns_per_LAYER`: (bare.10 − bare.0) / 10, and the
///   floor's the same way;
/// - `instrument.ns_per_event.KIND`: (instrumented.5 − bare.5) / the events one instrumented
///   operation records, and `instrument.events_per_op.KIND`, that count (counted, not assumed).
struct DepthFamily {
    static let depths = [0, 1, 5, 10]
    static let eventDepth = 5

    /// `chain` or `middleware`.
    let prefix: String
    /// What one more layer is called in the per-layer figures: `hop` or `layer`.
    let layer: String
    /// The target of `PREFIX.ns_per_LAYER`, if it has one.
    let perLayerTarget: Target?
    /// The `KIND` of the per-event figures: `graphql` or `middleware`.
    let eventKind: String
    /// Each variant's operation at a depth; `instrumented` records into the rig it is given.
    let handComposed: @Sendable (Int) -> Subject.Operation
    let floor: @Sendable (Int) -> Subject.Operation
    let bare: @Sendable (Int) -> Subject.Operation
    let instrumented: @Sendable (Int, LabRig) -> Subject.Operation

    /// Measures the family, with `extra` subjects of the runtime's own in the same run, and
    /// returns its figures; `extraFigures` (from the measured subjects) follow the depth
    /// figures.
    func run(
        _ sampling: Sampling, _ selection: Selection, extra: [Subject] = [],
        extraFigures: ([String: Double]) -> [Figure] = { _ in [] }
    ) async throws -> [Row] {
        let family = Family(subjects: subjects + extra, derived: derived)
        let measured = try await family.measure(sampling, selection)
        var figures = depthFigures(measured, selection) + extraFigures(measured).filter { selection.includes($0.name) }
        for variant in ["", "floor."] {
            let name = "\(prefix).\(variant)ns_per_\(layer)"
            if selection.includes(name), let value = perLayer(measured, "\(prefix).\(variant.isEmpty ? "bare" : "floor")", from: 0, to: 10) {
                figures.append(Figure(name: name, value: value, unit: "ns/\(layer)", target: variant.isEmpty ? perLayerTarget : nil))
            }
        }
        if [perEventName, eventCountName].contains(where: selection.includes) {
            let rig = LabRig()
            try await instrumented(Self.eventDepth, rig)()
            figures += perEventFigures(events: rig.store.count, measured, selection)
        }
        return figures.map(Row.measured)
    }

    /// Every variant at every depth, in the order they interleave.
    var subjects: [Subject] {
        Self.depths.flatMap { depth in
            let instrumented = self.instrumented
            return [
                Subject(name: name("handcomposed", depth), operation: handComposed(depth)),
                Subject(name: name("floor", depth), operation: floor(depth)),
                Subject(name: name("bare", depth), operation: bare(depth)),
                Subject(name: name("instrumented", depth)) { instrumented(depth, LabRig()) },
            ]
        }
    }

    /// The derived figures and the subjects each needs.
    var derived: [String: [String]] {
        [
            "\(prefix).ns_per_\(layer)": [name("bare", 0), name("bare", 10)],
            "\(prefix).floor.ns_per_\(layer)": [name("floor", 0), name("floor", 10)],
            perEventName: [name("instrumented", Self.eventDepth), name("bare", Self.eventDepth)],
        ]
    }

    var perEventName: String { "instrument.ns_per_event.\(eventKind)" }
    var eventCountName: String { "instrument.events_per_op.\(eventKind)" }

    func name(_ variant: String, _ depth: Int) -> String { "\(prefix).\(variant).\(depth)" }

    func depthFigures(_ measured: [String: Double], _ selection: Selection) -> [Figure] {
        var figures: [Figure] = []
        for depth in Self.depths {
            func figure(_ variant: String, baseline: Figure? = nil, floor: Figure? = nil, target: Target? = nil) -> Figure? {
                let name = name(variant, depth)
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

    func perEventFigures(events: Int, _ measured: [String: Double], _ selection: Selection) -> [Figure] {
        var figures: [Figure] = []
        let depth = Self.eventDepth
        if selection.includes(perEventName), let instrumented = measured[name("instrumented", depth)], let bare = measured[name("bare", depth)] {
            figures.append(Figure(name: perEventName, value: (instrumented - bare) / Double(events), unit: "ns/event", target: .atMost(150)))
        }
        if selection.includes(eventCountName) { figures.append(Figure(name: eventCountName, value: Double(events), unit: "events/op")) }
        return figures
    }
}
