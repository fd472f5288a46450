"""Benchmark: the float SOS solve against what turning it into a proof costs.

For each problem prints the plain float solve time, the margin (interior point) solve time, the
exact rounding + projection + PSD/identity check time and the ratio
``(margin + exact) / float``.  Median of ``--repeat`` runs.  Then the exact PSD decisions on
their own, side by side: python-flint (:mod:`theorems.psd_flint`, the search side and the
predicates) against the pure-Python LDL^T re-checker (:mod:`verify._sos.exact_psd`), on a
120 x 120 Gram block rounded to denominator 2^26 as the rounding step produces it, and on the
``p^2 I - A^T A`` matrix of a d = 64 norm bound.  Run:

    python benchmarks/bench_sos_rounding.py [--repeat 3] [--format text|json] [--psd-only]
                                            [--gram 20,35,56,84,126] [--gram-only]

The Gram scaling table (issue 14) times, on random dense SOS forms with one Gram block of each
size, the *float-only* solve (the plain SDP alone, what a float SOS tool stops at) against the
whole *exact* pipeline (:func:`verify._sos.prove.prove_exact` with its defaults: cheap rational
counterexample grid, loose margin SDP, exact rounding and projection, exact re-check), and prints
exact / float, the interior-point iterations of each side and the 1-minute load average (the
machine is shared: compare iterations when the wall times are noisy).  The two run interleaved
within every repetition, in alternating order.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from fractions import Fraction

import sympy


def problems():
    from verify.certificates import (certify_first_token_alignment, certify_hemisphere_invariance,
                                     certify_token2_decrease, certify_token_iss)
    from verify._sos import find_lyapunov, prove_nonnegative

    x, y, z, w = sympy.symbols("x y z w")
    motzkin = x**4 * y**2 + x**2 * y**4 - 3 * x**2 * y**2 + 1
    rng = __import__("random").Random(5)
    forms = [sum(rng.randint(-2, 2) * m for m in (x**2, y**2, z**2, w**2, x * y, z * w, x * z, y * w, x, 1))
             for _ in range(6)]
    random_sos = sympy.expand(sum(f**2 for f in forms) * (1 + x**2))
    xs = sympy.symbols("x1:6")
    mons = [a * b for a in xs for b in xs] + list(xs) + [1] + [a * b * c for a, b, c in zip(xs, xs[1:], xs[2:])]
    forms5 = [sum(rng.randint(-2, 2) * m for m in rng.sample(mons, 8)) for _ in range(8)]
    random_sos5 = sympy.expand(sum(f**2 for f in forms5) + sum(v**6 for v in xs) + 1)
    return [
        ("Parrilo quartic (2 vars, deg 4)", lambda: prove_nonnegative(
            2 * x**4 + 2 * x**3 * y - x**2 * y**2 + 5 * y**4, [x, y], refute=False)),
        ("(1+x^2+y^2)*Motzkin (deg 8)", lambda: prove_nonnegative(
            sympy.expand((1 + x**2 + y**2) * motzkin), [x, y], refute=False)),
        ("random SOS (4 vars, deg 6)", lambda: prove_nonnegative(random_sos, [x, y, z, w], refute=False)),
        ("random SOS (5 vars, deg 6)", lambda: prove_nonnegative(random_sos5, xs, refute=False)),
        ("Lyapunov x'=-x+y^2, y'=-y (deg 4)", lambda: find_lyapunov([-x + y**2, -y], [x, y], degree=4)),
        ("4.2 token 2", lambda: certify_token2_decrease()),
        ("4.2/iss token i>=3", lambda: certify_token_iss()),
        ("3.2 hemisphere invariance", lambda: certify_hemisphere_invariance()),
        ("4.4-sym first token (d=6)", lambda: certify_first_token_alignment(
            [Fraction(2), 1, 0, -1, Fraction(-3, 2), -4])),
    ]


GRAM_CASES = {20: (3, 3), 35: (4, 3), 56: (5, 3), 84: (6, 3), 120: (7, 3), 126: (5, 4)}
"""Gram size -> (variables n, half degree k): C(n + k, k) monomials of degree <= k."""


def gram_problem(size: int, seed: int = 0):
    """``p = m^T Q m`` with ``m`` every monomial of degree <= k and ``Q = B B^T + I`` (integer, PD),
    as exact polynomial dicts: full support, so the Newton basis is the full block."""
    import random

    from verify._sos import poly

    n, k = GRAM_CASES[size]
    basis = poly.monomials_up_to(n, 0, k)
    assert len(basis) == size, (size, len(basis))
    rng = random.Random(seed)
    B = [[rng.randint(-2, 2) for _ in range(4)] for _ in range(size)]
    p: dict = {}
    for i, mi in enumerate(basis):
        for j, mj in enumerate(basis):
            q = sum(a * b for a, b in zip(B[i], B[j])) + (1 if i == j else 0)
            if q:
                mono = tuple(a + b for a, b in zip(mi, mj))
                p[mono] = p.get(mono, 0) + Fraction(q)
    return {m: c for m, c in p.items() if c}, tuple(f"x{i}" for i in range(n))


def gram_rows(sizes, repeat: int) -> list[dict]:
    import os

    from verify._sos.options import SOSOptions
    from verify._sos.prove import build_program, default_degree, prove_exact
    from verify._sos.solve import solve_plain

    rows = []
    for size in sizes:
        p, names = gram_problem(size)
        n = len(names)
        float_s, exact_s, verdict, margin, stats = [], [], None, None, None
        load = [os.getloadavg()[0]]
        for rep in range(max(1, repeat)):
            def run_float():
                program = build_program(p, n, (), (), default_degree(p, (), ()), False)
                start = time.perf_counter()
                solution = solve_plain(program, program.system())
                float_s.append(time.perf_counter() - start)
                return solution

            def run_exact():
                start = time.perf_counter()
                result = prove_exact(p, names, options=SOSOptions())
                exact_s.append(time.perf_counter() - start)
                return result

            if rep % 2 == 0:  # alternate the order so that a drifting load hits both sides alike
                plain, result = run_float(), run_exact()
            else:
                result, plain = run_exact(), run_float()
            verdict, margin, stats = result.status.value, result.stats.margin, result.stats
        load.append(os.getloadavg()[0])
        f, e = statistics.median(float_s), statistics.median(exact_s)
        rows.append({"gram": size, "n": n, "degree": 2 * GRAM_CASES[size][1], "float_status": plain.status,
                     "verdict": verdict, "margin": margin, "float_only_s": f, "exact_s": e, "ratio": e / f,
                     "float_iterations": plain.iterations, "margin_iterations": stats.margin_iterations,
                     "margin_solves": list(stats.margin_solves), "margin_solve_s": stats.margin_solve_s,
                     "rounding_s": stats.rounding_s, "load_1min": load, "repeat": max(1, repeat)})
    return rows


def psd_cases():
    """``(name, matrix)``: exact symmetric matrices of the sizes the issue measured."""
    import numpy as np

    rng = np.random.default_rng(120)
    A = rng.standard_normal((120, 120))
    gram = A @ A.T / 120 + 0.05 * np.eye(120)  # an interior float Gram point, like the margin solve's
    D = 2 ** 26
    block = [[Fraction(round(float(gram[min(i, j), max(i, j)]) * D), D) for j in range(120)] for i in range(120)]
    B = [[Fraction(int(v), 8) for v in row] for row in rng.integers(-9, 10, size=(64, 64))]
    p2 = Fraction(int(np.linalg.norm(np.array(B, dtype=float), 2) ** 2) + 1)
    shifted = [[(p2 if i == j else 0) - sum(B[k][i] * B[k][j] for k in range(64)) for j in range(64)]
               for i in range(64)]
    return [("Gram block 120 x 120 (denominator 2^26)", block), ("norm bound p^2 I - A^T A, d = 64", shifted)]


def psd_rows(repeat: int) -> list[dict]:
    from theorems.psd_flint import psd_decision
    from verify._sos.exact_psd import check_psd

    rows = []
    for name, matrix in psd_cases():
        timings = {}
        for label, decide in (("flint_s", lambda m: psd_decision(m).psd), ("python_s", lambda m: check_psd(m).ok)):
            samples, verdicts = [], set()
            for _ in range(max(1, repeat if label == "flint_s" else 1)):  # the pure-Python side is slow: once
                start = time.perf_counter()
                verdicts.add(decide(matrix))
                samples.append(time.perf_counter() - start)
            timings[label] = statistics.median(samples)
            timings[label.replace("_s", "_psd")] = verdicts.pop()
        rows.append({"case": name, **timings, "speedup": timings["python_s"] / timings["flint_s"]})
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("--psd-only", action="store_true", help="only the PSD decisions (no SDP solves)")
    parser.add_argument("--gram", default="20,35,56,84,126",
                        help=f"Gram sizes of the scaling table, from {sorted(GRAM_CASES)} (empty: skip)")
    parser.add_argument("--gram-only", action="store_true", help="only the Gram scaling table")
    args = parser.parse_args(argv)
    sizes = [int(v) for v in args.gram.split(",") if v.strip()] if not args.psd_only else []
    if any(v not in GRAM_CASES for v in sizes):
        parser.error(f"--gram: sizes from {sorted(GRAM_CASES)}, got {args.gram!r}")
    grams = gram_rows(sizes, args.repeat)
    psd = [] if args.gram_only else psd_rows(args.repeat)
    rows = []
    for name, run in ([] if args.psd_only or args.gram_only else problems()):
        samples = []
        for _ in range(max(1, args.repeat)):
            start = time.perf_counter()
            result = run()
            wall = time.perf_counter() - start
            s = result.stats
            samples.append((s.float_solve_s, s.margin_solve_s, s.rounding_s, wall, result.status.value,
                            list(s.gram_blocks)))
        med = [statistics.median(v[i] for v in samples) for i in range(4)]
        rows.append({"problem": name, "verdict": samples[-1][4], "gram_blocks": samples[-1][5],
                     "float_solve_s": med[0], "margin_solve_s": med[1], "exact_s": med[2], "wall_s": med[3],
                     "ratio": (med[1] + med[2]) / med[0] if med[0] > 0 else float("nan")})
    if args.format == "json":
        sys.stdout.write(json.dumps({"gram_scaling": grams, "problems": rows, "psd": psd}, indent=2) + "\n")
        return 0
    if grams:
        header = (f"{'Gram':>5s} {'n':>3s} {'deg':>4s} {'verdict':8s} {'margin':>9s} {'float-only s':>13s} "
                  f"{'exact s':>9s} {'exact/float':>12s} {'iters plain/margin':>19s} {'solves':>14s} {'load':>10s}")
        sys.stdout.write(header + "\n" + "-" * len(header) + "\n")
        for r in grams:
            m = f"{r['margin']:.3g}" if r["margin"] is not None else "-"
            its = f"{r['float_iterations']}/{r['margin_iterations']}"
            load = "-".join(f"{v:.1f}" for v in r["load_1min"])
            sys.stdout.write(f"{r['gram']:5d} {r['n']:3d} {r['degree']:4d} {r['verdict']:8s} {m:>9s} "
                             f"{r['float_only_s']:13.3f} {r['exact_s']:9.3f} {r['ratio']:12.2f} {its:>19s} "
                             f"{'+'.join(r['margin_solves']):>14s} {load:>10s}\n")
        sys.stdout.write("float-only = the plain SDP alone (default accuracy); exact = the whole default pipeline (grid "
                         "refutation, loose margin SDP, rounding, projection, re-check); medians of interleaved runs; "
                         "load = 1-minute load average before-after; goal (issue 14): exact/float <= 1.2 from Gram 56 up\n\n")
    if rows:
        header = f"{'problem':38s} {'verdict':8s} {'max block':>9s} {'float s':>8s} {'margin s':>9s} {'exact s':>8s} {'ratio':>6s} {'wall s':>7s}"
        sys.stdout.write(header + "\n" + "-" * len(header) + "\n")
        for r in rows:
            sys.stdout.write(f"{r['problem']:38s} {r['verdict']:8s} {max(r['gram_blocks'] or [0]):9d} {r['float_solve_s']:8.4f} {r['margin_solve_s']:9.4f} "
                             f"{r['exact_s']:8.4f} {r['ratio']:6.2f} {r['wall_s']:7.3f}\n")
        sys.stdout.write("ratio = (margin solve + exact rounding/projection/check) / float solve; nan: the plain "
                         "SDP was not needed (positive margin, issue 14)\n\n")
    if not psd:
        return 0
    head = f"{'exact PSD decision':42s} {'flint s':>8s} {'pure-Python s':>14s} {'speedup':>8s}  verdicts"
    sys.stdout.write(head + "\n" + "-" * len(head) + "\n")
    for r in psd:
        agree = "agree" if r["flint_psd"] == r["python_psd"] else "DISAGREE"
        sys.stdout.write(f"{r['case']:42s} {r['flint_s']:8.3f} {r['python_s']:14.3f} {r['speedup']:7.0f}x  "
                         f"PSD={r['flint_psd']} ({agree})\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
