"""What certifying the rest of a model's heads would cost (issue 23: MiniLM >= 50% within a 15-minute map).

For every head that the fate map (``--map``, the JSON of ``verify audit MODEL --fate --format json``) left
unknown while its float simulation collapses to one cluster:

1. the rightmost eigenvalue of the head's ``U`` on ``V = span(x_i(0)) + range(U)`` (float64): a stable
   consensus point needs it real and positive; a complex one means a rotating cluster;
2. the moving-consensus lemma of ``docs/fate.md`` (the route for rotating or slowly drifting clusters):
   the float proposal of :func:`verify._fate.moving_hints.propose_moving` on the head's float data in
   orthonormal coordinates of ``V`` (``d = 40`` for MiniLM, above the instance command's limit, so the
   problem object is built directly; floats only propose, nothing here is a proof), its diameter bound
   ``Dmax``, and the first time at which a float simulation (DOP853, rtol 1e-10) meets its entry condition;
3. the validated logarithmic-norm enclosure (the one the map runs, ``verify/_fate/head_flow.py:
   BALL_OPTIONS``) on the head with the earliest such time, for ``--probe-seconds`` of one core: the time
   it reaches, its steps and their mean length.

Printed: the heads that 50% needs, how many have a proposal at all, and the core-seconds their
enclosures would take at the probe's rate, against the 2 x 900 core-seconds of a 15-minute map.
Results: printed and written to ``--out`` (default ``benchmarks/results/fate_heads_cost.json``).
Run: ``python benchmarks/bench_fate_heads_cost.py [--model minilm] [--probe-seconds 420]`` (about
10 minutes plus the probe, one core).
"""
from __future__ import annotations

import argparse
import json
import math
import time
from fractions import Fraction
from pathlib import Path

import numpy as np
from scipy.integrate import solve_ivp

RESULTS = Path(__file__).parent / "results"


def _float_head(layer, h: int):
    """``(U_z, P_z, Z, beta)``: the head in orthonormal coordinates of ``V`` (float64 QR)."""
    V, O, A, B = (np.asarray(a[h], np.float64) for a in (layer.V, layer.O, layer.A, layer.B))
    X = np.asarray(layer.tokens, np.float64)
    X = X / np.linalg.norm(X, axis=1, keepdims=True)
    Q, _ = np.linalg.qr(np.concatenate([X.T, O.T], axis=1))
    return Q.T @ (O.T @ V.T) @ Q, Q.T @ (A @ B.T) @ Q, X @ Q, float(layer.beta)


def _field(Z, Uz, Pz, beta):
    S = beta * Z @ Pz @ Z.T
    S -= S.max(axis=1, keepdims=True)
    W = np.exp(S)
    W /= W.sum(axis=1, keepdims=True)
    Vv = W @ Z @ Uz.T
    return Vv - Z * np.sum(Z * Vv, axis=1, keepdims=True)


def _problem(Pz, Uz, Z, beta):
    """A :class:`~verify._fate.problem.FateProblem` for the float proposal only (its size check, meant for
    the instance command, is skipped: ``d = 40`` here)."""
    from verify._fate.problem import FateProblem

    exact = lambda M: tuple(tuple(Fraction(float(v)) for v in row) for row in np.asarray(M))  # noqa: E731
    prob = object.__new__(FateProblem)
    for k, v in dict(beta=Fraction(beta), mask="full", heads=((exact(Pz), exact(Uz)),), tokens=exact(Z),
                     normalize=True, name="head").items():
        object.__setattr__(prob, k, v)
    return prob


def _entry_time(mv, Uz, Pz, Z, beta, horizon: float = 200.0):
    """First multiple of 1/4 at which the float solution meets the lemma's entry condition (None: never)."""
    N, m = Z.shape
    G = np.array(mv.G, dtype=float)
    region = None if mv.region is None else (np.array(mv.region.Q, dtype=float), float(mv.region.gamma))
    sol = solve_ivp(lambda t, y: _field(y.reshape(N, m), Uz, Pz, beta).ravel(), (0, horizon), Z.ravel(),
                    method="DOP853", rtol=1e-10, atol=1e-12, dense_output=True)
    for t in np.arange(0.0, horizon, 0.25):
        X = sol.sol(t).reshape(N, m)
        if region is not None and not all(x @ region[0] @ x > region[1] for x in X):
            continue
        D2 = ((X[:, None] - X[None]) ** 2).sum(-1).max(axis=1)
        if np.all(float(mv.g_hi) * D2 < float(mv.Dmax) ** 2 * np.einsum("ia,ab,ib->i", X, G, X)):
            return float(t)
    return None


def survey(factors, heads) -> list[dict]:
    from verify._fate.moving_hints import propose_moving

    rows = []
    for h in heads:
        layer = factors.layers[h["layer"]]
        Uz, Pz, Z, beta = _float_head(layer, h["head"])
        ev = np.linalg.eigvals(Uz)
        top = ev[np.argmax(ev.real)]
        kind = "complex" if abs(top.imag) > 1e-12 else ("real > 0" if top.real > 0 else "real <= 0")
        t0 = time.perf_counter()
        cands, why = propose_moving(_problem(Pz, Uz, Z, beta))
        row = {"layer": h["layer"], "head": h["head"], "category": h["category"], "rightmost": [top.real, top.imag],
               "rightmost_kind": kind, "proposal": bool(cands), "proposal_s": round(time.perf_counter() - t0, 1)}
        if cands:
            mv = cands[0]
            row |= {"Dmax": float(mv.Dmax), "mu": float(mv.mu), "g_ratio": float(mv.g_hi / mv.g_lo),
                    "entry_time": _entry_time(mv, Uz, Pz, Z, beta)}
        else:
            row["why"] = why
        rows.append(row)
        print(f"  layer {row['layer']} head {row['head']:2d} ({row['category']}, rightmost {kind} "
              f"{top.real:.3f}{top.imag:+.3f}i): " + (f"Dmax {row['Dmax']:.2g}, entry t = {row['entry_time']}"
                                                      if cands else "no moving-consensus proposal"), flush=True)
    return rows


def probe(factors, row: dict, seconds: float) -> dict:
    """The map's logarithmic-norm enclosure on one head for ``seconds``: how far it gets."""
    import flint

    from verify._fate import flow
    from verify._fate.head_entry import exact_beta
    from verify._fate.head_flow import BALL_OPTIONS, orthonormal
    from verify._fate.heads import reduce_head

    layer, h = factors.layers[row["layer"]], row["head"]
    with flint.ctx.workprec(BALL_OPTIONS.prec):
        hf = orthonormal(reduce_head(layer.V[h], layer.O[h], layer.tokens), layer.A[h], layer.B[h], exact_beta(layer.beta))
        t0 = time.process_time()
        run = flow.run_ball_set(hf.heads, False, hf.initial, Fraction(200), lambda rows: False, BALL_OPTIONS,
                                time.perf_counter() + seconds)
        cpu = time.process_time() - t0
    return {"layer": row["layer"], "head": h, "cpu_s": cpu, "t_reached": float(run.time), "steps": run.steps,
            "mean_step": float(run.time) / max(run.steps, 1), "width": run.width, "status": run.status}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="minilm")
    parser.add_argument("--map", default=None, help="the map's JSON (default results/fate_heads_MODEL.json)")
    parser.add_argument("--probe-seconds", type=float, default=420.0)
    parser.add_argument("--out", default=str(RESULTS / "fate_heads_cost.json"))
    args = parser.parse_args()
    from llm_checks.head_factors import head_factors, prompt_ids
    from llm_checks.loaders import load_model
    from verify.api.fate_heads import DEFAULT_PROMPT

    fmap = json.loads(Path(args.map or RESULTS / f"fate_heads_{args.model}.json").read_text())
    total, certified = fmap["total"], fmap["certified"]
    need = math.ceil(total / 2) - certified
    loaded = load_model(args.model)
    ids, strings = prompt_ids(loaded, DEFAULT_PROMPT, 8)
    factors = head_factors(loaded, ids, strings)
    left = [h for h in fmap["heads"] if h["fate"] == "unknown" and h["observed"]["outcome"] == "one cluster"]
    print(f"{args.model}: {certified}/{total} certified; 50% needs {need} more; {len(left)} unknown heads collapse "
          "to one cluster in the float simulation")
    rows = survey(factors, left)
    timed = sorted((r for r in rows if r.get("entry_time") is not None), key=lambda r: r["entry_time"])
    rec = {"model": args.model, "certified": certified, "total": total, "needed": need, "heads": rows,
           "with_proposal": len(timed)}
    if timed:
        p = probe(factors, timed[0], args.probe_seconds)
        rate = p["cpu_s"] / max(p["t_reached"], 1e-9)
        cheapest = timed[:need]
        cost = sum(r["entry_time"] for r in cheapest) * rate
        rec |= {"probe": p, "cpu_s_per_time_unit": rate, "cost_cpu_s_of_cheapest": cost,
                "map_cpu_s": 2 * 900.0}
        print(f"probe: layer {p['layer']} head {p['head']}: the enclosure reaches t = {p['t_reached']:.2f} in "
              f"{p['cpu_s']:.0f} s of CPU ({p['steps']} steps, mean step {p['mean_step']:.4f}, width {p['width']:.1e}); "
              f"its proposed entry is t = {timed[0]['entry_time']}")
        print(f"{len(timed)} of the {len(left)} heads have a proposal (50% needs {need}); the {len(cheapest)} earliest "
              f"entries at the probe's rate ({rate:.0f} s of CPU per time unit): {cost:.0f} core-seconds, "
              f"against 1800 for a 15-minute map on 2 cores (all of it, before the heads certified now)")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(rec, indent=1, default=float) + "\n")


if __name__ == "__main__":
    main()
