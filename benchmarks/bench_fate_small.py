"""Wall time of ``certify_fate`` on small instances (the issue's "one small instance <= 10 s").

    python benchmarks/bench_fate_small.py [--out FILE]

The same-sign counterexample (non-consensus), a hemisphere instance with ``U = I`` (consensus), and
the random general-``U`` instances of ``bench_fate.py`` (seeds 0..199, ``nonsymmetric``) with ``N d <= 9``,
first 12 of them.  One JSON line per instance (fate, route, wall and CPU time: on shared cores the
CPU time is the load-independent figure), then a summary.
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from tests.fate.fate_cases import random_problem
from verify._fate import certify_fate, problem_from_system

ROOT = pathlib.Path(__file__).resolve().parents[1]


def instances():
    from theorems.system_json import load_system

    yield "counterexample_same_sign", problem_from_system(load_system(ROOT / "examples" / "counterexample_same_sign.json"))
    yield "late_entry", problem_from_system(load_system(ROOT / "examples" / "late_entry.json"))
    n = 0
    for seed in range(200):
        p = random_problem(seed, nonsymmetric=True)
        if p.N * p.d <= 9:
            yield f"random-ns-{seed}", p
            n += 1
            if n == 12:
                return


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    out = open(args.out, "w") if args.out else sys.stdout
    rows = []
    for name, p in instances():
        t0, c0 = time.perf_counter(), time.process_time()
        r = certify_fate(p)
        cpu = time.process_time() - c0
        row = {"name": name, "N": p.N, "d": p.d, "heads": len(p.heads), "mask": p.mask, "fate": r.fate.value,
               "route": r.route, "wall_s": round(time.perf_counter() - t0, 2),
               "cpu_s": round(cpu, 2), "load_1min": os.getloadavg()[0]}
        rows.append(row)
        print(json.dumps(row), file=out, flush=True)
    cert = [r for r in rows if r["fate"] != "unknown"]
    print(json.dumps({"summary": {"instances": len(rows), "certified": len(cert),
                                  "certified_within_10s": sum(r["wall_s"] <= 10 for r in cert),
                                  "certified_within_10s_cpu": sum(r["cpu_s"] <= 10 for r in cert),
                                  "max_certified_wall_s": max((r["wall_s"] for r in cert), default=None)}}),
          file=out, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
