"""Classical fourth-order Runge–Kutta plus renormalisation. Order 4."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import final

import numpy as np

from .field import BatchedField
from .fixed_step import FixedStepIntegrator


@final
@dataclass(frozen=True)
class RK4(FixedStepIntegrator):
    """Classical fourth-order Runge–Kutta on eq. 5 with a fixed step ``dt``, each step renormalised
    onto the sphere (``pi(y) = y/|y|``). Order 4, 4 field evaluations per step; ``estimate_error``
    repeats the run at ``dt/2`` and reports the Richardson estimate ``|x_{dt/2} - x_dt| 2^4/(2^4 - 1)``.
    Not guaranteed: a bound (the estimate is asymptotic in ``dt``). ``name``, ``order`` and
    ``stages`` describe the method and are not parameters."""

    dt: float = 1e-2
    estimate_error: bool = False
    name: str = field(default="rk4", init=False)
    order: int = field(default=4, init=False)
    stages: int = field(default=4, init=False)

    def __post_init__(self) -> None:
        self._validate()

    def increment(self, field: BatchedField, t: float, X: np.ndarray, h: float) -> np.ndarray:
        b = X.shape[0]
        k1 = field(np.full(b, t), X)
        k2 = field(np.full(b, t + h / 2), X + (h / 2) * k1)
        k3 = field(np.full(b, t + h / 2), X + (h / 2) * k2)
        k4 = field(np.full(b, t + h), X + h * k3)
        return X + (h / 6) * (k1 + 2 * k2 + 2 * k3 + k4)
