"""What a float simulation of one real head's dynamics shows: an observation, never a fate.

The certified map (:mod:`.head_map`) says "unknown" for most heads of a real model because no
certificate route applies to them, not because their tokens do anything unusual.  This module
integrates the same dynamics in floats so that the map can say what happens anyway, labelled as
what it is: a simulation, not a proof.  Nothing here feeds a verdict.

The dynamics are those of :mod:`.head_map` (eq. 5, one head, column convention ``U = O^T V^T``,
scores ``beta <x_i, P x_j>`` with ``P = A B^T``, the model's mask), integrated in the model's own
``D`` coordinates (no reduction, so no rounding of a basis enters) with SciPy's DOP853 at
``rtol 1e-9``, ``atol 1e-12`` to :data:`HORIZON`, from the normalised layer-input tokens.

Outcome at the horizon: tokens closer than :data:`GROUP` (Euclidean) form a group, greedily from
token 1.  ``one cluster`` when there is one group (consensus, moving or not); ``clusters`` when
there are several and the field has settled (every ``|F_i| <`` :data:`SETTLED`); ``moving``
otherwise; ``failed`` when the float run does not reach the horizon with finite values.
``collapse_time`` is the first of 64 sample times at which the diameter is below :data:`GROUP` (None if
never).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, final

import numpy as np

HORIZON = 200.0
GROUP = 1e-3
SETTLED = 1e-6
SAMPLES = 64
MAX_EVALUATIONS = 200_000
"""A run that needs more field evaluations than this is ``failed``, not waited for.  Measured with the default
prompt: MiniLM's heads need at most 2 726 (median 1 052), SmolLM2's at most 117 890 (median 4 346; one stiff head)."""


class _Stop(Exception):
    """A non-finite field value or too many evaluations: the float run is abandoned."""


@final
@dataclass(frozen=True)
class Observation:
    outcome: str
    """``one cluster``, ``clusters``, ``moving`` (module docstring) or ``failed`` (the float run stopped early,
    produced a non-finite value or needed more than :data:`MAX_EVALUATIONS` field evaluations: no observation)."""
    groups: int
    diameter: float
    field: float
    """``max_i |F_i|`` at the horizon."""
    collapse_time: float | None
    horizon: float

    def to_json(self) -> dict[str, Any]:
        """Non-finite numbers (a ``failed`` run) become null: the payload stays strict JSON."""
        return {"outcome": self.outcome, "groups": self.groups, "diameter": _finite(self.diameter),
                "field": _finite(self.field),
                "collapse_time": self.collapse_time, "horizon": self.horizon, "proof": False,
                "method": "float64 DOP853 (SciPy), rtol 1e-9, atol 1e-12, in the model's coordinates"}


def _finite(x: float) -> float | None:
    return float(x) if np.isfinite(x) else None


def head_field(V: np.ndarray, O: np.ndarray, A: np.ndarray, B: np.ndarray, beta: float, causal: bool):
    """``F(X)`` for row-vector tokens ``X`` ``(N, D)``: ``F_i = w_i - x_i <x_i, w_i> / |x_i|^2`` with
    ``w_i = (sum_j a_ij x_j) V O`` and ``a_i = softmax_j(beta (x_i A) . (x_j B))`` over the mask."""
    def F(X: np.ndarray) -> np.ndarray:
        N = X.shape[0]
        S = beta * (X @ A) @ (X @ B).T
        if causal:
            S = np.where(np.tril(np.ones((N, N), dtype=bool)), S, -np.inf)
        S = S - S.max(axis=1, keepdims=True)
        W = np.exp(S)
        W /= W.sum(axis=1, keepdims=True)
        w = ((W @ X) @ V) @ O
        return w - X * (np.sum(X * w, axis=1, keepdims=True) / np.sum(X * X, axis=1, keepdims=True))
    return F


def _groups(X: np.ndarray) -> int:
    label = np.full(len(X), -1)
    count = 0
    for i in range(len(X)):
        if label[i] < 0:
            near = (np.linalg.norm(X - X[i], axis=1) < GROUP) & (label < 0)
            label[near] = count
            count += 1
    return count


def _diameter(X: np.ndarray) -> float:
    return float(max(np.max(np.linalg.norm(X - x, axis=1)) for x in X))


def observe_head(V, O, A, B, tokens, beta: float, causal: bool, horizon: float = HORIZON) -> Observation:
    """Simulate one head from ``tokens`` (``(N, D)``, normalised here) to ``horizon``."""
    from scipy.integrate import solve_ivp

    X0 = np.asarray(tokens, dtype=np.float64)
    N, D = X0.shape
    with np.errstate(all="ignore"):  # scaled first, so that entries near 1e-300 or 1e300 keep a finite norm
        X0 = X0 / np.max(np.abs(X0), axis=1, keepdims=True)
        X0 = X0 / np.linalg.norm(X0, axis=1, keepdims=True)
    failed = Observation("failed", N, float("nan"), float("nan"), None, horizon)
    if not np.all(np.isfinite(X0)):
        return failed
    F = head_field(*(np.asarray(a, dtype=np.float64) for a in (V, O, A, B)), float(beta), causal)
    times = np.linspace(0.0, horizon, SAMPLES + 1)[1:]
    calls = [0]

    def rhs(_, y):
        calls[0] += 1
        v = F(y.reshape(N, D)).ravel()
        if calls[0] > MAX_EVALUATIONS or not np.all(np.isfinite(v)):
            raise _Stop
        return v

    try:
        with np.errstate(all="ignore"):
            sol = solve_ivp(rhs, (0.0, horizon), X0.ravel(), method="DOP853", rtol=1e-9, atol=1e-12, t_eval=times)
    except (_Stop, ArithmeticError, ValueError):  # a non-finite value, too many evaluations, a solver refusal
        sol = None
    if sol is None or not sol.success or sol.y.shape[1] != SAMPLES or not np.all(np.isfinite(sol.y)):
        return failed
    paths = [y.reshape(N, D) / np.linalg.norm(y.reshape(N, D), axis=1, keepdims=True) for y in sol.y.T]
    diameters = [_diameter(X) for X in paths]
    collapse = next((float(t) for t, dm in zip(times, diameters) if dm < GROUP), None)
    X = paths[-1]
    groups = _groups(X)
    field = float(np.max(np.linalg.norm(F(X), axis=1)))
    outcome = "one cluster" if groups == 1 else ("clusters" if field < SETTLED else "moving")
    return Observation(outcome, groups, diameters[-1], field, collapse, horizon)


__all__ = ["GROUP", "HORIZON", "Observation", "SETTLED", "head_field", "observe_head"]
