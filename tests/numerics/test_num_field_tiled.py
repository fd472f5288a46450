"""The tiled (streaming-softmax) compiled field against the whole-matrix one, and the tiled step loop:
equal bits without the max-shift, 1e-13 with it, for every mask, head count and ``U``; the same
bits for any number of threads; no ``N x N`` workspace."""
from __future__ import annotations

import numpy as np
import pytest

numba = pytest.importorskip("numba", reason="numba not installed: the compiled DOP853 path is not available")

from numerics import DOP853, RunStatus  # noqa: E402
from numerics import _dop853_compiled as compiled  # noqa: E402
from numerics import _dop853_numba as nb  # noqa: E402
from numerics import _field_tiled_numba as tiled_field  # noqa: E402
from numerics.field import attention_field  # noqa: E402

THRESHOLD = compiled.TILED_MIN_N


def _both(X, P, U, causal, stabilize, scale=0.5):
    """The whole-matrix and the tiled field at ``X`` (``(N, d)``), in the caller's layout."""
    N, d = X.shape
    has_U = U is not None
    Uc = np.ascontiguousarray(U) if has_U else np.zeros((1, d, d))
    Xt, Pc = np.ascontiguousarray(X.T), np.ascontiguousarray(P)
    got = []
    for tiled in (False, True):
        K, R, S, v, A = nb.workspace(N, d, tiled)
        out = np.full((d, N), np.nan)
        nb.field(Xt, Pc, Uc, has_U, causal, stabilize, tiled, scale, out, R[0], S, R[1], v[0], v[1], A)
        got.append(out.T.copy())
    return got


def _instance(N, d, H, seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((N, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    return X, rng.standard_normal((H, d, d)), rng.standard_normal((H, d, d))


@pytest.mark.parametrize("N", [1, 31, 64, 65, 200, THRESHOLD - 1, THRESHOLD, THRESHOLD + 1, THRESHOLD + 77])
@pytest.mark.parametrize("causal", [False, True])
def test_tiled_field_equals_the_dense_field_around_the_threshold(N, causal):
    X, P, U = _instance(N, 6, 1, N)
    checked = 0
    for Uk in (None, U):
        for stabilize, s in ((False, 0.4), (True, 60.0)):  # beta |P| large enough to need the max-shift
            dense, tiled = _both(X, s * P, Uk, causal, stabilize)
            scale = np.max(np.abs(dense))
            assert np.all(np.isfinite(tiled)) and (scale > 0 or N == 1)  # one token: the field is 0
            if stabilize:
                np.testing.assert_allclose(tiled, dense, rtol=0, atol=1e-13 * max(scale, 1e-300))
            else:  # same sums in the same order: the same bits
                np.testing.assert_array_equal(tiled, dense)
            checked += 1
    assert checked == 4


@pytest.mark.parametrize("H", [2, 3])
def test_tiled_field_with_several_heads_matches_numpy(H):
    N = THRESHOLD + 40
    X, P, U = _instance(N, 5, H, 100 + H)
    for causal in (False, True):
        for stabilize, s in ((False, 0.3), (True, 70.0)):
            ref = attention_field(X[None], s * P[None], U[None], None, causal, stabilize)[0]
            dense, tiled = _both(X, s * P, U, causal, stabilize, scale=1.0)
            np.testing.assert_allclose(tiled, ref, rtol=0, atol=1e-13 * np.max(np.abs(ref)))
            np.testing.assert_allclose(tiled, dense, rtol=0, atol=1e-13 * np.max(np.abs(ref)))


def test_tiled_field_is_the_same_for_any_thread_count():
    X, P, U = _instance(THRESHOLD + 130, 8, 2, 5)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = _both(X, 50.0 * P, U, True, True)[1]
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
        many = _both(X, 50.0 * P, U, True, True)[1]
    finally:
        numba.set_num_threads(before)
    np.testing.assert_array_equal(one, many)


def test_tiled_workspace_never_holds_the_score_matrix():
    N, d = 2048, 16
    tiled = sum(a.size for a in nb.workspace(N, d, True))
    dense = sum(a.size for a in nb.workspace(N, d, False))
    assert tiled < N * N / 4 and dense >= N * N
    assert all(a.ctypes.data % 64 == 0 for a in nb.workspace(N, d, True))
    assert tiled_field.workspace_shapes(N, d)[0][1] == tiled_field.BQ


@pytest.mark.parametrize("mask, U, scale, t_end", [("full", "identity", 0.4, 1.5), ("causal", "random", 0.4, 1.5),
                                                   ("full", "symmetric", 80.0, 0.05)])
def test_tiled_step_loop_takes_the_dense_loops_steps(make_system, monkeypatch, mask, U, scale, t_end):
    """Below the real threshold (fast), the tiled loop against the whole-matrix compiled loop and the
    numpy loop: same steps; the same bits without the max-shift (with it, a short run: at
    ``beta |P| ~ 400`` a long one may take one step more or fewer on round-off alone)."""
    systems = [make_system(40 + k, 70, 5, mask=mask, U=U, scale=scale) for k in range(2)]
    run = DOP853(rtol=1e-9, atol=1e-11, kernel="compiled")
    dense = run.integrate(systems, t_end, samples=4)
    monkeypatch.setattr(compiled, "TILED_MIN_N", 64)
    tiled = DOP853(rtol=1e-9, atol=1e-11, kernel="compiled", workers=2).integrate(systems, t_end, samples=4)
    ref = DOP853(rtol=1e-9, atol=1e-11, kernel="numpy").integrate(systems, t_end, samples=4)
    assert tiled.stats.workers == 1  # a tiled batch is not split: the field uses the cores
    assert tiled.status is dense.status is RunStatus.SUCCESS
    assert (tiled.stats.steps, tiled.stats.evaluations) == (dense.stats.steps, dense.stats.evaluations) == \
        (ref.stats.steps, ref.stats.evaluations)
    if scale < 1:
        np.testing.assert_array_equal(tiled.states, dense.states)
    np.testing.assert_allclose(tiled.states, dense.states, rtol=0, atol=1e-13)
    np.testing.assert_allclose(tiled.states, ref.states, rtol=0, atol=1e-12)
    assert np.max(np.abs(tiled.final - tiled.states[0])) > 1e-3


def test_entry_points_are_keyed_on_the_kernel_files(tmp_path):
    """numba's disk cache keys a function on its own file only; the entry points carry the digest of
    the files compiled into them in their closure, which numba hashes into the cache key."""
    from numerics import _dop853_step_numba, _dop853_tableau, _field_numba, _products_numba, _simd_numba

    for entry in (nb.integrate_batch, nb.field):
        cells = [c.cell_contents for c in entry.py_func.__closure__]
        assert cells == [nb.SOURCE_KEY]
    assert nb.SOURCE_KEY == _field_numba.source_digest(_dop853_tableau.__file__, _field_numba.__file__,
                                                       tiled_field.__file__, _products_numba.__file__,
                                                       _simd_numba.__file__, _dop853_step_numba.__file__)
    copy = tmp_path / "kernel.py"
    copy.write_bytes(open(tiled_field.__file__, "rb").read())
    before = _field_numba.source_digest(str(copy))
    copy.write_bytes(copy.read_bytes() + b"\n# edited\n")
    assert _field_numba.source_digest(str(copy)) != before
