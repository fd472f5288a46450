"""The map's second pass: heads whose tokens straddle ``ker w`` get a validated enclosure to a shared half-space.

:func:`entry_pass` takes the first pass's fates, re-reduces each "both sides" head, proves the
spectral part (:func:`~.contraction.propose_spectral`) and proposes a crossing time by a float run
(:func:`~.head_flow.plan_entry`); then it runs the enclosures, earliest proposed crossing first, as
jobs (:func:`run_head`) in this process or on Dask workers (``workers >= 2``, the executor of
``verify reproduce``), until the deadline.  A head is certified only when its enclosure ends with
every token ball in the half-space: then the contraction theorem, restarted at that time, gives
consensus (:mod:`.head_flow`).  Every other head keeps its first-pass reason with what stopped this
pass appended.  A job recomputes everything from the exact inputs it is sent (the head's float
factors, tokens and ``beta``), so a worker trusts nothing but those.
"""
from __future__ import annotations

import math
import numbers
import time
from dataclasses import replace
from fractions import Fraction

import numpy as np

from theorems.errors import InvalidInput

from .contraction import propose_spectral
from .head_flow import BALL_OPTIONS, BALL_TIGHT, OPTIONS, enter_half_space, plan_entry
from .heads import reduce_head

ROUTE = ("validated enclosure (arb, orthonormal coordinates of the exact reduction) to a shared half-space, "
         "then the projective contraction")


_METHOD = {"lognorm": "logarithmic-norm", "lognorm-tight": "logarithmic-norm (tight)", "lohner": "Lohner"}


def _note(fate, text: str):
    return replace(fate, reason=f"{fate.reason}; enclosure: {text}")


def exact_beta(value) -> Fraction | None:
    """The exact rational ``beta`` denotes (a float is the binary rational it holds; an int or a Fraction is
    kept exactly, never rounded through a float), or None when it is not a finite positive number."""
    if isinstance(value, bool):
        return None
    if isinstance(value, numbers.Rational):
        q = Fraction(value.numerator, value.denominator)
    elif isinstance(value, (float, np.floating)):
        if not math.isfinite(float(value)):
            return None
        q = Fraction(float(value))
    else:
        return None
    return q if q > 0 else None


def _prepare(V, O, A, B, tokens, beta: Fraction, causal: bool, deadline: float | None = None):
    """``(reduced, spectral, plan, "")`` or ``(.., None, why)`` for one head; bad data (a NaN in a factor) is
    this head's reason, not the map's error.  ``deadline``: a ``time.perf_counter()`` value for the proposal."""
    try:
        reduced = reduce_head(V, O, tokens)
        spec, why, _ = propose_spectral(reduced.U_red)
        if spec is None:
            return reduced, None, None, why
        plan, why = plan_entry(reduced, spec, A, B, beta, causal, deadline=deadline)
    except InvalidInput as exc:
        return None, None, None, str(exc)
    return reduced, spec, plan, why


def run_head(V, O, A, B, tokens, beta: Fraction, causal: bool, deadline_wall: float) -> dict:
    """One job: the head's enclosure to the half-space, from its exact inputs, until ``deadline_wall``
    (a ``time.time()`` value, comparable across processes of one machine); plain values only."""
    left = deadline_wall - time.time()
    if left <= 0:
        return {"ran": False, "why": "time budget spent"}
    _, spec, plan, why = _prepare(V, O, A, B, tokens, beta, causal, time.perf_counter() + left)
    if plan is None:
        return {"ran": False, "why": why}
    entry = enter_half_space(plan, time.perf_counter() + (deadline_wall - time.time()))
    run = entry.run
    return {"ran": True, "entered": run.entered, "status": run.status, "time": str(run.time), "steps": run.steps,
            "width": run.width if math.isfinite(run.width) else None, "sign": entry.sign,
            "proposed": entry.proposed, "wall_s": entry.wall_s, "method": entry.method, "lam": spec.lam.str(6, radius=True),
            "rho": float(spec.rho)}


def _apply(fate, result: dict):
    if not result.get("ran"):
        return _note(fate, f"not attempted ({result.get('why', 'no result')})")
    facts = dict(fate.facts) | {"proposed_crossing": result["proposed"], "enclosure_steps": result["steps"],
                                "enclosure_status": result["status"], "enclosure_time": result["time"],
                                "enclosure_width": result["width"], "enclosure_method": result.get("method", "lohner")}
    fate = replace(fate, facts=facts, wall_s=round(fate.wall_s + result["wall_s"], 3))
    t = float(Fraction(result["time"]))
    if not result["entered"]:
        return _note(fate, f"stopped at t = {t:.4g} after {result['steps']} steps ({result['status']}; proposed "
                           f"crossing t = {result['proposed']:.3g})")
    side = "+" if result["sign"] > 0 else "-"
    width = "nan" if result["width"] is None else f"{result['width']:.1e}"
    return replace(fate, fate="consensus", reason=(
        f"validated enclosure to t = {t:.6g} ({result['steps']} {_METHOD[result.get('method', 'lohner')]} steps, width "
        f"{width}): every token with "
        f"{side}<w, x_i(t)> > 0; then projective contraction: lambda in {result['lam']} > rho = "
        f"{result['rho']:.6g} >= |U|_S on ker w (any P, beta, mask); consensus at {side}Bv/|Bv| (v, w in the "
        f"reduced basis B, <w, v> = 1)"))


def entry_jobs(out: list, layer_of: dict, causal: bool, deadline_wall: float):
    """Plan the enclosure jobs of the "both sides" heads of ``out`` (heads whose plan fails get their reason now):
    ``(jobs, finish, stats)`` for :func:`run_jobs`; ``finish(k, state, text)`` applies job ``k``'s outcome to
    ``out`` and returns its index there; ``stats()`` the pass's figures.  ``layer_of[i] = (layer, h)``."""
    from verify._reproduce.tasks import decode

    plans = []
    for i, fate in enumerate(out):
        if fate.category != "both sides":
            continue
        layer, h = layer_of[i]
        beta = exact_beta(layer.beta)
        if beta is None:
            out[i] = _note(fate, f"not attempted (beta = {layer.beta!r} is not a finite positive number)")
            continue
        left = deadline_wall - time.time()
        if left <= 0:
            out[i] = _note(fate, "not attempted (time budget spent before its crossing time was proposed)")
            continue
        t0 = time.perf_counter()
        _, _, plan, why = _prepare(layer.V[h], layer.O[h], layer.A[h], layer.B[h], layer.tokens, beta, causal,
                                   t0 + left)
        out[i] = replace(fate, wall_s=round(fate.wall_s + time.perf_counter() - t0, 3))
        if plan is None:
            out[i] = _note(out[i], f"not attempted ({why})")
            continue
        plans.append((plan.proposed, i))
    plans.sort()
    jobs = []
    for _, i in plans:
        layer, h = layer_of[i]
        jobs.append((f"head-{out[i].layer}-{out[i].head}", run_head,
                     (layer.V[h], layer.O[h], layer.A[h], layer.B[h], layer.tokens, exact_beta(layer.beta), causal,
                      deadline_wall)))
    count = {"attempted": 0, "certified": 0}

    def finish(k: int, state: str, text: str) -> int:
        i = plans[k][1]
        if state != "ok":
            out[i] = _note(out[i], f"the job failed ({text})")
        else:
            result = decode(text)
            count["attempted"] += bool(result.get("ran"))
            out[i] = _apply(out[i], result)
            count["certified"] += out[i].fate == "consensus"
        return i

    def stats() -> dict:
        return {"enclosure_route": ROUTE, "enclosure_candidates": len(plans), "enclosure_attempted": count["attempted"],
                "enclosure_certified": count["certified"], "enclosure_options": BALL_OPTIONS.to_json() | {"method": "lognorm"},
                "enclosure_tight_options": BALL_TIGHT.to_json() | {"method": "lognorm-tight"},
                "enclosure_fallback_options": OPTIONS.to_json() | {"method": "lohner"}}
    return jobs, finish, stats


def run_jobs(out: list, parts, workers: int | None = None, on_entry=None) -> int:
    """Run the jobs of one or more passes (``(jobs, finish, stats)`` each) on one executor.  A Dask cluster does
    not keep the submission order (measured), so the map runs its passes one after the other.
    ``on_entry(k, n, HeadFate)`` after each job; ``workers >= 2``: a Dask ``LocalCluster``.  Returns the number
    of workers used."""
    from verify._reproduce.executor import make_executor

    owners = [(finish, k) for jobs, finish, _ in parts for k in range(len(jobs))]
    every = [job for jobs, _, _ in parts for job in jobs]
    used = max(1, workers or 1)
    if not every:
        return used
    executor = make_executor(workers=workers if workers and workers > 1 else None)
    try:
        for done, (g, (state, _seconds, text)) in enumerate(executor.run(every), 1):
            finish, k = owners[g]
            i = finish(k, state, text)
            if on_entry is not None:
                on_entry(done, len(every), out[i])
    finally:
        executor.close()
    return used


def entry_pass(out: list, layer_of: dict, causal: bool, budget_s: float, on_entry=None,
               workers: int | None = None) -> dict:
    """Replace, in ``out``, the fates of the "both sides" heads this pass certifies or explains; the map's
    stats of the pass.  ``layer_of[i] = (layer, h)`` for ``out[i]``; ``budget_s`` wall-clock seconds from
    now; ``on_entry(k, n, HeadFate)`` after each of the ``n`` planned heads; ``workers >= 2``: a Dask
    ``LocalCluster`` of that many processes."""
    part = entry_jobs(out, layer_of, causal, time.time() + budget_s)
    used = run_jobs(out, [part], workers, on_entry)
    return part[2]() | {"enclosure_workers": used}


__all__ = ["ROUTE", "entry_jobs", "entry_pass", "exact_beta", "run_head", "run_jobs"]
