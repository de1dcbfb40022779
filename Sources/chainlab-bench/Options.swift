/// Which figures to measure: all of them, or those whose names start with an `--only` prefix.
struct Selection: Sendable {
    var prefixes: [String]

    func includes(_ name: String) -> Bool {
        prefixes.isEmpty || prefixes.contains { name.hasPrefix($0) }
    }
}

struct Options {
    static let usage = """
        chainlab-bench — the price of every hop and every event (issue 7)

        USAGE: chainlab-bench [--quick] [--only PREFIX]... [--operations N]

          --quick         fewer and shorter batches (under 30 s)
          --only PREFIX   measure only figures whose names start with PREFIX (repeatable),
                          e.g. --only chain.instrumented.5 under valgrind --tool=callgrind;
                          a ratio is reported only when its baseline was measured too
          --operations N  run each subject exactly N times in one batch (for instruction
                          counts: run twice with different N and take the difference)

        Prints a table, then one JSON line per figure:
          {"name", "value", "unit", "baseline", "ratio"}
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
