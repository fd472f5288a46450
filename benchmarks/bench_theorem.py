"""Benchmark: `verify theorem ID` and `verify --help` from a cold start, with an import breakdown.

For each default theorem instance: the wall and user CPU time of the whole command in a fresh
interpreter (imports, hypotheses, SOS certificates, exact re-checks, no simulation), whether each
certificate was re-checked from the shipped package data or searched, and, from the JSON report,
the time of the plain float SOS solves against the margin solves plus exact rounding/re-checks.
Then `python -X importtime` of `verify theorem 4.2 --no-simulate` and of `verify --help`: total
import time and the heaviest packages (self times summed per package).  Goals (issue 14):
`verify theorem 4.2 --no-simulate` cold under 0.8 s and `verify --help` under 0.3 s on an idle
machine; the load average is printed because a loaded machine inflates wall time (user CPU time
much less).  Run:

    python benchmarks/bench_theorem.py [--repeat 3] [--theorems 4.2,3.2,4.4-sym,4.4-hemisphere]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import time

THEOREMS = ("4.2", "3.2", "4.4-sym", "4.4-hemisphere")
COMMAND = [sys.executable, "-m", "verify.cli.main"]


def timed(argv: list[str], env: dict | None = None) -> tuple[float, float, subprocess.CompletedProcess]:
    """Wall and user CPU seconds of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    start = time.perf_counter()
    out = subprocess.run(argv, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - start
    return wall, resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - before, out


def cold_run(theorem_id: str, simulate: bool) -> tuple[float, float, dict]:
    argv = COMMAND + ["theorem", theorem_id, "--format", "json"] + ([] if simulate else ["--no-simulate"])
    wall, user, out = timed(argv)
    if out.returncode != 0:
        raise SystemExit(f"verify theorem {theorem_id} exited {out.returncode}: {out.stderr[-2000:]}")
    return wall, user, json.loads(out.stdout)


def solver_split(payload: dict) -> tuple[float, float, dict]:
    float_s = exact_s = 0.0
    origins: dict = {}
    for step in payload["steps"]:
        data = step.get("data", {})
        stats = data.get("search_stats")
        if stats:
            float_s += stats.get("float_solve_s", 0.0)
            exact_s += stats.get("margin_solve_s", 0.0) + stats.get("rounding_s", 0.0)
        if "origin" in data:
            origins[data["origin"]] = origins.get(data["origin"], 0) + 1
    return float_s, exact_s, origins


_LINE = re.compile(r"^import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)$")


def import_breakdown(args: list[str], top: int = 8) -> tuple[float, list[tuple[str, float]]]:
    """Total import seconds and the heaviest top-level packages (sum of the *self* times of every
    module under each package, so nested imports are counted once, under their own package)."""
    env = dict(os.environ, PYTHONPROFILEIMPORTTIME="1")
    _, _, out = timed(COMMAND + args, env)
    per_root: dict[str, float] = {}
    total = 0.0
    for line in out.stderr.splitlines():
        m = _LINE.match(line)
        if not m:
            continue
        root = m[4].split(".")[0]
        per_root[root] = per_root.get(root, 0.0) + int(m[1]) / 1e6
        total += int(m[1]) / 1e6
    return total, sorted(per_root.items(), key=lambda kv: -kv[1])[:top]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--theorems", default=",".join(THEOREMS))
    args = parser.parse_args()
    print(f"load average: {' '.join(f'{v:.2f}' for v in os.getloadavg())} on {os.cpu_count()} cores")
    helps = [timed(COMMAND + ["--help"]) for _ in range(args.repeat)]
    print(f"verify --help: wall {statistics.median(h[0] for h in helps):.3f} s, "
          f"user {statistics.median(h[1] for h in helps):.3f} s (median of {args.repeat}; goal < 0.3 s)")
    print(f"{'theorem':<15} {'cold wall':>9} {'cold user':>9} {'+sim wall':>9} {'float SOS':>9} {'margin+exact':>12} "
          f"certificates")
    for tid in args.theorems.split(","):
        cold = [cold_run(tid, False) for _ in range(args.repeat)]
        with_sim = cold_run(tid, True)[0]
        f, e, origins = solver_split(cold[0][2])
        how = ", ".join(f"{n} {'re-checked shipped' if k == 'shipped' else k}" for k, n in sorted(origins.items()))
        print(f"{tid:<15} {statistics.median(c[0] for c in cold):9.3f} {statistics.median(c[1] for c in cold):9.3f} "
              f"{with_sim:9.2f} {f:9.4f} {e:12.4f} {how or '-'}")
    print("goal: verify theorem 4.2 --no-simulate cold < 0.8 s on an idle machine")
    for label, argv in (("verify theorem 4.2 --no-simulate", ["theorem", "4.2", "--no-simulate"]),
                        ("verify --help", ["--help"])):
        total, heavy = import_breakdown(argv)
        print(f"\nimports of `{label}` (python -X importtime): {total:.3f} s in all; by package (self times):")
        for name, seconds in heavy:
            print(f"  {name:<28} {seconds:7.3f} s")


if __name__ == "__main__":
    main()
