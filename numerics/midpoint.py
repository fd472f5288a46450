"""Explicit midpoint rule plus renormalisation. Order 2."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import final

import numpy as np

from .field import BatchedField
from .fixed_step import FixedStepIntegrator


@final
@dataclass(frozen=True)
class Midpoint(FixedStepIntegrator):
    """Explicit midpoint rule on eq. 5 with a fixed step ``dt`` and renormalisation. Order 2, 2 field
    evaluations per step; ``estimate_error`` as :class:`numerics.rk4.RK4` (with ``2^2``).
    ``name``, ``order`` and ``stages`` describe the method and are not parameters."""

    dt: float = 1e-2
    estimate_error: bool = False
    name: str = field(default="midpoint", init=False)
    order: int = field(default=2, init=False)
    stages: int = field(default=2, init=False)

    def __post_init__(self) -> None:
        self._validate()

    def increment(self, field: BatchedField, t: float, X: np.ndarray, h: float) -> np.ndarray:
        b = X.shape[0]
        k1 = field(np.full(b, t), X)
        return X + h * field(np.full(b, t + h / 2), X + (h / 2) * k1)
