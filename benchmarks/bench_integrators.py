"""Side-by-side benchmark of the numerics integrators (issue 4), in one process.

(i)   8 tokens on S^2, full attention, U = I, seeded constant rational P, beta = 1, t in [0, 5]:
      TaylorMP at 30 digits against mpmath.odefun at 30 digits (same mpmath backend); correct
      digits judged against TaylorMP at 50 digits and odefun at 40 digits.
(ii)  64 tokens on S^2, t in [0, 15], rtol 1e-10 / atol 1e-12: our DOP853 (renormalising) against
      scipy's DOP853; errors against scipy DOP853 at rtol 1e-13; wall time ratio (median of 3).
(iii) 256 instances, N = 32, d = 16, beta = 1/4, t in [0, 5], rtol 1e-8 / atol 1e-10: one batched
      DOP853 call (automatic worker threads, and one worker for reference) against a loop of scipy
      solve_ivp(DOP853) and a loop of solve_ivp's default RK45, each with a plain numpy field.

Run: ``python benchmarks/bench_integrators.py [--parts i,ii,iii]``.  Timings depend on machine
load; run twice when the machine is shared.  BLAS is limited to one thread for both sides (with
threadpoolctl when installed): OpenBLAS threads on small batched products oversubscribe shared
cores and made the batched run 3-5x slower in our measurements.  The batched run's own worker
threads (``DOP853(workers=...)``, one per core up to 2 by default) are Python threads, each
running single-threaded BLAS.
"""
from __future__ import annotations

import argparse
import math
import statistics
import time
from fractions import Fraction

import mpmath
import numpy as np
from scipy.integrate import solve_ivp

from numerics import DOP853, TaylorMP
from theorems.system import simple_system


def _timed(fn, repeat: int = 1):
    times, out = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return out, statistics.median(times)


def _rational_sphere_points(rng: np.random.Generator, n: int) -> list[list[Fraction]]:
    """Inverse stereographic projection of rationals: exact unit vectors in Q^3."""
    pts = []
    for _ in range(n):
        u, v = (Fraction(int(k), 7) for k in rng.integers(-9, 10, size=2))
        q = u * u + v * v
        pts.append([2 * u / (q + 1), 2 * v / (q + 1), (q - 1) / (q + 1)])
    return pts


def _odefun(P: list[list[Fraction]], tokens: list[list[Fraction]], digits: int, t_end: float):
    ctx = mpmath.MPContext()  # odefun runs on a private context: the global mp.dps is untouched
    ctx.dps = digits
    N, d = len(tokens), len(tokens[0])
    Pm = [[ctx.mpf(p.numerator) / p.denominator for p in row] for row in P]

    def F(t, y):
        x = [y[i * d:(i + 1) * d] for i in range(N)]
        px = [[ctx.fsum(Pm[a][b] * xj[b] for b in range(d)) for a in range(d)] for xj in x]
        out = []
        for i in range(N):
            e = [ctx.exp(ctx.fsum(x[i][a] * px[j][a] for a in range(d))) for j in range(N)]
            z = ctx.fsum(e)
            g = [ctx.fsum(e[j] * x[j][a] for j in range(N)) / z for a in range(d)]
            r = ctx.fsum(x[i][a] * g[a] for a in range(d))
            out.extend(g[a] - r * x[i][a] for a in range(d))
        return out

    y0 = [ctx.mpf(v.numerator) / v.denominator for row in tokens for v in row]
    sol = ctx.odefun(F, 0, y0)
    return [ctx.mpf(v) for v in sol(t_end)]


def _digits(a, b) -> float:
    ctx = mpmath.MPContext()
    ctx.prec = 400
    diff = max(abs(ctx.mpf(u) - ctx.mpf(v)) for u, v in zip(a, b))
    return float("inf") if diff == 0 else float(-ctx.log10(diff))


def part_i() -> None:
    rng = np.random.default_rng(2024)
    tokens = _rational_sphere_points(rng, 8)
    P = [[Fraction(int(k), 4) for k in row] for row in rng.integers(-6, 7, size=(3, 3))]
    s = simple_system([[str(v) for v in row] for row in P], "identity",
                      [[str(v) for v in row] for row in tokens], beta=1, mask="full")
    ours, t_ours = _timed(lambda: TaylorMP(digits=30, check=False).integrate(s, 5.0, samples=2), repeat=3)
    checked, t_checked = _timed(lambda: TaylorMP(digits=30, check=True).integrate(s, 5.0, samples=2))
    ref50 = TaylorMP(digits=50, check=False).integrate(s, 5.0, samples=2)
    ode30, t_ode30 = _timed(lambda: _odefun(P, tokens, 30, 5.0))
    ode40, t_ode40 = _timed(lambda: _odefun(P, tokens, 40, 5.0))
    final = list(ours.states_mp[-1][0].flat)
    print("(i) high precision: 8 tokens on S^2, full, U = I, constant rational P, t in [0, 5]")
    print(f"    mpmath backend: {mpmath.libmp.BACKEND}; TaylorMP: order {ours.stats.evaluations // max(ours.stats.steps, 1)}, "
          f"{ours.stats.steps} steps, {ours.precision.bits} bits")
    print(f"    TaylorMP 30 digits      : {t_ours:8.3f} s (median of 3)   with self-check run: {t_checked:.3f} s "
          f"(estimate {checked.error_estimate:.2e})")
    print(f"    mpmath.odefun 30 digits : {t_ode30:8.3f} s   odefun 40 digits: {t_ode40:.3f} s")
    print(f"    correct digits of TaylorMP(30): vs TaylorMP(50) {_digits(final, ref50.states_mp[-1][0].flat):.1f}, "
          f"vs odefun(40) {_digits(final, ode40):.1f}; odefun(30) vs odefun(40) {_digits(ode30, ode40):.1f}; "
          f"TaylorMP(50) vs odefun(40) {_digits(ref50.states_mp[-1][0].flat, ode40):.1f}")
    print(f"    RATIO odefun(30) / TaylorMP(30) = {t_ode30 / t_ours:.1f}x   (with self-check: {t_ode30 / t_checked:.1f}x; target >= 50x)")


def _plain_field(P: np.ndarray, beta: float, N: int, d: int):
    def f(t, y):
        X = y.reshape(N, d)
        S = beta * (X @ P @ X.T)  # S_ij = beta <x_i, P x_j> = beta x_i^T P x_j
        S -= S.max(axis=1, keepdims=True)
        A = np.exp(S)
        A /= A.sum(axis=1, keepdims=True)
        G = A @ X
        return (G - X * np.sum(X * G, axis=1, keepdims=True)).ravel()
    return f


def _instance(seed: int, N: int, d: int, beta) -> tuple:
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((N, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    P = rng.standard_normal((d, d))
    return simple_system(P.tolist(), "identity", X.tolist(), beta=beta), P


def part_ii() -> None:
    print("(ii) float64: 64 tokens on S^2, t in [0, 15], rtol 1e-10, atol 1e-12 (4 seeds)")
    ratios_t, ratios_e = [], []
    for seed in range(4):
        s, P = _instance(seed, 64, 3, 1)
        f = _plain_field(P, 1.0, 64, 3)
        ref = solve_ivp(f, (0, 15), s.tokens.ravel(), method="DOP853", rtol=1e-13, atol=1e-15).y[:, -1]
        theirs, t_theirs = _timed(lambda: solve_ivp(f, (0, 15), s.tokens.ravel(), method="DOP853", rtol=1e-10, atol=1e-12), 3)
        ours, t_ours = _timed(lambda: DOP853(rtol=1e-10, atol=1e-12).integrate(s, 15.0, samples=2), 3)
        e_theirs = float(np.max(np.abs(theirs.y[:, -1] - ref)))
        e_ours = float(np.max(np.abs(ours.final[0].ravel() - ref)))
        ratios_t.append(t_ours / t_theirs)
        ratios_e.append(e_ours / e_theirs)
        print(f"    seed {seed}: error ours {e_ours:.2e} scipy {e_theirs:.2e}; evaluations ours {ours.stats.evaluations} "
              f"scipy {theirs.nfev}; time ours {t_ours * 1e3:.1f} ms scipy {t_theirs * 1e3:.1f} ms; "
              f"max | |x|-1 | ours {np.max(np.abs(np.linalg.norm(ours.final[0], axis=1) - 1)):.1e} "
              f"scipy {np.max(np.abs(np.linalg.norm(theirs.y[:, -1].reshape(64, 3), axis=1) - 1)):.1e}")
    gm = lambda v: math.exp(statistics.mean(math.log(x) for x in v))  # noqa: E731
    print(f"    RATIO time ours/scipy = {gm(ratios_t):.2f}x (geometric mean; target <= 1.5x); "
          f"error ours/scipy = {gm(ratios_e):.2f} (geometric mean; 1 = same accuracy)")


def part_iii() -> None:
    B, N, d = 256, 32, 16
    print(f"(iii) batched: {B} instances, N = {N}, d = {d}, beta = 1/4, t in [0, 5], rtol 1e-8, atol 1e-10")
    pairs = [_instance(1000 + b, N, d, "1/4") for b in range(B)]
    systems = [p[0] for p in pairs]
    batch, t_batch = _timed(lambda: DOP853(rtol=1e-8, atol=1e-10).integrate(systems, 5.0, samples=2), 5)
    one, t_one = _timed(lambda: DOP853(rtol=1e-8, atol=1e-10, workers=1).integrate(systems, 5.0, samples=2), 3)

    def loop():
        return [solve_ivp(_plain_field(P, 0.25, N, d), (0, 5), s.tokens.ravel(), method="DOP853",
                          rtol=1e-8, atol=1e-10).y[:, -1] for s, P in pairs]

    def loop_default():  # what a user writes first: solve_ivp's default method (RK45), same tolerances
        return [solve_ivp(_plain_field(P, 0.25, N, d), (0, 5), s.tokens.ravel(),
                          rtol=1e-8, atol=1e-10).y[:, -1] for s, P in pairs]

    finals, t_loop = _timed(loop, 2)
    finals_default, t_default = _timed(loop_default, 2)
    diff = max(float(np.max(np.abs(batch.final[b].ravel() - finals[b]))) for b in range(B))
    diff_default = max(float(np.max(np.abs(batch.final[b].ravel() - finals_default[b]))) for b in range(B))
    diff_one = float(np.max(np.abs(batch.final - one.final)))
    workers = batch.stats.workers
    print(f"    batched DOP853, {workers} worker thread(s): {t_batch:.3f} s (median of 5; {batch.stats.steps} steps, "
          f"{batch.stats.rejected} rejected, {batch.stats.evaluations / B:.1f} evaluations per instance)")
    print(f"    batched DOP853, 1 worker: {t_one:.3f} s (median of 3); max difference from the {workers}-worker run {diff_one:.1e}")
    print(f"    scipy loop DOP853 {t_loop:.3f} s (median of 2); max difference of the final states from ours {diff:.1e}")
    print(f"    scipy loop default RK45 {t_default:.3f} s (median of 2); max difference from ours {diff_default:.1e}")
    print(f"    RATIO loop(DOP853)/batched = {t_loop / t_batch:.1f}x with {workers} workers, "
          f"{t_loop / t_one:.1f}x with 1 (target >= 10x)")
    print(f"    RATIO loop(default RK45)/batched = {t_default / t_batch:.1f}x with {workers} workers, "
          f"{t_default / t_one:.1f}x with 1 (target >= 10x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", default="i,ii,iii", help="comma-separated subset of i,ii,iii")
    parts = parser.parse_args().parts.split(",")
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        threadpool_limits = None
        print("threadpoolctl not installed: BLAS threads not limited (set OPENBLAS_NUM_THREADS=1)")
    limit = threadpool_limits(limits=1, user_api="blas") if threadpool_limits else None
    try:
        for name, fn in (("i", part_i), ("ii", part_ii), ("iii", part_iii)):
            if name in parts:
                fn()
    finally:
        if limit is not None:
            limit.restore_original_limits()


if __name__ == "__main__":
    main()
