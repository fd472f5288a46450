"""How far the batch goal of issue 26 (256 x (N = 32, d = 16), >= 12x a SciPy DOP853 loop by CPU time,
one worker) is from this machine's arithmetic ceiling, measured in one process.

1. The ceiling: one-thread BLAS ``dgemm`` on ``n x n`` matrices (the best a tuned kernel reaches on
   large products here), in fused multiply-adds per nanosecond.
2. The work of one field evaluation at ``(N, d)``, one head, ``U = I``: the products ``P X`` (``d^2 N``
   FMA), the scores (``N^2 d``) and the weighted values (``N^2 d``); the exponentials (``N^2`` of them,
   each ``EXP_FMA`` multiply-adds of the Cody-Waite reduction and the degree-11 polynomial of
   :data:`numerics._simd_numba.EXP_POLY`); the stage combinations of the step (``COMBINE_TERMS`` terms
   over ``N d`` entries per step, one step = 12 evaluations).  Loads, stores, comparisons, the
   exponent's bit manipulation and the error norm are not counted: the floor is optimistic.
3. The two contenders of ``bench_integrator_scale.py --parts batch`` (interleaved, CPU time): the
   compiled DOP853 on one worker and the loop of ``solve_ivp(DOP853)``.
4. The compiled field alone (products, exponentials) in a native loop, per evaluation.

Printed: the time per evaluation the goal allows (SciPy's CPU time / 12 / evaluations), the floor at
the ceiling, the share of the ceiling the goal needs over the whole step loop, and the share reached.
Run on an idle machine: ``python benchmarks/bench_batch_floor.py [--repeat 5]``; results are printed
and written to ``--out`` (default ``benchmarks/results/batch_floor.json``).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from scipy.integrate import solve_ivp

sys.path.insert(0, str(Path(__file__).parent))
from bench_integrator_scale import _instance, _plain_field  # noqa: E402

from numerics import DOP853  # noqa: E402
from numerics import _dop853_tableau as tab  # noqa: E402

EXP_FMA = 15
"""Multiply-adds per exponential: 2 (Cody-Waite) + 11 (Horner, degree 11) + the scale by ``2^k`` and the
row sum."""
COMBINE_TERMS = int(sum(tab.STAGE_COUNT)) + len(tab.B_ROWS) + len(tab.E5_ROWS) + len(tab.E3_ROWS)


def ceiling(n: int = 1536, repeat: int = 3) -> float:
    """One-thread ``dgemm`` multiply-adds per nanosecond (best of ``repeat``)."""
    from threadpoolctl import threadpool_limits

    rng = np.random.default_rng(0)
    A, B = rng.standard_normal((n, n)), rng.standard_normal((n, n))
    with threadpool_limits(limits=1, user_api="blas"):
        A @ B
        best = min(_cpu(lambda: A @ B) for _ in range(repeat))
    return n ** 3 / best / 1e9


def _cpu(fn) -> float:
    c0 = time.process_time()
    fn()
    return time.process_time() - c0


def work_per_evaluation(N: int, d: int) -> dict:
    products = d * d * N + 2 * N * N * d
    exps = N * N * EXP_FMA
    combine = COMBINE_TERMS * N * d / tab.N_STAGES
    return {"products": products, "exponentials": exps, "combine": combine, "total": products + exps + combine}


def field_alone(N: int, d: int, calls: int = 100_000) -> dict:
    """Microseconds per call of the compiled field and of its three products, in a native loop."""
    from numba import njit

    from numerics import _field_numba as F
    from numerics._dop853_numba import _numpy_aligned  # 64-byte aligned rows, as the step loop's workspace

    rng = np.random.default_rng(1)
    X = _numpy_aligned((d, N))
    X[:] = rng.standard_normal((d, N))
    X /= np.linalg.norm(X, axis=0)
    P = 0.25 * rng.standard_normal((1, d, d))
    U = np.zeros((1, d, d))
    out, Y, V, S, z, m = (_numpy_aligned(s) for s in ((d, N), (d, N), (d, N), (N, N), (N,), (N,)))

    @njit
    def whole(n, X, P, U, out, Y, S, V, z, m):
        for _ in range(n):
            F.field_into(X, P, U, False, False, False, 1.0, out, Y, S, V, z, m)

    @njit
    def products(n, X, P, U, out, Y, S, V, z, m):
        for _ in range(n):
            F._matmul(P[0], X, Y)
            F._matmul(Y.T, X, S)
            F._matmul(X, S, Y)

    res = {}
    for name, fn in (("field", whole), ("products", products)):
        fn(10, X, P, U, out, Y, S, V, z, m)
        res[name] = min(_cpu(lambda: fn(calls, X, P, U, out, Y, S, V, z, m)) for _ in range(3)) / calls * 1e6
    return res


def contenders(repeat: int, B: int = 256, N: int = 32, d: int = 16, t_end: float = 5.0) -> dict:
    pairs = [_instance(1000 + b, N, d, "1/4") for b in range(B)]
    systems = [p[0] for p in pairs]
    run = DOP853(rtol=1e-8, atol=1e-10, kernel="compiled", workers=1)
    last = run.integrate(systems, t_end, samples=2)
    fns = {"compiled": lambda: run.integrate(systems, t_end, samples=2),
           "scipy": lambda: [solve_ivp(_plain_field(P, 0.25, N, d), (0, t_end), s.tokens.ravel(), method="DOP853",
                                       rtol=1e-8, atol=1e-10) for s, P in pairs]}
    cpu = {k: [] for k in fns}
    out = {}
    for _ in range(repeat):
        for k, fn in fns.items():
            c0 = time.process_time()
            out[k] = fn()
            cpu[k].append(time.process_time() - c0)
    last = out["compiled"]
    return {"compiled_cpu": statistics.median(cpu["compiled"]), "scipy_cpu": statistics.median(cpu["scipy"]),
            "evaluations": int(last.stats.evaluations), "scipy_evaluations": int(sum(r.nfev for r in out["scipy"]))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--goal", type=float, default=12.0)
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "batch_floor.json"))
    args = parser.parse_args()
    N, d = 32, 16
    load0 = os.getloadavg()[0]
    peak = ceiling()
    work = work_per_evaluation(N, d)
    alone = field_alone(N, d)
    run = contenders(args.repeat)
    per_eval = run["compiled_cpu"] / run["evaluations"] * 1e6
    allowed = run["scipy_cpu"] / args.goal / run["evaluations"] * 1e6
    floor = work["total"] / peak / 1e3
    rec = {"load_start": load0, "load_end": os.getloadavg()[0], "ceiling_fma_per_ns": peak, "work_fma": work,
           "field_alone_us": alone, "run": run, "us_per_evaluation": per_eval, "allowed_us_per_evaluation": allowed,
           "floor_us_per_evaluation": floor, "ratio_cpu": run["scipy_cpu"] / run["compiled_cpu"],
           "share_of_ceiling_needed": floor / allowed, "share_of_ceiling_reached": floor / per_eval,
           "products_share_of_ceiling": work["products"] / peak / 1e3 / alone["products"]}
    print(f"load average {load0:.2f} at start, {rec['load_end']:.2f} at end")
    print(f"ceiling: one-thread dgemm {peak:.1f} FMA/ns")
    print(f"work per evaluation at (N, d) = ({N}, {d}): products {work['products']}, exponentials {work['exponentials']}, "
          f"stage combinations {work['combine']:.0f}; total {work['total']:.0f} FMA = {floor:.2f} us at the ceiling")
    print(f"compiled field alone: {alone['field']:.2f} us per evaluation, its products {alone['products']:.2f} us "
          f"({rec['products_share_of_ceiling']:.0%} of the ceiling)")
    print(f"batch 256 x ({N}, {d}): compiled {run['compiled_cpu'] * 1e3:.1f} ms CPU, {run['evaluations']} evaluations "
          f"({per_eval:.2f} us each); SciPy loop {run['scipy_cpu'] * 1e3:.1f} ms CPU ({run['scipy_evaluations']} evaluations)")
    print(f"RATIO scipy loop / compiled: {rec['ratio_cpu']:.2f}x by CPU time (goal >= {args.goal:g}x)")
    print(f"the goal allows {allowed:.2f} us per evaluation: {rec['share_of_ceiling_needed']:.0%} of the ceiling over the "
          f"whole step loop (reached now: {rec['share_of_ceiling_reached']:.0%})")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(rec, indent=1) + "\n")


if __name__ == "__main__":
    main()
