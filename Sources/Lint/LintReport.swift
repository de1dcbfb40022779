import ChainKit
import Timeline
import Vocabulary

/// Lint findings as text, JSON or SARIF 2.1.0, for `chainlab lint` and for tools.
package enum LintReport {
    /// Findings for people:
    ///
    /// ```
    /// retry-order: 1 finding (1 error)
    ///
    /// error retry-outside-max-retry: RetryOnErrorInterceptor (hop 1) turns every error …
    ///   why: MaxRetryInterceptor ends the passes …
    ///   fix: Put MaxRetryInterceptor first, above every interceptor that retries.
    ///   see: chainlab trace retry-order
    /// ```
    package static func text(_ findings: [LintFinding], chain: String) -> String {
        let name = VisibleEscapes.escape(chain)
        guard !findings.isEmpty else { return "\(name): no findings\n" }
        var lines = ["\(name): \(count(findings))"]
        for finding in findings {
            lines.append("")
            lines.append("\(finding.rule.severity.rawValue) \(finding.rule.id): \(VisibleEscapes.escape(finding.message))")
            lines.append("  why: \(finding.rule.why)")
            lines.append("  fix: \(finding.rule.fix)")
            if let scenario = finding.rule.scenario { lines.append("  see: chainlab trace \(scenario)") }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `3 findings (1 error, 2 warnings)`.
    package static func count(_ findings: [LintFinding]) -> String {
        let total = findings.count == 1 ? "1 finding" : "\(findings.count) findings"
        let parts = FindingSeverity.allCases.reversed().compactMap { severity -> String? in
            let number = findings.filter { $0.rule.severity == severity }.count
            guard number > 0 else { return nil }
            let noun = severity == .info ? "info" : severity.rawValue + (number == 1 ? "" : "s")
            return "\(number) \(noun)"
        }
        return parts.isEmpty ? total : "\(total) (\(parts.joined(separator: ", ")))"
    }

    /// `{"chain": NAME, "findings": [...]}` with one finding per line. A finding's `hops` are
    /// `{"hop": INDEX, "name": NAME}` with the timeline's hop index (0 is the top).
    package static func json(_ findings: [LintFinding], chain: LintChain, name: String) -> String {
        let lines = findings.map { finding -> String in
            var members: [String: JSONValue] = [
                "rule": .string(finding.rule.id), "severity": .string(finding.rule.severity.rawValue),
                "message": .string(finding.message), "hops": hops(finding, in: chain),
                "title": .string(finding.rule.title), "why": .string(finding.rule.why), "fix": .string(finding.rule.fix),
            ]
            members["scenario"] = finding.rule.scenario.map(JSONValue.string) ?? .null
            return JSONValue.object(members).jsonString
        }
        let list = lines.isEmpty ? "[]" : "[\n" + lines.joined(separator: ",\n") + "\n]"
        return #"{"chain":"# + JSONValue.string(name).jsonString + #","findings":"# + list + "}\n"
    }

    /// A SARIF 2.1.0 log with one run: every rule in `tool.driver.rules`, one result per
    /// finding, located by logical locations (the hops) and, when the chain came from a file,
    /// that file as the artifact.
    package static func sarif(_ findings: [LintFinding], chain: LintChain, name: String, artifact: String? = nil) -> String {
        let rules = ChainLint.rules
        let results = findings.map { finding -> JSONValue in
            var location: [String: JSONValue] = [
                "logicalLocations": .array(finding.hops.compactMap { index in
                    chain.hops.first { $0.index == index }.map { hop in
                        .object([
                            "name": .string(hop.name), "index": .number(Double(hop.index)), "kind": "member",
                            "fullyQualifiedName": .string("\(name)/hop \(hop.index + 1) \(hop.name)"),
                        ])
                    }
                }),
                "message": .object(["text": .string(name)]),
            ]
            if let artifact {
                location["physicalLocation"] = .object(["artifactLocation": .object(["uri": .string(artifact)])])
            }
            return .object([
                "ruleId": .string(finding.rule.id), "ruleIndex": .number(Double(rules.firstIndex(of: finding.rule) ?? 0)),
                "level": .string(finding.rule.severity.sarifLevel), "message": .object(["text": .string(finding.message)]),
                "locations": .array([.object(location)]),
            ])
        }
        let driver: JSONValue = .object([
            "name": "chainlab",
            "rules": .array(rules.map { rule in
                var members: [String: JSONValue] = [
                    "id": .string(rule.id), "name": .string(rule.id),
                    "shortDescription": .object(["text": .string(rule.title)]),
                    "fullDescription": .object(["text": .string(rule.why)]),
                    "help": .object(["text": .string(rule.fix)]),
                    "defaultConfiguration": .object(["level": .string(rule.severity.sarifLevel)]),
                ]
                if let scenario = rule.scenario { members["properties"] = .object(["scenario": .string(scenario)]) }
                return .object(members)
            }),
        ])
        let log: JSONValue = .object([
            "$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0",
            "runs": .array([.object(["tool": .object(["driver": driver]), "results": .array(results)])]),
        ])
        return log.jsonString + "\n"
    }

    private static func hops(_ finding: LintFinding, in chain: LintChain) -> JSONValue {
        .array(finding.hops.map { index in
            .object(["hop": .number(Double(index)), "name": .string(chain.hops.first { $0.index == index }?.name ?? "")])
        })
    }
}
