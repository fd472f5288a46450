"""Benchmark: the float SOS solve against what turning it into a proof costs.

For each problem prints the plain float solve time, the margin (interior point) solve time, the
exact rounding + projection + PSD/identity check time and the ratio
``(margin + exact) / float``.  Median of ``--repeat`` runs.  Then the exact PSD decisions on
their own, side by side: python-flint (:mod:`theorems.psd_flint`, the search side and the
predicates) against the pure-Python LDL^T re-checker (:mod:`verify.sos.exact_psd`), on a
120 x 120 Gram block rounded to denominator 2^26 as the rounding step produces it, and on the
``p^2 I - A^T A`` matrix of a d = 64 norm bound.  Run:

    python benchmarks/bench_sos_rounding.py [--repeat 3] [--format text|json] [--psd-only]
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
    from verify.sos import find_lyapunov, prove_nonnegative

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
    from verify.sos.exact_psd import check_psd

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
    args = parser.parse_args(argv)
    psd = psd_rows(args.repeat)
    rows = []
    for name, run in ([] if args.psd_only else problems()):
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
        sys.stdout.write(json.dumps({"problems": rows, "psd": psd}, indent=2) + "\n")
        return 0
    if rows:
        header = f"{'problem':38s} {'verdict':8s} {'max block':>9s} {'float s':>8s} {'margin s':>9s} {'exact s':>8s} {'ratio':>6s} {'wall s':>7s}"
        sys.stdout.write(header + "\n" + "-" * len(header) + "\n")
        for r in rows:
            sys.stdout.write(f"{r['problem']:38s} {r['verdict']:8s} {max(r['gram_blocks'] or [0]):9d} {r['float_solve_s']:8.4f} {r['margin_solve_s']:9.4f} "
                             f"{r['exact_s']:8.4f} {r['ratio']:6.2f} {r['wall_s']:7.3f}\n")
        sys.stdout.write("ratio = (margin solve + exact rounding/projection/check) / float solve\n\n")
    head = f"{'exact PSD decision':42s} {'flint s':>8s} {'pure-Python s':>14s} {'speedup':>8s}  verdicts"
    sys.stdout.write(head + "\n" + "-" * len(head) + "\n")
    for r in psd:
        agree = "agree" if r["flint_psd"] == r["python_psd"] else "DISAGREE"
        sys.stdout.write(f"{r['case']:42s} {r['flint_s']:8.3f} {r['python_s']:14.3f} {r['speedup']:7.0f}x  "
                         f"PSD={r['flint_psd']} ({agree})\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
