"""The map's third pass: heads whose dominant eigenvalue is complex or negative, by the moving-consensus lemma.

After the enclosure pass (:mod:`.head_entry`), with the wall-clock budget it leaves, every head still unknown whose
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

from .head_entry import _METHOD, _note, exact_beta, run_jobs
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


def moving_jobs(out: list, layer_of: dict, causal: bool, deadline_wall: float):
    """Plan the moving-consensus jobs of the "complex" and "negative" heads of ``out``: ``(jobs, finish, stats)`` as
    :func:`.head_entry.entry_jobs` (``deadline_wall``: a ``time.time()`` value each job checks when it starts)."""
    from verify._reproduce.tasks import decode

    count = {"candidates": 0, "attempted": 0, "certified": 0}
    route = ROUTE if not causal else "not built for the causal mask"

    def stats() -> dict:
        return {"moving_route": route, "moving_candidates": count["candidates"], "moving_attempted": count["attempted"],
                "moving_certified": count["certified"]}
    if causal:
        return [], None, stats
    order = []
    for i, fate in enumerate(out):
        if fate.fate != "unknown" or fate.category not in ("complex", "negative"):
            continue
        layer, h = layer_of[i]
        lam = _rightmost(layer.V[h], layer.O[h])
        if lam > 0:
            order.append((-lam, i))
    order.sort()
    count["candidates"] = len(order)
    jobs, index = [], []
    for _, i in order:
        layer, h = layer_of[i]
        beta = exact_beta(layer.beta)
        if beta is None:
            out[i] = _note(out[i], f"moving consensus not attempted (beta = {layer.beta!r} is not a finite positive number)")
            continue
        if deadline_wall <= time.time():
            out[i] = _note(out[i], "moving consensus not attempted (time budget spent)")
            continue
        index.append(i)
        jobs.append((f"moving-{out[i].layer}-{out[i].head}", run_moving_head,
                     (layer.V[h], layer.O[h], layer.A[h], layer.B[h], layer.tokens, beta, False, deadline_wall)))

    def finish(k: int, state: str, text: str) -> int:
        i = index[k]
        if state != "ok":
            out[i] = _note(out[i], f"moving consensus: the job failed ({text})")
        else:
            result = decode(text)
            count["attempted"] += bool(result.get("ran"))
            out[i] = _apply(out[i], result)
            count["certified"] += out[i].fate == "consensus"
        return i
    return jobs, finish, stats


def moving_pass(out: list, layer_of: dict, causal: bool, deadline_wall: float, on_entry=None,
                workers: int | None = None) -> dict:
    """:func:`moving_jobs` run on their own executor (:func:`.head_entry.run_jobs`): the pass's stats."""
    part = moving_jobs(out, layer_of, causal, deadline_wall)
    run_jobs(out, [part], workers, on_entry)
    return part[2]()


__all__ = ["ROUTE", "moving_jobs", "moving_pass"]
