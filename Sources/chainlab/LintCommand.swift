import ChainKit
import Foundation
import Lab
import Timeline
import Vocabulary

/// `chainlab lint`: the lint rules over a scenario's chain, before anything runs.
struct LintCommand {
    enum Format: String, CaseIterable {
        case text, json, sarif
    }

    static let usage = """
        USAGE: chainlab lint SCENARIO [--format text|json|sarif] [--fail-on error|warning|info]
               chainlab lint --scenario-file FILE [options]

        Checks SCENARIO's chain against the lint rules (retry order, parsing, refresh strategy,
        settings that never apply, middleware order, the cache) without running it.

          --format FORMAT     text (default): each finding with why and fix; json: one finding
                              per line; sarif: SARIF 2.1.0 for code-scanning tools
          --fail-on LEVEL     exit 1 when a finding is at LEVEL or above (default: warning)
          --scenario-file F   check the scenario in the JSON file F

        Exit status: 0 no finding at or above --fail-on, 1 otherwise, 2 bad input.
        Rules: \(ChainLint.rules.map(\.id).joined(separator: ", "))
        Scenarios: \(ScenarioSource.builtInList)
        """

    var scenarioName: String?
    var scenarioFile: String?
    var format = Format.text
    var failOn = FindingSeverity.warning

    init(arguments: [String]) throws {
        try Self.parser.parse(arguments, into: &self)
    }

    static var parser: CommandLineParser<Self> {
        let options: [CommandOption<Self>] = [
            .value("--format") { command, value in
                guard let format = Format(rawValue: value) else {
                    throw CommandLineError("unknown format '\(VisibleEscapes.escape(value))'; valid formats: \(Format.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                command.format = format
            },
            .value("--fail-on") { command, value in
                guard let level = FindingSeverity(rawValue: value) else {
                    throw CommandLineError("unknown level '\(VisibleEscapes.escape(value))' for --fail-on; valid: error, warning, info")
                }
                command.failOn = level
            },
            .value("--scenario-file") { $0.scenarioFile = $1 },
        ]
        return CommandLineParser(command: "lint", options: options, usage: usage) { command, argument in
            guard command.scenarioName == nil else {
                throw CommandLineError("lint takes one scenario, got '\(VisibleEscapes.escape(command.scenarioName!))' and '\(VisibleEscapes.escape(argument))'")
            }
            command.scenarioName = argument
        }
    }

    /// The report and the exit status.
    func run() throws -> (output: String, status: Int32) {
        let scenario = try ScenarioSource.resolve(name: scenarioName, file: scenarioFile)
        let chain = LintChain(scenario: scenario)
        let findings = ChainLint.check(chain)
        let output = switch format {
        case .text: LintReport.text(findings, chain: scenario.name)
        case .json: LintReport.json(findings, chain: chain, name: scenario.name)
        case .sarif: LintReport.sarif(findings, chain: chain, name: scenario.name, artifact: scenarioFile)
        }
        return (output, findings.contains { $0.rule.severity >= failOn } ? 1 : 0)
    }
}
