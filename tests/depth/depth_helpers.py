"""Random instances for the depth soundness test (ODE and layer map, full and causal).

Truth is established independently of the bound: a float64 simulation of eq. 5 (DOP853) or eq. 4.
Families mix tight cases (``P = 0``: uniform weights, clustered tokens, ``N = 2`` for causal) where
the certified bound is within a small factor of the simulation, and loose ones (``p`` up to ~1).
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from theorems import simple_system

BETAS = ("1/2", "1", "2")
TAUS = (Fraction(1, 4), Fraction(1, 2), Fraction(1), Fraction(2))


def _rational_matrix(rng, d: int, scale: Fraction) -> list[list[str]]:
    return [[str(scale * Fraction(int(rng.integers(-8, 9)), 8)) for _ in range(d)] for _ in range(d)]


def random_case(rng: np.random.Generator, mask: str, model: str):
    """``(system, tau)`` with every token in the open hemisphere of its mean (full) or of ``x_1`` (causal)."""
    N = int(rng.choice([2, 2, 3, 5, 8] if mask == "causal" else [2, 3, 5, 8]))
    d = int(rng.choice([2, 3, 4]))
    H = int(rng.choice([1, 2]))
    scale = Fraction(rng.choice(["0", "0", "1/10", "1/2"]))
    spread = float(rng.choice([0.05, 0.2, 0.6]))
    u = rng.normal(size=d)
    u /= np.linalg.norm(u)
    while True:
        X = u + spread * rng.normal(size=(N, d))
        X /= np.linalg.norm(X, axis=1, keepdims=True)
        anchor = X[0] if mask == "causal" else X.mean(axis=0)
        if np.min(X @ anchor) > 0.05:
            break
    P = [_rational_matrix(rng, d, scale) for _ in range(H)]
    beta = str(rng.choice(BETAS))
    tau = TAUS[int(rng.integers(len(TAUS)))] if model == "layers" else None
    system = simple_system(P, "identity", X.tolist(), beta=beta, mask=mask, name=f"random-{mask}-{model}")
    return system, tau


def random_spread_case(rng: np.random.Generator):
    """Full attention, constant rational ``P``, ``N`` rational unit tokens drawn on the whole sphere
    (Pythagorean-style points ``(1 - s^2, 2 s)/(1 + s^2)`` lifted to ``d = 3``): often in no hemisphere."""
    N = int(rng.choice([3, 4, 5, 6]))
    tokens = []
    for _ in range(N):
        s, u = Fraction(int(rng.integers(-9, 10)), int(rng.integers(1, 6))), Fraction(int(rng.integers(-9, 10)), int(rng.integers(1, 6)))
        n = 1 + s * s + u * u  # stereographic inverse: a rational point of S^2
        tokens.append([str(2 * s / n), str(2 * u / n), str((1 - s * s - u * u) / n)])
    P = [[str(Fraction(int(rng.integers(-4, 5)), 4)) for _ in range(3)] for _ in range(3)]
    beta = str(rng.choice(BETAS))
    return simple_system([P], "identity", tokens, beta=beta, mask="full", name="random-spread"), TAUS[int(rng.integers(len(TAUS)))]
