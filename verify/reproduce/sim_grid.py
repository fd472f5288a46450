"""The paper's simulation grid (SPEC §5): ``P`` constant / periodic / random piecewise x
``U = I`` / symmetric / random x full / causal, ``scale.runs`` seeded runs per cell.

Every run draws its own matrices and tokens (preset seed ``2000 + run``), so a cell's band covers
both.  Per cell: final ``E_pair`` and ``E_first`` with ``|cos|``, the share of runs that reach
consensus (``E_pair < CONSENSUS_EPS`` at ``t_end``) and the fitted exponential rate of ``E_pair``.

The rate is fitted (least squares on ``log E_pair``) from the first sample where
``E_pair < 1e-2`` (from ``t = 0`` if it never gets there, which gives a rate near 0) up to the
samples above ``1e-11`` (below, round-off dominates).  No run is dropped, so slow runs pull a
cell's mean rate down instead of disappearing from it.  Near consensus under full attention with
``U = I`` every ``a_ij`` tends to ``1/N`` whatever ``P`` is, so the asymptotic rate cannot depend
on ``P`` there; the time to reach consensus (``E_pair < CONSENSUS_EPS``, interpolated in
``log E``; runs that never get there count as ``t_end``, a censored value that makes the mean an
underestimate) also sees the transient, where ``P`` matters.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from numerics.dop853 import DOP853
from numerics.metrics import E_first, E_pair, first_time_below, fit_rate
from numerics.presets import MASKS, P_KINDS, U_KINDS, preset

from .figures import grid_png, rates_png
from .hypotheses import hypothesis_counts
from .scale import Scale
from .stats import mean_band, share_band

Progress = Callable[[float], None]
CONSENSUS_EPS = 1e-6
FIT_FROM, FIT_FLOOR = 1e-2, 1e-11
THEOREM_OF = {("identity", "full"): "3.2", ("identity", "causal"): "4.2", ("symmetric", "causal"): "4.4-sym",
              ("symmetric", "full"): "3.2", ("random", "full"): "3.2", ("random", "causal"): "4.2"}
"""The theorem whose hypotheses are counted for each (U, mask) cell (the closest result)."""


def run_rate(times: np.ndarray, values: np.ndarray) -> float:
    """The fitted rate of one run (module docstring)."""
    below = np.flatnonzero(values < FIT_FROM)
    start = float(times[below[0]]) if below.size else float(times[0])
    fit = fit_rate(times, values, floor=FIT_FLOOR, t_from=start)
    if fit is None:  # fewer than three samples between 1e-2 and 1e-11: fit the whole run
        fit = fit_rate(times, values, floor=FIT_FLOOR, t_from=float(times[0]))
    return float("nan") if fit is None else fit.rate


def case_grid(scale: Scale, progress: Progress) -> dict[str, Any]:
    out: dict[str, Any] = {"measurements": {}, "hypotheses": [], "figures": [], "details": {"cells": []}}
    curves: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    cells = [(p, u, m) for u in U_KINDS for m in MASKS for p in P_KINDS]
    for k, (p, u, m) in enumerate(cells):
        name = f"{p}-{u}-{m}"
        systems = [preset(name, N=scale.N, d=scale.d, seed=2000 + r) for r in range(scale.runs)]
        out["hypotheses"] += hypothesis_counts(THEOREM_OF[(u, m)], systems, name)
        traj = DOP853(rtol=1e-10, atol=1e-12).integrate(systems, scale.t_end, samples=scale.samples)
        E = E_pair(traj.states)
        rates = [run_rate(traj.times, E[:, b]) for b in range(E.shape[1])]
        reach = [first_time_below(traj.times, E[:, b], CONSENSUS_EPS) for b in range(E.shape[1])]
        out["measurements"][f"final_E_pair_{name}"] = mean_band(E[-1], f"E_pair at t = {scale.t_end:g}, {name}")
        out["measurements"][f"final_E_abs_{name}"] = mean_band(E_first(traj.states[-1], "abs"), f"E_first (|cos|) at t = {scale.t_end:g}, {name}")
        out["measurements"][f"consensus_share_{name}"] = share_band(
            int(np.sum(E[-1] < CONSENSUS_EPS)), E.shape[1], f"share of runs with E_pair < {CONSENSUS_EPS:g} at t = {scale.t_end:g}, {name}")
        out["measurements"][f"rate_{name}"] = mean_band(rates, f"fitted exponential rate of E_pair, {name}")
        out["measurements"][f"time_to_consensus_{name}"] = mean_band(
            [scale.t_end if t is None else t for t in reach],
            f"time until E_pair < {CONSENSUS_EPS:g}, {name} ({sum(t is None for t in reach)} runs never did: counted as t_end)")
        curves[name] = (traj.times, E)
        out["details"]["cells"].append(name)
        progress((k + 1) / len(cells))
    out["figures"].append({"name": "sim-grid.png", "png": grid_png(curves),
                           "caption": f"The simulation grid: E_pair against t (log axis), mean of {scale.runs} seeded runs with 95% band, "
                                      "one panel per (U, mask), one colour per kind of P."})
    rate_rows = {key: out["measurements"][f"rate_{key}"] for key in
                 [f"{p}-identity-{m}" for m in MASKS for p in P_KINDS]}
    out["figures"].append({"name": "sim-rates.png", "png": rates_png(rate_rows),
                           "caption": "Fitted exponential rate of E_pair by kind of P (U = I; full and causal): mean with 95% band. "
                                      "The authors speculate constant > periodic > random."})
    return out

