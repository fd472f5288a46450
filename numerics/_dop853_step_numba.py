"""The arithmetic of a DOP853 step between field evaluations, compiled with numba (private; the step
loop in :mod:`numerics._dop853_numba` inlines it): the stage combinations, SciPy's error norm and the
renormalisation of the accepted state, on the step loop's flat and ``(d, N)`` workspaces.

Blocks of 32 entries or tokens run on the explicit vectors of :mod:`numerics._simd_numba` with their
sums in registers; the rest in plain loops with unsigned indices, with the same roundings.  Not
cached on their own (they include ``_simd_numba``'s code): the keyed entry points of
:mod:`numerics._dop853_numba` cover this file.  Why: docs/dop853-kernel.md.
"""
from __future__ import annotations

import math

from numba import njit, uint64

from ._simd_numba import (fma, vabs, vadd, vdiv, vfma, vload, vload1, vmax, vmul, vpositive_or_zero, vsplat, vsqrt,
                          vstore, vstore1, wide_vectors)

_INLINE_LOOP = dict(nogil=True, fastmath=False, error_model="numpy", inline="always")
"""The step loop's flags (no contraction: every fused step is written out), inlined into it."""


@njit(**_INLINE_LOOP)
def _combine(out, base, has_base, K, coef, rows, count):
    """``out = base + sum_q coef[q] K[rows[q]]`` over flat rows (``base`` only when ``has_base``):
    one fused multiply-add per term, in the order of ``q``, on every entry.  Blocks of 32 entries
    keep their sums in four vector registers over all the terms (:func:`_combine32`; each ``K`` row is
    read once, nothing is stored between terms); the entries left over take a plain loop per term,
    with the same roundings."""
    wide_vectors()
    n = out.shape[0]
    n32 = n - n % 32 if out.strides[0] == 8 and base.strides[0] == 8 and K.strides[1] == 8 else 0
    for c in range(0, n32, 32):
        _combine32(out, base, has_base, K, coef, rows, count, c)
    _combine_loops(out, base, has_base, K, coef, rows, count, n32)


@njit(**_INLINE_LOOP)
def _combine_loops(out, base, has_base, K, coef, rows, count, c0):
    """:func:`_combine` on the entries from ``c0`` on, in plain loops, one pass per term.  The indices
    are unsigned: numba's wraparound test for a negative index keeps a loop that starts at a run-time
    offset from vectorising (measured 3x slower)."""
    wide_vectors()
    lo, n = uint64(c0), uint64(out.shape[0])
    for k in range(lo, n):
        out[k] = base[k] if has_base else coef[0] * K[rows[0], k]
    for q in range(0 if has_base else 1, count):
        cq, r = coef[q], rows[q]
        for k in range(lo, n):
            out[k] = fma(cq, K[r, k], out[k])


@njit(**_INLINE_LOOP)
def _combine32(out, base, has_base, K, coef, rows, count, c):
    """Entries ``c .. c+31`` of :func:`_combine`."""
    wide_vectors()
    if has_base:
        a0, a1, a2, a3 = vload1(base, c), vload1(base, c + 8), vload1(base, c + 16), vload1(base, c + 24)
        q0 = 0
    else:
        m, r = vsplat(coef[0]), rows[0]
        a0, a1 = vmul(m, vload(K, r, c)), vmul(m, vload(K, r, c + 8))
        a2, a3 = vmul(m, vload(K, r, c + 16)), vmul(m, vload(K, r, c + 24))
        q0 = 1
    for q in range(q0, count):
        m, r = vsplat(coef[q]), rows[q]
        a0, a1 = vfma(m, vload(K, r, c), a0), vfma(m, vload(K, r, c + 8), a1)
        a2, a3 = vfma(m, vload(K, r, c + 16), a2), vfma(m, vload(K, r, c + 24), a3)
    vstore1(out, c, a0), vstore1(out, c + 8, a1), vstore1(out, c + 16, a2), vstore1(out, c + 24, a3)


@njit(**_INLINE_LOOP)
def _error_norm(x, xn, e5, e3, rtol, atol, acc):
    """SciPy's DOP853 error norm ``|e5|^2 / sqrt((|e5|^2 + |e3|^2 / 100) n)`` (``e5``, ``e3``:
    ``h`` times the estimators, ``(d, N)``, times the reciprocal of the error scale
    ``atol + rtol max(|x|, |xn|)``: one division for both, which bound this loop)
    and the local error size ``max |e5|^2 / sqrt(|e5|^2 + |e3|^2 / 100)``.  ``acc``: ``(3, N)``
    scratch; sums run along ``d`` per token, then over the tokens.  Blocks of 32 tokens make one pass
    with their sums in registers (:func:`_error_sums32`); the rest a plain loop, with the same roundings."""
    wide_vectors()
    d, N = x.shape
    size, s5, s3 = acc[0], acc[1], acc[2]
    ok = x.strides[1] == 8 and xn.strides[1] == 8 and e5.strides[1] == 8 and e3.strides[1] == 8
    n32 = N - N % 32 if ok and acc.strides[1] == 8 else 0
    for c in range(0, n32, 32):
        _error_sums32(x, xn, e5, e3, rtol, atol, acc, c)
    _error_loops(x, xn, e5, e3, rtol, atol, size, s5, s3, n32)
    big, t5, t3 = 0.0, 0.0, 0.0
    for i in range(N):
        big = max(big, size[i])
        t5 += s5[i]
        t3 += s3[i]
    denom = t5 + 0.01 * t3
    if denom > 0.0:
        return t5 / math.sqrt(denom * (d * N)), big
    return (0.0 if denom == 0.0 else math.inf), big  # NaN: a stage overflowed; the step must be rejected


@njit(**_INLINE_LOOP)
def _error_sums32(x, xn, e5, e3, rtol, atol, acc, c):
    """Tokens ``c .. c+31`` of :func:`_error_norm`: their size and sums in ``acc[:, c : c + 32]``."""
    wide_vectors()
    d = x.shape[0]
    zero, one, tenth2, vr, va = vsplat(0.0), vsplat(1.0), vsplat(0.01), vsplat(rtol), vsplat(atol)
    for b in range(0, 32, 8):
        big, t5, t3 = zero, zero, zero
        for a in range(d):
            u5, u3 = vload(e5, a, c + b), vload(e3, a, c + b)
            q5 = vmul(u5, u5)
            q = vsqrt(vadd(q5, vmul(tenth2, vmul(u3, u3))))
            big = vmax(big, vpositive_or_zero(q, vdiv(q5, q)))
            w = vdiv(one, vadd(va, vmul(vr, vmax(vabs(vload(x, a, c + b)), vabs(vload(xn, a, c + b))))))
            u5, u3 = vmul(u5, w), vmul(u3, w)
            t5, t3 = vadd(t5, vmul(u5, u5)), vadd(t3, vmul(u3, u3))
        vstore(acc, 0, c + b, big), vstore(acc, 1, c + b, t5), vstore(acc, 2, c + b, t3)


@njit(**_INLINE_LOOP)
def _error_loops(x, xn, e5, e3, rtol, atol, size, s5, s3, c0):
    """:func:`_error_norm`'s per-token size and sums for the tokens from ``c0`` on, in plain loops
    (unsigned indices, as :func:`_combine_loops`)."""
    wide_vectors()
    d = x.shape[0]
    lo, N = uint64(c0), uint64(x.shape[1])
    for i in range(lo, N):
        size[i] = 0.0
        s5[i] = 0.0
        s3[i] = 0.0
    for a in range(d):
        for i in range(lo, N):
            q5 = e5[a, i] * e5[a, i]
            q = math.sqrt(q5 + 0.01 * (e3[a, i] * e3[a, i]))
            size[i] = max(size[i], q5 / q if q > 0.0 else 0.0)
            w = 1.0 / (atol + rtol * max(abs(x[a, i]), abs(xn[a, i])))
            u5, u3 = e5[a, i] * w, e3[a, i] * w
            s5[i] += u5 * u5
            s3[i] += u3 * u3


@njit(**_INLINE_LOOP)
def _renormalize(X, Xn, z):
    """``X = Xn / |Xn|`` per token, as ``Xn`` times the reciprocal of the norm (one division per token,
    not per entry: the divisions bound this loop).  Blocks of 32 tokens keep their sums of squares
    in registers; a plain loop takes the rest, with the same roundings.  ``z``: ``(N,)`` scratch."""
    wide_vectors()
    d, N = X.shape
    n32 = N - N % 32 if X.strides[1] == 8 and Xn.strides[1] == 8 else 0
    one = vsplat(1.0)
    for c in range(0, n32, 8):
        x = vload(Xn, 0, c)
        q = vmul(x, x)
        for a in range(1, d):
            x = vload(Xn, a, c)
            q = vadd(q, vmul(x, x))
        w = vdiv(one, vsqrt(q))
        for a in range(d):
            vstore(X, a, c, vmul(vload(Xn, a, c), w))
    _renormalize_loops(X, Xn, z, n32)


@njit(**_INLINE_LOOP)
def _renormalize_loops(X, Xn, z, c0):
    """:func:`_renormalize` for the tokens from ``c0`` on, in plain loops (unsigned indices)."""
    wide_vectors()
    d = X.shape[0]
    lo, N = uint64(c0), uint64(X.shape[1])
    for i in range(lo, N):
        z[i] = Xn[0, i] * Xn[0, i]
    for a in range(1, d):
        for i in range(lo, N):
            z[i] += Xn[a, i] * Xn[a, i]
    for i in range(lo, N):
        z[i] = 1.0 / math.sqrt(z[i])
    for a in range(d):
        for i in range(lo, N):
            X[a, i] = Xn[a, i] * z[i]
