#!/usr/bin/env python3
"""Runs the release bench once, in full, and keeps the run in Benchmarks/last-run.json.

    scripts/record-run.py [--bench PATH]

The file holds the bench's JSON lines, one per figure, with what the run was measured on:
the commit, the date, the machine's cores and load, the Swift compiler. The docs' current
timings (the generated parts of docs/performance-figures.md) are written from it by
scripts/benchmarks-doc.py, which this runs after recording; commit the file and the docs
together. Build the bench from the commit first (`swift build -c release --product
chainlab-bench`); the run is refused while Sources/ or Package.swift have uncommitted
changes, since it would be credited to a commit that does not hold the code measured.
"""
import datetime, json, os, platform, re, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUN = os.path.join(ROOT, "Benchmarks", "last-run.json")


def fail(message):
    sys.exit(f"record-run.py: {message}")


def git(*args):
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()


def main():
    args = sys.argv[1:]
    bench = os.path.join(ROOT, ".build", "release", "chainlab-bench")
    if args[:1] == ["--bench"] and len(args) == 2:
        bench = args[1]
    elif args:
        fail("usage: scripts/record-run.py [--bench PATH]")
    if not os.access(bench, os.X_OK):
        fail(f"{bench} is not an executable; build it with `swift build -c release --product chainlab-bench`")
    if git("status", "--porcelain", "--", "Sources", "Package.swift", "Package.resolved"):
        fail("Sources/ or Package.swift have uncommitted changes; commit them, build, then record")

    load = os.getloadavg()[0]
    env = dict(os.environ, SWIFT_BACKTRACE="enable=no")
    run = subprocess.run([bench], capture_output=True, text=True, env=env)
    if run.returncode != 0:
        fail(f"the bench failed (status {run.returncode}):\n{run.stderr[-2000:]}")
    lines = run.stdout.splitlines()
    header = re.fullmatch(r"chainlab-bench \((\w+), ([\d.]+) s\)", lines[0]) if lines else None
    if not header:
        fail(f"the bench's first line is not its header: {lines[:1]}")
    figures = [json.loads(line) for line in lines if line.startswith("{")]
    if not figures:
        fail("the bench printed no figures")

    record = {
        "commit": git("rev-parse", "HEAD"),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
        "swift": subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout.splitlines()[0],
        "machine": f"{platform.system()} {platform.machine()}",
        "cores": os.cpu_count(),
        "load": round(load, 2),
        "mode": header.group(1),
        "seconds": float(header.group(2)),
    }
    # One figure a line, so a new run's diff reads figure by figure.
    text = "{\n" + "".join(f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)},\n" for key, value in record.items())
    text += '  "figures": [\n' + ",\n".join("    " + json.dumps(figure, ensure_ascii=False) for figure in figures) + "\n  ]\n}\n"
    with open(RUN, "w") as f:
        f.write(text)
    print(f"wrote {len(figures)} figures to Benchmarks/last-run.json", file=sys.stderr)
    subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "benchmarks-doc.py")], check=True)


main()
