"""Consensus metrics of docs/model.md §4, the hemisphere margin, events and a fitted convergence rate.

All metric functions take states of shape ``(..., N, d)`` and return arrays of shape ``(...)``,
so they apply to one state, a trajectory ``(T, N, d)`` or a batched trajectory ``(T, B, N, d)``.
Cosines are used (not raw inner products), so the formulas hold for unnormalised residual
streams too; tokens must be nonzero.

* ``E_first(X) = 1 - (1/N) sum_j cos(x_a, x_j)`` with anchor ``a`` (the authors' metric; the
  ``"abs"`` variant uses ``|cos|``, as an older version of their code and as the line-alignment
  of result 4.4-sym needs);
* ``E_pair(X) = 1 - (1/N^2) sum_ij cos(x_i, x_j)`` (anchor-free);
* ``V_first(X) = sum_i (1 - <x_1, x_i>)``: the Lyapunov function of Theorem 4.2;
* ``hemisphere_margins(states)``: the one hemisphere margin
  (:func:`theorems.hemisphere_margin.hemisphere_margin`, re-exported here) along a trajectory;
  a float measurement, the exact verdict is :mod:`theorems.predicates`' job.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal, final

import numpy as np
from theorems.errors import InvalidInput
from theorems.hemisphere_margin import hemisphere_margin

Variant = Literal["cos", "abs"]


def _unit(X: np.ndarray) -> np.ndarray:
    X = np.asarray(X, dtype=float)
    if X.ndim < 2:
        raise InvalidInput("X", "states of shape (..., N, d)", X.shape)
    norms = np.linalg.norm(X, axis=-1, keepdims=True)
    if np.any(norms == 0):
        raise InvalidInput("X", "nonzero tokens (cosines are undefined for zero vectors)", "a zero token")
    return X / norms


def E_first(X: np.ndarray, variant: Variant = "cos", anchor: int = 0) -> np.ndarray:
    """``1 - mean_j cos(x_anchor, x_j)`` (``variant="abs"``: ``|cos|``)."""
    if variant not in ("cos", "abs"):
        raise InvalidInput("variant", "'cos' or 'abs'", variant)
    Y = _unit(X)
    if not -Y.shape[-2] <= anchor < Y.shape[-2]:
        raise InvalidInput("anchor", f"a token index below N={Y.shape[-2]}", anchor)
    c = np.einsum("...d,...jd->...j", Y[..., anchor, :], Y)
    if variant == "abs":
        c = np.abs(c)
    return 1.0 - c.mean(axis=-1)


def E_pair(X: np.ndarray) -> np.ndarray:
    """``1 - mean_ij cos(x_i, x_j) = 1 - |mean_i x_i/|x_i||^2``."""
    Y = _unit(X)
    m = Y.mean(axis=-2)
    return 1.0 - np.sum(m * m, axis=-1)


def V_first(X: np.ndarray) -> np.ndarray:
    """Theorem 4.2's ``V = sum_i (1 - cos(x_1, x_i))``."""
    Y = _unit(X)
    return np.sum(1.0 - np.einsum("...d,...jd->...j", Y[..., 0, :], Y), axis=-1)


def hemisphere_margins(states: np.ndarray) -> np.ndarray:
    """Margins along a trajectory ``(T, N, d)`` (:func:`hemisphere_margin`), each solve warm-started from the last ``z``."""
    out = np.empty(states.shape[0])
    z = None
    for k in range(states.shape[0]):
        out[k], z = hemisphere_margin(states[k], z)
    return out


def first_time(times: np.ndarray, flags: np.ndarray) -> float | None:
    """The first sample time at which ``flags`` is true (sample resolution), else ``None``."""
    hit = np.flatnonzero(np.asarray(flags, dtype=bool))
    return float(times[hit[0]]) if hit.size else None


def first_time_below(times: np.ndarray, values: np.ndarray, eps: float) -> float | None:
    """First time ``values < eps``, interpolating ``log(values)`` between the bracketing samples."""
    values = np.asarray(values, dtype=float)
    hit = np.flatnonzero(values < eps)
    if not hit.size:
        return None
    k = int(hit[0])
    if k == 0:
        return float(times[0])
    a, b = values[k - 1], values[k]
    if a <= 0 or b <= 0:
        return float(times[k])
    frac = (math.log(a) - math.log(eps)) / (math.log(a) - math.log(b))
    return float(times[k - 1] + frac * (times[k] - times[k - 1]))


@final
@dataclass(frozen=True)
class RateFit:
    """Least-squares fit ``log E(t) ~ intercept - rate t`` on ``[t_from, t_to]`` (``points``
    samples); ``residual`` is the RMS residual of ``log E``."""

    rate: float
    intercept: float
    t_from: float
    t_to: float
    points: int
    residual: float

    def to_json(self) -> dict:
        return {"rate": self.rate, "intercept": self.intercept, "t_from": self.t_from, "t_to": self.t_to,
                "points": self.points, "rms_residual_log": self.residual}


def fit_rate(times: np.ndarray, values: np.ndarray, *, floor: float = 1e-13, t_from: float | None = None) -> RateFit | None:
    """Exponential rate of decay of ``values``, fitted on samples with ``t >= t_from`` (default:
    the second half of the run) and ``values > floor`` (below it float64 round-off dominates).
    ``None`` when fewer than three samples qualify."""
    times = np.asarray(times, dtype=float)
    values = np.asarray(values, dtype=float)
    start = times[0] + 0.5 * (times[-1] - times[0]) if t_from is None else t_from
    keep = (times >= start) & (values > floor) & np.isfinite(values)
    if np.count_nonzero(keep) < 3:
        return None
    t, y = times[keep], np.log(values[keep])
    A = np.vstack([np.ones_like(t), -t]).T
    coef, *_ = np.linalg.lstsq(A, y, rcond=None)
    resid = float(np.sqrt(np.mean((A @ coef - y) ** 2)))
    return RateFit(float(coef[1]), float(coef[0]), float(t[0]), float(t[-1]), int(t.size), resid)
