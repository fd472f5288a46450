"""The compiled (numba) DOP853 path for time-invariant batches, and the rule that picks it (private).

:func:`run_part` returns what :func:`numerics._dop853_core.run_part` returns, for a row range of
the whole batch; the arithmetic (the whole step loop of one instance, field included, as one
native loop) is in :mod:`numerics._dop853_numba`, which is imported (with numba) only here, only
when a run takes this path.

Which path ``DOP853(kernel="auto")`` takes (:func:`use_compiled`):

* the pure-numpy loop whenever numba is not installed, a schedule is time-varying (the compiled
  loop only knows constant ``P`` and ``U``), or ``NUMERICS_DOP853_KERNEL=numpy`` is set in the
  environment (a switch for comparing the paths; results differ only by round-off);
* otherwise the compiled loop when the run is long enough to pay for importing numba in a fresh
  process: ``B N^2 d H t_end >= _MIN_AUTO_WORK``.  Only the size decides, never what happens to
  be imported already, so the same run takes the same path (and gives the same bits) in every
  process: serial and Dask-distributed ``verify reproduce`` runs must agree exactly.

``verify theorem`` simulates a dozen tokens on ``S^2`` to ``t = 20``: far below the threshold,
so its cold start never imports numba.

"""
from __future__ import annotations

import importlib.util
import os
import sys
from dataclasses import dataclass
from typing import final

import numpy as np

from ._dop853_core import PartResult, Schedule
from .field import BatchedField
from .trajectory import RunStatus

TILED_MIN_N = 512
"""From this many tokens the compiled loop evaluates eq. 5 in tiles (:func:`use_tiled`).  Measured
per evaluation at ``d = 16``, one thread: equal at ``N = 256`` (0.17 against 0.19 ms), tiled 2x
faster at 512 and 2.6-3.6x at 1024-2048, where the ``N x N`` scores leave the caches."""

ENV = "NUMERICS_DOP853_KERNEL"
KERNELS = ("auto", "compiled", "numpy")

_MIN_AUTO_WORK = 5.0e7
"""``B N^2 d H t_end`` from which ``auto`` imports numba in a fresh process.  Measured on the
2-core test machine while other jobs kept its load at 5-7: the first compiled run of a process
costs 0.6-0.75 s (0.16-0.3 s on a quieter machine: importing numba and loading the cached
kernel); the very first compile, before the cache exists, 17-24 s.  One small system
(``N = 64``, ``d = 3``, ``t_end = 15``, ``W = 1.8e5``, 422 evaluations) takes ~2 ms compiled
against ~15 ms in numpy, ~30 us saved per evaluation, so the load pays for itself after some
2e4 evaluations, about ``W = 1e7`` for dynamics like these; the threshold leaves a margin.  On
``256 x (32, 16)`` (``W = 2.1e7``) the compiled loop was 1.2-1.5x faster than the numpy one; the
fused kernel tried earlier is 2.3-3x faster there (0.10 against 0.22-0.29 s, one worker, load 2-3)
and loads in 0.25-0.35 s, so one such run in a fresh process about breaks even: kept as it was."""

_STATUS = (RunStatus.SUCCESS, RunStatus.MAX_STEPS, RunStatus.STEP_TOO_SMALL)
_SAMPLE_BUDGET = 2 ** 21
"""Float64 entries of the samples buffer of one kernel call (16 MB): the kernel writes samples into
a contiguous buffer (one compiled signature), so long sampled runs are cut into chunks of instances."""


def numba_installed() -> bool:
    return "numba" in sys.modules or importlib.util.find_spec("numba") is not None


def use_compiled(kernel: str, field: BatchedField, t_end: float) -> bool:
    """Whether a run with option ``kernel`` takes the compiled path (``"compiled"`` is refused
    earlier when numba is missing)."""
    if kernel == "numpy" or not field.time_invariant:
        return False
    if kernel == "compiled":
        return True
    if os.environ.get(ENV, "").strip().lower() == "numpy" or not numba_installed():
        return False
    # Size alone decides (never what happens to be imported): the same run must take the same
    # path in every process, or a serial and a distributed run would differ in the last bits.
    B, N, d = field.shape
    return B * N * N * d * field.systems[0].H * t_end >= _MIN_AUTO_WORK


def use_tiled(field: BatchedField) -> bool:
    """Whether the compiled loop evaluates eq. 5 in tiles (:mod:`numerics._field_tiled_numba`, all
    cores for each evaluation, one instance at a time) instead of forming the ``N x N`` scores."""
    return field.shape[1] >= TILED_MIN_N


@final
@dataclass(frozen=True, eq=False)
class KernelInputs:
    """The arrays the compiled loop reads, built once per batch (a cached run reuses them)."""

    P: np.ndarray
    U: np.ndarray
    has_U: bool
    causal: bool
    stabilize: bool
    tiled: bool
    stops: np.ndarray
    is_sample: np.ndarray
    slot: np.ndarray


def kernel_inputs(field: BatchedField, sched: Schedule) -> KernelInputs:
    """``P`` and ``U`` of the time-invariant ``field`` as contiguous float64 (``U`` zeros when it is
    the identity) and the schedule in the kernel's dtypes."""
    P, U, _, stabilize = field.matrices(np.zeros(field.B))
    P = np.ascontiguousarray(P, dtype=np.float64)
    has_U = U is not None
    U = np.ascontiguousarray(U, dtype=np.float64) if has_U else np.zeros((1,) + P.shape[1:])
    return KernelInputs(P, U, has_U, field.causal, bool(stabilize), use_tiled(field),
                        np.ascontiguousarray(sched.stops, dtype=np.float64),
                        np.ascontiguousarray(sched.is_sample, dtype=np.bool_),
                        np.ascontiguousarray(sched.slot, dtype=np.int64))


def workspace(N: int, d: int, tiled: bool) -> tuple[np.ndarray, ...]:
    """The compiled loop's scratch arrays for one part (imports numba)."""
    from . import _dop853_numba as nb

    return nb.workspace(N, d, tiled)


def run_part(inputs: KernelInputs, rows: tuple[int, int], X: np.ndarray, out: np.ndarray, rtol: float, atol: float,
             max_steps: int, first_step: float | None, report, work: tuple[np.ndarray, ...]) -> PartResult:
    """The instances ``rows = (lo, hi)`` of a time-invariant batch; otherwise the contract of
    :func:`numerics._dop853_core.run_part` (``X`` ``(hi - lo, N, d)``, updated in place; ``out``
    ``(T, hi - lo, N, d)``).  ``inputs`` are the whole batch's (a row range, not a sub-batch: no
    per-part matrices to rebuild); ``work`` is :func:`workspace`'s, used by one call at a time.

    ``report`` is called after each chunk of instances with the fraction of instances done
    (every instance runs to the end before the next starts).
    """
    from . import _dop853_numba as nb

    lo, hi = rows
    b, N, d = X.shape
    P = inputs.P if inputs.P.shape[0] == 1 else inputs.P[lo:hi]
    U = inputs.U if inputs.U.shape[0] == 1 else inputs.U[lo:hi]
    T = out.shape[0]
    counts = np.zeros((b, nb.COUNTS), dtype=np.int64)
    local = np.zeros(b)
    chunk = min(b if report is None else -(-b // 20), max(1, _SAMPLE_BUDGET // (T * N * d)))
    for k in range(0, b, chunk):
        m = min(b, k + chunk)
        Pk = P if P.shape[0] == 1 else P[k:m]
        Uk = U if U.shape[0] == 1 else U[k:m]
        Xk = np.ascontiguousarray(X[k:m])
        samples = np.empty((T, m - k, N, d))  # contiguous, so one compiled signature serves every call
        nb.integrate_batch(Xk, Pk, Uk, inputs.has_U, inputs.causal, inputs.stabilize, inputs.tiled, inputs.stops,
                           inputs.is_sample, inputs.slot, float(rtol), float(atol), int(max_steps),
                           float(first_step or 0.0), samples, counts[k:m], local[k:m], *work)
        X[k:m] = Xk
        out[1:, k:m] = samples[1:]
        if report is not None:
            report(m / b)
    codes = counts[:, 3]
    # one status per part: out of steps if any instance is, else step below round-off if any
    status = next((_STATUS[c] for c in (1, 2) if np.any(codes == c)), RunStatus.SUCCESS)
    reached = int(np.count_nonzero(inputs.is_sample[:int(counts[:, 4].min())]))
    return PartResult(int(counts[:, 0].sum()), int(counts[:, 1].sum()), int(counts[:, 2].sum()), local, reached, status)
