"""Open-hemisphere test of measured token states (the initial condition of Theorem 3.2).

Tokens ``x_1..x_N`` (rows) lie in an open hemisphere iff some ``z`` has ``min_i <z, x_i> > 0``.
The margin is the project's one definition (:mod:`theorems.hemisphere_margin`):
``margin(X) = max_{|z| = 1} min_i <z, x_i/|x_i|>``, measured by
:func:`theorems.hemisphere_margin.hemisphere_margin` from the LP's candidate ``z``
(:func:`~theorems.hemisphere_margin.hemisphere_lp`) and recomputed from ``z`` in float64.  The
answer is "holds" only when that margin exceeds the worst-case rounding of the dot products
(``2 D eps`` for unit vectors).  Otherwise the Farkas LP (:func:`~theorems.hemisphere_margin.farkas_lp`)
gives weights ``lambda >= 0`` summing to 1 with ``sum_i lambda_i x_i ~ 0``, and its residual is
reported.  The token states are floats, so every answer is a measurement (``exact=False``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from theorems.errors import InvalidInput
from theorems.hemisphere_margin import farkas_lp, hemisphere_lp, hemisphere_margin
from theorems.verdict import Verdict, fails, holds, unknown


@dataclass(frozen=True)
class HemisphereResult:
    margin: float
    rounding_bound: float
    verdict: Verdict


def measured_hemisphere(states: np.ndarray, name: str = "hemisphere") -> HemisphereResult:
    """The hemisphere verdict (a measurement) of one ``(N, D)`` state, see the module docstring."""
    X = np.asarray(states, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] < 1 or not np.all(np.isfinite(X)):
        raise InvalidInput("states", "a finite (N, D) array with N >= 1", getattr(X, "shape", None))
    norms = np.linalg.norm(X, axis=1)
    if np.any(norms == 0):
        raise InvalidInput("states", "nonzero token states", f"{int(np.sum(norms == 0))} zero rows")
    X = X / norms[:, None]
    N, D = X.shape
    lp = hemisphere_lp(X)
    if lp.z is None:
        return HemisphereResult(float("nan"), float("nan"), unknown(name, f"LP solver did not finish: {lp.message}", exact=False))
    start = lp.z if np.linalg.norm(lp.z) > 0 else None
    margin, _ = hemisphere_margin(X, start)
    if lp.margin is not None and lp.margin <= 0 and margin == 0.0:
        margin = float(lp.margin)  # no z found with a positive margin: report how far below 0 the LP's z is
    bound = float(2 * D * np.finfo(float).eps)
    witness = {"margin": margin, "rounding_bound": bound, "n_tokens": N}
    if margin > bound:
        return HemisphereResult(margin, bound, holds(name, f"all {N} tokens in an open hemisphere, margin {margin:.3g} (re-checked from z)", witness, exact=False))
    lam = farkas_lp(X)
    if lam is not None:
        witness["farkas_residual"] = float(np.linalg.norm(lam @ X))
        witness["farkas_support"] = int(np.sum(lam > 1e-12))
        return HemisphereResult(margin, bound, fails(name, "no open hemisphere: Farkas weights lambda >= 0, sum 1, with sum lambda_i x_i ~ 0 (witness)", witness, exact=False))
    return HemisphereResult(margin, bound, unknown(name, f"margin {margin:.3g} is within rounding ({bound:.3g})", witness, exact=False))


__all__ = ["HemisphereResult", "measured_hemisphere"]
