"""Benchmark: `verify theorem ID` from a cold start, and what exactness costs inside it.

For each default theorem instance: the wall time of the whole command in a fresh interpreter
(imports, hypotheses, SOS searches, exact rounding and re-checks, no simulation), then, from the
JSON report, the time of the plain float SOS solves against the margin solves plus exact
rounding/re-checks, with their ratio.  Goal (issue 3): `verify theorem 4.2` under 20 s cold on
2 cores.  Run:

    python benchmarks/bench_theorem.py [--repeat 3]
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time

THEOREMS = ("4.2", "3.2", "4.4-sym", "4.4-hemisphere")


def cold_run(theorem_id: str, simulate: bool) -> tuple[float, dict]:
    argv = [sys.executable, "-m", "verify.cli.main", "theorem", theorem_id, "--format", "json"]
    if not simulate:
        argv.append("--no-simulate")
    start = time.perf_counter()
    out = subprocess.run(argv, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if out.returncode != 0:
        raise SystemExit(f"verify theorem {theorem_id} exited {out.returncode}: {out.stderr}")
    return elapsed, json.loads(out.stdout)


def solver_split(payload: dict) -> tuple[float, float]:
    float_s = exact_s = 0.0
    for step in payload["steps"]:
        stats = step.get("data", {}).get("search_stats")
        if stats:
            float_s += stats.get("float_solve_s", 0.0)
            exact_s += stats.get("margin_solve_s", 0.0) + stats.get("rounding_s", 0.0)
    return float_s, exact_s


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"{'theorem':<9} {'cold (s)':>9} {'+sim (s)':>9} {'float SOS (s)':>14} {'margin+exact (s)':>17} {'ratio':>6}")
    for tid in THEOREMS:
        cold = [cold_run(tid, False) for _ in range(args.repeat)]
        with_sim, _ = cold_run(tid, True)
        wall = statistics.median(c[0] for c in cold)
        f, e = solver_split(cold[0][1])
        ratio = e / f if f > 0 else float("nan")
        print(f"{tid:<9} {wall:9.2f} {with_sim:9.2f} {f:14.4f} {e:17.4f} {ratio:6.2f}")
    print("goal: verify theorem 4.2 cold start < 20 s on 2 cores")


if __name__ == "__main__":
    main()
