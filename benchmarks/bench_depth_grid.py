"""Benchmark: the certified depth window on the full grid, against independent truth.

Grid (ODE, eq. 5): N in {4, 8, 16}, d in {3, 4, 8}, beta in {1, 2, 4}, P = I or a random rational
P, full (Theorem 3.2) and causal (Theorem 4.2) attention; layer map (eq. 4): the same with
tau in {1/2, 1} on N in {4, 8}, d in {3, 4}.  Tokens: rational points of the hemisphere x_d > 0
(as bench_validated.py).  For each instance, :func:`verify._depth.certify.certify_depth`
(closed form plus the validated window) and, independently, the truth:

* ODE: DOP853 at rtol 1e-13 on a grid of step 1e-4 (``T_true``: the last grid time with metric > eps);
* layers: eq. 4 in float64 (``L_true``: the last layer with metric > eps, plus one).

One JSON line per instance goes to ``--out`` (resumable: instances already there are skipped); the
summary prints the share certified, ``T_high / T_true`` (median, worst), whether
``T_low <= T_true <= T_high`` everywhere and ``L_high - L_true``.

    python benchmarks/bench_depth_grid.py [--out FILE] [--only ode|layers] [--max-states 96]
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from fractions import Fraction
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
EPS = Fraction(1, 100)


def _instance(N: int, d: int, beta: int, mask: str, random_P: bool, seed: int) -> dict:
    from bench_validated import tokens

    rng = random.Random(1000 + seed)
    P = "identity" if not random_P else [[f"{rng.randint(-6, 6)}/8" for _ in range(d)] for _ in range(d)]
    return {"name": f"N{N}-d{d}-b{beta}-{mask}-{'randP' if random_P else 'I'}", "d": d, "beta": beta,
            "mask": mask, "heads": [{"P": P, "U": "identity"}],
            "tokens": [[str(c) for c in row] for row in tokens(N, d, seed)]}


def _true_time(system, lo: float, hi: float) -> float:
    """The last time on a 1e-4 grid over ``[lo - 0.01, hi + 0.2]`` with metric > eps (DOP853 at
    rtol 1e-13, restarted at ``lo - 0.01``: the system is autonomous); ``lo - 0.01`` when the metric
    is already <= eps on the whole grid (then the window's T_low is contradicted)."""
    from numerics import DOP853
    from verify._depth.evidence import metric

    solver = DOP853(rtol=1e-13, atol=1e-15)
    start = max(0.0, lo - 0.01)
    X = system.tokens / np.linalg.norm(system.tokens, axis=1, keepdims=True)
    if start > 0:
        X = solver.integrate(system, start, samples=2).states[-1, 0]
    shifted = system.with_tokens(X)
    grid = np.arange(0.0, hi + 0.2 - start, 1e-4)[1:]
    traj = solver.integrate(shifted, float(grid[-1]), t_eval=grid)
    values = metric(traj.states[:, 0], system.mask)
    above = np.flatnonzero(values > float(EPS))
    return start + float(traj.times[above[-1]]) if above.size else start


def _true_layers(system, tau: Fraction, layers: int) -> int:
    from verify._depth.evidence import layer_step, metric

    X = system.tokens / np.linalg.norm(system.tokens, axis=1, keepdims=True)
    P = [np.asarray(h.P.array, dtype=float) for h in system.heads]
    last = 0
    for k in range(1, layers + 1):
        X = layer_step(X, P, float(system.beta), float(tau), system.mask == "causal")
        if metric(X, system.mask) > float(EPS):
            last = k
    return last + 1 if metric(system.tokens / np.linalg.norm(system.tokens, axis=1, keepdims=True),
                              system.mask) > float(EPS) or last else 0


def cases(only: str | None):
    k = 0
    for model in ("ode", "layers"):
        if only and only != model:
            continue
        sizes = ((4, 3), (4, 4), (4, 8), (8, 3), (8, 4), (8, 8), (16, 3), (16, 4), (16, 8)) if model == "ode" \
            else ((4, 3), (8, 4))
        taus = (None,) if model == "ode" else (Fraction(1, 2), Fraction(1))
        for N, d in sizes:
            for beta in (1, 2, 4):
                for mask in ("full", "causal"):
                    for rp in (False, True):
                        for tau in taus:
                            k += 1
                            yield model, N, d, beta, mask, rp, tau, k


def run_one(model, N, d, beta, mask, rp, tau, seed) -> dict:
    from theorems.system_json import system_from_dict
    from verify._depth.certify import certify_depth

    data = _instance(N, d, beta, mask, rp, seed)
    system = system_from_dict(data)
    theorem = "3.2" if mask == "full" else "4.2"
    started = time.perf_counter()
    report = certify_depth(theorem, system, EPS, model, tau, simulate=False)
    j = report.to_json()
    w = j.get("window") or {}
    row = {"model": model, "name": data["name"] + ("" if tau is None else f"-tau{tau}"), "N": N, "d": d,
           "beta": beta, "mask": mask, "random_P": rp, "tau": None if tau is None else str(tau),
           "verdict": j["verdict"], "bound": j["bound"], "T_low": w.get("T_low"), "T_high": w.get("T_high"),
           "reason": w.get("reason", j["explanation"])[:160], "enclose_s": w.get("seconds"),
           "total_s": round(time.perf_counter() - started, 2)}
    if w.get("T_high") is not None:
        high = float(Fraction(w["T_high"]))
        if model == "ode":
            low = float(Fraction(w["T_low"])) if w.get("T_low") is not None else 0.0
            row["T_true"] = _true_time(system, low, high)
        else:
            row["T_true"] = _true_layers(system, tau, int(high) + 5)
    return row


def summary(rows: list[dict]) -> str:
    lines = []
    for model in ("ode", "layers"):
        rs = [r for r in rows if r["model"] == model]
        if not rs:
            continue
        ok = [r for r in rs if r.get("T_high") is not None]
        inside = all(
            (r["T_low"] is None or float(Fraction(r["T_low"])) <= r["T_true"] + 1e-4)
            and r["T_true"] <= float(Fraction(r["T_high"])) + 1e-4 for r in ok)
        line = f"{model}: window certified on {len(ok)}/{len(rs)}"
        if model == "ode":
            ratios = [float(Fraction(r["T_high"])) / r["T_true"] for r in ok if r["T_true"] > 0]
            if ratios:
                line += (f"; T_high/T_true median {statistics.median(ratios):.4f}, worst {max(ratios):.4f}")
        else:
            gaps = [int(Fraction(r["T_high"])) - r["T_true"] for r in ok]
            if gaps:
                line += f"; L_high - L_true max {max(gaps)}, min {min(gaps)}"
        line += f"; T_low <= T_true <= T_high everywhere: {inside}"
        missed = [f"{r['name']} ({r['reason'][:60]})" for r in rs if r.get("T_high") is None]
        if missed:
            line += "\n  not certified: " + "; ".join(missed)
        lines.append(line)
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(HERE / "results" / "depth_grid.jsonl"))
    parser.add_argument("--only", choices=("ode", "layers"))
    parser.add_argument("--summary", action="store_true", help="print the summary of --out and stop")
    args = parser.parse_args()
    out = Path(args.out)
    done = {}
    if out.exists():
        for line in out.read_text().splitlines():
            r = json.loads(line)
            done[r["name"]] = r
    if not args.summary:
        for model, N, d, beta, mask, rp, tau, seed in cases(args.only):
            name = _instance(N, d, beta, mask, rp, seed)["name"] + ("" if tau is None else f"-tau{tau}")
            if name in done:
                continue
            row = run_one(model, N, d, beta, mask, rp, tau, seed)
            done[name] = row
            with out.open("a") as fh:
                fh.write(json.dumps(row) + "\n")
            print(f"{row['name']:<34} {row['verdict']:<8} T_low={row['T_low']!s:.12} T_true={row.get('T_true')!s:.8} "
                  f"T_high={row['T_high']!s:.12} {row['total_s']} s", flush=True)
    print(summary(list(done.values())))


if __name__ == "__main__":
    main()
