"""What a :class:`numerics.dop853.DOP853` run sets up once, and the small cache that reuses it (private).

A :class:`Plan` holds everything about a run that depends only on the systems and the output grid:
the batched field (its stacked matrices), the sample grid and stops, the split into parts, the
projected initial states, the compiled loop's inputs and one workspace per part.  Building one
costs 0.1-0.5 ms of Python (measured at ``N = 8``, about as long as integrating such a system);
running one allocates only the result arrays.

:class:`PlanCache` keeps the last few plans of one integrator, keyed by the *identity* of the
systems (``AttentionSystem`` is frozen and its token array read-only, so the same object always
means the same instance) and the grid arguments.  A plan is taken out while it runs and put back
afterwards, so two threads never share a workspace (the second builds its own).  A cached run is
the same computation on the same inputs as a fresh one: bit-identical results (tested).
"""
from __future__ import annotations

import os
import threading
from collections import OrderedDict
from typing import Sequence, final

import numpy as np

from theorems.system import AttentionSystem

from . import _dop853_compiled as compiled
from ._dop853_core import Schedule
from .field import BatchedField, project_to_sphere
from .trajectory import sample_times

_MIN_AUTO_SHARE = 32
_MIN_AUTO_WORK = 2 ** 20
"""``workers=None`` splits a batch only when every worker gets at least ``_MIN_AUTO_SHARE``
instances, the batch is time-invariant and ``B N^2 d`` (the multiply-adds of one score product)
reaches ``_MIN_AUTO_WORK``: below that, or when a time-varying schedule is evaluated in Python at
every stage, the threads mostly wait for the GIL (measured: 64 instances of N = 16, d = 3 ran
slower with two workers).  A tiled batch runs one instance at a time on all cores: one part."""

CACHE_SIZE = 8
"""Plans kept per integrator (least recently used dropped first)."""


def _cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


@final
class Plan:
    """The set-up of one run (mutable by design: it owns workspaces; one run at a time)."""

    def __init__(self, systems: tuple[AttentionSystem, ...], key: tuple, t_end: float, samples: int | None,
                 t_eval: Sequence[float] | None, kernel: str, workers: int | None) -> None:
        self.systems, self.key = systems, key
        self.field = field = BatchedField(systems)
        self.grid = grid = sample_times(t_end, samples, t_eval)
        breaks = field.breakpoints(float(grid[-1]))
        stops = np.union1d(grid, breaks) if breaks.size else grid
        slot = np.searchsorted(grid, stops)
        self.sched = Schedule(stops, slot, grid[np.minimum(slot, grid.shape[0] - 1)] == stops, np.isin(stops, breaks))
        self.fast = compiled.use_compiled(kernel, field, float(grid[-1]))
        self.inputs = compiled.kernel_inputs(field, self.sched) if self.fast else None
        B, N, d = field.shape
        count = 1 if self.fast and self.inputs.tiled else _workers(field, workers)
        bounds = np.linspace(0, B, count + 1).round().astype(int)
        self.parts = [(int(lo), int(hi)) for lo, hi in zip(bounds[:-1], bounds[1:])]
        self.X0 = project_to_sphere(field.initial_state()) if self.fast else None
        self._work: list = [None] * count

    def workspace(self, k: int) -> tuple[np.ndarray, ...]:
        """Part ``k``'s compiled-loop workspace, allocated on first use."""
        if self._work[k] is None:
            _, N, d = self.field.shape
            self._work[k] = compiled.workspace(N, d, self.inputs.tiled)
        return self._work[k]


def _workers(field: BatchedField, workers: int | None) -> int:
    B, N, d = field.shape
    if workers is not None:
        return min(workers, B)
    if not field.time_invariant or B * N * N * d < _MIN_AUTO_WORK:
        return 1
    return max(1, min(2, _cores(), B // _MIN_AUTO_SHARE))


@final
class PlanCache:
    """The last :data:`CACHE_SIZE` plans of one integrator (thread-safe; pickles as empty)."""

    def __init__(self) -> None:
        self._plans: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def __reduce__(self):
        return (PlanCache, ())

    def __len__(self) -> int:
        return len(self._plans)

    def take(self, systems: tuple[AttentionSystem, ...], t_end: float, samples: int | None,
             t_eval: Sequence[float] | None, kernel: str, workers: int | None) -> Plan:
        """A cached plan for these arguments (removed from the cache until :meth:`give`), or a new one."""
        grid_key = None if t_eval is None else tuple(float(t) for t in t_eval)
        key = (tuple(map(id, systems)), t_end, samples, grid_key, os.environ.get(compiled.ENV, ""))
        with self._lock:
            plan = self._plans.pop(key, None)
        if plan is not None and all(a is b for a, b in zip(plan.systems, systems)):
            return plan
        return Plan(systems, key, t_end, samples, t_eval, kernel, workers)

    def give(self, plan: Plan) -> None:
        with self._lock:
            self._plans[plan.key] = plan
            self._plans.move_to_end(plan.key)
            while len(self._plans) > CACHE_SIZE:
                self._plans.popitem(last=False)
