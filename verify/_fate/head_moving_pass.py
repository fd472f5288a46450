"""The map's third pass: heads whose dominant eigenvalue is complex or negative, by the moving-consensus lemma.

After the enclosure pass (:mod:`.head_entry`), with the wall-clock budget left, every head still unknown whose
first-pass category is "complex" or "negative" and whose ``U`` has an eigenvalue with positive real part gets a
job (:func:`.head_moving.run_moving_head`): a moving-consensus certificate proved for the balls of its
orthonormal coordinates, a float proposal of the entry time, and a validated enclosure until the tokens meet
the lemma's entry condition.  Heads are tried largest rightmost real part first (the faster collapse); a
job recomputes everything from the head's float factors, tokens and ``beta``.  Full mask only.
"""
from __future__ import annotations

import time
from dataclasses import replace
from fractions import Fraction

import numpy as np

from .head_entry import _METHOD, _note, exact_beta
from .head_moving import run_moving_head

ROUTE = ("moving-consensus lemma (U_z, beta P_z as balls of the orthonormal coordinates, arb Cholesky), after a "
         "validated enclosure to its diameter bound")


def _rightmost(V, O) -> float:
    """The largest real part of the eigenvalues of ``U = O^T V^T`` (those of ``V^T O^T``, ``d_head x d_head``; the
    rest are 0): a float used only to order the heads."""
    with np.errstate(all="ignore"):
        ev = np.linalg.eigvals(np.asarray(V, np.float64).T @ np.asarray(O, np.float64).T)
    return float(np.max(ev.real)) if np.all(np.isfinite(ev)) else float("nan")


def _apply(fate, result: dict):
    if not result.get("ran"):
        return _note(fate, f"moving consensus not attempted ({result.get('why', 'no result')})")
    facts = dict(fate.facts) | {"proposed_entry": result["proposed"], "enclosure_steps": result["steps"],
                                "enclosure_status": result["status"], "enclosure_time": result["time"],
                                "enclosure_width": result["width"], "enclosure_method": result["method"],
                                "moving_Dmax": result["Dmax"], "moving_kappa": result["kappa"], "moving_mu": result["mu"]}
    fate = replace(fate, facts=facts, wall_s=round(fate.wall_s + result["wall_s"], 3))
    t = float(Fraction(result["time"]))
    if not result["entered"]:
        return _note(fate, f"moving consensus: stopped at t = {t:.4g} after {result['steps']} steps ({result['status']}; "
                           f"proposed entry t = {result['proposed']:.3g})")
    width = "nan" if result["width"] is None else f"{result['width']:.1e}"
    return replace(fate, fate="consensus", reason=(
        f"validated enclosure to t = {t:.6g} ({result['steps']} {_METHOD[result['method']]} steps, width {width}): "
        f"every token in the region and the diameter within Dmax = {result['Dmax']:.3g} (weighted); then moving "
        f"consensus: {result['check']}; limit: none"))


def moving_pass(out: list, layer_of: dict, causal: bool, deadline_wall: float, on_entry=None,
                workers: int | None = None) -> dict:
    """Replace, in ``out``, the fates of the "complex" and "negative" heads this pass certifies or explains; the
    pass's stats.  ``deadline_wall``: a ``time.time()`` value; other arguments as :func:`.head_entry.entry_pass`."""
    from verify._reproduce.executor import make_executor
    from verify._reproduce.tasks import decode

    stats = {"moving_route": ROUTE, "moving_candidates": 0, "moving_attempted": 0, "moving_certified": 0}
    if causal:
        return stats | {"moving_route": "not built for the causal mask"}
    order = []
    for i, fate in enumerate(out):
        if fate.fate != "unknown" or fate.category not in ("complex", "negative"):
            continue
        layer, h = layer_of[i]
        lam = _rightmost(layer.V[h], layer.O[h])
        if lam > 0:
            order.append((-lam, i))
    order.sort()
    stats["moving_candidates"] = len(order)
    jobs = []
    for _, i in order:
        layer, h = layer_of[i]
        beta = exact_beta(layer.beta)
        if beta is None:
            out[i] = _note(out[i], f"moving consensus not attempted (beta = {layer.beta!r} is not a finite positive number)")
            continue
        jobs.append((i, (f"moving-{out[i].layer}-{out[i].head}", run_moving_head,
                         (layer.V[h], layer.O[h], layer.A[h], layer.B[h], layer.tokens, beta, False, deadline_wall))))
    if not jobs or deadline_wall <= time.time():
        for i, _ in jobs:
            out[i] = _note(out[i], "moving consensus not attempted (time budget spent)")
        return stats
    executor = make_executor(workers=workers if workers and workers > 1 else None)
    try:
        for done, (k, (state, _seconds, text)) in enumerate(executor.run([j for _, j in jobs]), 1):
            i = jobs[k][0]
            if state != "ok":
                out[i] = _note(out[i], f"moving consensus: the job failed ({text})")
            else:
                result = decode(text)
                stats["moving_attempted"] += bool(result.get("ran"))
                out[i] = _apply(out[i], result)
                stats["moving_certified"] += out[i].fate == "consensus"
            if on_entry is not None:
                on_entry(done, len(jobs), out[i])
    finally:
        executor.close()
    return stats


__all__ = ["ROUTE", "moving_pass"]
