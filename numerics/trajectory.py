"""The record every integrator returns, and the small abstract interface they share.

An integrator is configured at construction (tolerances, step, digits) and does its work only
in :meth:`Integrator.integrate`, which returns a frozen :class:`Trajectory`: the sample times, the
states at those times for every instance of the batch, statistics, the arithmetic used and an
error estimate.  A run that cannot finish is still a result: ``status`` says why and what to try,
and the trajectory holds the samples reached so far.
"""
from __future__ import annotations

import abc
import enum
from dataclasses import dataclass
from typing import Any, Sequence, final

import numpy as np

from theorems.errors import InvalidInput
from theorems.system import AttentionSystem

from .support.progress import Progress  # noqa: E402  (the one progress signature: fraction of [0, t_end] done)


class RunStatus(enum.Enum):
    """How an integration ended: every requested time reached, the step budget spent, or the
    adaptive step shrank below what float64 resolves (each member's ``message`` says what to try)."""
    SUCCESS = "success"
    MAX_STEPS = "max_steps"
    STEP_TOO_SMALL = "step_too_small"

    @property
    def message(self) -> str:
        return {
            RunStatus.SUCCESS: "integration reached t_end",
            RunStatus.MAX_STEPS: "stopped at max_steps before t_end; raise max_steps or loosen the tolerance",
            RunStatus.STEP_TOO_SMALL: "the step size fell below round-off; the solution may blow up or the tolerance is below what the arithmetic allows",
        }[self]


@final
@dataclass(frozen=True)
class Stats:
    """Work done. Counts are summed over the instances of a batch; ``workers`` is the number of
    threads that shared the batch."""

    steps: int
    rejected: int
    evaluations: int
    wall_time: float
    workers: int = 1

    def to_json(self) -> dict[str, Any]:
        return {"steps": self.steps, "rejected": self.rejected, "evaluations": self.evaluations,
                "wall_time_s": round(self.wall_time, 6), "workers": self.workers}


@final
@dataclass(frozen=True)
class Precision:
    """The arithmetic of a run: ``kind`` is ``"float64"``, ``"float32"`` or ``"fixed-point"``
    (arbitrary precision on Python integers); ``bits`` the working precision; ``digits`` the
    decimal digits requested (``None`` for IEEE runs); ``backend`` the library."""

    kind: str
    bits: int
    digits: int | None
    backend: str

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "bits": self.bits, "digits": self.digits, "backend": self.backend}


@final
@dataclass(frozen=True, eq=False)
class Trajectory:
    """Samples of a batch of solutions of eq. 5.

    ``times``: ``(T,)``; ``states``: ``(T, B, N, d)`` float64 (high-precision runs round their
    states for this array and keep the full values in ``states_mp``, a tuple over times of
    ``(B, N, d)`` object arrays of ``mpmath.mpf``).  ``error_estimate`` estimates the largest
    absolute error of any coordinate at the sample times; ``error_kind`` says how it was
    obtained (it is an estimate, not a bound).
    """

    method: str
    times: np.ndarray
    states: np.ndarray
    stats: Stats
    precision: Precision
    error_estimate: float
    error_kind: str
    status: RunStatus = RunStatus.SUCCESS
    states_mp: tuple | None = None

    @property
    def final(self) -> np.ndarray:
        """States at the last sample, ``(B, N, d)``."""
        return self.states[-1]

    @property
    def ok(self) -> bool:
        return self.status is RunStatus.SUCCESS

    def to_json(self) -> dict[str, Any]:
        return {"method": self.method, "status": self.status.value, "message": self.status.message,
                "t_end": float(self.times[-1]), "samples": int(self.times.shape[0]),
                "stats": self.stats.to_json(), "precision": self.precision.to_json(),
                "error_estimate": float(self.error_estimate) if np.isfinite(self.error_estimate) else None,
                "error_kind": self.error_kind}


def as_systems(systems: AttentionSystem | Sequence[AttentionSystem]) -> tuple[AttentionSystem, ...]:
    if isinstance(systems, AttentionSystem):
        return (systems,)
    out = tuple(systems)
    if not out:
        raise InvalidInput("systems", "one AttentionSystem or a non-empty sequence of them", [])
    return out


def sample_times(t_end: float, samples: int | None, t_eval: Sequence[float] | None) -> np.ndarray:
    """The output grid: ``t_eval`` when given (increasing, in ``(0, t_end]``), else ``samples``
    equally spaced times from 0 to ``t_end``. Always contains 0 and ``t_end``."""
    if not (isinstance(t_end, (int, float)) and np.isfinite(t_end) and t_end > 0):
        raise InvalidInput("t_end", "a positive finite number", t_end)
    if t_eval is not None:
        grid = np.asarray(t_eval, dtype=float)
        if grid.ndim != 1 or np.any(np.diff(grid) <= 0) or grid[0] < 0 or grid[-1] > t_end:
            raise InvalidInput("t_eval", f"increasing times in [0, {t_end}]", list(grid[:5]))
        return np.unique(np.concatenate([[0.0], grid, [float(t_end)]]))
    if samples is None or isinstance(samples, bool) or not isinstance(samples, int) or samples < 2:
        raise InvalidInput("samples", "an integer >= 2", samples)
    return np.linspace(0.0, float(t_end), samples)


class Integrator(abc.ABC):
    """One small interface: configure at construction, integrate from ``t = 0`` on request."""

    name: str

    @abc.abstractmethod
    def integrate(self, systems: AttentionSystem | Sequence[AttentionSystem], t_end: float, *,
                  samples: int | None = 101, t_eval: Sequence[float] | None = None,
                  progress: Progress | None = None) -> Trajectory:
        """Integrate every system from its tokens at ``t = 0`` to ``t_end``."""
