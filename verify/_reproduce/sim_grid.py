"""The paper's simulation grid (docs/model.md §5): ``P`` constant / periodic / random in depth x
``U = I`` / symmetric / random x full / causal, ``scale.runs`` seeded runs per cell; one task per cell.

Every run draws its own matrices and tokens (preset seed ``2000 + run``), so a cell's band covers
both.  ``P`` *random in depth* is a fresh random matrix (rational, denominator 8) on every unit
interval of ``[0, t_end]``, drawn from ``numpy.random.default_rng([7000, run, interval])``:
piecewise constant, bounded, not uniformly continuous, and never repeating (no cycle within the
horizon: ``ceil(t_end) + 1`` distinct draws, the stack is not periodic).

Per cell: final ``E_pair`` and ``E_first`` with ``|cos|``, the share of runs that reach consensus
(``E_pair < CONSENSUS_EPS`` at ``t_end``), the time to reach it, the early-phase rate and the
late fitted rate of ``E_pair``.

* The **time to consensus** interpolates ``log E`` (runs that never get there count as
  ``t_end``, a censored value that makes the mean an underestimate).
* The **early-phase rate** is fitted (least squares on ``log E_pair``) from ``t = 0`` until
  ``E_pair`` first drops below ``EARLY_UNTIL`` (at least the first three samples): the transient,
  where ``P`` matters.
* The **late rate** is fitted from the first sample below ``FIT_FROM`` down to ``FIT_FLOOR``.
  Near consensus under full attention with ``U = I`` every ``a_ij`` tends to ``1/N`` whatever
  ``P`` is, so the late rate cannot depend on ``P`` there: it is plotted, not used as evidence.
"""
from __future__ import annotations

import dataclasses
import math
from typing import Any, Mapping, Sequence

import numpy as np
import sympy

from numerics.dop853 import DOP853
from numerics.metrics import E_first, E_pair, first_time_below, fit_rate
from numerics.presets import MASKS, U_KINDS, preset
from numerics.spread import METRIC_RANGES
from theorems.matrices import ConstantMatrix, LayerStack
from theorems.system import Head

from .figures import grid_png, rates_png
from .hypotheses import hypothesis_counts
from .scale import Scale
from .stats import UNBOUNDED, median_band, share_band
from .tasks import Task, merge

CONSENSUS_EPS = 1e-6
EARLY_UNTIL = 1e-2
FIT_FROM, FIT_FLOOR = 1e-2, 1e-11
GRID_P = ("constant", "periodic", "random")
THEOREM_OF = {("identity", "full"): "3.2", ("identity", "causal"): "4.2", ("symmetric", "causal"): "4.4-sym",
              ("symmetric", "full"): "3.2", ("random", "full"): "3.2", ("random", "causal"): "4.2"}
"""The theorem whose hypotheses are counted for each (U, mask) cell (the closest result)."""


def random_in_depth_P(run: int, d: int, t_end: float) -> LayerStack:
    """A non-periodic stack of fresh random matrices, one per unit interval (module docstring).

    Built directly from the integers (exact ``k/8`` and the same floats the instance reader gives):
    reading ``ceil(t_end) + 1`` layers per run through :mod:`theorems.system_json` parses every entry
    as an expression and was the slowest part of the grid."""
    layers = []
    for k in range(int(math.ceil(t_end)) + 1):
        ints = np.random.default_rng([7000, run, k]).integers(-8, 9, size=(d, d))
        layers.append(ConstantMatrix(ints / 8.0, sympy.ImmutableMatrix(ints.tolist()) / 8))
    return LayerStack(tuple(layers), dt=1.0, periodic=False, interpolation="constant")


def cell_system(p: str, u: str, m: str, run: int, scale: Scale):
    """Run ``run`` of the cell ``p-u-m``: the preset of seed ``2000 + run``, with ``P`` replaced by
    a random-in-depth stack when ``p == "random"`` (``U`` and the tokens are the preset's)."""
    if p != "random":
        return preset(f"{p}-{u}-{m}", N=scale.N, d=scale.d, seed=2000 + run)
    base = preset(f"constant-{u}-{m}", N=scale.N, d=scale.d, seed=2000 + run)
    return dataclasses.replace(
        base, heads=(Head(random_in_depth_P(run, scale.d, scale.t_end), base.heads[0].U),), name=f"random-{u}-{m}",
        description=f"P random in depth (fresh matrix per unit interval), U {u}, {m} attention (seed {2000 + run})")


def run_rate(times: np.ndarray, values: np.ndarray) -> float:
    """The late fitted rate of one run (module docstring)."""
    below = np.flatnonzero(values < FIT_FROM)
    start = float(times[below[0]]) if below.size else float(times[0])
    fit = fit_rate(times, values, floor=FIT_FLOOR, t_from=start)
    if fit is None:  # fewer than three samples between 1e-2 and 1e-11: fit the whole run
        fit = fit_rate(times, values, floor=FIT_FLOOR, t_from=float(times[0]))
    return float("nan") if fit is None else fit.rate


def early_rate(times: np.ndarray, values: np.ndarray) -> float:
    """The early-phase rate of one run: ``-slope`` of ``log E_pair`` from ``t = 0`` until it first
    drops below ``EARLY_UNTIL`` (module docstring)."""
    below = np.flatnonzero(values < EARLY_UNTIL)
    stop = max(int(below[0]) + 1 if below.size else values.size, 3)
    t, v = np.asarray(times[:stop], dtype=float), np.asarray(values[:stop], dtype=float)
    keep = v > 0
    if np.count_nonzero(keep) < 3:
        return float("nan")
    slope = np.polyfit(t[keep], np.log(v[keep]), 1)[0]
    return float(-slope)


def grid_cell(scale: Scale, p: str, u: str, m: str) -> dict[str, Any]:
    """One cell of the grid (one task)."""
    name = f"{p}-{u}-{m}"
    systems = [cell_system(p, u, m, r, scale) for r in range(scale.runs)]
    traj = DOP853(rtol=1e-10, atol=1e-12).integrate(systems, scale.t_end, samples=scale.samples)
    E = E_pair(traj.states)
    rates = [run_rate(traj.times, E[:, b]) for b in range(E.shape[1])]
    early = [early_rate(traj.times, E[:, b]) for b in range(E.shape[1])]
    reach = [first_time_below(traj.times, E[:, b], CONSENSUS_EPS) for b in range(E.shape[1])]
    ms = {
        f"final_E_pair_{name}": median_band(E[-1], f"E_pair at t = {scale.t_end:g}, {name}", METRIC_RANGES["E_pair"]),
        f"final_E_abs_{name}": median_band(E_first(traj.states[-1], "abs"), f"E_first (|cos|) at t = {scale.t_end:g}, {name}", METRIC_RANGES["E_first_abs"]),
        f"consensus_share_{name}": share_band(int(np.sum(E[-1] < CONSENSUS_EPS)), E.shape[1],
                                              f"share of runs with E_pair < {CONSENSUS_EPS:g} at t = {scale.t_end:g}, {name}"),
        f"rate_{name}": median_band(rates, f"late fitted exponential rate of E_pair (from E_pair < {FIT_FROM:g}), {name}",
                                    UNBOUNDED),
        f"early_rate_{name}": median_band(early, "early-phase rate of E_pair (fitted from t = 0 until E_pair < "
                                                 f"{EARLY_UNTIL:g}), {name}", UNBOUNDED),
        f"time_to_consensus_{name}": median_band(
            [scale.t_end if t is None else t for t in reach],
            f"time until E_pair < {CONSENSUS_EPS:g}, {name} ({sum(t is None for t in reach)} runs never did: counted as t_end)",
            (0.0, scale.t_end)),
    }
    return {"measurements": ms, "hypotheses": hypothesis_counts(THEOREM_OF[(u, m)], systems, name),
            "details": {"cells": [name]}, "raw": {"name": name, "t": traj.times, "E": E}}


def grid_tasks(scale: Scale) -> list[Task]:
    return [Task(f"{p}-{u}-{m}", grid_cell, (scale, p, u, m)) for u in U_KINDS for m in MASKS for p in GRID_P]


def grid_finish(scale: Scale, parts: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    out = merge(parts)
    curves = {part["raw"]["name"]: (part["raw"]["t"], part["raw"]["E"]) for part in parts}
    out["figures"].append({"name": "sim-grid.png", "png": grid_png(curves),
                           "caption": f"The simulation grid: E_pair against t (log axis), median of {scale.runs} seeded runs with the "
                                      "10-90% quantile band of the runs (the claim table's statistic; not a confidence band), one panel per "
                                      "(U, mask), one colour per kind of P (random: a fresh matrix on every unit interval); the grey "
                                      "strip below 1e-15 is float64 round-off."})
    keys = [f"{p}-identity-{m}" for m in MASKS for p in GRID_P]
    out["figures"].append({"name": "sim-rates.png",
                           "png": rates_png({k: out["measurements"][f"early_rate_{k}"] for k in keys},
                                            {k: out["measurements"][f"rate_{k}"] for k in keys}),
                           "caption": "Early-phase rate (fitted while E_pair > 1e-2, where P matters) and late rate (cannot depend on P "
                                      "with U = I) of E_pair by kind of P, U = I, full and causal: median with the 10-90% band of the runs. The authors "
                                      "speculate constant > periodic > random."})
    return out
