"""The field of eq. 5 for one instance, compiled with numba, in the step loop's transposed layout
(private; the step loop in :mod:`numerics._dop853_numba` calls it, and :mod:`numerics._field_tiled_numba`
reuses its product loops and exponential).

``field_into`` forms the whole ``N x N`` score matrix: the right kernel while it stays in cache
(up to a few hundred tokens).  Above that the tiled kernel streams over key blocks instead.
The product blocks and the exponentials run on the explicit vectors of :mod:`numerics._simd_numba`.
How the loops are written and why: docs/dop853-kernel.md.  These functions are not cached on their
own: the step loop's cache entries are keyed on this file's and ``_simd_numba``'s contents (see
:mod:`numerics._dop853_numba`), so editing either recompiles the step loop.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

from numba import njit, types
from numba.core.extending import intrinsic

from ._simd_numba import exp_lanes, exp_one, fma, vadd, vdiv, vfma, vload, vload1, vmul, vneg, vsplat, vstore, vstore1, vsub

_CONTRACT = {"contract"}
"""Only fused multiply-add is allowed in the field (no reassociation, no finite-math assumptions)."""
_FIELD = dict(nogil=True, fastmath=_CONTRACT, error_model="numpy")
"""Not cached on their own: they include :mod:`numerics._simd_numba`'s code, and are cached only as
part of the keyed entry points of :mod:`numerics._dop853_numba`."""
_INLINE = dict(_FIELD, inline="always")
"""Small kernels inlined (numba IR) into their caller: no call, no reference counts on their arrays."""



def source_digest(*files: str) -> str:
    """SHA-256 of the files' bytes: the cache key of compiled functions that include their code."""
    h = hashlib.sha256()
    for f in files:
        h.update(Path(f).read_bytes())
    return h.hexdigest()


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
        _matmul_rows(M, X, out, r, k, n, init)
        return
    for a in range(0, r4, 4):
        for c in range(0, n32, 32):
            _block4x32(M, X, out, a, c, k, init)
    if n32 < n:
        _matmul_rows(M, X[:, n32:], out[:, n32:], r, k, n - n32, init)
    if r4 < r and n32 > 0:
        _matmul_rows(M[r4:], X, out[r4:], r - r4, k, n32, init)


@njit(**_INLINE)
def _block4x32(M, X, out, a, c, k, init):
    """Rows ``a .. a+3``, columns ``c .. c+31`` of :func:`_matmul_n`: each row's 32 partial sums are
    four 8-lane vectors held in registers while ``b`` runs over the ``k`` terms; each term loads four
    vectors of ``X[b]`` once for the four rows (16 fused multiply-adds per 4 loads).  The first term
    of an ``init`` product is a plain product, as in :func:`_matmul_rows`."""
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
    vstore(out, a, c, s00), vstore(out, a, c + 8, s01), vstore(out, a, c + 16, s02), vstore(out, a, c + 24, s03)
    vstore(out, a + 1, c, s10), vstore(out, a + 1, c + 8, s11)
    vstore(out, a + 1, c + 16, s12), vstore(out, a + 1, c + 24, s13)
    vstore(out, a + 2, c, s20), vstore(out, a + 2, c + 8, s21)
    vstore(out, a + 2, c + 16, s22), vstore(out, a + 2, c + 24, s23)
    vstore(out, a + 3, c, s30), vstore(out, a + 3, c + 8, s31)
    vstore(out, a + 3, c + 16, s32), vstore(out, a + 3, c + 24, s33)


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
                for i in range(n):
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
                for i in range(n):
                    s = p0 * X[b, i] if first else fma(p0, X[b, i], out[a, i])
                    s = fma(p1, X[b + 1, i], s)
                    s = fma(p2, X[b + 2, i], s)
                    out[a, i] = fma(p3, X[b + 3, i], s)
            else:
                p0 = M[a, b]
                for i in range(n):
                    out[a, i] = p0 * X[b, i] if first else fma(p0, X[b, i], out[a, i])
        b += w


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
    for j in range(jw):
        first = j0 + j - i0 if causal else 0  # the queries i < first do not see key j0 + j
        t = j
        for i in range(n32, n):
            e = exp_one(S[t, i] - shift[i] if stabilize else S[t, i])
            if i < first:
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
        if has_U:
            _matmul(U[h], X, V)
            _matmul(V, S, Y)
        else:
            _matmul(X, S, Y)
        _add_head(out, Y, z, scale, h == 0)
    _project(X, out, z)
    return out


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
    for i in range(n32, N):
        z[i] = scale / z[i]
    for a in range(d):
        for i in range(n32, N):
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
    for i in range(n32, N):
        z[i] = X[0, i] * out[0, i]
    for a in range(1, d):
        for i in range(n32, N):
            z[i] = fma(X[a, i], out[a, i], z[i])
    for a in range(d):
        for i in range(n32, N):
            out[a, i] = fma(-X[a, i], z[i], out[a, i])
