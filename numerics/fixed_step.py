"""Fixed-step one-step methods with renormalisation onto the sphere after every step.

Between consecutive sample times ``t_k < t_{k+1}`` the driver takes
``n = ceil((t_{k+1} - t_k) / dt)`` equal steps, so samples are hit exactly and the global
error behaves like ``C dt^order``.  The renormalisation ``pi(y) = y/|y|`` does not lower the
order: the exact flow stays on the sphere, so projecting a consistent step moves it by no more
than its own local error.  The error estimate is a step-doubling (Richardson) comparison at
``t_end`` only when ``estimate_error=True``; otherwise it is ``nan`` with kind ``"none"``.
"""
from __future__ import annotations

import abc
import math
import time
from typing import Sequence

import numpy as np

from theorems.errors import InvalidInput
from theorems.system import AttentionSystem

from .field import BatchedField, project_to_sphere
from .trajectory import Integrator, Precision, Progress, RunStatus, Stats, Trajectory, as_systems, sample_times


class FixedStepIntegrator(Integrator):
    """Abstract: concrete methods define ``order``, ``stages`` and :meth:`increment`."""

    order: int
    stages: int
    dt: float
    estimate_error: bool

    def _validate(self) -> None:
        if not (isinstance(self.dt, (int, float)) and math.isfinite(self.dt) and self.dt > 0):
            raise InvalidInput("dt", "a positive finite step", self.dt)

    @abc.abstractmethod
    def increment(self, field: BatchedField, t: float, X: np.ndarray, h: float) -> np.ndarray:
        """One step from ``(t, X)`` of length ``h``, before renormalisation."""

    def _run(self, field: BatchedField, grid: np.ndarray, dt: float, progress: Progress | None):
        X = project_to_sphere(field.initial_state())
        out = np.empty((grid.shape[0],) + X.shape)
        out[0] = X
        steps = 0
        for k in range(grid.shape[0] - 1):
            n = max(1, math.ceil((grid[k + 1] - grid[k]) / dt - 1e-12))
            h = (grid[k + 1] - grid[k]) / n
            for m in range(n):
                X = project_to_sphere(self.increment(field, grid[k] + m * h, X, h))
            steps += n
            out[k + 1] = X
            if progress is not None:
                progress(float(grid[k + 1] / grid[-1]))
        return out, steps

    def integrate(self, systems: AttentionSystem | Sequence[AttentionSystem], t_end: float, *,
                  samples: int | None = 101, t_eval: Sequence[float] | None = None,
                  progress: Progress | None = None) -> Trajectory:
        start = time.perf_counter()
        field = BatchedField.of(as_systems(systems))
        grid = sample_times(t_end, samples, t_eval)
        out, steps = self._run(field, grid, self.dt, progress)
        error, kind = float("nan"), "none"
        if self.estimate_error:
            half, _ = self._run(field, grid[[0, -1]], self.dt / 2, None)
            error = float(np.max(np.abs(half[-1] - out[-1]))) * 2 ** self.order / (2 ** self.order - 1)
            kind = "Richardson estimate at t_end from a run with dt/2"
        B = field.B
        return Trajectory(self.name, grid, out, Stats(steps * B, 0, steps * self.stages * B, time.perf_counter() - start),
                          Precision("float64", 53, None, "numpy"), error, kind, RunStatus.SUCCESS)
