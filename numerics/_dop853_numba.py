"""The DOP853 step loop compiled with numba: the whole integration of one instance, field included,
is one native loop, for time-invariant batches (private; :mod:`numerics._dop853_compiled` is the
entry point).  The field is :mod:`numerics._field_numba` (the whole ``N x N`` scores) or, for large
``N``, :mod:`numerics._field_tiled_numba` (streamed key tiles, query blocks on all cores); the
arithmetic between evaluations (stage combinations, error norm, renormalisation) is
:mod:`numerics._dop853_step_numba`.

Same method as :mod:`numerics._dop853_core` (the pure-numpy reference): the same tableau, both
error estimators (5th and 3rd order) and SciPy's error norm, the step-size rule, landing on the
stops and renormalisation after each accepted step, and the next step's first stage is the field
at the *unrenormalised* new state, as there.  What differs is the order of the floating-point
operations and the exponential (a polynomial within 1 ulp of libm's), so the two paths agree to
round-off, not bitwise.

Why one native loop per instance, how the loops are written (aligned workspace, explicit vectors,
fixed-order reductions, borrowed arrays, ``error_model="numpy"``), the floating-point flags and the
disk cache: docs/dop853-kernel.md.  Numba keys a cached function on its own file only, while the
entry points here compile the kernels of six other files into themselves; so the entry points are
closures over :data:`SOURCE_KEY`, the digest of those files, which numba's cache key includes: an
edit there recompiles them instead of loading a stale kernel.  Only self-contained helpers are
cached on their own.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from . import _dop853_step_numba as step
from . import _dop853_tableau as tab
from . import _field_numba as dense
from . import _field_tiled_numba as tiled_field
from . import _products_numba as products
from . import _simd_numba as simd
from ._field_numba import field_into, source_digest, wide_vectors
from ._field_tiled_numba import field_tiled
from ._dop853_step_numba import _combine, _error_norm, _renormalize
from ._simd_numba import borrowed

_S = tab.N_STAGES
_SAFETY, _MIN_FACTOR, _MAX_FACTOR = 0.9, 0.2, 10.0
_EXPONENT = -1.0 / 8.0


_STAGE_ROWS, _STAGE_COEF, _STAGE_COUNT = tab.STAGE_ROWS, tab.STAGE_COEF, tab.STAGE_COUNT
_B_ROWS, _B_COEF = tab.B_ROWS, tab.B_COEF
_E5_ROWS, _E5_COEF = tab.E5_ROWS, tab.E5_COEF
_E3_ROWS, _E3_COEF = tab.E3_ROWS, tab.E3_COEF

SUCCESS, MAX_STEPS, STEP_TOO_SMALL = 0, 1, 2
COUNTS = 5
"""``counts`` per instance: steps, rejected, evaluations, status, index of the next stop not reached."""

_LOOP = dict(cache=True, nogil=True, fastmath=False, error_model="numpy")
"""Self-contained helpers (they call nothing outside this file but the code-free
:func:`~numerics._simd_numba.wide_vectors`): cached on their own."""
_INNER = dict(nogil=True, fastmath=False, error_model="numpy")
"""Functions that call the field kernels: compiled into the keyed entry points, never cached alone."""
_INLINE_INNER = dict(_INNER, inline="always")
SOURCE_KEY = source_digest(tab.__file__, dense.__file__, tiled_field.__file__, products.__file__, simd.__file__,
                           step.__file__)


@njit(**_INLINE_INNER)
def _field(tiled, X, P, U, has_U, causal, stabilize, scale, out, Y, S, V, z, m, A):
    """The tiled kernel (``S``, ``A`` shaped by :func:`numerics._field_tiled_numba.workspace_shapes`)
    or the whole-matrix one (``S`` ``(N, N)``, ``A`` unused)."""
    wide_vectors()
    if tiled:
        field_tiled(X, P, U, has_U, causal, stabilize, scale, out, Y, S, V, z, m, A)
    else:
        field_into(X, P, U, has_U, causal, stabilize, scale, out, Y, S, V, z, m)


@njit(**_INNER)
def _initial_step(X, f0, P, U, has_U, causal, stabilize, tiled, t_end, rtol, atol, X1, f1, Y, S, V, v, A):
    """Hairer's starting step (as SciPy's ``select_initial_step`` and the numpy path)."""
    wide_vectors()
    n = X.size
    x, x1, g0, g1 = X.reshape(n), X1.reshape(n), f0.reshape(n), f1.reshape(n)
    d0 = 0.0
    d1 = 0.0
    for k in range(n):
        sc = atol + abs(x[k]) * rtol
        d0 += (x[k] / sc) ** 2
        d1 += (g0[k] / sc) ** 2
    d0 = math.sqrt(d0 / n)
    d1 = math.sqrt(d1 / n)
    h0 = 1e-6 if (d0 < 1e-5 or d1 < 1e-5) else 0.01 * d0 / max(d1, 1e-300)
    for k in range(n):
        x1[k] = x[k] + h0 * g0[k]
    _field(tiled, X1, P, U, has_U, causal, stabilize, 1.0, f1, Y, S, V, v[0], v[1], A)
    d2 = 0.0
    for k in range(n):
        sc = atol + abs(x[k]) * rtol
        d2 += ((g1[k] - g0[k]) / sc) ** 2
    d2 = math.sqrt(d2 / n) / h0
    big = max(d1, d2)
    h1 = max(1e-6, h0 * 1e-3) if big <= 1e-15 else (0.01 / max(big, 1e-300)) ** (1.0 / 8.0)
    return min(min(100.0 * h0, h1), t_end)


@njit(**_INNER)
def integrate_instance(X0, P, U, has_U, causal, stabilize, tiled, stops, is_sample, slot, rtol, atol, max_steps,
                       first_step, out, counts, K, R, S, v, A):
    """Integrate one instance from ``X0`` (``(N, d)``, on the sphere, ``t = 0``; overwritten with the
    last accepted state) through ``stops``, writing samples into ``out`` (``(T, N, d)``).

    Internally every state is ``(d, N)`` (see :func:`field_into`).  Workspace (contents ignored):
    ``K`` ``(12, d, N)`` holds ``h k_s``; ``R`` ``(9, d, N)`` the states, the two error estimates,
    the fields at the current and the new state and the field's scratch; ``S`` ``(N, N)``, or with
    ``tiled`` ``S`` and ``A`` as :func:`numerics._field_tiled_numba.workspace_shapes` says; ``v``
    ``(3, N)``.  ``counts`` (int64, length :data:`COUNTS`) receives steps, rejected, evaluations,
    status, and the index of the next stop not reached; returns the summed local error size.
    """
    wide_vectors()
    N, d = X0.shape
    n = N * d
    X, Ys, Xn, e5, e3, f, fn, Y, V = R[0], R[1], R[2], R[3], R[4], R[5], R[6], R[7], R[8]
    x, ys, xn, kf = X.reshape(n), Ys.reshape(n), Xn.reshape(n), K.reshape(_S, n)
    z, m = v[0], v[1]
    for a in range(d):
        for i in range(N):
            X[a, i] = X0[i, a]
    _field(tiled, X, P, U, has_U, causal, stabilize, 1.0, f, Y, S, V, z, m, A)
    t_end = stops[stops.shape[0] - 1]
    if first_step > 0:
        h = first_step
    else:
        h = _initial_step(X, f, P, U, has_U, causal, stabilize, tiled, t_end, rtol, atol, Xn, fn, Y, S, V, v, A)
    evaluations = 2
    steps = 0
    rejected = 0
    attempts = 0
    status = SUCCESS
    local = 0.0
    t = 0.0
    nxt = 1
    step_rejected = False
    while nxt < stops.shape[0]:
        if attempts >= max_steps:
            status = MAX_STEPS
            break
        target = stops[nxt]
        room = target - t
        ha = min(h, room)
        lands = h >= room
        if ha <= 1e-14 * max(1.0, abs(t)):
            status = STEP_TOO_SMALL
            break
        fl = f.reshape(n)
        for k in range(n):
            kf[0, k] = ha * fl[k]
        for s in range(1, _S):
            _combine(ys, x, True, kf, _STAGE_COEF[s], _STAGE_ROWS[s], _STAGE_COUNT[s])
            _field(tiled, Ys, P, U, has_U, causal, stabilize, ha, K[s], Y, S, V, z, m, A)
        _combine(xn, x, True, kf, _B_COEF, _B_ROWS, _B_ROWS.shape[0])
        _combine(e5.reshape(n), x, False, kf, _E5_COEF, _E5_ROWS, _E5_ROWS.shape[0])
        _combine(e3.reshape(n), x, False, kf, _E3_COEF, _E3_ROWS, _E3_ROWS.shape[0])
        _field(tiled, Xn, P, U, has_U, causal, stabilize, 1.0, fn, Y, S, V, z, m, A)
        evaluations += _S
        attempts += 1
        norm, size = _error_norm(X, Xn, e5, e3, rtol, atol, v)
        accept = norm < 1.0
        factor = _MAX_FACTOR if norm == 0 else _SAFETY * norm ** _EXPONENT
        if accept:
            factor = min(_MAX_FACTOR, factor)
            if step_rejected:
                factor = min(1.0, factor)
        else:
            factor = max(_MIN_FACTOR, factor)
        new_h = ha * factor
        if accept and lands:
            new_h = max(new_h, min(h, new_h * _MAX_FACTOR))
        h = new_h
        step_rejected = not accept
        if not accept:
            rejected += 1
            continue
        steps += 1
        local += size
        _renormalize(X, Xn, z)
        f, fn = fn, f
        if lands:
            t = target
            if is_sample[nxt]:
                o = out[slot[nxt]]
                for a in range(d):
                    for i in range(N):
                        o[i, a] = X[a, i]
            nxt += 1
        else:
            t = t + ha
    for a in range(d):
        for i in range(N):
            X0[i, a] = X[a, i]
    counts[0] = steps
    counts[1] = rejected
    counts[2] = evaluations
    counts[3] = status
    counts[4] = nxt
    return local


@njit(**_LOOP)
def _aligned(size):
    """A fresh float64 array of ``size`` entries starting on a 64-byte boundary (numba aligns to 32):
    a vector load that straddles two cache lines costs two.  Every row of the workspace is then
    aligned when ``N`` is a multiple of 8 (the loop ran 1.4x faster at ``N = 32``, ``d = 16``)."""
    buf = np.empty(size + 8)
    start = (64 - buf.ctypes.data % 64) % 64 // 8
    return buf[start:start + size]


def _entry_points(key):
    """The functions called from Python, as closures over ``key`` (:data:`SOURCE_KEY`): numba hashes
    a closure's cell contents into its cache key, so they are recompiled when a kernel file changes."""

    @njit(**_LOOP)
    def integrate_batch(X, P, U, has_U, causal, stabilize, tiled, stops, is_sample, slot, rtol, atol, max_steps,
                        first_step, out, counts, local, K, R, S, v, A):
        """:func:`integrate_instance` for every instance of ``X`` (``(b, N, d)``), one workspace for
        all (``K``, ``R``, ``S``, ``v``, ``A`` as there, allocated by the caller, contents ignored);
        ``P``/``U`` have a leading axis of ``b`` or ``1``; ``out`` ``(T, b, N, d)``, ``counts``
        ``(b, COUNTS)``, ``local`` ``(b,)``."""
        wide_vectors()
        if len(key) == 0:  # never: the reference puts ``key`` in the closure
            return
        X, P, U, stops, is_sample, slot = borrowed(X), borrowed(P), borrowed(U), borrowed(stops), borrowed(is_sample), borrowed(slot)
        out, counts, local = borrowed(out), borrowed(counts), borrowed(local)
        K, R, S, v, A = borrowed(K), borrowed(R), borrowed(S), borrowed(v), borrowed(A)
        for k in range(X.shape[0]):
            Pk = P[0] if P.shape[0] == 1 else P[k]
            Uk = U[0] if U.shape[0] == 1 else U[k]
            local[k] = integrate_instance(X[k], Pk, Uk, has_U, causal, stabilize, tiled, stops, is_sample, slot,
                                          rtol, atol, max_steps, first_step, out[:, k], counts[k], K, R, S, v, A)

    @njit(**_LOOP)
    def field(X, P, U, has_U, causal, stabilize, tiled, scale, out, Y, S, V, z, m, A):
        """:func:`_field` from Python (``X`` ``(d, N)``): tests and benchmarks."""
        wide_vectors()
        if len(key) == 0:
            return out
        _field(tiled, X, P, U, has_U, causal, stabilize, scale, out, Y, S, V, z, m, A)
        return out

    return integrate_batch, field


integrate_batch, field = _entry_points(SOURCE_KEY)


def workspace(N: int, d: int, tiled: bool) -> tuple[np.ndarray, ...]:
    """``(K, R, S, v, A)`` for :func:`integrate_batch` on instances of ``N`` tokens in ``R^d``, each
    starting on a 64-byte boundary (see :func:`_aligned`)."""
    if tiled:
        s_shape, a_shape = tiled_field.workspace_shapes(N, d)
    else:
        s_shape, a_shape = (N, N), (1, 1)
    shapes = ((_S, d, N), (9, d, N), s_shape, (3, N), a_shape)
    return tuple(_numpy_aligned(shape) for shape in shapes)


def _numpy_aligned(shape: tuple[int, ...]) -> np.ndarray:
    size = int(np.prod(shape))
    buf = np.empty(size + 8)
    start = (-buf.ctypes.data % 64) // 8
    return buf[start:start + size].reshape(shape)
