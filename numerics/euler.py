"""Explicit Euler plus renormalisation, the papers' baseline: ``x_i <- pi(x_i + dt Proj_{x_i} F_i)``.

The discrete model (eq. 4) steps with the unprojected ``F_i``; since
``pi(x + tau F) = pi(x + tau/(1 + tau <x, F>) Proj_x F)`` the two agree to ``O(dt^2)`` per step.
Order 1."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import final

import numpy as np

from .field import BatchedField
from .fixed_step import FixedStepIntegrator


@final
@dataclass(frozen=True)
class EulerRenormalized(FixedStepIntegrator):
    """Explicit Euler on eq. 5 with a fixed step ``dt`` and renormalisation (module docstring). Order 1,
    1 field evaluation per step; ``estimate_error`` as :class:`numerics.rk4.RK4` (with ``2^1``).
    ``name``, ``order`` and ``stages`` describe the method and are not parameters."""

    dt: float = 1e-2
    estimate_error: bool = False
    name: str = field(default="euler-renormalized", init=False)
    order: int = field(default=1, init=False)
    stages: int = field(default=1, init=False)

    def __post_init__(self) -> None:
        self._validate()

    def increment(self, field: BatchedField, t: float, X: np.ndarray, h: float) -> np.ndarray:
        return X + h * field(np.full(X.shape[0], t), X)
