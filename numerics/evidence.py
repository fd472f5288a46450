"""Numerical evidence attached to theorem reports: one call, a JSON-serialisable dict.

Evidence is *not* proof: it records what a simulation of eq. 5 showed (final metrics, a fitted
rate, when the tokens entered an open hemisphere), with the integrator's statistics, precision
and error estimate so a reader can judge how far to trust the digits.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from theorems.errors import InvalidInput
from theorems.system import AttentionSystem

from .dop853 import DOP853
from .metrics import E_first, E_pair, V_first, Variant, first_time, first_time_below, fit_rate, hemisphere_margins
from .taylor import TaylorMP
from .trajectory import Progress, Trajectory


def trajectory_metrics(traj: Trajectory, instance: int = 0, variant: Variant = "cos",
                       hemisphere: bool = True) -> dict[str, np.ndarray]:
    """Metric time series of one instance of a trajectory."""
    X = traj.states[:, instance]
    out = {"t": traj.times, "E_first": E_first(X, variant), "E_pair": E_pair(X), "V": V_first(X)}
    if hemisphere:
        out["hemisphere_margin"] = hemisphere_margins(X)
    return out


def _num(x: float | None) -> float | None:
    if x is None or not math.isfinite(x):
        return None
    return float(x)


def summarize(traj: Trajectory, instance: int = 0, variant: Variant = "cos", eps: float = 1e-6,
              hemisphere: bool = True) -> dict[str, Any]:
    """Final metrics, events and the fitted rate of one instance."""
    m = trajectory_metrics(traj, instance, variant, hemisphere)
    fit = fit_rate(m["t"], m["E_pair"])
    out: dict[str, Any] = {
        "E_variant": variant,
        "final": {"t": float(m["t"][-1]), "E_first": float(m["E_first"][-1]), "E_pair": float(m["E_pair"][-1]),
                  "V": float(m["V"][-1])},
        "events": {"E_pair_below_eps": {"eps": eps, "t": first_time_below(m["t"], m["E_pair"], eps)},
                   "E_first_below_eps": {"eps": eps, "t": first_time_below(m["t"], m["E_first"], eps)}},
        "fitted_rate": None if fit is None else {**fit.to_json(), "metric": "E_pair"},
    }
    if hemisphere:
        out["final"]["hemisphere_margin"] = float(m["hemisphere_margin"][-1])
        out["events"]["open_hemisphere"] = {
            "t": first_time(m["t"], m["hemisphere_margin"] > 1e-9),
            "resolution": float(m["t"][1] - m["t"][0]) if m["t"].size > 1 else 0.0,
            "note": "first sample time with margin > 1e-9; Theorem 3.2 applies from then on when its other hypotheses hold"}
    return out


def simulate_evidence(system: AttentionSystem, t_end: float = 15.0, *, rtol: float = 1e-10, atol: float = 1e-12,
                      samples: int = 151, digits: int | None = None, variant: Variant = "cos",
                      eps: float = 1e-6, progress: Progress | None = None) -> dict[str, Any]:
    """Integrate ``system`` on ``[0, t_end]`` and summarise (float64 DOP853, or the Taylor method
    with ``digits`` decimal digits when given)."""
    if not isinstance(system, AttentionSystem):
        raise InvalidInput("system", "an AttentionSystem", type(system).__name__)
    integrator = TaylorMP(digits=digits) if digits is not None else DOP853(rtol=rtol, atol=atol)
    traj = integrator.integrate(system, t_end, samples=samples, progress=progress)
    out = {"kind": "numerical evidence (simulation of eq. 5; not a proof)",
           "instance": system.name, "N": system.N, "d": system.d, "H": system.H, "mask": system.mask,
           "integrator": traj.to_json()}
    out.update(summarize(traj, 0, variant, eps))
    return out


def student_t_half_width(values: np.ndarray, level: float = 0.95, axis: int = 0) -> np.ndarray:
    """Half-width ``t_{(1+level)/2, n-1} sd / sqrt(n)`` of the Student-t band of a mean along
    ``axis`` (``n`` = the size of that axis, ``sd`` with ``ddof = 1``).  The one home of this band:
    :func:`batch_statistics` here and :func:`verify._reproduce.stats.mean_band` call it.  Needs
    ``n >= 2`` (one run has no band; the callers say so).  The band is about run-to-run variation
    of the mean, not a bound on a limit."""
    from scipy.stats import t as student

    values = np.asarray(values, dtype=float)
    n = values.shape[axis]
    if n < 2:
        raise InvalidInput("values", "at least two runs along the band's axis", n)
    return student.ppf(0.5 + level / 2, n - 1) * values.std(axis=axis, ddof=1) / math.sqrt(n)


def clopper_pearson(hits: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """The exact (Clopper-Pearson) band ``(low, high)`` of the share ``hits / n``: beta quantiles,
    ``low = 0`` when ``hits = 0`` and ``high = 1`` when ``hits = n``.  The one home of this band."""
    from scipy.stats import beta

    if isinstance(hits, bool) or isinstance(n, bool) or n < 1 or not 0 <= hits <= n:
        raise InvalidInput("hits", "0 <= hits <= n with n >= 1", f"{hits}/{n}")
    alpha = 1 - level
    low = 0.0 if hits == 0 else float(beta.ppf(alpha / 2, hits, n - hits + 1))
    high = 1.0 if hits == n else float(beta.ppf(1 - alpha / 2, hits + 1, n - hits))
    return low, high


def batch_statistics(values: np.ndarray, level: float = 0.95) -> dict[str, np.ndarray]:
    """Mean over instances (axis 1 of ``(T, B)``) and a Student-t confidence band of the mean
    (:func:`student_t_half_width`; one instance: the band collapses to the mean)."""
    values = np.asarray(values, dtype=float)
    mean = values.mean(axis=1)
    if values.shape[1] < 2:
        return {"mean": mean, "low": mean.copy(), "high": mean.copy()}
    half = student_t_half_width(values, level, axis=1)
    return {"mean": mean, "low": mean - half, "high": mean + half}


def batch_summary(traj: Trajectory, variant: Variant = "cos") -> dict[str, Any]:
    """``E_first``, ``E_pair`` and ``V`` over a batch of instances at every time: the one statistic of
    :mod:`numerics.spread` (median, 10-90% band over the initial conditions, clipped to each metric's
    range), the one the batch figure draws."""
    from .spread import DESCRIPTION, METRIC_RANGES, spread

    X = traj.states
    N = X.shape[2]
    ranges = {"E_first": METRIC_RANGES["E_first" if variant == "cos" else "E_first_abs"], "E_pair": METRIC_RANGES["E_pair"],
              "V": (0.0, 2.0 * max(N - 1, 1))}
    out: dict[str, Any] = {"instances": int(X.shape[1]), "band": DESCRIPTION.replace("prompts", "initial conditions"),
                           "t": traj.times.tolist()}
    for name, fn in (("E_first", lambda s: E_first(s, variant)), ("E_pair", E_pair), ("V", V_first)):
        s = spread(np.asarray(fn(X), dtype=float).T, ranges[name])
        out[name] = {"median": s.median.tolist(), "low": s.low.tolist(), "high": s.high.tolist()}
    finals = np.clip(E_pair(X[-1]), *ranges["E_pair"])
    out["final_E_pair"] = {"median": out["E_pair"]["median"][-1], "band": [out["E_pair"]["low"][-1], out["E_pair"]["high"][-1]],
                           "min": float(np.min(finals)), "max": float(np.max(finals))}
    return out

