#!/usr/bin/env python3
"""Reads `chainlab lint --format sarif` output back with two SARIF 2.1.0 readers of another
stack (sarif-tools and the typed pydantic-sarif model) and checks that they find the same
results as `chainlab lint --format json`.

Usage: check-lint-sarif.py CHAINLAB SCENARIO...   (exits 1 on the first mismatch)
"""
import json
import subprocess
import sys
import tempfile

from pydantic_sarif.model import StaticAnalysisResultsFormatSarifVersion210JsonSchema as SarifLog
from sarif import loader


def lint(chainlab, scenario, fmt):
    done = subprocess.run([chainlab, "lint", scenario, "--format", fmt, "--fail-on", "error"],
                          capture_output=True, text=True)
    if done.returncode not in (0, 1):
        sys.exit(f"chainlab lint {scenario} --format {fmt} exited {done.returncode}: {done.stderr}")
    return done.stdout


def main():
    chainlab, scenarios = sys.argv[1], sys.argv[2:]
    for scenario in scenarios:
        expected = [(f["rule"], f["message"]) for f in json.loads(lint(chainlab, scenario, "json"))["findings"]]
        sarif_text = lint(chainlab, scenario, "sarif")

        typed = SarifLog.model_validate_json(sarif_text)
        if typed.version.value != "2.1.0" or len(typed.runs) != 1:
            sys.exit(f"{scenario}: expected one SARIF 2.1.0 run")
        run = typed.runs[0]
        rule_ids = [rule.id for rule in run.tool.driver.rules]
        typed_results = [(r.ruleId, r.message.text) for r in run.results]
        for result in run.results:
            if rule_ids[result.ruleIndex] != result.ruleId:
                sys.exit(f"{scenario}: ruleIndex {result.ruleIndex} is not {result.ruleId}")

        with tempfile.NamedTemporaryFile("w", suffix=".sarif") as file:
            file.write(sarif_text)
            file.flush()
            records = loader.load_sarif_file(file.name).get_records()
        tool_results = [(r["Code"], r["Description"]) for r in records]

        if typed_results != expected or sorted(tool_results) != sorted(expected):
            sys.exit(f"{scenario}: SARIF readers found {typed_results} / {tool_results}, lint JSON has {expected}")
        print(f"{scenario}: {len(expected)} result(s) read back alike")


if __name__ == "__main__":
    main()
