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
from numba.core import cgutils
from numba.core.extending import intrinsic, models, register_model

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
    ``init``, else added to what ``out`` holds.  Each entry is summed in the order of the ``b`` terms,
    one fused multiply-add per term (so a tiled product that walks ``b`` in order sums as the whole
    one does, and every blocking below gives the same bits).

    Blocks of 4 rows x 32 columns go to :func:`_block4x32` (explicit 8-lane vectors, the 16 partial
    sums in registers over all ``k`` terms: 1.9x faster than the loops below at ``N = 32, d = 16``);
    the rows and columns left over (and every product when the last axis of ``X`` or ``out`` is not
    contiguous) go to :func:`_matmul_rows`."""
    wide_vectors()
    r4 = r - r % 4 if X.strides[1] == 8 and out.strides[1] == 8 else 0
    n32 = n - n % 32 if r4 > 0 else 0
    if n32 == 0:
        _matmul_rows(M, X, out, r, k, n, init)
        return
    for a in range(0, r4, 4):
        for c in range(0, n32, 32):
            _block4x32(M, X, out, a, c, k, init)
    if n32 < n:
        _matmul_rows(M, X[:, n32:], out[:, n32:], r, k, n - n32, init)
    if r4 < r and n32 > 0:
        _matmul_rows(M[r4:], X, out[r4:], r - r4, k, n32, init)


@njit(**_FIELD)
def _block4x32(M, X, out, a, c, k, init):
    """Rows ``a .. a+3``, columns ``c .. c+31`` of :func:`_matmul_n`: each row's 32 partial sums are
    four 8-lane vectors held in registers while ``b`` runs over the ``k`` terms; each term loads four
    vectors of ``X[b]`` once for the four rows (16 fused multiply-adds per 4 loads).  The first term
    of an ``init`` product is a plain product, as in :func:`_matmul_rows`."""
    wide_vectors()
    if init:
        x0, x1, x2, x3 = _vload(X, 0, c), _vload(X, 0, c + 8), _vload(X, 0, c + 16), _vload(X, 0, c + 24)
        m = _vsplat(M[a, 0])
        s00, s01, s02, s03 = _vmul(m, x0), _vmul(m, x1), _vmul(m, x2), _vmul(m, x3)
        m = _vsplat(M[a + 1, 0])
        s10, s11, s12, s13 = _vmul(m, x0), _vmul(m, x1), _vmul(m, x2), _vmul(m, x3)
        m = _vsplat(M[a + 2, 0])
        s20, s21, s22, s23 = _vmul(m, x0), _vmul(m, x1), _vmul(m, x2), _vmul(m, x3)
        m = _vsplat(M[a + 3, 0])
        s30, s31, s32, s33 = _vmul(m, x0), _vmul(m, x1), _vmul(m, x2), _vmul(m, x3)
        b0 = 1
    else:
        s00, s01, s02, s03 = _vload(out, a, c), _vload(out, a, c + 8), _vload(out, a, c + 16), _vload(out, a, c + 24)
        s10, s11 = _vload(out, a + 1, c), _vload(out, a + 1, c + 8)
        s12, s13 = _vload(out, a + 1, c + 16), _vload(out, a + 1, c + 24)
        s20, s21 = _vload(out, a + 2, c), _vload(out, a + 2, c + 8)
        s22, s23 = _vload(out, a + 2, c + 16), _vload(out, a + 2, c + 24)
        s30, s31 = _vload(out, a + 3, c), _vload(out, a + 3, c + 8)
        s32, s33 = _vload(out, a + 3, c + 16), _vload(out, a + 3, c + 24)
        b0 = 0
    for b in range(b0, k):
        x0, x1, x2, x3 = _vload(X, b, c), _vload(X, b, c + 8), _vload(X, b, c + 16), _vload(X, b, c + 24)
        m = _vsplat(M[a, b])
        s00, s01, s02, s03 = _vfma(m, x0, s00), _vfma(m, x1, s01), _vfma(m, x2, s02), _vfma(m, x3, s03)
        m = _vsplat(M[a + 1, b])
        s10, s11, s12, s13 = _vfma(m, x0, s10), _vfma(m, x1, s11), _vfma(m, x2, s12), _vfma(m, x3, s13)
        m = _vsplat(M[a + 2, b])
        s20, s21, s22, s23 = _vfma(m, x0, s20), _vfma(m, x1, s21), _vfma(m, x2, s22), _vfma(m, x3, s23)
        m = _vsplat(M[a + 3, b])
        s30, s31, s32, s33 = _vfma(m, x0, s30), _vfma(m, x1, s31), _vfma(m, x2, s32), _vfma(m, x3, s33)
    _vstore(out, a, c, s00), _vstore(out, a, c + 8, s01), _vstore(out, a, c + 16, s02), _vstore(out, a, c + 24, s03)
    _vstore(out, a + 1, c, s10), _vstore(out, a + 1, c + 8, s11)
    _vstore(out, a + 1, c + 16, s12), _vstore(out, a + 1, c + 24, s13)
    _vstore(out, a + 2, c, s20), _vstore(out, a + 2, c + 8, s21)
    _vstore(out, a + 2, c + 16, s22), _vstore(out, a + 2, c + 24, s23)
    _vstore(out, a + 3, c, s30), _vstore(out, a + 3, c + 8, s31)
    _vstore(out, a + 3, c + 16, s32), _vstore(out, a + 3, c + 24, s33)


@njit(**_FIELD)
def _matmul_rows(M, X, out, r, k, n, init):
    """:func:`_matmul_n` with plain loops (the compiler vectorises along ``i``), for any shape.

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
                    s = p0 * X[b, i] if first else _fma(p0, X[b, i], out[a, i])
                    s = _fma(p1, X[b + 1, i], s)
                    s = _fma(p2, X[b + 2, i], s)
                    s = _fma(p3, X[b + 3, i], s)
                    s = _fma(p4, X[b + 4, i], s)
                    s = _fma(p5, X[b + 5, i], s)
                    s = _fma(p6, X[b + 6, i], s)
                    s = _fma(p7, X[b + 7, i], s)
                    s = _fma(p8, X[b + 8, i], s)
                    s = _fma(p9, X[b + 9, i], s)
                    s = _fma(p10, X[b + 10, i], s)
                    s = _fma(p11, X[b + 11, i], s)
                    s = _fma(p12, X[b + 12, i], s)
                    s = _fma(p13, X[b + 13, i], s)
                    s = _fma(p14, X[b + 14, i], s)
                    out[a, i] = _fma(p15, X[b + 15, i], s)
            elif w == 8:
                p0, p1, p2, p3 = M[a, b], M[a, b + 1], M[a, b + 2], M[a, b + 3]
                p4, p5, p6, p7 = M[a, b + 4], M[a, b + 5], M[a, b + 6], M[a, b + 7]
                for i in range(n):
                    s = p0 * X[b, i] if first else _fma(p0, X[b, i], out[a, i])
                    s = _fma(p1, X[b + 1, i], s)
                    s = _fma(p2, X[b + 2, i], s)
                    s = _fma(p3, X[b + 3, i], s)
                    s = _fma(p4, X[b + 4, i], s)
                    s = _fma(p5, X[b + 5, i], s)
                    s = _fma(p6, X[b + 6, i], s)
                    out[a, i] = _fma(p7, X[b + 7, i], s)
            elif w == 4:
                p0, p1, p2, p3 = M[a, b], M[a, b + 1], M[a, b + 2], M[a, b + 3]
                for i in range(n):
                    s = p0 * X[b, i] if first else _fma(p0, X[b, i], out[a, i])
                    s = _fma(p1, X[b + 1, i], s)
                    s = _fma(p2, X[b + 2, i], s)
                    out[a, i] = _fma(p3, X[b + 3, i], s)
            else:
                p0 = M[a, b]
                for i in range(n):
                    out[a, i] = p0 * X[b, i] if first else _fma(p0, X[b, i], out[a, i])
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


@intrinsic
def _fma(typingctx, a, b, c):
    """``a * b + c`` rounded once (``llvm.fma``): the order of every sum is written out, not left to
    the contraction of ``s + p * x`` (which may fuse either product of ``p0 * x0 + p1 * x1``)."""
    def codegen(context, builder, signature, args):
        fma = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.DoubleType(), [ir.DoubleType()] * 3),
                                             "llvm.fma.f64")
        return builder.call(fma, args)
    return types.float64(types.float64, types.float64, types.float64), codegen


class _F64x8(types.Type):
    """Eight float64 lanes (LLVM's ``<8 x double>``): the partial sums of :func:`_block4x32`.  Where the
    CPU has narrower vectors LLVM splits each into two or four; every lane still sums its own entry."""

    def __init__(self):
        super().__init__(name="f64x8")


_f64x8 = _F64x8()
_VEC = ir.VectorType(ir.DoubleType(), 8)
register_model(_F64x8)(lambda dmm, fe_type: models.PrimitiveModel(dmm, fe_type, _VEC))


def _lanes_at(context, builder, aryty, ary, i, j):
    """Address of ``A[i, j] .. A[i, j + 7]`` (contiguous last axis; no wraparound of the indices)."""
    arr = context.make_array(aryty)(context, builder, ary)
    ptr = cgutils.get_item_pointer(context, builder, aryty, arr, [i, j], wraparound=False)
    return builder.bitcast(ptr, _VEC.as_pointer())


@intrinsic
def _vload(typingctx, A, i, j):
    """The eight entries ``A[i, j : j + 8]`` of a 2-d float64 array whose last axis is contiguous."""
    def codegen(context, builder, signature, args):
        return builder.load(_lanes_at(context, builder, signature.args[0], *args), align=8)
    return _f64x8(A, i, j), codegen


@intrinsic
def _vstore(typingctx, A, i, j, v):
    """``A[i, j : j + 8] = v`` (last axis contiguous)."""
    def codegen(context, builder, signature, args):
        builder.store(args[3], _lanes_at(context, builder, signature.args[0], *args[:3]), align=8)
        return context.get_dummy_value()
    return types.none(A, i, j, v), codegen


@intrinsic
def _vsplat(typingctx, x):
    """``x`` in all eight lanes."""
    def codegen(context, builder, signature, args):
        one = builder.insert_element(ir.Constant(_VEC, ir.Undefined), args[0], ir.Constant(ir.IntType(32), 0))
        return builder.shuffle_vector(one, ir.Constant(_VEC, ir.Undefined),
                                      ir.Constant(ir.VectorType(ir.IntType(32), 8), [0] * 8))
    return _f64x8(types.float64), codegen


@intrinsic
def _vmul(typingctx, a, b):
    """Lane-wise ``a * b``, rounded once."""
    def codegen(context, builder, signature, args):
        return builder.fmul(*args)
    return _f64x8(_f64x8, _f64x8), codegen


@intrinsic
def _vfma(typingctx, a, b, c):
    """Lane-wise ``a * b + c`` rounded once (``llvm.fma``: a fused multiply-add on every target)."""
    def codegen(context, builder, signature, args):
        fma = cgutils.get_or_insert_function(builder.module, ir.FunctionType(_VEC, [_VEC] * 3), "llvm.fma.v8f64")
        return builder.call(fma, args)
    return _f64x8(_f64x8, _f64x8, _f64x8), codegen


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
