"""Eq. 5 for one large instance without the ``N x N`` score matrix: query blocks against streamed
key tiles, with an online (streaming) softmax, the query blocks spread over the cores (private;
the step loop in :mod:`numerics._dop853_numba` calls it from
:data:`numerics._dop853_compiled.TILED_MIN_N` tokens).

For a block of :data:`BQ` queries the key tiles of :data:`BK` keys are visited in order; each tile's
scores ``S[j, i] = <x_i, P x_j>`` are formed, exponentiated and folded into the running column
sums ``z_i`` and the running products ``A_i = sum_j e_ij (U x_j)`` at once, then dropped:

* without the max-shift (``stabilize`` false, the usual case, see :data:`numerics.field._SAFE_EXPONENT`)
  every sum runs over the keys in the order of the whole-matrix kernel
  (:func:`numerics._field_numba.field_into`), one fused step per key whatever the tile boundaries,
  so the two kernels agree bit for bit (tested; exactly zero weights of masked keys add nothing);
* with the shift, the running maximum ``m_i`` of the scores seen so far is the shift; when a tile
  raises it, ``z_i`` and ``A_i`` are multiplied by ``exp(m_old - m_new)`` (Milakov and Gimelshein,
  *Online normaliser calculation for softmax*, 2018; the streaming softmax of FlashAttention).  The
  result is the same quotient rounded differently: within a few ulps of the dense kernel's (tested
  to ``1e-13`` relative);
* a causal query block visits only the keys up to its last query.

Memory: ``N x d`` arrays plus, per query block, one ``BK x BQ`` tile and ``(3 d + 1) x BQ`` rows
(its tokens, accumulators, a product, maxima), never ``N x N`` (32 MB at ``N = 2048``).  Each query block is one task of a ``prange``
(numba's threading layer, all cores numba is allowed): blocks write disjoint columns of every
array, and each block's arithmetic does not depend on which thread runs it, so results are the same
bits for any number of threads.  Not guaranteed: anything about the round-off beyond the above.
"""
from __future__ import annotations

import math

from numba import njit, prange

from ._field_numba import _FIELD, _weights_n, wide_vectors
from ._products_numba import _matmul_n

BQ = 64
"""Queries per block: one block's ``X`` columns, tile and accumulators stay in the L1/L2 caches."""
BK = 32
"""Keys per tile (a multiple of 4: a tile's keys fill the products' blocks of 4 rows)."""

_TILE = {k: v for k, v in _FIELD.items() if k != "cache"}
"""The field's flags, uncached: these functions include :mod:`numerics._field_numba`'s code, and are
cached only as part of the keyed entry points of :mod:`numerics._dop853_numba`."""
_PARALLEL = dict(_TILE, parallel=True)


def workspace_shapes(N: int, d: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """Shapes of the tile scratch ``S`` and the per-block scratch ``A`` (the block's tokens, its
    accumulators, a product and one row of maxima) for ``N`` tokens in ``R^d``."""
    blocks = -(-N // BQ)
    return (blocks * BK, BQ), (blocks * (3 * d + 1), BQ)


@njit(**_PARALLEL)
def field_tiled(X, P, U, has_U, causal, stabilize, scale, out, Y, S, V, z, m, A):
    """``scale * F(X)`` in the layout of :func:`numerics._field_numba.field_into` (``X``, ``out``,
    ``Y``, ``V`` ``(d, N)``, C-contiguous; ``z``, ``m`` ``(N,)``), with ``S`` and ``A`` shaped by
    :func:`workspace_shapes` instead of an ``(N, N)`` score matrix.  ``Y`` is used as ``(N, d)``:
    row ``j`` holds ``P x_j``, so a key tile is a contiguous block of rows."""
    wide_vectors()
    d, N = X.shape
    H = P.shape[0]
    blocks = (N + BQ - 1) // BQ
    Yk = Y.reshape(N, d)
    for h in range(H):
        for blk in range(blocks):  # serial: d^2 N of the d N^2 work; one parallel region per head
            _keys(X, P[h], U[h], has_U, Yk, V, A, blk)
        for blk in prange(blocks):
            _query_block(X, Yk, V if has_U else X, causal, stabilize, scale, out, S, z, m, A, blk, h == 0,
                         h == H - 1)
    return out


@njit(**_TILE)
def _keys(X, P, U, has_U, Yk, V, A, blk):
    """Copy block ``blk`` of the tokens into its scratch rows and write its keys ``P x_j`` (rows of
    ``Yk``) and, with ``U``, its values ``U x_j`` (columns of ``V``)."""
    wide_vectors()
    d, N = X.shape
    i0 = blk * BQ
    n = min(BQ, N - i0)
    a0 = blk * (3 * d + 1)
    Xb, tmp = A[a0:a0 + d], A[a0 + 2 * d:a0 + 3 * d]
    for a in range(d):
        for i in range(n):
            Xb[a, i] = X[a, i0 + i]
    _matmul_n(P, Xb, tmp, d, d, n, True)
    for i in range(n):
        for a in range(d):
            Yk[i0 + i, a] = tmp[a, i]
    if has_U:
        _matmul_n(U, Xb, tmp, d, d, n, True)
        for a in range(d):
            for i in range(n):
                V[a, i0 + i] = tmp[a, i]


@njit(**_TILE)
def _query_block(X, Yk, V, causal, stabilize, scale, out, S, z, m, A, blk, first_head, last_head):
    """One head's contribution to the queries of block ``blk`` (and, after the last head, the
    projection ``Proj_{x_i}``).  Every tile routine gets views that start at index 0: see
    :func:`numerics._products_numba._matmul_n` on why."""
    wide_vectors()
    d, N = X.shape
    i0 = blk * BQ
    n = min(BQ, N - i0)
    a0 = blk * (3 * d + 1)
    Xb, acc, row = A[a0:a0 + d], A[a0 + d:a0 + 2 * d], A[a0 + 3 * d]
    T = S[blk * BK:(blk + 1) * BK]
    zb, mb = z[i0:i0 + n], m[i0:i0 + n]
    end = min(N, i0 + n) if causal else N
    j0 = 0
    while j0 < end:
        jw = min(BK, end - j0)
        init = j0 == 0
        _matmul_n(Yk[j0:j0 + jw], Xb, T, jw, d, n, True)
        if stabilize:
            _online_max(T, jw, n, j0, i0, causal, zb, mb, acc, row, d, init)
        _weights_n(T, jw, n, j0, i0, mb, stabilize, causal, zb, init)
        _matmul_n(V[:, j0:j0 + jw], T, acc, d, jw, n, init)
        j0 += jw
    for i in range(n):
        zb[i] = scale / zb[i]
    ob = out[:, i0:i0 + n]
    if first_head:
        for a in range(d):
            for i in range(n):
                ob[a, i] = acc[a, i] * zb[i]
    else:
        for a in range(d):
            for i in range(n):
                ob[a, i] += acc[a, i] * zb[i]
    if last_head:
        for i in range(n):
            zb[i] = Xb[0, i] * ob[0, i]
        for a in range(1, d):
            for i in range(n):
                zb[i] += Xb[a, i] * ob[a, i]
        for a in range(d):
            for i in range(n):
                ob[a, i] -= Xb[a, i] * zb[i]


@njit(**_TILE)
def _online_max(T, jw, n, j0, i0, causal, z, m, acc, row, d, init):
    """Raise the running maxima ``m`` to this tile's (unmasked) scores and rescale the running sums
    ``z`` and products ``acc`` by ``exp(m_old - m_new)`` (exactly 1 where the maximum stays)."""
    wide_vectors()
    for i in range(n):
        row[i] = -math.inf
    for j in range(jw):
        first = j0 + j - i0 if causal else 0
        for i in range(n):
            if i >= first:
                row[i] = max(row[i], T[j, i])
    if init:  # the first tile holds key 0, which every query sees
        for i in range(n):
            m[i] = row[i]
        return
    for i in range(n):
        new = max(m[i], row[i])
        c = math.exp(m[i] - new)
        m[i] = new
        z[i] *= c
        row[i] = c
    for a in range(d):
        for i in range(n):
            acc[a, i] *= row[i]
