/// Which figures to measure: all of them, those whose names start with an `--only` prefix, or
/// exactly those named with `--figure`.
struct Selection: Sendable {
    var prefixes: [String]
    var names: Set<String> = []

    func includes(_ name: String) -> Bool {
        (prefixes.isEmpty && names.isEmpty) || names.contains(name) || prefixes.contains { name.hasPrefix($0) }
    }
}

struct Options {
    static let usage = """
        chainlab-bench — the price of every hop and every event

        USAGE: chainlab-bench [--quick] [--only PREFIX]... [--figure NAME]... [--operations N]

          --quick         fewer and shorter batches (under a minute)
          --only PREFIX   measure only figures whose names start with PREFIX (repeatable);
                          a ratio is reported only when its baseline was measured too
          --figure NAME   measure exactly the figure NAME (repeatable), e.g.
                          --figure chain.instrumented.5 under valgrind --tool=callgrind;
                          a derived figure (middleware.ns_per_layer…) measures what it needs
          --operations N  run each subject exactly N times in one batch (for instruction
                          counts: run twice with different N and take the difference;
                          scripts/instructions.sh does that)

        Prints a table, then one JSON line per figure:
          {"name", "value", "unit", "baseline", "ratio", "floor", "floor_ratio", "target", "met"}
        (a figure that could not be measured has "value": null and a "reason");
        scripts/record-run.py keeps a full run's lines in Benchmarks/last-run.json
        """

    var sampling = Sampling.full
    var mode = "full"
    var selection = Selection(prefixes: [])
    /// Set when started as a child process for one measurement.
    var child: String?

    init(arguments: [String]) throws(BenchFailure) {
        var rest = arguments[...]
        var fixedOperations: Int?
        while let argument = rest.popFirst() {
            switch argument {
            case "--quick":
                sampling = .quick
                mode = "quick"
            case "--only":
                guard let prefix = rest.popFirst() else { throw BenchFailure("--only needs a prefix") }
                selection.prefixes.append(prefix)
            case "--figure":
                guard let name = rest.popFirst() else { throw BenchFailure("--figure needs a figure name") }
                selection.names.insert(name)
            case "--operations":
                guard let count = rest.popFirst().flatMap({ Int($0) }), count > 0 else {
                    throw BenchFailure("--operations needs a positive count")
                }
                fixedOperations = count
            case ChildProcess.flag:
                guard let name = rest.popFirst() else { throw BenchFailure("\(ChildProcess.flag) needs a measurement name") }
                child = name
            default:
                throw BenchFailure("unknown argument '\(argument)'\n\n\(Options.usage)")
            }
        }
        if let fixedOperations {
            sampling.fixedOperations = fixedOperations
            sampling.batches = 1
            sampling.appendsPerBatch = fixedOperations
            mode += ", \(fixedOperations) operations"
        }
    }
}
