"""Numerical evidence attached to theorem reports: one call, a JSON-serialisable dict.

Evidence is *not* proof: it records what a simulation of eq. 5 showed (final metrics, a fitted
rate, when the tokens entered an open hemisphere), with the integrator's statistics, precision
and error estimate so a reader can judge how far to trust the digits.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, final

import numpy as np

from theorems.errors import InvalidInput
from theorems.system import AttentionSystem

from .dop853 import DOP853
from .metrics import (E_first, E_pair, RateFit, V_first, Variant, first_time, first_time_below, fit_rate,
                      hemisphere_margins)
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


HEMISPHERE_NOTE = ("first sample time with margin > 1e-9; Theorem 3.2 applies from then on when its other hypotheses "
                   "hold")


def _metric(value: float | str) -> str:
    """A final metric as printed: a float64 with 4 digits, or the decimal string of a high-precision run."""
    return value if isinstance(value, str) else f"{value:.3e}"


@final
@dataclass(frozen=True)
class RunSummary:
    """Final metrics, events and fitted rate of one instance of a run (:func:`summarize`, or
    :func:`numerics.metrics_mp.summarize_mp`: then the metrics are decimal strings and ``bits`` /
    ``digits`` the precision they were computed and printed with).

    ``E_pair_below`` / ``E_first_below``: the first sample time below ``eps`` (None: never);
    ``hemisphere_margin``: the final margin (None when not measured), ``hemisphere_entry`` the first
    sample time in an open hemisphere and ``resolution`` the sample spacing; ``fit`` the rate of ``E_pair``."""

    variant: str
    t: float
    E_first: float | str
    E_pair: float | str
    V: float | str
    eps: float
    E_pair_below: float | None
    E_first_below: float | None
    fit: RateFit | None
    hemisphere_margin: float | None = None
    hemisphere_entry: float | None = None
    resolution: float = 0.0
    bits: int | None = None
    digits: int | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"E_variant": self.variant}
        if self.digits is not None:
            out["metrics_precision"] = {
                "kind": "mpmath", "bits": self.bits, "digits": self.digits,
                "note": f"E_first, E_pair and V from the {self.bits}-bit states, printed with {self.digits} "
                        "significant digits; the states carry the integrator's error estimate"}
        out["final"] = {"t": self.t, "E_first": self.E_first, "E_pair": self.E_pair, "V": self.V}
        out["events"] = {"E_pair_below_eps": {"eps": self.eps, "t": self.E_pair_below},
                         "E_first_below_eps": {"eps": self.eps, "t": self.E_first_below}}
        out["fitted_rate"] = None if self.fit is None else {**self.fit.to_json(), "metric": "E_pair"}
        if self.hemisphere_margin is not None:
            out["final"]["hemisphere_margin"] = self.hemisphere_margin
            out["events"]["open_hemisphere"] = {"t": self.hemisphere_entry, "resolution": self.resolution,
                                                "note": HEMISPHERE_NOTE}
        return out

    def render(self) -> str:
        """The console lines: the final metrics, the events and the fitted rate."""
        lines = [] if self.digits is None else [
            f"metrics computed with {self.bits} bits from the high-precision states, {self.digits} significant digits:"]
        margin = float("nan") if self.hemisphere_margin is None else self.hemisphere_margin
        lines.append(f"at t={self.t:g}: E_first({self.variant})={_metric(self.E_first)}  E_pair={_metric(self.E_pair)}"
                     f"  V={_metric(self.V)}  hemisphere margin={margin:.3g}")
        entry = self.hemisphere_entry
        lines.append(f"tokens in an open hemisphere from t={entry:g}" if entry is not None
                     else "tokens never in an open hemisphere at the samples")
        lines.append(f"E_pair < {self.eps:g} from t={self.E_pair_below:.4g}" if self.E_pair_below is not None
                     else f"E_pair stays >= {self.eps:g}")
        fit = self.fit
        lines.append(f"fitted rate of E_pair: {fit.rate:.4g} on [{fit.t_from:.3g}, {fit.t_to:.3g}]" if fit is not None
                     else "no rate fitted (too few samples above round-off)")
        return "\n".join(lines)


def summarize(traj: Trajectory, instance: int = 0, variant: Variant = "cos", eps: float = 1e-6,
              hemisphere: bool = True) -> RunSummary:
    """Final metrics, events and the fitted rate of one instance."""
    m = trajectory_metrics(traj, instance, variant, hemisphere)
    t = m["t"]
    hemi = {} if not hemisphere else {
        "hemisphere_margin": float(m["hemisphere_margin"][-1]),
        "hemisphere_entry": first_time(t, m["hemisphere_margin"] > 1e-9),
        "resolution": float(t[1] - t[0]) if t.size > 1 else 0.0}
    return RunSummary(variant, float(t[-1]), float(m["E_first"][-1]), float(m["E_pair"][-1]), float(m["V"][-1]), eps,
                      first_time_below(t, m["E_pair"], eps), first_time_below(t, m["E_first"], eps),
                      fit_rate(t, m["E_pair"]), **hemi)


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
    out.update(summarize(traj, 0, variant, eps).to_json())
    return out


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


@final
@dataclass(frozen=True)
class BatchSummary:
    """``E_first``, ``E_pair`` and ``V`` over a batch of instances at every time ``t``: ``series`` maps each
    metric to its ``(median, low, high)`` over the ``instances`` initial conditions (``band`` says which
    statistic); ``final_min`` / ``final_max`` bound the final ``E_pair`` over the instances."""

    instances: int
    band: str
    t: tuple[float, ...]
    series: tuple[tuple[str, tuple[tuple[float, ...], tuple[float, ...], tuple[float, ...]]], ...]
    final_min: float
    final_max: float

    @property
    def final_E_pair(self) -> tuple[float, float, float]:
        """``(median, low, high)`` of ``E_pair`` at the final time."""
        median, low, high = dict(self.series)["E_pair"]
        return median[-1], low[-1], high[-1]

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"instances": self.instances, "band": self.band, "t": list(self.t)}
        out.update((name, {"median": list(m), "low": list(lo), "high": list(hi)}) for name, (m, lo, hi) in self.series)
        median, low, high = self.final_E_pair
        out["final_E_pair"] = {"median": median, "band": [low, high], "min": self.final_min, "max": self.final_max}
        return out

    def render(self) -> str:
        median, low, high = self.final_E_pair
        return (f"{self.instances} initial conditions: final E_pair median {median:.3e}, 10-90% band "
                f"[{low:.3e}, {high:.3e}] (min {self.final_min:.3e}, max {self.final_max:.3e})")


def batch_summary(traj: Trajectory, variant: Variant = "cos") -> BatchSummary:
    """``E_first``, ``E_pair`` and ``V`` over a batch of instances at every time: the one statistic of
    :mod:`numerics.spread` (median, 10-90% band over the initial conditions, clipped to each metric's
    range), the one the batch figure draws."""
    from .spread import DESCRIPTION, METRIC_RANGES, spread

    X = traj.states
    N = X.shape[2]
    ranges = {"E_first": METRIC_RANGES["E_first" if variant == "cos" else "E_first_abs"], "E_pair": METRIC_RANGES["E_pair"],
              "V": (0.0, 2.0 * max(N - 1, 1))}
    series = []
    for name, fn in (("E_first", lambda s: E_first(s, variant)), ("E_pair", E_pair), ("V", V_first)):
        s = spread(np.asarray(fn(X), dtype=float).T, ranges[name])
        series.append((name, tuple(tuple(a.tolist()) for a in (s.median, s.low, s.high))))
    finals = np.clip(E_pair(X[-1]), *ranges["E_pair"])
    return BatchSummary(int(X.shape[1]), DESCRIPTION.replace("prompts", "initial conditions"),
                        tuple(traj.times.tolist()), tuple(series), float(np.min(finals)), float(np.max(finals)))
