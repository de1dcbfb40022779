#!/usr/bin/env bash
# Instructions per operation of chainlab-bench figures, counted by callgrind: the stable
# measure on a busy machine, where timings are not.
#
#   scripts/instructions.sh [--check] [--write | --json] [--bench PATH] [--debug PATH] [FIGURE…]
#
# Each figure runs under `valgrind --tool=callgrind` twice, at two operation counts (after
# one warm-up operation), and the difference is divided by the difference in operations: the
# run's fixed costs (start-up, the Swift runtime's first conformance look-ups) cancel out.
# Derived figures are worked out from measured ones:
#   middleware.per_layer             (middleware.bare.10 − middleware.bare.0) / 10
#   chain.per_hop                    (chain.bare.10 − chain.bare.0) / 10
#   instrument.per_event.middleware  (middleware.instrumented.5 − middleware.bare.5) / events
#   instrument.per_event.graphql     (chain.instrumented.5 − chain.bare.5) / events
# (events: what one instrumented operation records, `instrument.events_per_op.*`).
#
# Without FIGUREs, every figure in Benchmarks/instruction-budgets.json is counted.
#   --check   exit 1 when a figure exceeds its budget by more than its tolerance (the file's)
#   --json    print the counts in the budget file's format
#   --write   write them into the budget file (the tolerance and operation counts are kept),
#             and docs/benchmarks.md from it (scripts/benchmarks-doc.py)
#   --bench   the chainlab-bench binary (default .build/release/chainlab-bench; build it with
#             `swift build -c release --product chainlab-bench`)
#   --debug   a debug build's chainlab-bench (`swift build --product chainlab-bench`): the
#             figures the budget file's "debug" names are counted with it too, and --check
#             also fails when one costs more than the file's "debug_ratio" times the release
#             build's count (`swift run chainlab` is a debug build; a key must not feel slower
#             there than that); --write keeps the debug counts in the file as well
set -euo pipefail
case " $* " in *" -h "*|*" --help "*) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "instructions.sh: valgrind is not installed (apt-get install valgrind)" >&2; exit 2; }
exec python3 - "$@" <<'PY'
import concurrent.futures
import statistics, json, os, re, subprocess, sys

BUDGETS = "Benchmarks/instruction-budgets.json"
DERIVED = {
    "middleware.per_layer": (("middleware.bare.10", "middleware.bare.0"), 10),
    "chain.per_hop": (("chain.bare.10", "chain.bare.0"), 10),
    "instrument.per_event.middleware": (("middleware.instrumented.5", "middleware.bare.5"), "instrument.events_per_op.middleware"),
    "instrument.per_event.graphql": (("chain.instrumented.5", "chain.bare.5"), "instrument.events_per_op.graphql"),
}
# The bench's names for the derived figures, in nanoseconds.
ALIASES = {
    "middleware.ns_per_layer": "middleware.per_layer", "chain.ns_per_hop": "chain.per_hop",
    "instrument.ns_per_event.middleware": "instrument.per_event.middleware",
    "instrument.ns_per_event.graphql": "instrument.per_event.graphql",
}

def fail(message, status=2):
    print(f"instructions.sh: {message}", file=sys.stderr)
    sys.exit(status)

args = sys.argv[1:]
check = write = as_json = False
bench = ".build/release/chainlab-bench"
debug_bench = None
wanted = []
while args:
    arg = args.pop(0)
    if arg == "--check": check = True
    elif arg == "--write": write = True
    elif arg == "--json": as_json = True
    elif arg == "--bench":
        if not args: fail("--bench needs a path")
        bench = args.pop(0)
    elif arg == "--debug":
        if not args: fail("--debug needs a path")
        debug_bench = args.pop(0)
    elif arg.startswith("-"): fail(f"unknown option {arg}")
    else: wanted.append(ALIASES.get(arg, arg))
if not os.access(bench, os.X_OK):
    fail(f"{bench} is not an executable; build it with `swift build -c release --product chainlab-bench`")
if debug_bench is not None and not os.access(debug_bench, os.X_OK):
    fail(f"{debug_bench} is not an executable; build it with `swift build --product chainlab-bench`")
try:
    config = json.load(open(BUDGETS))
except (OSError, ValueError) as error:
    fail(f"cannot read {BUDGETS}: {error}")
budgets = config["figures"]
operations = config["operations"]
tolerance = config["tolerance"]
# A figure derived as a difference carries the noise of both its parts, over its divisor.
tolerances = config.get("tolerances", {})
figures = wanted or list(budgets)
# The figures also counted in a debug build, and how many times the release count they may be.
debug_budgets = config.get("debug", {})
debug_ratio = config.get("debug_ratio", 3.0)
debug_figures = [name for name in debug_budgets if name in figures] if debug_bench else []

base = []
for figure in figures:
    for name in (DERIVED[figure][0] if figure in DERIVED else [figure]):
        if name not in base: base.append(name)

env = dict(os.environ, SWIFT_BACKTRACE="enable=no")

def instructions(figure, count, binary=bench):
    run = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", binary, "--figure", figure, "--operations", str(count)],
        capture_output=True, text=True, env=env)
    collected = re.search(r"Collected\s*:\s*(\d+)", run.stderr)
    if run.returncode != 0 or not collected:
        fail(f"{figure} at {count} operations failed (status {run.returncode}):\n{run.stdout}{run.stderr[-2000:]}", 1)
    if not any(line.startswith("{") and f'"name":"{figure}"' in line for line in run.stdout.splitlines()):
        fail(f"the bench does not know the figure {figure}")
    return int(collected.group(1))

def counts_for(figure):
    return operations.get(figure, operations["default"])

def events_per_operation(figure):
    run = subprocess.run([bench, "--figure", figure, "--operations", "1"], capture_output=True, text=True, env=env)
    for line in run.stdout.splitlines():
        if line.startswith("{") and f'"name":"{figure}"' in line:
            return json.loads(line)["value"]
    fail(f"the bench did not report {figure}:\n{run.stdout}{run.stderr}", 1)

# Figures counted more than once, the median kept: those whose count varies from run to run
# (the threads of the cooperative pool do not interleave the same way every time).
repeats = config.get("repeats", {})

# Every run on its own core; valgrind runs one thread at a time.
runs = [(name, count, turn, bench) for name in base for count in counts_for(name) for turn in range(repeats.get(name, 1))]
runs += [(name, count, turn, debug_bench) for name in debug_figures for count in counts_for(name) for turn in range(repeats.get(name, 1))]
with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
    collected = dict(zip(runs, pool.map(lambda run: instructions(run[0], run[1], run[3]), runs)))

def per_operation(name, binary):
    low, high = counts_for(name)
    return statistics.median(
        (collected[(name, high, turn, binary)] - collected[(name, low, turn, binary)]) / (high - low)
        for turn in range(repeats.get(name, 1)))

measured = {name: per_operation(name, bench) for name in base}
debug_measured = {name: per_operation(name, debug_bench) for name in debug_figures}
results = {}
for figure in figures:
    if figure in DERIVED:
        (minuend, subtrahend), divisor = DERIVED[figure]
        divisor = divisor if isinstance(divisor, int) else events_per_operation(divisor)
        results[figure] = (measured[minuend] - measured[subtrahend]) / divisor
    else:
        results[figure] = measured[figure]

if as_json or write:
    updated = dict(config, figures={**budgets, **{name: round(value) for name, value in results.items()}})
    if debug_measured:
        updated["debug"] = {**debug_budgets, **{name: round(value) for name, value in debug_measured.items()}}
    # Two-space indentation, with each operation pair on one line.
    text = re.sub(r"\[\s+(\d+),\s+(\d+)\s+\]", r"[\1, \2]", json.dumps(updated, indent=2)) + "\n"
    if write:
        open(BUDGETS, "w").write(text)
        print(f"wrote {len(results)} figures to {BUDGETS}", file=sys.stderr)
        subprocess.run([sys.executable, "scripts/benchmarks-doc.py"], check=True)
        print("wrote docs/benchmarks.md", file=sys.stderr)
    else:
        print(text, end="")
    sys.exit(0)

over = []
width = max(len(name) for name in results)
print(f"{'figure'.ljust(width)}  {'instructions/op':>15}  {'budget':>10}  ratio")
for name, value in results.items():
    budget = budgets.get(name)
    ratio = value / budget if budget else None
    allowed = tolerances.get(name, tolerance)
    verdict = "" if ratio is None else ("OVER" if ratio > 1 + allowed else ("lower the budget" if ratio < 1 - allowed else "ok"))
    if verdict == "OVER": over.append(name)
    print(f"{name.ljust(width)}  {value:>15,.0f}  {'' if budget is None else format(budget, ','):>10}  {'' if ratio is None else format(ratio, '.3f')}  {verdict}".rstrip())
for name, value in debug_measured.items():
    ratio = value / results[name]
    verdict = "OVER" if ratio > debug_ratio else "ok"
    if verdict == "OVER": over.append(f"{name} (debug build)")
    print(f"{name} in the debug build: {value:,.0f} instructions/op, {ratio:.2f}× the release build's (at most {debug_ratio:g}×)  {verdict}")
if check and over:
    print(f"over budget by more than its tolerance: {', '.join(over)}", file=sys.stderr)
    sys.exit(1)
PY
