"""The one hemisphere computation (a float hint) and the one definition of its margin.

Tokens ``x_1..x_N`` lie in an open hemisphere iff some ``z`` has ``min_i <z, x_i> > 0``.  The
**margin** of the tokens is

    margin(X) = max_{|z| = 1} min_i <z, x_i/|x_i|>

(the sine of the angular distance of the closest token to the boundary great sphere; when
positive, the distance from 0 to the convex hull of the unit tokens).  Every computation reports
:func:`margin_at` of the ``z`` it found: the margin attained by a feasible ``z``, a lower bound on
``margin(X)`` that never overstates it.

:func:`hemisphere_margin` measures it (an SLSQP polish of ``z``, the value a feasible ``z``
attains); :func:`hemisphere_lp` solves the linear program

    maximize m  subject to  <z, x_i> >= m (all i),  -1 <= z_k <= 1,  m <= 1

(scipy HiGHS) on the rows as given, and :func:`farkas_lp` looks for weights ``lambda >= 0``,
``sum lambda = 1``, ``sum lambda_i x_i = 0`` (no open hemisphere).  Both are hints: the exact
verdict (a rational ``z`` or an exact Farkas certificate) is
:mod:`theorems.predicates.open_hemisphere`'s job, and a float measurement of token states
(``llm_checks``) stays a measurement.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import final

import numpy as np

from .errors import InvalidInput


def _rows(X: np.ndarray, name: str) -> np.ndarray:
    A = np.asarray(X, dtype=np.float64)
    if A.ndim != 2 or A.shape[0] < 1 or not np.all(np.isfinite(A)):
        raise InvalidInput(name, "an N x d array of finite numbers with N >= 1", getattr(A, "shape", None))
    return A


def margin_at(z: np.ndarray, X: np.ndarray) -> float:
    """``min_i <z/|z|, x_i/|x_i|>``: the margin attained by ``z`` (the module's one definition)."""
    A = _rows(X, "points")
    norms = np.linalg.norm(A, axis=1)
    if np.any(norms == 0):
        raise InvalidInput("points", "nonzero rows (a zero token has no direction)", f"{int(np.sum(norms == 0))} zero rows")
    z = np.asarray(z, dtype=np.float64)
    nz = float(np.linalg.norm(z))
    if nz == 0.0 or not np.isfinite(nz):
        return float("nan")
    return float(np.min((A / norms[:, None]) @ (z / nz)))


@final
@dataclass(frozen=True)
class HemisphereLP:
    """Outcome of :func:`hemisphere_lp`: the candidate ``z`` (None when the solver did not finish),
    its margin (:func:`margin_at`), the LP optimum ``m`` (box-normalised ``z``; same sign as the
    margin) and the LP's dual weights on the constraints ``<z, x_i> >= m``."""

    z: np.ndarray | None
    margin: float | None
    lp_value: float | None
    duals: np.ndarray | None
    message: str


def hemisphere_lp(X: np.ndarray) -> HemisphereLP:
    """The LP of the module docstring on the rows of ``X`` as given (``N x d``)."""
    A = _rows(X, "points")
    N, d = A.shape
    from scipy.optimize import linprog  # lazily: SciPy is ~0.2-0.5 s of a cold start

    res = linprog(np.r_[np.zeros(d), -1.0], A_ub=np.c_[-A, np.ones(N)], b_ub=np.zeros(N),
                  bounds=[(-1, 1)] * d + [(None, 1)], method="highs")
    if res.status != 0 or res.x is None:
        return HemisphereLP(None, None, None, None, str(res.message))
    z = np.asarray(res.x[:d])
    duals = -np.asarray(res.ineqlin.marginals) if getattr(res, "ineqlin", None) is not None else None
    margin = margin_at(z, A) if np.linalg.norm(z) > 0 and np.all(np.linalg.norm(A, axis=1) > 0) else None
    return HemisphereLP(z, margin, float(-res.fun), duals, str(res.message))


def hemisphere_margin(X: np.ndarray, z0: np.ndarray | None = None) -> tuple[float, np.ndarray]:
    """``(max(0, margin_at(z)), z)`` for one state ``(N, d)``: the unit ``z`` polished by SLSQP on
    ``max m s.t. <z, x_i/|x_i|> >= m, |z|^2 <= 1`` from ``z0`` (default: the tokens' mean
    direction, or the first token), kept only where it improves on the start.  The value is the
    margin a feasible ``z`` attains, so it never overstates ``margin(X)``; a float measurement."""
    A = _rows(X, "X")
    norms = np.linalg.norm(A, axis=1)
    if np.any(norms == 0):
        raise InvalidInput("X", "nonzero tokens (a zero token has no direction)", "a zero token")
    Y = A / norms[:, None]
    d = Y.shape[1]
    if z0 is None or not np.all(np.isfinite(z0)) or np.linalg.norm(z0) == 0:
        z0 = Y.mean(axis=0)
        if np.linalg.norm(z0) < 1e-12:
            z0 = Y[0]
    z0 = np.asarray(z0, dtype=np.float64) / np.linalg.norm(z0)
    from scipy.optimize import minimize

    start = np.append(z0, float(np.min(Y @ z0)))
    cons = ({"type": "ineq", "fun": lambda v: Y @ v[:d] - v[d],
             "jac": lambda v: np.hstack([Y, -np.ones((Y.shape[0], 1))])},
            {"type": "ineq", "fun": lambda v: 1.0 - v[:d] @ v[:d],
             "jac": lambda v: np.append(-2 * v[:d], 0.0)})
    res = minimize(lambda v: -v[d], start, jac=lambda v: np.append(np.zeros(d), -1.0),
                   constraints=cons, method="SLSQP", options={"ftol": 1e-13, "maxiter": 200})
    best = z0
    for cand in (res.x[:d], z0):
        n = np.linalg.norm(cand)
        if n > 0 and np.min(Y @ (cand / n)) > np.min(Y @ best):
            best = cand / n
    return max(0.0, float(np.min(Y @ best))), best


def farkas_lp(X: np.ndarray) -> np.ndarray | None:
    """Float weights ``lambda >= 0`` with ``sum lambda = 1`` and ``sum lambda_i x_i = 0`` (a vertex of
    that polytope, HiGHS dual simplex), or None when the LP finds none."""
    A = _rows(X, "points")
    N, d = A.shape
    from scipy.optimize import linprog

    far = linprog(np.zeros(N), A_eq=np.r_[A.T, np.ones((1, N))], b_eq=np.r_[np.zeros(d), 1.0],
                  bounds=[(0, None)] * N, method="highs-ds")
    return np.asarray(far.x) if far.status == 0 else None


__all__ = ["HemisphereLP", "farkas_lp", "hemisphere_lp", "hemisphere_margin", "margin_at"]
