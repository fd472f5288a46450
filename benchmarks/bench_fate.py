"""Benchmark of ``verify._fate.certify_fate`` on random constant instances (docs/fate.md).

    python benchmarks/bench_fate.py --count 100 [--start 0] [--seeds 1,3,14] [--nonsymmetric] [--oracle-digits 50] [--out FILE]

For each seed: the certified fate, its wall time, and (when certified) the disagreement between
the certified limit and an independent 50-digit simulation run to 10x the entry time (and at least to
``--oracle-floor``, default t = 60: an entry at t = 0 is otherwise compared far from the limit); a
``moving-consensus`` fate has no fixed limit and claims only ``|x_i - x_j| -> 0``: its disagreement is
the oracle's diameter at that time, and the oracle's diameter must also stay below the lemma's certified
bound ``c Dmax e^{-kappa (t - T)/2}`` at six times from ``T`` to the end (``oracle_bound_ratio <= 1``,
:func:`tests.fate.fate_cases.moving_bound_ratio`).  A ``repulsion`` fate (no consensus ever) claims a lower bound
on ``|x_2(t) - x_1(t)|`` for all time: the oracle's pair distance at 240 times up to ``--oracle-floor`` must stay
above it (``oracle_min_ratio >= 1``, :func:`tests.fate.fate_cases.repulsion_ratio`).  ``--seeds`` replaces ``--start``/``--count`` by a list.  One JSON
line per instance on stdout (or appended to ``--out``), then a summary line.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from tests.fate.fate_cases import disagreement, moving_bound_ratio, random_problem, repulsion_ratio  # noqa: E402
from verify._fate import certify_fate  # noqa: E402

AGREE = 1e-3


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--seeds", default=None, help="comma-separated seeds (instead of --start/--count)")
    ap.add_argument("--nonsymmetric", action="store_true")
    ap.add_argument("--oracle-digits", type=int, default=50)
    ap.add_argument("--no-oracle", action="store_true")
    ap.add_argument("--oracle-floor", type=float, default=60.0, help="the oracle runs to max(10 T, this)")
    ap.add_argument("--t-max", default="100")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    rows = []
    out = open(args.out, "a") if args.out else sys.stdout
    seeds = ([int(v) for v in args.seeds.split(",") if v.strip()] if args.seeds
             else range(args.start, args.start + args.count))
    for seed in seeds:
        p = random_problem(seed, nonsymmetric=args.nonsymmetric)
        t0 = time.perf_counter()
        r = certify_fate(p, t_max=args.t_max)
        wall = time.perf_counter() - t0
        row = {"seed": seed, "N": p.N, "d": p.d, "mask": p.mask, "heads": len(p.heads), "beta": str(p.beta),
               "fate": r.fate.value, "wall_s": round(wall, 2), "entry": None if r.entry_time is None else float(r.entry_time),
               "route": r.route, "reason": r.reason[:160], "reason_end": r.reason[-160:],
               "enclosure": r.stats.get("enclosure")}
        if r.certified and not args.no_oracle and r.route == "repulsion":
            t1 = time.perf_counter()
            row["oracle_t"] = args.oracle_floor
            row["oracle_measure"] = "min |x_2 - x_1| / certified bound"
            row["oracle_min_ratio"] = repulsion_ratio(r, args.oracle_floor, args.oracle_digits)
            row["agrees"] = row["oracle_min_ratio"] >= 1.0
            row["oracle_s"] = round(time.perf_counter() - t1, 2)
        elif r.certified and not args.no_oracle:
            t1 = time.perf_counter()
            row["oracle_t"] = max(10.0 * max(float(r.entry_time), 1.0), args.oracle_floor)
            row["oracle_disagreement"] = disagreement(r, 10.0, args.oracle_digits, args.oracle_floor)
            row["agrees"] = row["oracle_disagreement"] <= AGREE
            if r.limit is None:
                row["oracle_measure"] = "diameter"
                row["oracle_bound_ratio"] = moving_bound_ratio(r, 10.0, args.oracle_digits, args.oracle_floor)
                row["agrees"] = row["agrees"] and row["oracle_bound_ratio"] <= 1.0
            row["oracle_s"] = round(time.perf_counter() - t1, 2)
        rows.append(row)
        print(json.dumps(row), file=out, flush=True)
    cert = [r for r in rows if r["fate"] != "unknown"]
    checked = [r for r in cert if "agrees" in r]
    walls = sorted(r["wall_s"] for r in rows)
    summary = {"instances": len(rows), "certified": len(cert), "share": len(cert) / max(len(rows), 1),
               "oracle_checked": len(checked), "oracle_agree": sum(r["agrees"] for r in checked),
               "wall_median_s": walls[len(walls) // 2] if walls else None, "wall_max_s": walls[-1] if walls else None,
               "fates": {f: sum(r["fate"] == f for r in rows) for f in ("consensus", "non-consensus", "unknown")}}
    print(json.dumps({"summary": summary}), file=out, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
