"""Small dense products for the compiled field, in the step loop's layout (private; the fields of
:mod:`numerics._field_numba` and :mod:`numerics._field_tiled_numba` call them).

``out (+)= M X`` with every entry summed in one written-out order, one fused multiply-add per term:
blocks of 4 rows x 32 columns on the explicit vectors of :mod:`numerics._simd_numba` (the partial
sums in registers), the rest in plain loops the compiler vectorises.  Why: docs/dop853-kernel.md.
"""
from __future__ import annotations

from numba import njit, uint64

from ._simd_numba import FIELD as _FIELD
from ._simd_numba import INLINE as _INLINE
from ._simd_numba import fma, vfma, vload, vmul, vsplat, vstore, wide_vectors


@njit(**_INLINE)
def _matmul(M, X, out):
    """``out = M X`` (``(r, k) x (k, N)``), each entry summed in the order of the ``k`` terms
    (:func:`_matmul_n` on whole arrays)."""
    wide_vectors()
    r, k = M.shape
    _matmul_n(M, X, out, r, k, X.shape[1], True)


@njit(**_INLINE)
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
        _matmul_rows(M, X, out, r, k, 0, n, init)
        return
    for a in range(0, r4, 4):
        for c in range(0, n32, 32):
            _block4x32(M, X, out, a, c, k, init)
    if n32 < n:
        _matmul_rows(M, X, out, r, k, n32, n, init)
    if r4 < r and n32 > 0:
        _matmul_rows(M[r4:], X, out[r4:], r - r4, k, 0, n32, init)


@njit(**_INLINE)
def _block4x32(M, X, out, a, c, k, init):
    """Rows ``a .. a+3``, columns ``c .. c+31`` of :func:`_matmul_n` (:func:`_sums4x32`, stored)."""
    wide_vectors()
    s = _sums4x32(M, X, out, a, c, k, init)
    _store4(out, a, c, s[0], s[1], s[2], s[3])
    _store4(out, a + 1, c, s[4], s[5], s[6], s[7])
    _store4(out, a + 2, c, s[8], s[9], s[10], s[11])
    _store4(out, a + 3, c, s[12], s[13], s[14], s[15])


@njit(**_INLINE)
def _store4(out, a, c, v0, v1, v2, v3):
    """``out[a, c : c + 32] = v0 .. v3``."""
    wide_vectors()
    vstore(out, a, c, v0), vstore(out, a, c + 8, v1), vstore(out, a, c + 16, v2), vstore(out, a, c + 24, v3)


@njit(**_INLINE)
def _sums4x32(M, X, out, a, c, k, init):
    """The sums of rows ``a .. a+3``, columns ``c .. c+31`` of :func:`_matmul_n`, row by row, as 16
    vectors: each row's 32 partial sums are four 8-lane vectors held in registers while ``b`` runs
    over the ``k`` terms; each term loads four vectors of ``X[b]`` once for the four rows (16 fused
    multiply-adds per 4 loads).  The first term of an ``init`` product is a plain product, as in
    :func:`_matmul_rows`; otherwise the sums start from ``out``."""
    wide_vectors()
    if init:
        x0, x1, x2, x3 = vload(X, 0, c), vload(X, 0, c + 8), vload(X, 0, c + 16), vload(X, 0, c + 24)
        m = vsplat(M[a, 0])
        s00, s01, s02, s03 = vmul(m, x0), vmul(m, x1), vmul(m, x2), vmul(m, x3)
        m = vsplat(M[a + 1, 0])
        s10, s11, s12, s13 = vmul(m, x0), vmul(m, x1), vmul(m, x2), vmul(m, x3)
        m = vsplat(M[a + 2, 0])
        s20, s21, s22, s23 = vmul(m, x0), vmul(m, x1), vmul(m, x2), vmul(m, x3)
        m = vsplat(M[a + 3, 0])
        s30, s31, s32, s33 = vmul(m, x0), vmul(m, x1), vmul(m, x2), vmul(m, x3)
        b0 = 1
    else:
        s00, s01, s02, s03 = vload(out, a, c), vload(out, a, c + 8), vload(out, a, c + 16), vload(out, a, c + 24)
        s10, s11 = vload(out, a + 1, c), vload(out, a + 1, c + 8)
        s12, s13 = vload(out, a + 1, c + 16), vload(out, a + 1, c + 24)
        s20, s21 = vload(out, a + 2, c), vload(out, a + 2, c + 8)
        s22, s23 = vload(out, a + 2, c + 16), vload(out, a + 2, c + 24)
        s30, s31 = vload(out, a + 3, c), vload(out, a + 3, c + 8)
        s32, s33 = vload(out, a + 3, c + 16), vload(out, a + 3, c + 24)
        b0 = 0
    for b in range(b0, k):
        x0, x1, x2, x3 = vload(X, b, c), vload(X, b, c + 8), vload(X, b, c + 16), vload(X, b, c + 24)
        m = vsplat(M[a, b])
        s00, s01, s02, s03 = vfma(m, x0, s00), vfma(m, x1, s01), vfma(m, x2, s02), vfma(m, x3, s03)
        m = vsplat(M[a + 1, b])
        s10, s11, s12, s13 = vfma(m, x0, s10), vfma(m, x1, s11), vfma(m, x2, s12), vfma(m, x3, s13)
        m = vsplat(M[a + 2, b])
        s20, s21, s22, s23 = vfma(m, x0, s20), vfma(m, x1, s21), vfma(m, x2, s22), vfma(m, x3, s23)
        m = vsplat(M[a + 3, b])
        s30, s31, s32, s33 = vfma(m, x0, s30), vfma(m, x1, s31), vfma(m, x2, s32), vfma(m, x3, s33)
    return (s00, s01, s02, s03, s10, s11, s12, s13, s20, s21, s22, s23, s30, s31, s32, s33)


@njit(**_FIELD)
def _matmul_rows(M, X, out, r, k, c0, n, init):
    """:func:`_matmul_n` for the columns ``c0 .. n-1`` with plain loops (the compiler vectorises along
    ``i``), for any shape.  The column indices are unsigned: numba's wraparound test for a negative
    index keeps a loop that starts at a run-time offset from vectorising (measured 3x slower).

    Sixteen terms (then eight, four, one) per pass over an output row: one vectorised loop along
    the ``n`` columns that reloads its partial sums once per block.  The block loop is outside the
    row loop, so consecutive passes write different rows and do not wait on each other's stores.
    Measured at ``16 x 32`` products: 16-term passes 1.15x faster than 8-term ones, 2x than BLAS.
    A tile is passed as a view (its indices start at 0)."""
    wide_vectors()
    lo, hi = uint64(c0), uint64(n)
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
                for i in range(lo, hi):
                    s = p0 * X[b, i] if first else fma(p0, X[b, i], out[a, i])
                    s = fma(p1, X[b + 1, i], s)
                    s = fma(p2, X[b + 2, i], s)
                    s = fma(p3, X[b + 3, i], s)
                    s = fma(p4, X[b + 4, i], s)
                    s = fma(p5, X[b + 5, i], s)
                    s = fma(p6, X[b + 6, i], s)
                    s = fma(p7, X[b + 7, i], s)
                    s = fma(p8, X[b + 8, i], s)
                    s = fma(p9, X[b + 9, i], s)
                    s = fma(p10, X[b + 10, i], s)
                    s = fma(p11, X[b + 11, i], s)
                    s = fma(p12, X[b + 12, i], s)
                    s = fma(p13, X[b + 13, i], s)
                    s = fma(p14, X[b + 14, i], s)
                    out[a, i] = fma(p15, X[b + 15, i], s)
            elif w == 8:
                p0, p1, p2, p3 = M[a, b], M[a, b + 1], M[a, b + 2], M[a, b + 3]
                p4, p5, p6, p7 = M[a, b + 4], M[a, b + 5], M[a, b + 6], M[a, b + 7]
                for i in range(lo, hi):
                    s = p0 * X[b, i] if first else fma(p0, X[b, i], out[a, i])
                    s = fma(p1, X[b + 1, i], s)
                    s = fma(p2, X[b + 2, i], s)
                    s = fma(p3, X[b + 3, i], s)
                    s = fma(p4, X[b + 4, i], s)
                    s = fma(p5, X[b + 5, i], s)
                    s = fma(p6, X[b + 6, i], s)
                    out[a, i] = fma(p7, X[b + 7, i], s)
            elif w == 4:
                p0, p1, p2, p3 = M[a, b], M[a, b + 1], M[a, b + 2], M[a, b + 3]
                for i in range(lo, hi):
                    s = p0 * X[b, i] if first else fma(p0, X[b, i], out[a, i])
                    s = fma(p1, X[b + 1, i], s)
                    s = fma(p2, X[b + 2, i], s)
                    out[a, i] = fma(p3, X[b + 3, i], s)
            else:
                p0 = M[a, b]
                for i in range(lo, hi):
                    out[a, i] = p0 * X[b, i] if first else fma(p0, X[b, i], out[a, i])
        b += w
