"""The step loop of :class:`numerics.dop853.DOP853` for one sub-batch (private).

Every instance keeps its own time, step size and rejection flag, so integrating a batch in
several independent sub-batches (one per thread) is the same computation as integrating it
whole: nothing couples the instances except the shared field evaluations.

Layout, chosen to touch memory as little as possible at ``B = 256``, ``N = 32``, ``d = 16``
(each state array is 1 MB, each pass over one costs about as much as a field product):

* the stack ``W = [y, h k_1, ..., h k_12]`` is one ``(13, b N d)`` array; the field writes
  ``h k_s`` straight into its row (``h`` folded into ``1/Z``), and each stage input
  ``y + sum_j a_sj h k_j`` is one matrix-vector product ``[1, a_s] W`` (one pass, not ``s`` axpys);
* the 8th-order solution and both error estimators are one ``(3, 13) x W`` product;
* the scaled error norm and the local-error size reuse two scratch rows; nothing is allocated
  inside the loop when the whole batch is running.

With ``W`` holding ``h k`` the error norm is ``e5 / sqrt((e5 + e3/100) n)`` without SciPy's extra
factor ``h`` (both ``e5`` and ``e3`` carry ``h^2``): the same number, the same step control.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, final

import numpy as np

from . import _dop853_tableau as tab
from .field import BatchedField
from .field_kernel import FieldBuffers
from .trajectory import RunStatus

_S = tab.N_STAGES
# Rows of W: [hk_2, hk_3, hk_4, hk_5, y, hk_1, hk_6, ..., hk_12] (stages numbered from 1).  The
# tableau is sparse (A[s, 1:3] = 0 for s >= 5; B, E5, E3 vanish on k_2..k_5), and in this order
# every combination reads one contiguous block of rows: 9 rows instead of 13 for the final three,
# 67 instead of 77 for the stages.  Stages 2-4 read rows of later stages with coefficient 0;
# those rows are zeroed at each step, so stale values (even inf/NaN) never enter.
_ROW = np.array([5, 0, 1, 2, 3, 6, 7, 8, 9, 10, 11, 12])  # row of h k_j, j = 0..11 (0-based)
_Y = 4
_STALE = slice(1, 4)
_BLOCKS = [slice(4, 6), slice(0, 6), slice(1, 6), slice(1, 6), slice(2, 6)] + [slice(2, s + 1) for s in range(6, _S)]


def _row_coefficients(y: float, k: np.ndarray, block: slice) -> np.ndarray:
    full = np.zeros(_S + 1)
    full[_Y] = y
    full[_ROW[:k.shape[0]]] = k
    return np.ascontiguousarray(full[block])


_STAGE = [None] + [_row_coefficients(1.0, tab.A[s, :s], _BLOCKS[s - 1]) for s in range(1, _S)]
_STAGE_ROWS = [None] + _BLOCKS
_FINAL_ROWS = slice(4, _S + 1)
_FINAL = np.stack([_row_coefficients(1.0, tab.B, _FINAL_ROWS), _row_coefficients(0.0, tab.E5[:_S], _FINAL_ROWS),
                   _row_coefficients(0.0, tab.E3[:_S], _FINAL_ROWS)])
_C = tab.C[:_S]
_PAD = 64
_SAFETY, _MIN_FACTOR, _MAX_FACTOR = 0.9, 0.2, 10.0
_EXPONENT = -1.0 / 8.0


@final
@dataclass(frozen=True)
class Schedule:
    """The stops every instance must land on: sample times and breakpoints, merged."""

    stops: np.ndarray
    slot: np.ndarray
    is_sample: np.ndarray
    is_break: np.ndarray


@final
@dataclass(frozen=True)
class PartResult:
    """What one sub-batch reports back; ``local_error`` is per instance."""

    steps: int
    rejected: int
    evaluations: int
    local_error: np.ndarray
    reached: int
    status: RunStatus


def run_part(field: BatchedField, X: np.ndarray, sched: Schedule, out: np.ndarray, rtol: float, atol: float,
             max_steps: int, first_step: float | None, report: Callable[[float], None] | None) -> PartResult:
    """Advance ``X`` (``(b, N, d)``, on the sphere, at ``t = 0``; updated in place) through
    ``sched.stops``, writing the samples into ``out`` (``(T, b, N, d)``; ``out[0]`` set by the
    caller)."""
    B, N, d = X.shape
    n = N * d
    stops, is_break = sched.stops, sched.is_break
    cap = _padded(B * n)
    Wbuf = np.zeros((_S + 1, cap))
    Rbuf = np.empty((3, cap))
    Ybuf = np.empty(cap)
    Qbuf = np.empty((2, B * n))
    fbuf = np.empty((B, N, d))
    fb = FieldBuffers(B, N, d)
    t = np.zeros(B)
    f = field.evaluate_into(field.matrices(t), X, np.empty((B, N, d)), fb)
    h = _initial_step(field, X, f, float(stops[-1]), rtol, atol, first_step, fb, fbuf)
    nxt = np.ones(B, dtype=int)
    attempts = np.zeros(B, dtype=int)
    local = np.zeros(B)
    step_rejected = np.zeros(B, dtype=bool)
    steps = rejected = 0
    evaluations = 2 * B
    status = RunStatus.SUCCESS
    constant = field.time_invariant
    while True:
        active = np.flatnonzero(nxt < stops.shape[0])
        if active.size == 0:
            break
        if np.any(attempts[active] >= max_steps):
            status = RunStatus.MAX_STEPS
            break
        b, m = active.size, active.size * n
        mp = _padded(m)
        idx = None if b == B else active
        ta = t if idx is None else t[idx]
        target = stops[nxt[active]]
        room = target - ta
        ha = np.minimum(h[active], room)
        lands = h[active] >= room
        if np.any(ha <= 1e-14 * np.maximum(1.0, np.abs(ta))):
            status = RunStatus.STEP_TOO_SMALL
            break
        # A step ending on a breakpoint must see the schedule of the interval it covers.
        limit = np.where(lands & is_break[nxt[active]], np.nextafter(target, -np.inf), np.inf)
        Wp = Wbuf[:, :mp]
        W = Wp[:, :m]
        W[_STALE] = 0.0
        Xa = W[_Y].reshape(b, N, d)
        if idx is None:
            Xa[...] = X
            np.multiply(f, ha[:, None, None], out=W[_ROW[0]].reshape(b, N, d))
        else:
            np.take(X, idx, axis=0, out=Xa)
            np.multiply(f[idx], ha[:, None, None], out=W[_ROW[0]].reshape(b, N, d))
        mats = field.matrices(ta, idx) if constant else None
        Ys = Ybuf[:m].reshape(b, N, d)
        for s in range(1, _S):
            np.matmul(_STAGE[s], Wp[_STAGE_ROWS[s]], out=Ybuf[:mp])
            at = mats if constant else field.matrices(np.minimum(ta + _C[s] * ha, limit), idx)
            field.evaluate_into(at, Ys, W[_ROW[s]].reshape(b, N, d), fb, scale=ha)
        for r in range(3):  # three matrix-vector products beat one (3 x 9) product here
            np.matmul(_FINAL[r], Wp[_FINAL_ROWS], out=Rbuf[r, :mp])
        R = Rbuf[:, :m]
        Xn = R[0].reshape(b, N, d)
        fn = fbuf[:b]
        field.evaluate_into(mats if constant else field.matrices(np.minimum(ta + ha, limit), idx), Xn, fn, fb)
        evaluations += _S * b
        attempts[active] += 1
        norm, size = _error_norm(W[_Y], R, Qbuf[:, :m], b, n, rtol, atol)
        accept = norm < 1.0
        with np.errstate(divide="ignore"):
            factor = np.where(norm == 0, _MAX_FACTOR, _SAFETY * norm ** _EXPONENT)
        factor = np.where(accept, np.minimum(_MAX_FACTOR, factor), np.maximum(_MIN_FACTOR, factor))
        factor = np.where(accept & step_rejected[active], np.minimum(1.0, factor), factor)
        new_h = ha * factor
        new_h = np.where(accept & lands, np.maximum(new_h, np.minimum(h[active], new_h * _MAX_FACTOR)), new_h)
        h[active] = new_h
        step_rejected[active] = ~accept
        acc = active[accept]
        steps += acc.size
        rejected += b - acc.size
        if acc.size:
            local[acc] += size[accept]
            _renormalise(Xn)
            if acc.size == B:
                X[...] = Xn
                f[...] = fn
            else:
                X[acc] = Xn[accept]
                f[acc] = fn[accept]
            t[acc] = np.where(lands[accept], target[accept], ta[accept] + ha[accept])
            hit = acc[lands[accept]]
            if hit.size:
                crossed = hit[is_break[nxt[hit]]]
                if crossed.size:
                    f[crossed] = field(t[crossed], X[crossed], crossed)
                    evaluations += crossed.size
                keep = hit[sched.is_sample[nxt[hit]]]
                out[sched.slot[nxt[keep]], keep] = X[keep]
                nxt[hit] += 1
        if report is not None:
            report(float(np.min(t) / stops[-1]))
    reached = int(np.count_nonzero(sched.is_sample[:int(np.min(nxt))]))
    return PartResult(steps, rejected, evaluations, local, reached, status)


def _padded(m: int) -> int:
    """``m`` rounded up to a multiple of ``_PAD``: BLAS's matrix-vector kernel rounds the entries of
    its remainder loop differently, so every product runs over whole blocks and an instance's
    stages do not depend on where it sits in the batch (split and unsplit runs agree bitwise)."""
    return -(-m // _PAD) * _PAD


def _initial_step(field: BatchedField, X: np.ndarray, f0: np.ndarray, t_end: float, rtol: float, atol: float,
                  first_step: float | None, fb: FieldBuffers, work: np.ndarray) -> np.ndarray:
    """Hairer's starting-step heuristic, per instance (as SciPy's ``select_initial_step``)."""
    if first_step is not None:
        return np.full(X.shape[0], float(first_step))
    n = X.shape[1] * X.shape[2]
    scale = atol + np.abs(X) * rtol
    d0 = np.sqrt(np.sum((X / scale) ** 2, axis=(1, 2)) / n)
    d1 = np.sqrt(np.sum((f0 / scale) ** 2, axis=(1, 2)) / n)
    # the ratio only matters where d1 >= 1e-5 (np.where evaluates both branches: no overflow warning elsewhere)
    h0 = np.where((d0 < 1e-5) | (d1 < 1e-5), 1e-6, 0.01 * d0 / np.maximum(d1, 1e-5))
    X1 = X + h0[:, None, None] * f0
    f1 = field.evaluate_into(field.matrices(h0), X1, work, fb)
    d2 = np.sqrt(np.sum(((f1 - f0) / scale) ** 2, axis=(1, 2)) / n) / h0
    big = np.maximum(d1, d2)
    h1 = np.where(big <= 1e-15, np.maximum(1e-6, h0 * 1e-3), (0.01 / np.maximum(big, 1e-300)) ** (1 / 8))
    return np.minimum(np.minimum(100 * h0, h1), t_end)


def _error_norm(y: np.ndarray, R: np.ndarray, Q: np.ndarray, b: int, n: int, rtol: float, atol: float):
    """SciPy's DOP853 error norm per instance, and the size of the local error estimate
    ``max |e5|^2 / sqrt(|e5|^2 + |e3|^2 / 100)`` (``R`` rows: ``y_new``, ``h e5``, ``h e3``;
    overwritten)."""
    y_new, err5, err3 = R[0], R[1], R[2]
    sc, q = Q[0], Q[1]
    np.multiply(err5, err5, out=sc)
    np.multiply(err3, err3, out=q)
    q *= 0.01
    q += sc
    np.sqrt(q, out=q)
    with np.errstate(invalid="ignore"):
        sc /= q  # 0/0 where both estimates vanish: NaN, ignored by fmax, zeroed below
    size = np.nan_to_num(np.fmax.reduce(sc.reshape(b, n), axis=1))
    np.abs(y, out=sc)
    np.abs(y_new, out=q)
    np.maximum(sc, q, out=sc)
    sc *= rtol
    sc += atol
    err5 /= sc
    err3 /= sc
    r5, r3 = err5.reshape(b, n), err3.reshape(b, n)
    e5 = np.einsum("bi,bi->b", r5, r5)
    e3 = np.einsum("bi,bi->b", r3, r3)
    denom = e5 + 0.01 * e3
    norm = np.where(denom > 0, e5 / np.sqrt(np.where(denom > 0, denom, 1.0) * n), 0.0)
    norm[np.isnan(denom)] = np.inf  # a stage overflowed: the step must be rejected, not taken as exact
    return norm, size


def _renormalise(X: np.ndarray) -> None:
    """``x <- x / |x|`` for every token, in place."""
    X /= np.sqrt(np.einsum("bnd,bnd->bn", X, X))[..., None]
