"""The compiled product kernel sums every entry in one written-out order, whichever path computes it.

``_matmul_n`` sends blocks of 4 rows x 32 columns to explicit 8-lane vectors and the rest to plain
loops; both must give, bit for bit, ``fl(M[a,0] X[0,i])`` (or ``fma(M[a,0], X[0,i], out)``) followed by
one fused multiply-add per term in the order of ``b``.  The reference rounds each fused step exactly
with rationals."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

pytest.importorskip("numba", reason="numba not installed: the compiled kernels are not available")

from numerics import _field_numba as F  # noqa: E402
from numerics import _products_numba as Pn  # noqa: E402


def _fma(a: float, b: float, c: float) -> float:
    return float(Fraction(a) * Fraction(b) + Fraction(c))  # one correctly rounded step


def _ordered(M, X, out0, init):
    r, k = M.shape
    o = np.array(out0, copy=True)
    for a in range(r):
        for i in range(X.shape[1]):
            s = M[a, 0] * X[0, i] if init else _fma(M[a, 0], X[0, i], out0[a, i])
            for b in range(1, k):
                s = _fma(M[a, b], X[b, i], s)
            o[a, i] = s
    return o


SHAPES = [(16, 16, 32), (32, 16, 32), (16, 32, 32), (5, 7, 40), (3, 3, 8), (33, 17, 65), (4, 1, 32), (12, 33, 31)]


@pytest.mark.parametrize("init", [True, False])
@pytest.mark.parametrize("r,k,n", SHAPES)
def test_every_path_sums_in_the_written_order(r, k, n, init):
    rng = np.random.default_rng(r * 1000 + k * 10 + n)
    M, X, out0 = rng.standard_normal((r, k)), rng.standard_normal((k, n)), rng.standard_normal((r, n))
    want = _ordered(M, X, out0, init)
    vec, loops = out0.copy(), out0.copy()
    Pn._matmul_n(M, X, vec, r, k, n, init)
    Pn._matmul_rows(M, X, loops, r, k, 0, n, init)
    assert np.array_equal(vec, want)
    assert np.array_equal(loops, want)


def test_transposed_and_strided_operands():
    """``M`` transposed (as the scores ``Y^T X``), and an ``out`` whose last axis is not contiguous
    (every entry then takes the plain loops): the same bits as the reference."""
    rng = np.random.default_rng(7)
    Y, X = rng.standard_normal((16, 32)), rng.standard_normal((16, 32))
    S = np.zeros((32, 32))
    Pn._matmul_n(Y.T, X, S, 32, 16, 32, True)
    assert np.array_equal(S, _ordered(Y.T, X, S, True))
    wide = np.zeros((32, 64))
    Pn._matmul_n(Y.T, X, wide[:, ::2], 32, 16, 32, True)
    assert np.array_equal(wide[:, ::2], S)
    assert not wide[:, 1::2].any()


def test_a_tiled_walk_over_the_terms_gives_the_whole_product():
    """Two passes over ``b`` (``init`` then accumulate), as the tiled field does, equal one pass."""
    rng = np.random.default_rng(3)
    M, X = rng.standard_normal((8, 32)), rng.standard_normal((32, 64))
    whole, tiled = np.zeros((8, 64)), np.zeros((8, 64))
    Pn._matmul_n(M, X, whole, 8, 32, 64, True)
    Pn._matmul_n(M[:, :16].copy(), X[:16], tiled, 8, 16, 64, True)
    Pn._matmul_n(M[:, 16:].copy(), X[16:], tiled, 8, 16, 64, False)
    assert np.array_equal(whole, tiled)


def test_vector_and_scalar_exponentials_agree_bit_for_bit():
    """The 8-lane exponential (contiguous columns in blocks of 32) and the scalar one (a strided
    tile, every column in the plain loop) round alike, shifted or not, and sum each column alike."""
    rng = np.random.default_rng(5)
    v = np.concatenate([rng.uniform(-800, 800, (20, 40)), rng.uniform(-2, 2, (20, 40))])
    shift = rng.uniform(-1, 1, 40)
    for stabilize in (False, True):
        fast, z_fast = v.copy(), np.empty(40)
        wide = np.zeros((40, 80))
        wide[:, ::2] = v
        slow, z_slow = wide[:, ::2], np.empty(40)
        F._softmax_weights(fast, shift, stabilize, False, z_fast)
        F._softmax_weights(slow, shift, stabilize, False, z_slow)
        assert np.array_equal(fast, slow) and np.array_equal(z_fast, z_slow)
        ref = np.exp(np.clip(v - shift if stabilize else v, -708.0, 709.0))
        assert np.max(np.abs(fast - ref) / np.spacing(ref)) <= 1.0


def test_a_borrowed_array_leaves_its_owner_alone():
    """``borrowed`` drops the owner pointer only: the data are shared, views of it work, and the
    owner's Python reference count is the same after many borrowed views were made and dropped."""
    import sys

    from numba import njit

    from numerics._simd_numba import borrowed

    @njit
    def scale_rows(a, reps):
        b = borrowed(a)
        for _ in range(reps):
            for i in range(b.shape[0]):
                row = b[i]
                row[0] += 1.0
        return b[1:].sum()

    a = np.zeros((4, 3))
    before = sys.getrefcount(a)
    total = scale_rows(a, 1000)
    assert sys.getrefcount(a) == before
    assert np.array_equal(a[:, 0], np.full(4, 1000.0)) and total == 3000.0


@pytest.mark.parametrize("H, with_U", [(1, False), (2, False), (2, True)])
def test_the_fused_field_rounds_as_the_separate_passes(H, with_U):
    """Without shift or mask, and ``N``, ``d`` multiples of 32 and 4, the field takes the scores through
    the exponential and the values through their normalisation in registers; with a strided score
    matrix it takes the separate passes instead.  Both give the same bits."""
    rng = np.random.default_rng(H + 10 * with_U)
    d, N = 8, 64
    X = rng.standard_normal((d, N))
    X /= np.linalg.norm(X, axis=0)
    P, U = 0.5 * rng.standard_normal((H, d, d)), rng.standard_normal((H, d, d))

    def run(S):
        out, Y, V, z, m = np.zeros((d, N)), np.zeros((d, N)), np.zeros((d, N)), np.zeros(N), np.zeros(N)
        return F.field_into(X, P, U, with_U, False, False, 0.75, out, Y, S, V, z, m)

    fused = run(np.zeros((N, N)))
    separate = run(np.zeros((N, 2 * N))[:, ::2])
    assert np.array_equal(fused, separate)
    Xt = X.T
    ref = np.zeros((N, d))
    for h in range(H):
        A = np.exp(Xt @ P[h] @ Xt.T)  # rows: queries
        A /= A.sum(axis=1, keepdims=True)
        ref += A @ (Xt @ U[h].T if with_U else Xt)
    ref -= Xt * np.sum(Xt * ref, axis=1, keepdims=True)
    np.testing.assert_allclose(fused.T, 0.75 * ref, rtol=0, atol=1e-13)
