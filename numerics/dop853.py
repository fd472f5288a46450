"""Dormand–Prince 8(5,3) in float64, vectorised over a batch, with per-instance step control.

The tableau and the error norm are those of Hairer's DOP853 (as in SciPy's ``DOP853``), so at
equal ``rtol``/``atol`` the local error control matches SciPy's.  Differences, all deliberate:

* every instance of the batch has its own time and step size; one field evaluation serves all
  instances still running, so a batch costs one vectorised call per stage;
* after each accepted step every token is renormalised, ``x <- x/|x|`` (the exact flow stays on
  the sphere, so this only removes drift);
* steps are shortened to land exactly on the sample times (no dense output);
* ``max_steps`` limits the attempted steps of each instance (not the batch total).

``workers`` splits the batch into that many contiguous sub-batches integrated concurrently in
threads (numpy and BLAS release the GIL inside the array operations).  No instance's steps depend
on another's and every stage combination runs over whole BLAS blocks, so the result is bitwise
the unsplit run's (in our tests; a sub-batch whose instances all share one ``P`` uses one flat
product instead of per-instance ones, which may round differently).  ``None`` picks
``min(2, usable cores)`` for large time-invariant batches (see
:data:`numerics._dop853_plan._MIN_AUTO_WORK`), else one.  During a numpy-loop or multi-worker run
BLAS is limited to one thread (with threadpoolctl; see :func:`numerics.support.blas.single_threaded_blas`).
With several workers, ``progress`` is called from the worker threads (one at a time) with the
least advanced sub-batch's fraction.  The step loop itself is in :mod:`numerics._dop853_core`.

``kernel`` picks the step loop: ``"numpy"`` (the pure-numpy reference in
:mod:`numerics._dop853_core`), ``"compiled"`` (numba, :mod:`numerics._dop853_numba`: the whole
integration of each instance, field included, is one native loop; time-invariant batches only, a
time-varying batch still takes the numpy loop) or ``"auto"`` (the rule in
:mod:`numerics._dop853_compiled`: compiled only when the run is long enough to pay for loading
numba, judged by its size alone).  The two loops take the same steps and agree to round-off (tested
to ``1e-12``); ``precision.backend`` records which ran.

Set-up is kept out of repeated calls: an integrator caches the plan of its last few runs (the
batched field, the grid, the compiled loop's inputs and workspaces; :mod:`numerics._dop853_plan`),
keyed by the identity of the systems and the grid arguments, so calling ``integrate`` again on the
same systems costs the integration and the result arrays only.  Cached and fresh runs give the
same bits.  When the compiled loop runs, systems of :data:`numerics._dop853_compiled.TILED_MIN_N`
tokens or more are integrated one at a time with a tiled field on all cores
(:mod:`numerics._field_tiled_numba`: no ``N x N`` matrix), instead of splitting the batch.

``error_estimate`` is the largest over instances of the sum over that instance's accepted steps of
its local error estimate (the 8th-order/5th-order difference); it estimates the accumulated
error, it is not a bound.
"""
from __future__ import annotations

import math
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field as dataclass_field
from typing import Sequence, final

import numpy as np

from theorems.errors import InvalidInput, MissingDependency
from theorems.system import AttentionSystem

from . import _dop853_compiled as compiled
from ._dop853_core import PartResult, run_part
from ._dop853_plan import Plan, PlanCache
from .field import BatchedField, project_to_sphere
from .support.blas import single_threaded_blas
from .support.progress import Reporter
from .trajectory import Integrator, Precision, Progress, RunStatus, Stats, Trajectory, as_systems


@final
@dataclass(frozen=True)
class DOP853(Integrator):
    """Dormand–Prince 8(5,3) with adaptive steps on eq. 5 (Hairer, Norsett, Wanner, Solving ODEs I,
    II.5), batched over initial conditions; each accepted step is renormalised onto the sphere.
    ``rtol``/``atol`` control the local error estimate; ``workers`` splits a batch over threads;
    ``kernel`` picks the compiled (numba) or numpy step loop ("auto": by run size only, identical
    bits in every process). Not guaranteed: a bound on the global error (the trajectory reports the
    local estimates; see :class:`~numerics.taylor.TaylorMP` for a high-precision reference)."""
    rtol: float = 1e-10
    atol: float = 1e-12
    max_steps: int = 1_000_000
    first_step: float | None = None
    workers: int | None = None
    kernel: str = "auto"
    name: str = "dop853"
    _plans: PlanCache = dataclass_field(default_factory=PlanCache, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for label, v in (("rtol", self.rtol), ("atol", self.atol)):
            if not (isinstance(v, (int, float)) and math.isfinite(v) and v > 0):
                raise InvalidInput(label, "a positive finite tolerance", v)
        if self.rtol < 1e-15:
            raise InvalidInput("rtol", "at least 1e-15 (float64 cannot do better; use TaylorMP for more digits)", self.rtol)
        if isinstance(self.max_steps, bool) or not isinstance(self.max_steps, int) or self.max_steps < 1:
            raise InvalidInput("max_steps", "a positive integer", self.max_steps)
        if self.first_step is not None and not (math.isfinite(self.first_step) and self.first_step > 0):
            raise InvalidInput("first_step", "a positive finite number or None", self.first_step)
        if self.workers is not None and (isinstance(self.workers, bool) or not isinstance(self.workers, int)
                                         or self.workers < 1):
            raise InvalidInput("workers", "a positive integer or None (automatic)", self.workers)
        if self.kernel not in compiled.KERNELS:
            raise InvalidInput("kernel", "one of " + ", ".join(map(repr, compiled.KERNELS)), self.kernel)

    def integrate(self, systems: AttentionSystem | Sequence[AttentionSystem], t_end: float, *,
                  samples: int | None = 101, t_eval: Sequence[float] | None = None,
                  progress: Progress | None = None) -> Trajectory:
        start = time.perf_counter()
        if self.kernel == "compiled" and not compiled.numba_installed():
            raise MissingDependency("numba", "pip install numba  (or use DOP853(kernel='numpy'))")
        plan = self._plans.take(as_systems(systems), t_end, samples, t_eval, self.kernel, self.workers)
        try:
            results, out = self._run(plan, progress)
        finally:
            self._plans.give(plan)
        grid = plan.grid
        status = next((r.status for r in results if r.status is not RunStatus.SUCCESS), RunStatus.SUCCESS)
        reached = min(r.reached for r in results)
        local_error = float(max(np.max(r.local_error) for r in results))
        stats = Stats(sum(r.steps for r in results), sum(r.rejected for r in results),
                      sum(r.evaluations for r in results), time.perf_counter() - start, len(plan.parts))
        return Trajectory(self.name, grid[:reached], out[:reached], stats,
                          Precision("float64", 53, None, "numba" if plan.fast else "numpy"), local_error,
                          "largest over instances of the sum of DOP853 local error estimates (not a bound)", status)

    def _run(self, plan: Plan, progress: Progress | None) -> tuple[list[PartResult], np.ndarray]:
        B, N, d = plan.field.shape
        out = np.empty((plan.grid.shape[0], B, N, d))
        parts = plan.parts
        reporter = Reporter(progress, len(parts))
        if plan.fast:  # the parts share the whole batch's inputs: no per-part field to rebuild
            out[0] = plan.X0

        def run(k: int) -> PartResult:
            lo, hi = parts[k]
            hook = None if progress is None else (lambda frac: reporter(k, frac))
            if plan.fast:
                return compiled.run_part(plan.inputs, (lo, hi), plan.X0[lo:hi].copy(), out[:, lo:hi], self.rtol,
                                         self.atol, self.max_steps, self.first_step, hook, plan.workspace(k))
            field = plan.field if (lo, hi) == (0, B) else BatchedField(plan.field.systems[lo:hi])
            X = project_to_sphere(field.initial_state())
            out[0, lo:hi] = X
            return run_part(field, X, plan.sched, out[:, lo:hi], self.rtol, self.atol, self.max_steps,
                            self.first_step, hook)

        if len(parts) == 1 and plan.fast:  # no BLAS in the compiled loop: nothing to limit
            results = [run(0)]
        else:
            with single_threaded_blas():
                if len(parts) == 1:
                    results = [run(0)]
                else:
                    with ThreadPoolExecutor(len(parts), thread_name_prefix="dop853") as pool:
                        results = list(pool.map(run, range(len(parts))))
        if progress is not None and all(r.status is RunStatus.SUCCESS for r in results):
            reporter.finish()
        return results, out
