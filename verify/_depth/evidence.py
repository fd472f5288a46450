"""Simulated depth to reach ``eps``: the evidence printed as ``observed`` beside a certified bound.

Evidence only, never a proof: float64 (DOP853 for eq. 5, a plain loop for eq. 4), no error bound.
``observed`` is the first sample (time or layer) from which the metric stays ``<= eps`` up to the
end of the simulation; the certified bound itself is always one of the samples, so a sound bound
gives ``observed <= bound`` whenever the bound lies inside the simulated horizon.
"""
from __future__ import annotations

import time
from typing import Any

import numpy as np

from theorems.system import AttentionSystem

MAX_SIM_T = 5000.0
MAX_SIM_LAYERS = 20_000
SAMPLES = 500


def metric(X: np.ndarray, mask: str) -> np.ndarray:
    """``max_ij (1 - <x_i, x_j>)`` (full) or ``max_i (1 - <x_1, x_i>)`` (causal) over ``X[..., N, d]``."""
    X = X / np.linalg.norm(X, axis=-1, keepdims=True)
    if mask == "causal":
        return np.max(1.0 - np.einsum("...d,...nd->...n", X[..., 0, :], X), axis=-1)
    G = np.einsum("...id,...jd->...ij", X, X)
    return np.max(1.0 - G, axis=(-2, -1))


def _first_settled(values: np.ndarray, eps: float) -> int | None:
    above = np.flatnonzero(values > eps)
    if above.size == 0:
        return 0
    k = int(above[-1]) + 1
    return k if k < values.shape[0] else None


def ode_observed(system: AttentionSystem, eps: float, bound: float) -> dict[str, Any]:
    """Integrate eq. 5 to ``min(1.05 bound, MAX_SIM_T)`` (at least 1) and locate the settling time."""
    from numerics import DOP853

    start = time.perf_counter()
    t_end = float(min(max(1.05 * bound, 1.0), MAX_SIM_T))
    grid = np.linspace(0.0, t_end, SAMPLES)
    if 0 < bound < t_end:
        grid = np.union1d(grid, [bound])
    traj = DOP853(rtol=1e-11, atol=1e-13).integrate(system, t_end, t_eval=grid[grid > 0])
    values = metric(traj.states[:, 0], system.mask)
    k = _first_settled(values, eps) if traj.ok else None
    return {"observed": None if k is None else float(traj.times[k]), "horizon": float(traj.times[-1]),
            "method": "dop853 float64 (rtol 1e-11)", "status": traj.status.value,
            "final_metric": float(values[-1]), "wall_s": round(time.perf_counter() - start, 4),
            "times": traj.times, "values": values}


def layer_step(X: np.ndarray, P: np.ndarray, beta: float, tau: float, causal: bool) -> np.ndarray:
    """Eq. 4 with ``U^h = I`` in float64: ``x_i <- pi(x_i + tau sum_h sum_j a^h_ij x_j)``."""
    N = X.shape[0]
    A = np.zeros((N, N))
    for Ph in P:
        S = beta * (X @ Ph @ X.T)
        if causal:
            S = np.where(np.tril(np.ones((N, N), bool)), S, -np.inf)
        S = S - S.max(axis=1, keepdims=True)
        E = np.exp(S)
        A += E / E.sum(axis=1, keepdims=True)
    V = X + tau * (A @ X)
    return V / np.linalg.norm(V, axis=1, keepdims=True)


def layers_observed(system: AttentionSystem, eps: float, tau: float, bound: int) -> dict[str, Any]:
    """Run eq. 4 for ``max(bound + 10, 1.05 bound)`` layers (capped) and locate the settling layer.
    Layer ``k`` uses ``P^h(k tau)``."""
    start = time.perf_counter()
    layers = int(min(max(bound + 10, int(1.05 * bound) + 1), MAX_SIM_LAYERS))
    X = system.tokens / np.linalg.norm(system.tokens, axis=1, keepdims=True)
    causal = system.mask == "causal"
    beta = system.beta_float
    const = system.time_invariant
    P0 = system.P_at(0.0) if const else None
    values = np.empty(layers + 1)
    values[0] = metric(X, system.mask)
    for k in range(layers):
        X = layer_step(X, P0 if const else system.P_at(k * tau), beta, tau, causal)
        values[k + 1] = metric(X, system.mask)
    k = _first_settled(values, eps)
    return {"observed": k, "horizon": layers, "method": "eq. 4 in float64", "status": "success",
            "final_metric": float(values[-1]), "wall_s": round(time.perf_counter() - start, 4),
            "times": np.arange(layers + 1, dtype=float), "values": values}
