"""Classical fourth-order Runge–Kutta plus renormalisation. Order 4."""
from __future__ import annotations

from dataclasses import dataclass
from typing import final

import numpy as np

from .field import BatchedField
from .fixed_step import FixedStepIntegrator


@final
@dataclass(frozen=True)
class RK4(FixedStepIntegrator):
    dt: float = 1e-2
    estimate_error: bool = False
    name: str = "rk4"
    order: int = 4
    stages: int = 4

    def __post_init__(self) -> None:
        self._validate()

    def increment(self, field: BatchedField, t: float, X: np.ndarray, h: float) -> np.ndarray:
        b = X.shape[0]
        k1 = field(np.full(b, t), X)
        k2 = field(np.full(b, t + h / 2), X + (h / 2) * k1)
        k3 = field(np.full(b, t + h / 2), X + (h / 2) * k2)
        k4 = field(np.full(b, t + h), X + h * k3)
        return X + (h / 6) * (k1 + 2 * k2 + 2 * k3 + k4)
