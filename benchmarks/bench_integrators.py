"""Side-by-side benchmark of the numerics integrators (issues 4 and 14), in one process.

(i)   8 tokens on S^2, full attention, U = I, seeded constant rational P, beta = 1, t in [0, 5]:
      TaylorMP at 30 digits against mpmath.odefun at 30 digits (same mpmath backend); correct
      digits judged against TaylorMP at 50 digits and odefun at 40 digits.
(ii)  one small system (issue 14): 64 tokens on S^2, t in [0, 15], rtol 1e-8 / atol 1e-10, 4 seeds:
      DOP853 compiled (numba, warm) and pure numpy against a scipy solve_ivp(DOP853) call and
      diffrax Dopri8 (jit, compile time reported separately); errors against scipy at rtol 1e-13.
(iii) 256 instances, N = 32, d = 16, beta = 1/4, t in [0, 5], rtol 1e-8 / atol 1e-10: one batched
      DOP853 call (the numpy step loop with one and automatic workers; the compiled loop, one fused
      native loop per instance, with one and two workers) against a loop of scipy
      solve_ivp(DOP853) with a plain numpy field and diffrax Dopri8 under jit + vmap.  Wall and
      process CPU time are both printed: on a shared machine the CPU time of a one-worker row is
      not stretched by other processes' time slices (a two-worker row's CPU time is both threads').
(iv)  torch DOP853 on the CPU (float64, and float32 at rtol 1e-5) against numpy DOP853 on the
      batch of (iii) and on 16 instances of N = 12, d = 3.

diffrax is optional: ``--peer-path DIR`` (or ``BENCH_PEER_PATH``) appends a directory holding jax and
diffrax to ``sys.path`` (so they need not be installed in the project's venv, where jax would also
slow cvxpy's import); without them the diffrax rows are skipped with a note.  jax runs with one
intra-op thread, like BLAS and torch here.

Run: ``python benchmarks/bench_integrators.py [--parts i,ii,iii,iv] [--peer-path DIR]``.  Timings depend on machine
load; run twice when the machine is shared.  BLAS is limited to one thread for both sides (with
threadpoolctl when installed): OpenBLAS threads on small batched products oversubscribe shared
cores and made the batched run 3-5x slower in our measurements.  The batched run's own worker
threads (``DOP853(workers=...)``, one per core up to 2 by default) are Python threads, each
running single-threaded BLAS.
"""
from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time
from fractions import Fraction

import mpmath
import numpy as np
from scipy.integrate import solve_ivp

from numerics import DOP853, TaylorMP
from theorems.system_build import simple_system


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


def _diffrax():
    """``(jax, jnp, diffrax)`` or a note saying why not."""
    os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")
    try:
        import jax
        import diffrax
    except ImportError as exc:
        return None, f"diffrax skipped: {exc.name or exc} not importable (pip install diffrax into a directory, --peer-path DIR)"
    jax.config.update("jax_enable_x64", True)
    return (jax, jax.numpy, diffrax), f"jax {jax.__version__}, diffrax {diffrax.__version__}"


def _diffrax_solver(peer, beta: float, N: int, d: int, t_end: float, rtol: float, atol: float, batched: bool):
    """A jitted ``(y0, P) -> (y(t_end), steps)``, vmapped over a leading axis when ``batched``."""
    jax, jnp, dfx = peer

    def vf(t, y, P):
        X = y.reshape(N, d)
        S = beta * (X @ P @ X.T)
        A = jax.nn.softmax(S, axis=1)
        G = A @ X
        return (G - X * jnp.sum(X * G, axis=1, keepdims=True)).ravel()

    def solve(y0, P):
        sol = dfx.diffeqsolve(dfx.ODETerm(vf), dfx.Dopri8(), 0.0, t_end, None, y0, args=P,
                              stepsize_controller=dfx.PIDController(rtol=rtol, atol=atol),
                              saveat=dfx.SaveAt(t1=True), max_steps=100_000)
        return sol.ys[-1], sol.stats["num_steps"]
    return jax.jit(jax.vmap(solve) if batched else solve)


def _timed_jax(fn, args, repeat: int):
    """Compile time (first call less a warm call) and the median warm time."""
    start = time.perf_counter()
    out = fn(*args)
    out[0].block_until_ready()
    first = time.perf_counter() - start
    (out, t_warm) = _timed(lambda: [o.block_until_ready() for o in fn(*args)], repeat)
    return out, first - t_warm, t_warm


def _interleaved(fns: dict, repeat: int, cpu: dict | None = None) -> dict:
    """``name -> (last result, median time, min time)``, running the contenders in turn in every
    repetition so that a burst of load from other processes hits all of them alike.  ``cpu``, when
    given, receives ``name -> median process CPU time``."""
    times: dict = {k: [] for k in fns}
    cpus: dict = {k: [] for k in fns}
    out: dict = {}
    for _ in range(repeat):
        for name, fn in fns.items():
            start, start_cpu = time.perf_counter(), time.process_time()
            out[name] = fn()
            times[name].append(time.perf_counter() - start)
            cpus[name].append(time.process_time() - start_cpu)
    if cpu is not None:
        cpu.update({k: statistics.median(v) for k, v in cpus.items()})
    return {k: (out[k], statistics.median(v), min(v)) for k, v in times.items()}


def part_ii(peer, note: str) -> None:
    rtol, atol = 1e-8, 1e-10
    print(f"(ii) one small system: 64 tokens on S^2, t in [0, 15], rtol {rtol:g}, atol {atol:g} "
          "(4 seeds; median of 21 interleaved runs, min in parentheses)")
    rows: dict[str, list] = {}
    compile_s = []
    for seed in range(4):
        s, P = _instance(seed, 64, 3, 1)
        f = _plain_field(P, 1.0, 64, 3)
        y0 = s.tokens.ravel()
        ref = solve_ivp(f, (0, 15), y0, method="DOP853", rtol=1e-13, atol=1e-15).y[:, -1]
        err = lambda y: float(np.max(np.abs(np.asarray(y).ravel() - ref)))  # noqa: E731
        compiled, pure = DOP853(rtol=rtol, atol=atol, kernel="compiled"), DOP853(rtol=rtol, atol=atol, kernel="numpy")
        if seed == 0:
            start = time.perf_counter()
            compiled.integrate(s, 15.0, samples=2)
            print(f"    compiled path, first call in this process (numba import + cached-kernel load, or the very "
                  f"first compile): {time.perf_counter() - start:.3f} s")
        tight = DOP853(rtol=rtol / 10, atol=atol / 10, kernel="compiled")  # for a comparison at no larger error
        fns = {"DOP853 compiled": lambda: compiled.integrate(s, 15.0, samples=2),
               "DOP853 comp. rtol/10": lambda: tight.integrate(s, 15.0, samples=2),
               "DOP853 numpy": lambda: pure.integrate(s, 15.0, samples=2),
               "scipy DOP853": lambda: solve_ivp(f, (0, 15), y0, method="DOP853", rtol=rtol, atol=atol)}
        if peer is not None:
            jnp = peer[1]
            solve = _diffrax_solver(peer, 1.0, 64, 3, 15.0, rtol, atol, batched=False)
            args = (jnp.asarray(y0), jnp.asarray(P))
            _, c, _ = _timed_jax(solve, args, 1)
            compile_s.append(c)
            fns["diffrax Dopri8"] = lambda: [o.block_until_ready() for o in solve(*args)]
        for name, (res, t, t_min) in _interleaved(fns, 21).items():
            if name.startswith("DOP853"):
                e, ev = err(res.final[0]), res.stats.evaluations
            elif name.startswith("scipy"):
                e, ev = err(res.y[:, -1]), res.nfev
            else:
                e, ev = err(res[0]), 12 * int(res[1])
            rows.setdefault(name, []).append((t, e, ev, t_min))
    _table(rows, "scipy DOP853", "DOP853 compiled")
    if peer is None:
        print(f"    {note}")
    else:
        print(f"    diffrax jit compile time (excluded above): median {statistics.median(compile_s):.2f} s; {note}")
        print(f"    RATIO DOP853 compiled / diffrax Dopri8 = {_gm_ratio(rows, 'DOP853 compiled', 'diffrax Dopri8'):.2f}x "
              f"median, {_gm_ratio(rows, 'DOP853 compiled', 'diffrax Dopri8', 3):.2f}x min (time; target <= 1.0x); "
              f"error ratio {_gm_ratio(rows, 'DOP853 compiled', 'diffrax Dopri8', 1):.2f}")
        print(f"    RATIO DOP853 compiled at rtol/10 / diffrax Dopri8 = {_gm_ratio(rows, 'DOP853 comp. rtol/10', 'diffrax Dopri8'):.2f}x "
              f"median (time), error ratio {_gm_ratio(rows, 'DOP853 comp. rtol/10', 'diffrax Dopri8', 1):.2f}")


def _gm_ratio(rows, a: str, b: str, col: int = 0) -> float:
    vals = [x[col] / y[col] for x, y in zip(rows[a], rows[b]) if x[col] > 0 and y[col] > 0]
    return math.exp(statistics.mean(math.log(v) for v in vals)) if vals else float("nan")


def _table(rows, base: str, ours: str) -> None:
    for name, vals in rows.items():
        if name.endswith("compile"):
            continue
        times = ", ".join(f"{v[0] * 1e3:.1f} ({v[3] * 1e3:.1f})" for v in vals)
        errs = ", ".join(f"{v[1]:.1e}" for v in vals)
        print(f"    {name:16s} time ms [{times}]  error [{errs}]  evaluations [{', '.join(str(v[2]) for v in vals)}]  "
              f"time vs {ours}: {_gm_ratio(rows, name, ours):.2f}x")
    print(f"    RATIO {base} / {ours} = {_gm_ratio(rows, base, ours):.2f}x (time, geometric mean over seeds); "
          f"error ratio {ours} / {base} = {_gm_ratio(rows, ours, base, 1):.2f}")


def _batch(B: int = 256, N: int = 32, d: int = 16):
    return [_instance(1000 + b, N, d, "1/4") for b in range(B)]


def part_iii(peer, note: str) -> None:
    B, N, d, rtol, atol = 256, 32, 16, 1e-8, 1e-10
    print(f"(iii) batched: {B} instances, N = {N}, d = {d}, beta = 1/4, t in [0, 5], rtol {rtol:g}, atol {atol:g}")
    pairs = _batch(B, N, d)
    systems = [p[0] for p in pairs]
    y0 = np.stack([s.tokens.ravel() for s in systems])
    ref = np.stack([solve_ivp(_plain_field(P, 0.25, N, d), (0, 5), s.tokens.ravel(), method="DOP853",
                              rtol=1e-12, atol=1e-14).y[:, -1] for s, P in pairs])
    err = lambda Y: float(np.max(np.abs(np.asarray(Y).reshape(B, -1) - ref)))  # noqa: E731
    DOP853(rtol=rtol, atol=atol, kernel="compiled").integrate(systems[:2], 0.1, samples=2)  # load the compiled kernel
    fns = {f"DOP853 {label}": (lambda kw=kw: DOP853(rtol=rtol, atol=atol, **kw).integrate(systems, 5.0, samples=2))
           for label, kw in (("numpy, 1 worker", dict(kernel="numpy", workers=1)),
                             ("numpy, auto workers", dict(kernel="numpy")),
                             ("compiled, 1 worker", dict(kernel="compiled", workers=1)),
                             ("compiled, 2 workers", dict(kernel="compiled", workers=2)))}
    fns["scipy DOP853 loop"] = lambda: [solve_ivp(_plain_field(P, 0.25, N, d), (0, 5), s.tokens.ravel(),
                                                  method="DOP853", rtol=rtol, atol=atol) for s, P in pairs]
    compile_s = None
    if peer is not None:
        jnp = peer[1]
        solve = _diffrax_solver(peer, 0.25, N, d, 5.0, rtol, atol, batched=True)
        args = (jnp.asarray(y0), jnp.asarray(np.stack([P for _, P in pairs])))
        _, compile_s, _ = _timed_jax(solve, args, 1)
        fns["diffrax Dopri8 jit+vmap"] = lambda: [o.block_until_ready() for o in solve(*args)]
    results, cpu = {}, {}
    for name, (res, t, t_min) in _interleaved(fns, 5, cpu).items():
        if name.startswith("DOP853"):
            results[name] = (t, err(res.final), res.stats.evaluations / B, t_min)
        elif name.startswith("scipy"):
            results[name] = (t, err([sv.y[:, -1] for sv in res]), statistics.mean(sv.nfev for sv in res), t_min)
        else:
            results[name] = (t, err(res[0]), 12 * float(np.mean(np.asarray(res[1]))), t_min)
    t_loop, c_loop = results["scipy DOP853 loop"][0], cpu["scipy DOP853 loop"]
    for name, (t, e, ev, t_min) in results.items():
        print(f"    {name:26s} {t:7.3f} s (median of 5 interleaved; min {t_min:.3f}; cpu {cpu[name]:.3f})  "
              f"max error {e:.1e}  evaluations per instance {ev:.0f}  scipy loop / this = {t_loop / t:5.1f}x "
              f"(cpu {c_loop / cpu[name]:5.1f}x)")
    print(f"    diffrax jit compile {compile_s:.2f} s (excluded)" if compile_s is not None else f"    {note}")
    best = min(v[0] for k, v in results.items() if k.startswith("DOP853"))
    print(f"    RATIO scipy loop / best DOP853 = {t_loop / best:.1f}x (target >= 10x); by CPU time, scipy loop / "
          f"compiled 1 worker = {c_loop / cpu['DOP853 compiled, 1 worker']:.1f}x")


def part_iv() -> None:
    try:
        from numerics import TorchDOP853
        import torch
    except ImportError:
        print("(iv) torch not installed: torch DOP853 skipped")
        return
    print(f"(iv) torch {torch.__version__} DOP853 on the CPU (1 intra-op thread) against numpy DOP853, same tolerances "
          "(medians of interleaved runs)")
    small = [_instance(2000 + b, 12, 3, 1)[0] for b in range(16)]
    for label, systems, t_end, rtol, atol, rep in (("16 x (N=12, d=3), t=10", small, 10.0, 1e-10, 1e-12, 5),
                                                   ("256 x (N=32, d=16), t=5", [p[0] for p in _batch()], 5.0, 1e-8, 1e-10, 3)):
        r = _interleaved({
            "numpy": lambda: DOP853(rtol=rtol, atol=atol, kernel="numpy", workers=1).integrate(systems, t_end, samples=2),
            "torch64": lambda: TorchDOP853(rtol=rtol, atol=atol, device="cpu").integrate(systems, t_end, samples=2),
            "torch32": lambda: TorchDOP853(rtol=1e-5, atol=1e-7, dtype="float32", device="cpu").integrate(systems, t_end, samples=2),
        }, rep)
        (ref, t_np, _), (tor, t_t, _), (f32, t_32, _) = r["numpy"], r["torch64"], r["torch32"]
        print(f"    {label}: numpy {t_np:.3f} s, torch float64 {t_t:.3f} s ({t_t / t_np:.2f}x numpy; max difference "
              f"{np.max(np.abs(tor.final - ref.final)):.1e}, steps {tor.stats.steps} vs {ref.stats.steps}), "
              f"torch float32 rtol 1e-5 {t_32:.3f} s (max difference {np.max(np.abs(f32.final - ref.final)):.1e})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", default="i,ii,iii,iv", help="comma-separated subset of i,ii,iii,iv")
    parser.add_argument("--peer-path", default=os.environ.get("BENCH_PEER_PATH"),
                        help="directory appended to sys.path holding jax and diffrax (optional peers)")
    args = parser.parse_args()
    parts = args.parts.split(",")
    if args.peer_path:
        sys.path.append(args.peer_path)
    peer, note = _diffrax() if ("ii" in parts or "iii" in parts) else (None, "")
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} (1 min) at start; {note}")
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        threadpool_limits = None
        print("threadpoolctl not installed: BLAS threads not limited (set OPENBLAS_NUM_THREADS=1)")
    limit = threadpool_limits(limits=1, user_api="blas") if threadpool_limits else None
    try:
        for name, fn in (("i", part_i), ("ii", lambda: part_ii(peer, note)), ("iii", lambda: part_iii(peer, note)),
                         ("iv", part_iv)):
            if name in parts:
                fn()
        print(f"load average {os.getloadavg()[0]:.2f} (1 min) at the end")
    finally:
        if limit is not None:
            limit.restore_original_limits()


if __name__ == "__main__":
    main()
