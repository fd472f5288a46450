"""The field of eq. 5 for one instance, compiled with numba, in the step loop's transposed layout
(private; the step loop in :mod:`numerics._dop853_numba` calls it, and :mod:`numerics._field_tiled_numba`
reuses its product loops and exponential).

``field_into`` forms the whole ``N x N`` score matrix: the right kernel while it stays in cache
(up to a few hundred tokens).  Above that the tiled kernel streams over key blocks instead.
How the loops are written and why: docs/dop853-kernel.md.  These functions are cached on disk;
the step loop's own cache entries are keyed on this file's contents as well (see
:mod:`numerics._dop853_numba`), so editing this file recompiles the step loop.
"""
from __future__ import annotations

import hashlib
import math
from pathlib import Path

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core.extending import intrinsic

_CONTRACT = {"contract"}
"""Only fused multiply-add is allowed in the field (no reassociation, no finite-math assumptions)."""
_FIELD = dict(cache=True, nogil=True, fastmath=_CONTRACT, error_model="numpy")



def source_digest(*files: str) -> str:
    """SHA-256 of the files' bytes: the cache key of compiled functions that include their code."""
    h = hashlib.sha256()
    for f in files:
        h.update(Path(f).read_bytes())
    return h.hexdigest()


_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_EXP_POLY = np.array([1.0, 1.0, 0.5000000000000019, 0.1666666666666668, 0.0416666666664881, 0.008333333333319601,
                      0.0013888888952314775, 0.00019841269890047113, 2.4801485482328494e-05, 2.755724091857897e-06,
                      2.763263963904103e-07, 2.5110037605963777e-08])
"""``exp(r) ~ sum_k c_k r^k`` on ``|r| <= ln2/2``: ``mpmath.chebyfit(mpmath.exp, [-ln2/2, ln2/2], 12)`` at
50 digits (a near-minimax degree-11 fit, largest error 3.2e-18), rounded to float64.  Two terms
fewer than the Taylor polynomial of the same accuracy (degree 13), 4% of the whole run (measured)."""


@njit(**_FIELD)
def _matmul(M, X, out):
    """``out = M X`` (``(r, k) x (k, N)``), each entry summed in the order of the ``k`` terms
    (:func:`_matmul_n` on whole arrays)."""
    wide_vectors()
    r, k = M.shape
    _matmul_n(M, X, out, r, k, X.shape[1], True)


@njit(**_FIELD)
def _matmul_n(M, X, out, r, k, n, init):
    """``out[a, i] (+)= sum_b M[a, b] X[b, i]`` for ``a < r``, ``b < k``, ``i < n``: ``=`` when
    ``init``, else added to what ``out`` holds.  Each entry is summed in the order of the ``b`` terms
    (a tiled product that walks ``b`` in order sums as the whole one does).

    Sixteen terms (then eight, four, one) per pass over an output row: one vectorised loop along
    the ``n`` columns that reloads its partial sums once per block.  The block loop is outside the
    row loop, so consecutive passes write different rows and do not wait on each other's stores.
    Measured at ``16 x 32`` products: 16-term passes 1.15x faster than 8-term ones, 2x than BLAS.
    Indices start at 0 (a tile is passed as a view): with a run-time offset in an index, numba's
    negative-index wraparound keeps the loop from vectorising (measured 6x slower)."""
    wide_vectors()
    b = 0
    while b < k:
        w = 16 if b + 16 <= k else (8 if b + 8 <= k else (4 if b + 4 <= k else 1))
        first = init and b == 0
        for a in range(r):
            if w == 16:
                p0, p1, p2, p3 = M[a, b], M[a, b + 1], M[a, b + 2], M[a, b + 3]
                p4, p5, p6, p7 = M[a, b + 4], M[a, b + 5], M[a, b + 6], M[a, b + 7]
                p8, p9, p10, p11 = M[a, b + 8], M[a, b + 9], M[a, b + 10], M[a, b + 11]
                p12, p13, p14, p15 = M[a, b + 12], M[a, b + 13], M[a, b + 14], M[a, b + 15]
                for i in range(n):
                    s = p0 * X[b, i] if first else out[a, i] + p0 * X[b, i]
                    s += p1 * X[b + 1, i]
                    s += p2 * X[b + 2, i]
                    s += p3 * X[b + 3, i]
                    s += p4 * X[b + 4, i]
                    s += p5 * X[b + 5, i]
                    s += p6 * X[b + 6, i]
                    s += p7 * X[b + 7, i]
                    s += p8 * X[b + 8, i]
                    s += p9 * X[b + 9, i]
                    s += p10 * X[b + 10, i]
                    s += p11 * X[b + 11, i]
                    s += p12 * X[b + 12, i]
                    s += p13 * X[b + 13, i]
                    s += p14 * X[b + 14, i]
                    out[a, i] = s + p15 * X[b + 15, i]
            elif w == 8:
                p0, p1, p2, p3 = M[a, b], M[a, b + 1], M[a, b + 2], M[a, b + 3]
                p4, p5, p6, p7 = M[a, b + 4], M[a, b + 5], M[a, b + 6], M[a, b + 7]
                for i in range(n):
                    s = p0 * X[b, i] if first else out[a, i] + p0 * X[b, i]
                    s += p1 * X[b + 1, i]
                    s += p2 * X[b + 2, i]
                    s += p3 * X[b + 3, i]
                    s += p4 * X[b + 4, i]
                    s += p5 * X[b + 5, i]
                    s += p6 * X[b + 6, i]
                    out[a, i] = s + p7 * X[b + 7, i]
            elif w == 4:
                p0, p1, p2, p3 = M[a, b], M[a, b + 1], M[a, b + 2], M[a, b + 3]
                for i in range(n):
                    s = p0 * X[b, i] if first else out[a, i] + p0 * X[b, i]
                    s += p1 * X[b + 1, i]
                    s += p2 * X[b + 2, i]
                    out[a, i] = s + p3 * X[b + 3, i]
            else:
                p0 = M[a, b]
                for i in range(n):
                    out[a, i] = p0 * X[b, i] if first else out[a, i] + p0 * X[b, i]
        b += w


@intrinsic
def _from_bits(typingctx, bits):
    """The float64 whose IEEE-754 bits are the int64 ``bits`` (a bit cast, no conversion)."""
    if bits != types.int64:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())
    return types.float64(types.int64), codegen


@intrinsic
def wide_vectors(typingctx):
    """Mark the function being compiled ``"prefer-vector-width"="512"`` (an LLVM function attribute;
    a call emits no code).  LLVM's tuning for Intel's AVX-512 parts prefers 256-bit vectors, which
    halves the width of these FMA-bound product loops: on a Xeon whose LLVM name is ``rocketlake``
    the batch of ``256 x (N = 32, d = 16)`` ran 1.27x faster with 512-bit vectors (docs/dop853-kernel.md).
    Where the CPU has no 512-bit vectors LLVM uses the widest it has; the order of every sum is
    unchanged (each output entry is its own lane), so the results are the same bits at either width."""
    def codegen(context, builder, signature, args):
        attrs = builder.function.attributes
        set.add(attrs, '"prefer-vector-width"="512"')  # a string attribute: llvmlite's add() knows keywords only
        return context.get_dummy_value()
    return types.none(), codegen


@njit(**_FIELD)
def _softmax_weights(S, shift, stabilize, causal, z):
    """``S[j, i] <- exp(S[j, i] - shift[i])`` (no shift unless ``stabilize``), exactly ``0`` for the
    keys ``j > i`` outside a causal mask, and ``z[i] = sum_j S[j, i]``, row by row.

    Cody–Waite reduction ``x = k ln2 + r``, ``|r| <= ln2/2``, the polynomial :data:`_EXP_POLY` and
    ``2^k`` built from its bits: within 1 ulp of libm's ``exp`` (measured, and tested), in a loop
    the compiler vectorises.  Arguments are clamped to ``[-708, 709]``:
    below, the true value (< 3.3e-308) is replaced by ``exp(-708)``, which changes a softmax weight
    by < 1e-300 (the row maximum is 1 or ``|S| <= 200``, see :data:`numerics.field._SAFE_EXPONENT`).
    Masked entries are evaluated too (clamped, so finite) and then replaced by 0 with a select: a
    loop starting at the first unmasked key ran 2.5x slower inside the step loop (measured)."""
    wide_vectors()
    N, M = S.shape
    _weights_n(S, N, M, 0, 0, shift, stabilize, causal, z, True)


@njit(**_FIELD)
def _weights_n(S, jw, n, j0, i0, shift, stabilize, causal, z, init):
    """:func:`_softmax_weights` on the first ``jw`` rows and ``n`` columns of a tile ``S`` whose
    entry ``[j, i]`` is key ``j0 + j`` of query ``i0 + i`` (``shift``, ``z``: the tile's queries;
    ``z`` is reset first when ``init``, else the tile's column sums are added to it)."""
    wide_vectors()
    c = _EXP_POLY
    if init:
        for i in range(n):
            z[i] = 0.0
    for j in range(jw):
        first = j0 + j - i0 if causal else 0  # the queries i < first do not see key j0 + j
        t = j
        for i in range(n):
            v = S[t, i] - shift[i] if stabilize else S[t, i]
            v = min(max(v, -708.0), 709.0)
            k = math.floor(v * _LOG2E + 0.5)
            r = (v - k * _LN2_HI) - k * _LN2_LO
            p = c[11]
            p = p * r + c[10]
            p = p * r + c[9]
            p = p * r + c[8]
            p = p * r + c[7]
            p = p * r + c[6]
            p = p * r + c[5]
            p = p * r + c[4]
            p = p * r + c[3]
            p = p * r + c[2]
            p = p * r + c[1]
            e = (p * r + c[0]) * _from_bits((np.int64(k) + 1023) << 52)
            if i < first:
                e = 0.0
            S[t, i] = e
            z[i] += e


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
    for h in range(H):
        _matmul(P[h], X, Y)
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
        for i in range(N):
            z[i] = scale / z[i]
        if has_U:
            _matmul(U[h], X, V)
            _matmul(V, S, Y)
        else:
            _matmul(X, S, Y)
        if h == 0:
            for a in range(d):
                for i in range(N):
                    out[a, i] = Y[a, i] * z[i]
        else:
            for a in range(d):
                for i in range(N):
                    out[a, i] += Y[a, i] * z[i]
    for i in range(N):
        z[i] = X[0, i] * out[0, i]
    for a in range(1, d):
        for i in range(N):
            z[i] += X[a, i] * out[a, i]
    for a in range(d):
        for i in range(N):
            out[a, i] -= X[a, i] * z[i]
    return out
