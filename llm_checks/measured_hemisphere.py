"""Open-hemisphere test of measured token states (the initial condition of Theorem 3.2).

Tokens ``x_1..x_N`` (rows, normalized to unit length) lie in an open hemisphere iff some ``z``
has ``min_i <z, x_i> > 0``.  The linear program

    maximize m  subject to  <z, x_i> >= m (all i),  -1 <= z_k <= 1,  m <= 1

(scipy HiGHS) gives a candidate ``z``; the margin is then recomputed from ``z`` in float64 without
the solver, and the answer is "holds" only when that recomputed margin exceeds the worst-case
rounding of the dot products (``2 D eps`` for unit vectors).  When the optimum is ``<= 0`` the duals
give Farkas weights ``lambda >= 0`` summing to 1 with ``sum_i lambda_i x_i ~ 0``; the residual norm
is reported.  The reported margin is geometric, ``min_i <z/|z|, x_i>`` (the sine of the angular
distance of the closest token to the boundary great sphere), a lower bound on the best margin
because the LP normalizes ``z`` in the box, not on the sphere.  The token states are floats, so every answer is a measurement (``exact=False``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import linprog

from theorems.errors import InvalidInput
from theorems.verdict import Verdict, fails, holds, unknown


@dataclass(frozen=True)
class HemisphereResult:
    margin: float
    rounding_bound: float
    verdict: Verdict


def hemisphere_margin(states: np.ndarray, name: str = "hemisphere") -> HemisphereResult:
    X = np.asarray(states, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] < 1 or not np.all(np.isfinite(X)):
        raise InvalidInput("states", "a finite (N, D) array with N >= 1", getattr(X, "shape", None))
    norms = np.linalg.norm(X, axis=1)
    if np.any(norms == 0):
        raise InvalidInput("states", "nonzero token states", f"{int(np.sum(norms == 0))} zero rows")
    X = X / norms[:, None]
    N, D = X.shape
    cost = np.zeros(D + 1)
    cost[-1] = -1.0
    A_ub = np.hstack([-X, np.ones((N, 1))])
    bounds = [(-1.0, 1.0)] * D + [(None, 1.0)]
    res = linprog(cost, A_ub=A_ub, b_ub=np.zeros(N), bounds=bounds, method="highs")
    if res.status != 0 or res.x is None:
        return HemisphereResult(float("nan"), float("nan"), unknown(name, f"LP solver did not finish: {res.message}", exact=False))
    z = res.x[:D]
    z_norm = float(np.linalg.norm(z))
    if z_norm == 0.0:
        z_norm = 1.0
    margin = float(np.min(X @ z)) / z_norm  # geometric margin: min_i <z/|z|, x_i>
    bound = float(2 * D * np.finfo(float).eps)
    witness = {"margin": margin, "rounding_bound": bound, "n_tokens": N}
    if margin > bound:
        return HemisphereResult(margin, bound, holds(name, f"all {N} tokens in an open hemisphere, margin {margin:.3g} (re-checked from z)", witness, exact=False))
    duals = -np.asarray(res.ineqlin.marginals) if res.ineqlin is not None else np.zeros(N)
    if -res.fun <= 0 and duals.sum() > 0:
        lam = np.clip(duals, 0, None) / np.clip(duals, 0, None).sum()
        witness["farkas_residual"] = float(np.linalg.norm(lam @ X))
        witness["farkas_support"] = int(np.sum(lam > 1e-12))
        return HemisphereResult(margin, bound, fails(name, "no open hemisphere: the LP optimum is <= 0 (Farkas weights in witness)", witness, exact=False))
    return HemisphereResult(margin, bound, unknown(name, f"margin {margin:.3g} is within rounding ({bound:.3g})", witness, exact=False))
