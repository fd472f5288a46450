"""Performance IV (issue 26), integrators: each figure side by side with its peer in one process,
wall and process CPU time, the load average before and after every part.

small  one system, N = 8, d = 3, t in [0, 15], rtol 1e-8 / atol 1e-10, 4 seeds: DOP853 compiled,
       repeated on one integrator (its cached plan: no set-up per call) and on a fresh integrator
       per call (set-up included), against diffrax Tsit5 and Dopri8 under jax.jit (compile time
       excluded, reported).  Errors against SciPy DOP853 at rtol 1e-13.  Goal: <= 1.0x Tsit5.
large  one system, N = 2048, d = 16, beta = 1/4: one field evaluation (the tiled compiled field on
       all of numba's threads and on one, the whole-matrix compiled field, diffrax's jitted field)
       and the whole run to t = 10 at rtol 1e-8 (DOP853 compiled, tiled, against diffrax Dopri8 and
       Tsit5); errors against DOP853 at rtol 1e-11.  Goals: <= 0.8x per evaluation, <= 1.0x whole.
batch  256 x (N = 32, d = 16), beta = 1/4, t in [0, 5], rtol 1e-8: one DOP853 call, compiled, one
       worker, against a loop of SciPy solve_ivp(DOP853).  Goal: >= 12x by CPU time.

jax runs with ``--xla-threads`` intra-op threads (default 1, as BLAS here; ``all`` leaves XLA its
default pool).  diffrax and jax are not project dependencies: ``pip install --target DIR diffrax
"jax[cpu]"`` and ``--peer-path DIR`` (the ``bench`` extra installs them into an environment).
Results: printed, and written as JSON to ``--out`` (default
benchmarks/results/integrator_scale.json).  Run twice on a shared machine; compare CPU times.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from scipy.integrate import solve_ivp

from numerics import DOP853
from theorems.system_build import simple_system

RESULTS = Path(__file__).parent / "results"


def _load() -> float:
    return round(os.getloadavg()[0], 2)


def _interleaved(fns: dict, repeat: int) -> dict:
    """``name -> {wall, cpu (medians), wall_min, cpu_min, result}``, contenders in turn in every
    repetition so that a burst of load from other processes hits all of them alike."""
    rec = {k: ([], []) for k in fns}
    out = {}
    for _ in range(repeat):
        for name, fn in fns.items():
            w0, c0 = time.perf_counter(), time.process_time()
            out[name] = fn()
            rec[name][0].append(time.perf_counter() - w0)
            rec[name][1].append(time.process_time() - c0)
    return {k: {"wall": statistics.median(w), "cpu": statistics.median(c), "wall_min": min(w), "cpu_min": min(c),
                "result": out[k]} for k, (w, c) in rec.items()}


def _instance(seed: int, N: int, d: int, beta: str, scale: float = 1.0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((N, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    P = scale * rng.standard_normal((d, d))
    return simple_system(P.tolist(), "identity", X.tolist(), beta=beta), P


def _plain_field(P: np.ndarray, beta: float, N: int, d: int):
    def f(t, y):
        X = y.reshape(N, d)
        S = beta * (X @ P @ X.T)
        S -= S.max(axis=1, keepdims=True)
        A = np.exp(S)
        A /= A.sum(axis=1, keepdims=True)
        G = A @ X
        return (G - X * np.sum(X * G, axis=1, keepdims=True)).ravel()
    return f


def _peer(path: str | None, threads: str):
    if threads == "1":
        os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")
    if path:
        sys.path.append(path)
    try:
        import diffrax
        import jax
    except ImportError as exc:
        return None, f"diffrax skipped: {exc.name or exc} not importable (--peer-path DIR)"
    jax.config.update("jax_enable_x64", True)
    return (jax, jax.numpy, diffrax), f"jax {jax.__version__}, diffrax {diffrax.__version__}, XLA threads {threads}"


def _jax_field(peer, beta: float, N: int, d: int):
    jax, jnp, _ = peer

    def vf(t, y, P):
        X = y.reshape(N, d)
        A = jax.nn.softmax(beta * (X @ P @ X.T), axis=1)
        G = A @ X
        return (G - X * jnp.sum(X * G, axis=1, keepdims=True)).ravel()
    return vf


def _jax_solver(peer, solver: str, beta: float, N: int, d: int, t_end: float, rtol: float, atol: float):
    """A jitted ``(y0, P) -> (y(t_end), steps)``; its compile time (first call less a warm one)."""
    jax, jnp, dfx = peer
    vf = _jax_field(peer, beta, N, d)

    def solve(y0, P):
        sol = dfx.diffeqsolve(dfx.ODETerm(vf), getattr(dfx, solver)(), 0.0, t_end, None, y0, args=P,
                              stepsize_controller=dfx.PIDController(rtol=rtol, atol=atol),
                              saveat=dfx.SaveAt(t1=True), max_steps=1_000_000)
        return sol.ys, sol.stats["num_steps"]
    fn = jax.jit(solve)
    return lambda y0, P: [o.block_until_ready() for o in fn(y0, P)]


def _compile_time(fn, *args) -> float:
    start = time.perf_counter()
    fn(*args)
    first = time.perf_counter() - start
    start = time.perf_counter()
    fn(*args)
    return max(0.0, first - (time.perf_counter() - start))


def _row(name: str, r: dict, err: float | None = None, extra: str = "") -> dict:
    e = "" if err is None else f"  error {err:.1e}"
    print(f"    {name:34s} wall {r['wall'] * 1e3:9.3f} ms (min {r['wall_min'] * 1e3:.3f})  cpu {r['cpu'] * 1e3:9.3f} ms "
          f"(min {r['cpu_min'] * 1e3:.3f}){e}{extra}")
    return {k: v for k, v in r.items() if k != "result"} | ({} if err is None else {"error": err})


def part_small(peer, record: dict) -> None:
    rtol, atol, t_end, N, d, seeds = 1e-8, 1e-10, 15.0, 8, 3, 4
    print(f"small: one system N = {N}, d = {d}, t in [0, {t_end:g}], rtol {rtol:g} / atol {atol:g}, {seeds} seeds; "
          "median of 51 interleaved calls")
    part = record["small"] = {"load_start": _load(), "seeds": []}
    for seed in range(seeds):
        s, P = _instance(seed, N, d, "1")
        y0 = s.tokens.ravel()
        ref = solve_ivp(_plain_field(P, 1.0, N, d), (0, t_end), y0, method="DOP853", rtol=1e-13, atol=1e-15).y[:, -1]
        cached = DOP853(rtol=rtol, atol=atol, kernel="compiled")
        tight = DOP853(rtol=rtol / 10, atol=atol / 10, kernel="compiled")  # below every peer's error
        for run in (cached, tight):
            run.integrate(s, t_end, samples=2)  # loads the kernel, builds the plan
        fns = {"DOP853 compiled, cached plan": lambda: cached.integrate(s, t_end, samples=2).final[0],
               "DOP853 rtol/10, cached plan": lambda: tight.integrate(s, t_end, samples=2).final[0],
               "DOP853 compiled, fresh integrator": lambda: DOP853(rtol=rtol, atol=atol, kernel="compiled")
               .integrate(s, t_end, samples=2).final[0]}
        compile_s = {}
        if peer is not None:
            args = (peer[1].asarray(y0), peer[1].asarray(P))
            for solver in ("Tsit5", "Dopri8"):
                fn = _jax_solver(peer, solver, 1.0, N, d, t_end, rtol, atol)
                compile_s[solver] = _compile_time(fn, *args)
                fns[f"diffrax {solver}"] = (lambda fn=fn: fn(*args))
        res = _interleaved(fns, 51)
        rows = {}
        print(f"  seed {seed} (load {_load()}):")
        for name, r in res.items():
            y = r["result"] if name.startswith("DOP853") else r["result"][0][-1]
            rows[name] = _row(name, r, float(np.max(np.abs(np.asarray(y).ravel() - ref))))
        part["seeds"].append({"rows": rows, "compile_s": compile_s})
    _summary_small(part, peer is not None)
    part["load_end"] = _load()


def _gm(values) -> float:
    values = [v for v in values if v > 0]
    return float(np.exp(np.mean(np.log(values)))) if values else float("nan")


def _summary_small(part: dict, with_peer: bool) -> None:
    seeds = part["seeds"]
    ours = "DOP853 compiled, cached plan"
    fresh = _gm(s["rows"]["DOP853 compiled, fresh integrator"]["cpu"] / s["rows"][ours]["cpu"] for s in seeds)
    part["fresh_over_cached_cpu"] = fresh
    print(f"  set-up: fresh integrator / cached plan = {fresh:.2f}x (CPU time, geometric mean over seeds)")
    if not with_peer:
        return
    for mine, label in ((ours, "rtol 1e-8"), ("DOP853 rtol/10, cached plan", "rtol 1e-9")):
        for peer in ("Tsit5", "Dopri8"):
            name = f"diffrax {peer}"
            t = {k: _gm(s["rows"][mine][k] / s["rows"][name][k] for s in seeds) for k in ("wall", "cpu")}
            e = [s["rows"][mine]["error"] / s["rows"][name]["error"] for s in seeds]
            part[f"ours_{label.replace(' ', '')}_over_{peer}"] = t | {"error_ratio_gm": _gm(e), "error_ratio_max": max(e)}
            print(f"  RATIO DOP853 at {label} (cached) / diffrax {peer} at rtol 1e-8: wall {t['wall']:.2f}x, cpu "
                  f"{t['cpu']:.2f}x; error ratio {_gm(e):.2f} (largest over seeds {max(e):.2f})")
    print("  goal: <= 1.0x Tsit5's time at equal or smaller error (every seed's error ratio <= 1)")


def part_large(peer, record: dict, t_end: float, repeat: int) -> None:
    import numba

    from numerics import _dop853_numba as nb

    N, d, beta, rtol, atol = 2048, 16, 0.25, 1e-8, 1e-10
    s, P = _instance(7, N, d, "1/4")
    part = record["large"] = {"load_start": _load(), "numba_threads": numba.config.NUMBA_NUM_THREADS,
                              "threading_layer": None}
    print(f"large: one system N = {N}, d = {d}, beta = {beta}; numba threads {numba.config.NUMBA_NUM_THREADS}")
    Xt = np.ascontiguousarray(s.tokens.T)
    Pb = np.ascontiguousarray(beta * P[None])
    U = np.zeros((1, d, d))
    work = {t: nb.workspace(N, d, t) for t in (False, True)}
    out = np.empty((d, N))

    def ours(tiled: bool, threads: int):
        K, R, S, v, A = work[tiled]

        def call():
            numba.set_num_threads(threads)
            return nb.field(Xt, Pb, U, False, False, False, tiled, 1.0, out, R[0], S, R[1], v[0], v[1], A)
        return call
    every = numba.config.NUMBA_NUM_THREADS
    fns = {f"tiled field, {every} threads": ours(True, every), "tiled field, 1 thread": ours(True, 1),
           "whole-matrix field, 1 thread": ours(False, 1)}
    for f in fns.values():
        f()
    part["threading_layer"] = numba.threading_layer()
    if peer is not None:
        jax, jnp, _ = peer
        vf = jax.jit(_jax_field(peer, beta, N, d))
        y0, Pj = jnp.asarray(s.tokens.ravel()), jnp.asarray(P)
        vf(0.0, y0, Pj).block_until_ready()
        fns["diffrax/jax field (jit)"] = lambda: vf(0.0, y0, Pj).block_until_ready()
    print(f"  one field evaluation (median of 15 interleaved; load {_load()}):")
    res = _interleaved(fns, 15)
    numba.set_num_threads(every)
    part["evaluation"] = {k: _row(k, r) for k, r in res.items()}
    if peer is not None:
        best = f"tiled field, {every} threads"
        for k in ("wall", "cpu"):
            part["evaluation"][f"ratio_{k}"] = res[best][k] / res["diffrax/jax field (jit)"][k]
        part["evaluation"]["ratio_1thread_cpu"] = res["tiled field, 1 thread"]["cpu"] / res["diffrax/jax field (jit)"]["cpu"]
        print(f"  RATIO tiled ({every} threads) / jax field: wall {part['evaluation']['ratio_wall']:.2f}x, cpu "
              f"{part['evaluation']['ratio_cpu']:.2f}x; 1 thread cpu {part['evaluation']['ratio_1thread_cpu']:.2f}x "
              "(goal <= 0.8x)")
    ref = DOP853(rtol=1e-11, atol=1e-13, kernel="compiled").integrate(s, t_end, samples=2).final[0]
    run = DOP853(rtol=rtol, atol=atol, kernel="compiled")
    tight = DOP853(rtol=rtol / 10, atol=atol / 10, kernel="compiled")  # for a comparison at no larger error
    fns = {"DOP853 compiled (tiled)": lambda: run.integrate(s, t_end, samples=2),
           "DOP853 compiled (tiled), rtol/10": lambda: tight.integrate(s, t_end, samples=2)}
    comp = {}
    if peer is not None:
        args = (peer[1].asarray(s.tokens.ravel()), peer[1].asarray(P))
        for solver in ("Dopri8", "Tsit5"):
            fn = _jax_solver(peer, solver, beta, N, d, t_end, rtol, atol)
            comp[solver] = _compile_time(fn, *args)
            fns[f"diffrax {solver}"] = (lambda fn=fn: fn(*args))
    print(f"  whole run to t = {t_end:g}, rtol {rtol:g} (median of {repeat} interleaved; load {_load()}):")
    res = _interleaved(fns, repeat)
    rows = {}
    for name, r in res.items():
        if name.startswith("DOP853"):
            y, steps, evals = r["result"].final[0], r["result"].stats.steps, r["result"].stats.evaluations
        else:
            y, steps = np.asarray(r["result"][0][-1]).reshape(N, d), int(r["result"][1])
            evals = steps * (12 if "Dopri8" in name else 6)
        rows[name] = _row(name, r, float(np.max(np.abs(y - ref))), f"  steps {steps}, evaluations ~{evals}")
        rows[name] |= {"steps": steps, "evaluations": evals}
    part["run"] = rows | {"compile_s": comp, "t_end": t_end}
    for mine, label in (("DOP853 compiled (tiled)", "rtol 1e-8"), ("DOP853 compiled (tiled), rtol/10", "rtol 1e-9")):
        for peer_name in ("Dopri8", "Tsit5"):
            if f"diffrax {peer_name}" in rows:
                a, b = rows[mine], rows[f"diffrax {peer_name}"]
                part["run"][f"ratio_{label.replace(' ', '')}_{peer_name}"] = {k: a[k] / b[k] for k in ("wall", "cpu", "error")}
                print(f"  RATIO DOP853 at {label} / diffrax {peer_name} at rtol 1e-8 (whole run): wall "
                      f"{a['wall'] / b['wall']:.2f}x, cpu {a['cpu'] / b['cpu']:.2f}x, error ratio {a['error'] / b['error']:.2f}")
    print("  goal: <= 1.0x at equal or smaller error")
    part["load_end"] = _load()


def part_batch(record: dict, repeat: int) -> None:
    B, N, d, rtol, atol, t_end = 256, 32, 16, 1e-8, 1e-10, 5.0
    pairs = [_instance(1000 + b, N, d, "1/4") for b in range(B)]
    systems = [p[0] for p in pairs]
    part = record["batch"] = {"load_start": _load()}
    print(f"batch: {B} x (N = {N}, d = {d}), beta = 1/4, t in [0, {t_end:g}], rtol {rtol:g} (median of {repeat} "
          f"interleaved; load {_load()})")
    run = DOP853(rtol=rtol, atol=atol, kernel="compiled", workers=1)
    run.integrate(systems, t_end, samples=2)
    fns = {"DOP853 compiled, 1 worker": lambda: run.integrate(systems, t_end, samples=2).final,
           "scipy DOP853 loop": lambda: np.stack([solve_ivp(_plain_field(P, 0.25, N, d), (0, t_end), s.tokens.ravel(),
                                                            method="DOP853", rtol=rtol, atol=atol).y[:, -1]
                                                  for s, P in pairs]).reshape(B, N, d)}
    res = _interleaved(fns, repeat)
    diff = float(np.max(np.abs(res["DOP853 compiled, 1 worker"]["result"] - res["scipy DOP853 loop"]["result"])))
    part["rows"] = {k: _row(k, r) for k, r in res.items()}
    a, b = res["scipy DOP853 loop"], res["DOP853 compiled, 1 worker"]
    part |= {"ratio_cpu": a["cpu"] / b["cpu"], "ratio_wall": a["wall"] / b["wall"], "max_difference": diff,
             "load_end": _load()}
    print(f"  RATIO scipy loop / DOP853 (1 worker): cpu {a['cpu'] / b['cpu']:.1f}x, wall {a['wall'] / b['wall']:.1f}x "
          f"(goal >= 12x by CPU time); max difference {diff:.1e}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", default="small,large,batch")
    parser.add_argument("--peer-path", default=os.environ.get("BENCH_PEER_PATH"))
    parser.add_argument("--xla-threads", default="1", choices=("1", "all"))
    parser.add_argument("--t-end", type=float, default=10.0, help="end time of the large whole run")
    parser.add_argument("--repeat", type=int, default=3, help="interleaved repetitions of whole runs")
    parser.add_argument("--out", default=str(RESULTS / "integrator_scale.json"))
    args = parser.parse_args()
    parts = args.parts.split(",")
    peer, note = _peer(args.peer_path, args.xla_threads) if {"small", "large"} & set(parts) else (None, "")
    from threadpoolctl import threadpool_limits
    record = {"machine": {"cores": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version(),
                          "numpy": np.__version__, "peer": note}, "load_start": _load(), "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    print(f"machine: {os.cpu_count()} cores, load average {record['load_start']} at start; {note}")
    with threadpool_limits(limits=1, user_api="blas"):
        if "small" in parts:
            part_small(peer, record)
        if "large" in parts:
            part_large(peer, record, args.t_end, args.repeat)
        if "batch" in parts:
            part_batch(record, max(args.repeat, 5))
    record["load_end"] = _load()
    print(f"load average {record['load_end']} at the end")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(record, indent=1, default=float) + "\n")


if __name__ == "__main__":
    main()
