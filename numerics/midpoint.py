"""Explicit midpoint rule plus renormalisation. Order 2."""
from __future__ import annotations

from dataclasses import dataclass
from typing import final

import numpy as np

from .field import BatchedField
from .fixed_step import FixedStepIntegrator


@final
@dataclass(frozen=True)
class Midpoint(FixedStepIntegrator):
    dt: float = 1e-2
    estimate_error: bool = False
    name: str = "midpoint"
    order: int = 2
    stages: int = 2

    def __post_init__(self) -> None:
        self._validate()

    def increment(self, field: BatchedField, t: float, X: np.ndarray, h: float) -> np.ndarray:
        b = X.shape[0]
        k1 = field(np.full(b, t), X)
        return X + h * field(np.full(b, t + h / 2), X + (h / 2) * k1)
