import ChainKit
import Foundation
import Lab
import Vocabulary

/// Finds the scenario a command names: a built-in by name, or a scenario file.
enum ScenarioSource {
    static var builtInList: String { Catalog.names.joined(separator: ", ") }

    /// The built-in `name`, or the scenario in `file`; exactly one must be given.
    static func resolve(name: String?, file: String?) throws -> Scenario {
        switch (name, file) {
        case (.some(let name), .some(let file)):
            throw CommandLineError("give a scenario name or --scenario-file, not both ('\(VisibleEscapes.escape(name))' and \(VisibleEscapes.escape(file)))")
        case (.some(let name), nil):
            guard let scenario = Catalog.scenario(named: name) else {
                throw CommandLineError("unknown scenario '\(VisibleEscapes.escape(name))'; valid: \(builtInList), or --scenario-file FILE")
            }
            return scenario
        case (nil, .some(let file)):
            let data = try readFile(file, purpose: "scenario file", limit: LabLimits.scenarioFileBytes)
            do {
                return try ScenarioCodec.decode(data, relativeTo: URL(fileURLWithPath: file).deletingLastPathComponent())
            } catch {
                throw CommandLineError("\(VisibleEscapes.escape(file)): \(error.description)")
            }
        case (nil, nil):
            throw CommandLineError("no scenario given; valid: \(builtInList), or --scenario-file FILE")
        }
    }
}

/// `chainlab scenarios`: lists the built-in scenarios, or prints one in the scenario-file
/// format.
struct ScenariosCommand {
    static let usage = """
        USAGE: chainlab scenarios              list the built-in scenarios
               chainlab scenarios --show NAME  print NAME as a scenario file (loads back with --scenario-file)
        """

    var show: String?

    init(arguments: [String]) throws {
        let refusal = { (argument: String) in "unknown argument '\(argument)' for scenarios; valid: --show NAME" }
        let parser = CommandLineParser<Self>(command: "scenarios", options: [.value("--show") { $0.show = $1 }], usage: Self.usage, unknown: refusal) { _, argument in
            throw CommandLineError(refusal(VisibleEscapes.escape(argument)))
        }
        try parser.parse(arguments, into: &self)
    }

    func run() throws -> String {
        if let show {
            return ScenarioCodec.encode(try ScenarioSource.resolve(name: show, file: nil))
        }
        let width = Catalog.names.map(\.count).max() ?? 0
        return Catalog.scenarios.map { $0.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + $0.summary }
            .joined(separator: "\n") + "\n"
    }
}
