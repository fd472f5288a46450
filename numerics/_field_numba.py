"""The field of eq. 5 for one instance, compiled with numba, in the step loop's transposed layout
(private; the step loop in :mod:`numerics._dop853_numba` calls it, and :mod:`numerics._field_tiled_numba`
reuses its exponential).

``field_into`` forms the whole ``N x N`` score matrix: the right kernel while it stays in cache
(up to a few hundred tokens).  Above that the tiled kernel streams over key blocks instead.
The products are :mod:`numerics._products_numba`'s; they and the exponentials run on the explicit
vectors of :mod:`numerics._simd_numba`.  Without a shift or a mask, the scores go through the
exponential and the weighted values through their normalisation while still in registers
(:func:`_scores_exp`, :func:`_values_into`).  How the loops are written and why:
docs/dop853-kernel.md.  These functions are not cached on their own: the step loop's cache entries
are keyed on the contents of the five kernel files (see :mod:`numerics._dop853_numba`), so editing
any of them recompiles the step loop.
"""
from __future__ import annotations

from numba import njit, uint64

from ._products_numba import _matmul, _store4, _sums4x32
from ._simd_numba import FIELD as _FIELD
from ._simd_numba import INLINE as _INLINE
from ._simd_numba import (exp_lanes, exp_one, fma, source_digest, vadd, vdiv, vfma, vload, vload1, vmul, vneg, vsplat,
                          vstore, vstore1, vsub, wide_vectors)

__all__ = ["field_into", "source_digest", "wide_vectors"]


@njit(**_INLINE)
def _softmax_weights(S, shift, stabilize, causal, z):
    """``S[j, i] <- exp(S[j, i] - shift[i])`` (no shift unless ``stabilize``), exactly ``0`` for the
    keys ``j > i`` outside a causal mask, and ``z[i] = sum_j S[j, i]``, row by row.

    The exponential is :func:`numerics._simd_numba.exp_one` (Cody–Waite reduction ``x = k ln2 + r``,
    ``|r| <= ln2/2``, a degree-11 polynomial, ``2^k`` from its bits; within 1 ulp of libm's ``exp``,
    tested), eight lanes at a time where it can (:func:`_weights_n`).  Arguments are clamped to
    ``[-708, 709]``: below, the true value (< 3.3e-308) is replaced by ``exp(-708)``, which changes a
    softmax weight by < 1e-300 (the row maximum is 1 or ``|S| <= 200``, see
    :data:`numerics.field._SAFE_EXPONENT`).  Masked entries are evaluated too (clamped, so finite)
    and then replaced by 0 with a select: a loop starting at the first unmasked key ran 2.5x slower
    inside the step loop (measured)."""
    wide_vectors()
    N, M = S.shape
    _weights_n(S, N, M, 0, 0, shift, stabilize, causal, z, True)


@njit(**_INLINE)
def _weights_n(S, jw, n, j0, i0, shift, stabilize, causal, z, init):
    """:func:`_softmax_weights` on the first ``jw`` rows and ``n`` columns of a tile ``S`` whose
    entry ``[j, i]`` is key ``j0 + j`` of query ``i0 + i`` (``shift``, ``z``: the tile's queries;
    ``z`` is reset first when ``init``, else the tile's column sums are added to it).

    Without a causal mask, blocks of 32 queries run on explicit 8-lane vectors (:func:`_weights32`);
    the queries left over, and every query under a causal mask, in a plain loop.  Both compute each
    weight with the same roundings and add each query's weights in the order of the keys."""
    wide_vectors()
    if init:
        for i in range(n):
            z[i] = 0.0
    contiguous = S.strides[1] == 8 and z.strides[0] == 8 and shift.strides[0] == 8
    n32 = n - n % 32 if contiguous and not causal else 0
    for c in range(0, n32, 32):
        _weights32(S, jw, c, shift, stabilize, z)
    _weights_loops(S, jw, n32, n, j0, i0, shift, stabilize, causal, z)


@njit(**_INLINE)
def _weights_loops(S, jw, c0, n, j0, i0, shift, stabilize, causal, z):
    """:func:`_weights_n` for the queries ``c0 .. n-1`` in a plain loop (no reset of ``z``).  The indices
    are unsigned: numba's wraparound test for a negative index keeps a loop that starts at a run-time
    offset from vectorising (measured 3x slower)."""
    wide_vectors()
    lo, hi = uint64(c0), uint64(n)
    for j in range(jw):
        first = j0 + j - i0 if causal else 0  # the queries i < first do not see key j0 + j
        masked = uint64(max(first, c0))
        t = j
        for i in range(lo, hi):
            e = exp_one(S[t, i] - shift[i] if stabilize else S[t, i])
            if i < masked:
                e = 0.0
            S[t, i] = e
            z[i] += e


@njit(**_INLINE)
def _weights32(S, jw, c, shift, stabilize, z):
    """Queries ``c .. c+31`` of :func:`_weights_n` (no mask): their 32 running sums stay in four
    vector registers over the ``jw`` keys."""
    wide_vectors()
    z0, z1, z2, z3 = vload1(z, c), vload1(z, c + 8), vload1(z, c + 16), vload1(z, c + 24)
    m0, m1, m2, m3 = vsplat(0.0), vsplat(0.0), vsplat(0.0), vsplat(0.0)
    if stabilize:
        m0, m1, m2, m3 = vload1(shift, c), vload1(shift, c + 8), vload1(shift, c + 16), vload1(shift, c + 24)
    for j in range(jw):
        x0, x1, x2, x3 = vload(S, j, c), vload(S, j, c + 8), vload(S, j, c + 16), vload(S, j, c + 24)
        if stabilize:
            x0, x1, x2, x3 = vsub(x0, m0), vsub(x1, m1), vsub(x2, m2), vsub(x3, m3)
        e0, e1, e2, e3 = exp_lanes(x0), exp_lanes(x1), exp_lanes(x2), exp_lanes(x3)
        vstore(S, j, c, e0), vstore(S, j, c + 8, e1), vstore(S, j, c + 16, e2), vstore(S, j, c + 24, e3)
        z0, z1, z2, z3 = vadd(z0, e0), vadd(z1, e1), vadd(z2, e2), vadd(z3, e3)
    vstore1(z, c, z0), vstore1(z, c + 8, z1), vstore1(z, c + 16, z2), vstore1(z, c + 24, z3)


@njit(**_FIELD)
def field_into(X, P, U, has_U, causal, stabilize, scale, out, Y, S, V, z, m):
    """``scale * F(X)`` (eq. 5) for one instance in transposed layout: ``X``, ``out`` are ``(d, N)``
    (``X[a, i]`` = coordinate ``a`` of token ``i``); ``P``, ``U`` ``(H, d, d)`` (``beta`` folded into
    ``P``).  Scratch: ``Y``, ``V`` ``(d, N)``; ``S`` ``(N, N)`` holds ``S[j, i] = <x_i, P x_j>`` (the
    transpose of the numpy kernel's scores, so every inner loop runs along ``i`` and vectorises);
    ``z``, ``m`` ``(N,)``.  ``out`` must not alias ``X``."""
    wide_vectors()
    d, N = X.shape
    H = P.shape[0]
    fused = not stabilize and not causal and N % 32 == 0 and d % 4 == 0 and _blocks32(X, out, Y, z) == N
    fused = fused and S.strides[1] == 8 and V.strides[1] == 8
    for h in range(H):
        _matmul(P[h], X, Y)
        if fused:
            _scores_exp(Y, X, S, z)
        else:
            _matmul(Y.T, X, S)
            if stabilize:  # the largest score of each query over its keys (j <= i when causal)
                for i in range(N):
                    m[i] = S[0, i]
                for j in range(1, N):
                    first = j if causal else 0
                    for i in range(N):
                        if i >= first:
                            m[i] = max(m[i], S[j, i])
            _softmax_weights(S, m, stabilize, causal, z)
        if has_U:
            _matmul(U[h], X, V)
        values = V if has_U else X
        if fused:
            _values_into(values, S, z, out, scale, h == 0)
        else:
            _matmul(values, S, Y)
            _add_head(out, Y, z, scale, h == 0)
    _project(X, out, z)
    return out


@njit(**_INLINE)
def _scores_exp(Y, X, S, z):
    """``S[j, i] = exp(<P x_j, x_i>)`` and ``z[i] = sum_j S[j, i]`` (no shift, no mask; ``N`` a multiple
    of 32): each block of 4 keys x 32 queries goes through the exponential while its scores are still
    in registers (:func:`_sums4x32`), with the roundings of ``_matmul(Y.T, X, S)`` then
    :func:`_softmax_weights`, and the column sums stay in registers over all the keys."""
    wide_vectors()
    d, N = X.shape
    M = Y.T
    for c in range(0, N, 32):
        z0 = z1 = z2 = z3 = vsplat(0.0)
        for a in range(0, N, 4):
            s = _sums4x32(M, X, S, a, c, d, True)
            z0, z1, z2, z3 = _exp_row(S, a, c, s[0], s[1], s[2], s[3], z0, z1, z2, z3)
            z0, z1, z2, z3 = _exp_row(S, a + 1, c, s[4], s[5], s[6], s[7], z0, z1, z2, z3)
            z0, z1, z2, z3 = _exp_row(S, a + 2, c, s[8], s[9], s[10], s[11], z0, z1, z2, z3)
            z0, z1, z2, z3 = _exp_row(S, a + 3, c, s[12], s[13], s[14], s[15], z0, z1, z2, z3)
        vstore1(z, c, z0), vstore1(z, c + 8, z1), vstore1(z, c + 16, z2), vstore1(z, c + 24, z3)


@njit(**_INLINE)
def _exp_row(S, j, c, v0, v1, v2, v3, z0, z1, z2, z3):
    """Row ``j`` of :func:`_scores_exp`: ``S[j, c : c + 32] = exp(v)``; returns ``z + exp(v)``."""
    wide_vectors()
    e0, e1, e2, e3 = exp_lanes(v0), exp_lanes(v1), exp_lanes(v2), exp_lanes(v3)
    _store4(S, j, c, e0, e1, e2, e3)
    return vadd(z0, e0), vadd(z1, e1), vadd(z2, e2), vadd(z3, e3)


@njit(**_INLINE)
def _values_into(V, S, z, out, scale, first):
    """``out (+)= (V S) (scale / z)`` per token (``d`` a multiple of 4, ``N`` of 32): the head's weighted
    values divided by its column sums while still in registers, with the roundings of
    ``_matmul(V, S, Y)`` then :func:`_add_head`."""
    wide_vectors()
    d, N = out.shape
    for c in range(0, N, 32):
        sc = vsplat(scale)
        w0, w1, w2, w3 = vdiv(sc, vload1(z, c)), vdiv(sc, vload1(z, c + 8)), vdiv(sc, vload1(z, c + 16)), vdiv(sc, vload1(z, c + 24))
        for a in range(0, d, 4):
            s = _sums4x32(V, S, out, a, c, N, True)
            _scaled_row(out, a, c, s[0], s[1], s[2], s[3], w0, w1, w2, w3, first)
            _scaled_row(out, a + 1, c, s[4], s[5], s[6], s[7], w0, w1, w2, w3, first)
            _scaled_row(out, a + 2, c, s[8], s[9], s[10], s[11], w0, w1, w2, w3, first)
            _scaled_row(out, a + 3, c, s[12], s[13], s[14], s[15], w0, w1, w2, w3, first)


@njit(**_INLINE)
def _scaled_row(out, a, c, v0, v1, v2, v3, w0, w1, w2, w3, first):
    """``out[a, c : c + 32] (+)= v w`` (``=`` when ``first``, else one fused multiply-add)."""
    wide_vectors()
    if first:
        _store4(out, a, c, vmul(v0, w0), vmul(v1, w1), vmul(v2, w2), vmul(v3, w3))
    else:
        _store4(out, a, c, vfma(v0, w0, vload(out, a, c)), vfma(v1, w1, vload(out, a, c + 8)),
                vfma(v2, w2, vload(out, a, c + 16)), vfma(v3, w3, vload(out, a, c + 24)))


@njit(**_INLINE)
def _blocks32(X, out, Y, z):
    """How many leading tokens go in blocks of 32 on vectors: all, but the last ``N mod 32``, when every
    array has a contiguous last axis, else none."""
    wide_vectors()
    ok = X.strides[1] == 8 and out.strides[1] == 8 and Y.strides[1] == 8 and z.strides[0] == 8
    return X.shape[1] - X.shape[1] % 32 if ok else 0


@njit(**_INLINE)
def _add_head(out, Y, z, scale, first):
    """``out (+)= Y * (scale / z)`` per token: a head's weighted values divided by its column sums
    (``=`` for the first head, else one fused multiply-add).  Blocks of 32 tokens keep their factors
    in registers; a plain loop takes the rest, with the same roundings."""
    wide_vectors()
    d, N = out.shape
    n32 = _blocks32(Y, out, Y, z)
    for c in range(0, n32, 32):
        s = vsplat(scale)
        w0, w1, w2, w3 = vdiv(s, vload1(z, c)), vdiv(s, vload1(z, c + 8)), vdiv(s, vload1(z, c + 16)), vdiv(s, vload1(z, c + 24))
        for a in range(d):
            y0, y1, y2, y3 = vload(Y, a, c), vload(Y, a, c + 8), vload(Y, a, c + 16), vload(Y, a, c + 24)
            if first:
                o0, o1, o2, o3 = vmul(y0, w0), vmul(y1, w1), vmul(y2, w2), vmul(y3, w3)
            else:
                o0, o1 = vfma(y0, w0, vload(out, a, c)), vfma(y1, w1, vload(out, a, c + 8))
                o2, o3 = vfma(y2, w2, vload(out, a, c + 16)), vfma(y3, w3, vload(out, a, c + 24))
            vstore(out, a, c, o0), vstore(out, a, c + 8, o1), vstore(out, a, c + 16, o2), vstore(out, a, c + 24, o3)
    _add_head_loops(out, Y, z, scale, first, n32)


@njit(**_INLINE)
def _add_head_loops(out, Y, z, scale, first, c0):
    """:func:`_add_head` for the tokens from ``c0`` on, in plain loops (unsigned indices)."""
    wide_vectors()
    d = out.shape[0]
    lo, N = uint64(c0), uint64(out.shape[1])
    for i in range(lo, N):
        z[i] = scale / z[i]
    for a in range(d):
        for i in range(lo, N):
            out[a, i] = Y[a, i] * z[i] if first else fma(Y[a, i], z[i], out[a, i])


@njit(**_INLINE)
def _project(X, out, z):
    """``out -= X <X, out>`` per token (the tangent projection of eq. 5): each inner product summed
    over the coordinates in order with fused steps, then one fused step per entry.  Blocks of 32
    tokens keep their inner products in registers (a running sum stored per coordinate waited on
    its own store: the loop took 0.37 us at ``(32, 16)``); a plain loop takes the rest alike."""
    wide_vectors()
    d, N = X.shape
    n32 = _blocks32(X, out, X, z)
    for c in range(0, n32, 32):
        p0, p1 = vmul(vload(X, 0, c), vload(out, 0, c)), vmul(vload(X, 0, c + 8), vload(out, 0, c + 8))
        p2, p3 = vmul(vload(X, 0, c + 16), vload(out, 0, c + 16)), vmul(vload(X, 0, c + 24), vload(out, 0, c + 24))
        for a in range(1, d):
            p0, p1 = vfma(vload(X, a, c), vload(out, a, c), p0), vfma(vload(X, a, c + 8), vload(out, a, c + 8), p1)
            p2 = vfma(vload(X, a, c + 16), vload(out, a, c + 16), p2)
            p3 = vfma(vload(X, a, c + 24), vload(out, a, c + 24), p3)
        for a in range(d):
            vstore(out, a, c, vfma(vneg(vload(X, a, c)), p0, vload(out, a, c)))
            vstore(out, a, c + 8, vfma(vneg(vload(X, a, c + 8)), p1, vload(out, a, c + 8)))
            vstore(out, a, c + 16, vfma(vneg(vload(X, a, c + 16)), p2, vload(out, a, c + 16)))
            vstore(out, a, c + 24, vfma(vneg(vload(X, a, c + 24)), p3, vload(out, a, c + 24)))
    _project_loops(X, out, z, n32)


@njit(**_INLINE)
def _project_loops(X, out, z, c0):
    """:func:`_project` for the tokens from ``c0`` on, in plain loops (unsigned indices)."""
    wide_vectors()
    d = X.shape[0]
    lo, N = uint64(c0), uint64(X.shape[1])
    for i in range(lo, N):
        z[i] = X[0, i] * out[0, i]
    for a in range(1, d):
        for i in range(lo, N):
            z[i] = fma(X[a, i], out[a, i], z[i])
    for a in range(d):
        for i in range(lo, N):
            out[a, i] = fma(-X[a, i], z[i], out[a, i])
