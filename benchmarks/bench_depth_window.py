"""Benchmark: how tight is ``verify depth``'s certified window on eq. 5, against the truth.

For each instance (constant rational ``P``, ``U = I``, tokens random rational unit vectors in the
hemisphere ``x_d > 0``) it runs :func:`verify._depth.certify.certify_depth` (closed form plus the
validated window) and, independently, DOP853 at ``rtol 1e-13`` on a grid of step ``1e-4`` around
the window, giving ``T_true`` (the last grid time with metric > eps, to grid resolution).  Printed:
closed-form bound / T_true ("late": none applies, the enclosure certifies a late entry), T_high / T_true, whether ``T_low <= T_true <= T_high``, and wall times.

    python benchmarks/bench_depth_window.py [--quick]
"""
from __future__ import annotations

import argparse
import random
import statistics
import time
from fractions import Fraction

import numpy as np


def _tokens(N: int, d: int, seed: int) -> list[list[str]]:
    """The same rational hemisphere points as bench_validated.py, as exact strings."""
    from bench_validated import tokens

    return [[str(c) for c in row] for row in tokens(N, d, seed)]


def _instance(N: int, d: int, beta: int, mask: str, random_P: bool, seed: int) -> dict:
    rng = random.Random(1000 + seed)
    P = "identity" if not random_P else [[f"{rng.randint(-6, 6)}/8" for _ in range(d)] for _ in range(d)]
    return {"name": f"N{N}-d{d}-b{beta}-{mask}-{'randP' if random_P else 'I'}", "d": d, "beta": beta, "mask": mask,
            "heads": [{"P": P, "U": "identity"}], "tokens": _tokens(N, d, seed)}


def _true_settling(system, theorem: str, eps: float, lo: float, hi: float) -> float:
    from numerics import DOP853
    from verify._depth.evidence import metric

    grid = np.arange(0.0, hi + 0.5, 1e-4)[1:]
    traj = DOP853(rtol=1e-13, atol=1e-15).integrate(system, float(grid[-1]), t_eval=grid)
    values = metric(traj.states[:, 0], system.mask)
    above = np.flatnonzero(values > eps)
    return float(traj.times[above[-1]]) if above.size else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="4 instances instead of 16")
    args = parser.parse_args()
    from theorems.system_json import system_from_dict
    from verify._depth.certify import certify_depth

    eps = Fraction(1, 100)
    cases = [(N, d, beta, mask, rp) for N, d in ((4, 3), (8, 4)) for beta in (1, 2) for mask in ("full", "causal")
             for rp in (False, True)]
    if args.quick:
        cases = cases[::4]
    print(f"{'instance':<28} {'closed/true':>11} {'T_low':>9} {'T_true':>9} {'T_high':>9} {'high/true':>9} "
          f"{'inside':>6} {'enclose s':>9}")
    ratios, inside_all, found = [], True, 0
    for k, (N, d, beta, mask, rp) in enumerate(cases):
        data = _instance(N, d, beta, mask, rp, k)
        system = system_from_dict(data)
        theorem = "3.2" if mask == "full" else "4.2"
        started = time.perf_counter()
        report = certify_depth(theorem, system, eps, simulate=True)
        j = report.to_json()
        w = j.get("window") or {}
        if not w.get("T_high"):
            print(f"{data['name']:<28} {'-':>11} window not certified: {w.get('reason', j['explanation'])[:80]}")
            continue
        found += 1
        t_low, t_high = float(Fraction(w["T_low"])), float(Fraction(w["T_high"]))
        t_true = _true_settling(system, theorem, float(eps), t_low, t_high)
        inside = t_low <= t_true + 1e-4 and t_true <= t_high + 1e-4
        inside_all &= inside
        ratios.append(t_high / t_true)
        closed = "late" if j["bound"] is None else f"{float(Fraction(j['bound'])) / t_true:.1f}"  # late: no closed form
        print(f"{data['name']:<28} {closed:>11} {t_low:>9.4f} {t_true:>9.4f} "
              f"{t_high:>9.4f} {t_high / t_true:>9.4f} {str(inside):>6} {w['seconds']:>9.2f}"
              f"   (total {time.perf_counter() - started:.1f} s)")
    if ratios:
        print(f"window certified on {found}/{len(cases)}; T_high/T_true median {statistics.median(ratios):.4f}, "
              f"worst {max(ratios):.4f}; T_low <= T_true <= T_high everywhere: {inside_all}")


if __name__ == "__main__":
    main()
