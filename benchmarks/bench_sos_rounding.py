"""Benchmark: the float SOS solve against what turning it into a proof costs.

For each problem prints the plain float solve time, the margin (interior point) solve time, the
exact rounding + projection + PSD/identity check time and the ratio
``(margin + exact) / float``.  Median of ``--repeat`` runs.  Run:

    python benchmarks/bench_sos_rounding.py [--repeat 3] [--format text|json]
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


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--format", choices=("text", "json"), default="text")
    args = parser.parse_args(argv)
    rows = []
    for name, run in problems():
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
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
        return 0
    header = f"{'problem':38s} {'verdict':8s} {'max block':>9s} {'float s':>8s} {'margin s':>9s} {'exact s':>8s} {'ratio':>6s} {'wall s':>7s}"
    sys.stdout.write(header + "\n" + "-" * len(header) + "\n")
    for r in rows:
        sys.stdout.write(f"{r['problem']:38s} {r['verdict']:8s} {max(r['gram_blocks'] or [0]):9d} {r['float_solve_s']:8.4f} {r['margin_solve_s']:9.4f} "
                         f"{r['exact_s']:8.4f} {r['ratio']:6.2f} {r['wall_s']:7.3f}\n")
    sys.stdout.write("ratio = (margin solve + exact rounding/projection/check) / float solve\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
