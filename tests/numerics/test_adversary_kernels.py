"""Adversarial checks of the compiled (numba) kernels: shapes around the vector blocks, strided and
transposed operands, non-finite inputs, the DOP853 loop against the numpy loop, workspace reuse,
the borrowed arrays, and the tiled field.  Known defects are ``xfail(strict=True)`` reproducers."""
from __future__ import annotations

import gc
import sys
import tracemalloc

import numpy as np
import pytest

pytest.importorskip("numba", reason="numba not installed: the compiled kernels are not available")

from num_helpers import build_system  # noqa: E402
from numerics import DOP853, RunStatus  # noqa: E402
from numerics import _dop853_compiled as compiled  # noqa: E402
from numerics import _dop853_numba as nb  # noqa: E402
from numerics import _field_numba as F  # noqa: E402
from numerics import _products_numba as Pn  # noqa: E402
from numerics._dop853_plan import Plan  # noqa: E402
from numerics.field import attention_field  # noqa: E402
from theorems.system_build import simple_system  # noqa: E402

NS = [1, 3, 8, 31, 32, 33, 40, 63, 64, 65, 96]
DS = [1, 2, 3, 4, 5, 7, 8, 16]


def _ref(X, P, U, causal, scale=1.0):
    """Eq. 5 in plain numpy, max-shifted (``X`` ``(N, d)``, rows = tokens; ``P``, ``U`` ``(H, d, d)``)."""
    N = X.shape[0]
    out = np.zeros_like(X)
    for h in range(P.shape[0]):
        S = X @ P[h] @ X.T  # S[i, j] = <x_i, P x_j>
        if causal:
            S = np.where(np.tril(np.ones((N, N), bool)), S, -np.inf)
        E = np.exp(S - S.max(axis=1, keepdims=True))
        out += (E @ (X if U is None else X @ U[h].T)) / E.sum(axis=1, keepdims=True)
    return scale * (out - X * np.sum(X * out, axis=1, keepdims=True))


def _dense(Xt, P, U, has_U, causal, stabilize, scale=1.0, tiled=False):
    """The compiled field through the cached entry point, contiguous operands, scratch full of NaN."""
    d, N = Xt.shape
    K, R, S, v, A = nb.workspace(N, d, tiled)
    R[...], S[...], v[...], A[...], out = np.nan, np.nan, np.nan, np.nan, np.full((d, N), np.nan)
    Uc = np.ascontiguousarray(U) if has_U else np.zeros((1, d, d))
    nb.field(np.ascontiguousarray(Xt), np.ascontiguousarray(P), Uc, has_U, causal, stabilize, tiled, scale, out,
             R[0], S, R[1], v[0], v[1], A)
    return out


def _tokens(rng, N, d):
    return (lambda X: X / np.linalg.norm(X, axis=1, keepdims=True))(rng.standard_normal((N, d)))


def _spectral(rng, H, d, norm):
    """``H`` random matrices of spectral norm ``norm`` (scores up to ``norm`` on the sphere)."""
    Q = rng.standard_normal((H, d, d))
    return norm * Q / np.linalg.norm(Q, ord=2, axis=(1, 2))[:, None, None]


@pytest.mark.parametrize("N", NS)
def test_dense_field_matches_numpy_around_the_blocks(N):
    """Every ``d``, one or two heads, with and without ``U``, both masks, and the max-shift at
    ``|beta P| = 500`` (scores up to 500): within round-off of plain numpy."""
    checked = 0
    for d in DS:
        rng = np.random.default_rng(100 * N + d)
        X = _tokens(rng, N, d)
        for H in (1, 2):
            U = rng.standard_normal((H, d, d))
            for stab, norm in ((False, 1.5), (True, 500.0)):
                P = _spectral(rng, H, d, norm)
                for Uk in (None, U):
                    for causal in (False, True):
                        got = _dense(X.T, P, Uk, Uk is not None, causal, stab, 0.5).T
                        want = _ref(X, P, Uk, causal, 0.5)
                        assert np.all(np.isfinite(got)), (d, H, stab, causal)
                        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12 * (1 + np.max(np.abs(want))),
                                                   err_msg=f"N={N} d={d} H={H} U={Uk is not None} {causal} {stab}")
                        checked += 1
    assert checked == len(DS) * 16


def _padded(shape, contiguous_last):
    return np.full((shape[0], shape[1] + 3), np.nan)[:, :shape[1]] if contiguous_last else \
        np.full((shape[0], 2 * shape[1]), np.nan)[:, ::2]


LAYOUTS = [(0, 0, 0, 0, 0), (1, 1, 1, 1, 1), (2, 0, 0, 0, 1), (0, 1, 0, 1, 0), (2, 1, 1, 0, 0), (1, 0, 1, 0, 1)]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_strided_and_transposed_operands_give_the_contiguous_bits(layout):
    """``field_into`` on views (one signature, all layout 'A'): ``X`` row-padded, strided or the
    transposed view of an ``(N, d + 1)`` array; ``out``, ``Y``, ``V``, ``S`` row-padded (vectors) or
    strided (loops); ``z``, ``m`` strided; ``P`` Fortran-like.  The contiguous kernel's bits."""
    fx, fo, fy, fv, fs = layout
    rng = np.random.default_rng(sum(layout) + 7 * fx)
    for N, d, H in [(32, 4, 1), (64, 8, 2), (33, 5, 2), (96, 16, 1), (31, 3, 3), (8, 2, 1)]:
        X = _tokens(rng, N, d)
        U = rng.standard_normal((H, d, d))
        for causal, stab, norm in ((False, False, 2.0), (True, False, 2.0), (False, True, 300.0), (True, True, 300.0)):
            P = _spectral(rng, H, d, norm)
            for has_U in (False, True):
                Xt = np.full((N, d + 1), np.nan)[:, :d].T if fx == 2 else _padded((d, N), fx == 0)
                Xt[...] = X.T
                out, Y, V, S = (_padded(sh, f == 0) for sh, f in zip([(d, N)] * 3 + [(N, N)], (fo, fy, fv, fs)))
                z, m = np.full(2 * N, np.nan)[::2], np.full(2 * N, np.nan)[::2]
                Pa, Ua = np.asfortranarray(np.full((H, d + 1, d), 0.0))[:, :d], np.full((H, d, d + 2), 0.0)[..., :d]
                Pa[...], Ua[...] = P, U
                F.field_into(Xt, Pa, Ua, has_U, causal, stab, 0.75, out, Y, S, V, z, m)
                want = _dense(X.T, P, U, has_U, causal, stab, 0.75)
                assert np.array_equal(out, want), (N, d, H, causal, stab, has_U)
                np.testing.assert_allclose(out.T, _ref(X, P, U if has_U else None, causal, 0.75), rtol=0, atol=1e-12)


@pytest.mark.parametrize("where", ["X", "P", "U"])
@pytest.mark.parametrize("N", [32, 33])
def test_nan_inputs_give_nan_where_numpy_does(where, N):
    """One NaN in ``X``, ``P`` or ``U``: NaN exactly where the numpy kernel has NaN, equal elsewhere."""
    d, rng = 4, np.random.default_rng(N)
    X, P, U = _tokens(rng, N, d), _spectral(rng, 1, d, 2.0), rng.standard_normal((1, d, d))
    {"X": X, "P": P[0], "U": U[0]}[where][N // 2 if where == "X" else 1, 2] = np.nan
    for causal in (False, True):
        for stab in (False, True):
            got = _dense(X.T, P, U, True, causal, stab).T
            with np.errstate(invalid="ignore"):
                want = attention_field(X[None], P[None], U[None], None, causal, stab)[0]
            assert np.isnan(want).any()
            assert np.array_equal(np.isnan(got), np.isnan(want)), (causal, stab)
            np.testing.assert_allclose(got[~np.isnan(want)], want[~np.isnan(want)], rtol=0, atol=1e-13)


def test_exponential_clamps_infinities_and_keeps_nan():
    """Documents the exponential of the softmax, on the vector lanes and the scalar tail alike:
    NaN stays NaN, ``exp(+inf)`` is ``exp(709)`` (finite), ``exp(-inf)`` is ``exp(-708)`` (not 0)."""
    for n in (32, 40, 7):
        S, z = np.zeros((4, n)), np.empty(n)
        S[1, ::3], S[2, 1::3], S[0, 2::5], S[3] = np.nan, np.inf, -np.inf, 709.0
        F._softmax_weights(S, np.zeros(n), False, False, z)
        assert np.isnan(S[1, ::3]).all() and np.isnan(z[::3]).all()
        assert np.all(S[2, 1::3] == S[3, 1::3]) and np.isfinite(S[2, 1::3]).all()
        assert np.all(S[0, 2::5] == S[0, 2]) and abs(S[0, 2] / np.exp(-708.0) - 1) < 3e-16
        assert abs(S[3, 0] / np.exp(709.0) - 1) < 3e-16 and S[0, 1] == 1.0  # exp(0) exactly


@pytest.mark.xfail(strict=True, reason="exp clamps +inf (and scores > 709) to exp(709) when the field is not "
                   "max-shifted: field_into returns finite, wrong weights where numpy returns NaN (private API: "
                   "public systems reject non-finite P and shift any |beta P|_F > 200)")
@pytest.mark.parametrize("case", ["inf-in-P", "scores-above-709"])
def test_unshifted_overflow_is_not_silently_finite(case):
    """Causal; token 1 sees two keys, both scores +inf (or > 709): weighted 1/2 each, numpy NaN."""
    X = np.array([[1.0, 0.0], [0.6, 0.8]])
    P = np.array([[[np.inf, 0.0], [0.0, 0.0]]]) if case == "inf-in-P" else np.array([[[2000.0, 0.0], [0.0, 0.0]]])
    got = _dense(X.T, P, None, False, True, False).T
    with np.errstate(all="ignore"):
        want = attention_field(X[None], P[None], None, None, True, False)[0]
    assert not np.isfinite(want[1]).any()
    assert not (np.isfinite(got) & ~np.isfinite(want)).any(), got


@pytest.mark.parametrize("init", [True, False])
def test_matmul_n_writes_only_its_range(init):
    """``_matmul_n`` on the leading ``r`` rows, ``k`` terms, ``n`` columns of larger arrays: nothing else written."""
    rng = np.random.default_rng(3)
    for r, k, n in [(7, 5, 65), (4, 16, 32), (13, 3, 40), (1, 1, 1), (8, 17, 31)]:
        M, X = rng.standard_normal((r + 3, k + 2)), rng.standard_normal((k + 2, n + 40))
        out = rng.standard_normal((r + 3, n + 40))
        before = out.copy()
        Pn._matmul_n(M, X, out, r, k, n, init)
        want = M[:r, :k] @ X[:k, :n] + (0 if init else before[:r, :n])
        np.testing.assert_allclose(out[:r, :n], want, rtol=0, atol=1e-13)
        out[:r, :n] = before[:r, :n]
        assert np.array_equal(out, before)


def test_step_helpers_vector_blocks_and_loops_agree():
    """``_combine``, ``_error_norm``, ``_renormalize`` at ``N = 69``: vectors+tail vs loops, same bits."""
    rng, d, N = np.random.default_rng(9), 5, 69
    n = d * N
    K, base = rng.standard_normal((12, n)), rng.standard_normal(n)
    coef, rows = np.array([0.3, -1.25, 2.0]), np.array([0, 5, 11])
    for has_base in (True, False):
        fast, slow = np.empty(n), np.full(2 * n, np.nan)[::2]
        nb._combine(fast, base, has_base, K, coef, rows, 3)
        nb._combine(slow, base, has_base, K, coef, rows, 3)
        assert np.array_equal(fast, slow)
        np.testing.assert_allclose(fast, (base if has_base else 0.0) + coef @ K[rows], rtol=0, atol=1e-14)
    x, xn = rng.standard_normal((d, N)), rng.standard_normal((d, N))
    e5, e3 = 1e-6 * rng.standard_normal((d, N)), 1e-5 * rng.standard_normal((d, N))
    a = nb._error_norm(x, xn, e5, e3, 1e-8, 1e-10, np.empty((3, N)))
    b = nb._error_norm(x, xn, e5, e3, 1e-8, 1e-10, np.full((3, 2 * N), np.nan)[:, ::2])
    assert a == b and a[0] > 1.0
    w = 1e-10 + 1e-8 * np.maximum(np.abs(x), np.abs(xn))
    t5, t3 = np.sum((e5 / w) ** 2), np.sum((e3 / w) ** 2)
    assert a[0] == pytest.approx(t5 / np.sqrt((t5 + 0.01 * t3) * n), rel=1e-13)
    Xa, Xb = np.empty((d, N)), np.full((d, 2 * N), np.nan)[:, ::2]
    nb._renormalize(Xa, xn, np.empty(N)), nb._renormalize(Xb, xn, np.empty(N))
    assert np.array_equal(Xa, Xb)
    np.testing.assert_allclose(Xa, xn / np.linalg.norm(xn, axis=0), rtol=0, atol=4e-16)


@pytest.mark.parametrize("N", [4, 64])
def test_error_norm_rejects_a_nan_estimate(N):
    e5, e3, x = np.full((3, N), 1e-3), np.full((3, N), 1e-3), np.full((3, N), 3 ** -0.5)
    e5[0, N - 1] = np.nan
    norm, _ = nb._error_norm(x, x.copy(), e5, e3, 1e-8, 1e-10, np.empty((3, N)))
    assert not norm < 1.0, norm  # NaN or large: the step must be rejected


def _heads(seed, N, d, H, mask, with_U, norm):
    rng = np.random.default_rng(seed)
    P = [(4 * p).tolist() for p in _spectral(rng, H, d, norm)]  # beta = 1/4
    U = [rng.standard_normal((d, d)).tolist() for _ in range(H)] if with_U else "identity"
    return simple_system(P, U, _tokens(rng, N, d).tolist(), beta="1/4", mask=mask)


CASES = {  # name: (N, d, H, mask, U, |beta P|, B, t_end, workers)
    "N33-d5-causal-U": (33, 5, 1, "causal", True, 1.5, 2, 1.5, 1),
    "N32-d4-full-2heads": (32, 4, 2, "full", False, 1.5, 3, 1.5, 2),
    "N31-d3-causal-2heads-U": (31, 3, 2, "causal", True, 1.5, 2, 1.5, 1),
    "N64-d8-full-U": (64, 8, 1, "full", True, 1.0, 2, 1.0, 2),
    "N65-d2-causal-shift": (65, 2, 1, "causal", False, 400.0, 1, 0.02, 1),
    "N96-d16-full-shift-U": (96, 16, 1, "full", True, 250.0, 1, 0.02, 1),
    "N40-d7-full-3heads": (40, 7, 3, "full", False, 1.0, 2, 1.0, 1),
    "N8-d1-causal": (8, 1, 1, "causal", False, 1.0, 2, 1.0, 1),
    "N3-d16-full-U": (3, 16, 2, "full", True, 2.0, 4, 1.5, 3),
}


@pytest.mark.parametrize("name", list(CASES))
def test_compiled_loop_matches_numpy_loop(name):
    N, d, H, mask, with_U, norm, B, t_end, workers = CASES[name]
    systems = [_heads(1000 * k + N + d, N, d, H, mask, with_U, norm) for k in range(B)]
    ref = DOP853(rtol=1e-8, atol=1e-10, kernel="numpy").integrate(systems, t_end, samples=3)
    got = DOP853(rtol=1e-8, atol=1e-10, kernel="compiled", workers=workers).integrate(systems, t_end, samples=3)
    assert got.precision.backend == "numba" and ref.status is got.status is RunStatus.SUCCESS
    assert (got.stats.steps, got.stats.rejected, got.stats.evaluations) == \
        (ref.stats.steps, ref.stats.rejected, ref.stats.evaluations)
    np.testing.assert_allclose(got.states, ref.states, rtol=0, atol=1e-12)
    assert d == 1 or np.max(np.abs(ref.final - ref.states[0])) > 1e-4  # d = 1: the field vanishes


@pytest.mark.parametrize("kernel", ["compiled", "numpy"])
def test_loose_tolerance_never_reports_success_with_nan(kernel):
    s = build_system(3, 8, 3, U="random", scale=1.0)  # |beta P|_F = 2.6: no shift
    with np.errstate(all="ignore"):
        run = DOP853(rtol=1e-3, atol=1e-3, kernel=kernel).integrate(s, 20.0, samples=3)
    assert run.status is not RunStatus.SUCCESS or np.all(np.isfinite(run.states))


EDGES = [(dict(max_steps=3), dict(t_end=2.0, samples=5)), (dict(first_step=1e-13), dict(t_end=1.0, samples=3)),
         (dict(rtol=1e-14, atol=1e-14), dict(t_end=0.3, samples=2)), (dict(), dict(t_end=5e-15, samples=2)),
         (dict(), dict(t_end=2.0, samples=None, t_eval=[0.0, 1e-9, 0.5, 0.5000001, 2.0]))]


@pytest.mark.parametrize("opts, grid", EDGES, ids=["max-steps", "tiny-first-step", "rtol-1e-14", "t-end-5e-15",
                                                   "close-samples"])
def test_edge_options_take_the_numpy_steps(opts, grid):
    """Step budget, tiny first step, tightest tolerance, a span below round-off, near-equal samples."""
    systems = [build_system(k, 33, 5, mask="causal", U="random", scale=2.0) for k in range(2)]
    ref = DOP853(kernel="numpy", **opts).integrate(systems, **grid)
    got = DOP853(kernel="compiled", **opts).integrate(systems, **grid)
    assert got.status is ref.status and np.array_equal(got.times, ref.times)
    assert (got.stats.steps, got.stats.rejected, got.stats.evaluations) == \
        (ref.stats.steps, ref.stats.rejected, ref.stats.evaluations)
    np.testing.assert_allclose(got.states, ref.states, rtol=0, atol=1e-12)


def test_threads_and_progress_give_the_same_bits():
    """Eight threads on one integrator (own plans, workspaces) and a progress run: the plain bits."""
    from concurrent.futures import ThreadPoolExecutor

    systems = [build_system(10 + k, 40, 4, U="random", scale=0.6) for k in range(3)]
    run = DOP853(rtol=1e-8, atol=1e-10, kernel="compiled")
    want = run.integrate(systems, 1.0, samples=3)
    seen: list = []
    runs = [run.integrate(systems, 1.0, samples=3, progress=lambda f, *a: seen.append(f))]
    with ThreadPoolExecutor(4) as pool:
        runs += list(pool.map(lambda _: run.integrate(systems, 1.0, samples=3), range(8)))
    assert all(np.array_equal(r.states, want.states) for r in runs)
    assert seen and seen == sorted(seen) and seen[-1] == 1.0


def test_batch_members_do_not_leak_into_each_other():
    """``[A, B]``, ``[B, A]``, ``[B]`` and a two-worker ``[A, B, A, B]``: ``B``'s bits are the same
    (own ``P``, ``U`` identity against ``A``'s random ``U``, one workspace for all)."""
    A, B = build_system(1, 33, 5, U="random", scale=0.5), build_system(2, 33, 5, scale=0.7)
    run = DOP853(rtol=1e-8, atol=1e-10, kernel="compiled")
    alone = run.integrate([B], 1.5, samples=3)
    for batch, k in (([A, B], 1), ([B, A], 0)):
        got = run.integrate(batch, 1.5, samples=3)
        assert np.array_equal(got.states[:, k], alone.states[:, 0])
    four = DOP853(rtol=1e-8, atol=1e-10, kernel="compiled", workers=2).integrate([A, B, A, B], 1.5, samples=3)
    assert all(np.array_equal(four.states[:, k], alone.states[:, 0]) for k in (1, 3))
    assert np.array_equal(four.states[:, 0], four.states[:, 2]) and four.stats.workers == 2
    assert np.max(np.abs(alone.final - alone.states[0])) > 1e-3


@pytest.mark.xfail(strict=True, reason="the max-shift flag is batch-wide (|beta P|_F > 200 for any member): a "
                   "batch-mate that needs it changes B's bits (round-off only, numpy loop too)")
def test_a_batch_mate_needing_the_shift_leaves_b_alone():
    C, B = build_system(3, 33, 5, scale=100.0), build_system(2, 33, 5, scale=0.7)
    run = DOP853(rtol=1e-8, atol=1e-10, kernel="compiled")
    both, alone = run.integrate([C, B], 0.5, samples=3), run.integrate([B], 0.5, samples=3)
    np.testing.assert_allclose(both.states[:, 1], alone.states[:, 0], rtol=0, atol=1e-13)  # round-off holds
    assert np.array_equal(both.states[:, 1], alone.states[:, 0])


def test_repeated_calls_reuse_workspaces_without_state():
    """Cached plans and workspaces: the same bits on every call, between other shapes, and fresh."""
    first = [build_system(4, 33, 5, mask="causal", U="random", scale=0.8)]
    other = [build_system(5, 64, 8, scale=0.4), build_system(6, 64, 8, scale=0.5)]
    run = DOP853(rtol=1e-8, atol=1e-10, kernel="compiled")
    a, o, b, o2 = (run.integrate(s, 1.0, samples=3) for s in (first, other, first, other))
    c = DOP853(rtol=1e-8, atol=1e-10, kernel="compiled").integrate(first, 1.0, samples=3)
    for x, y in ((a, b), (a, c), (o, o2)):
        assert np.array_equal(x.states, y.states) and x.stats.evaluations == y.stats.evaluations
    assert np.max(np.abs(a.final - a.states[0])) > 1e-3


def test_borrowed_arrays_keep_refcounts_and_free_everything():
    """After many calls: every argument's refcount unchanged, NRT frees all it allocates, no growth."""
    from numba.core.runtime import _nrt_python as nrt

    systems = tuple(build_system(k, 9, 3, U="random", scale=0.5) for k in range(3))
    plan = Plan(systems, None, 1.0, 3, None, "compiled", 1)
    inp, work = plan.inputs, plan.workspace(0)
    X, samples, counts, local = plan.X0.copy(), np.empty((3, 3, 9, 3)), np.zeros((3, nb.COUNTS), np.int64), np.zeros(3)
    arrays = [X, inp.P, inp.U, inp.stops, inp.is_sample, inp.slot, samples, counts, local, *work]

    def call():
        X[...] = plan.X0
        nb.integrate_batch(X, inp.P, inp.U, inp.has_U, inp.causal, inp.stabilize, inp.tiled, inp.stops,
                           inp.is_sample, inp.slot, 1e-8, 1e-10, 10 ** 6, 0.0, samples, counts, local, *work)

    call()
    refs = [sys.getrefcount(a) for a in arrays]
    was = nrt.memsys_stats_enabled()
    nrt.memsys_enable_stats()
    try:
        a0, f0 = nrt.memsys_get_stats_alloc(), nrt.memsys_get_stats_free()
        for _ in range(200):
            call()
        a1, f1 = nrt.memsys_get_stats_alloc(), nrt.memsys_get_stats_free()
    finally:
        if not was:
            nrt.memsys_disable_stats()
    assert [sys.getrefcount(a) for a in arrays] == refs
    assert a1 - a0 == f1 - f0
    assert np.all(counts[:, 3] == 0) and np.all(counts[:, 2] > 2)
    run = DOP853(rtol=1e-8, atol=1e-10, kernel="compiled")
    run.integrate(list(systems), 1.0, samples=3)
    before = [sys.getrefcount(systems[0]), sys.getrefcount(systems[0].tokens)]
    tracemalloc.start()
    try:
        used = []
        for reps in (20, 150):
            for _ in range(reps):
                run.integrate(list(systems), 1.0, samples=3)
            gc.collect()
            used.append(tracemalloc.get_traced_memory()[0])
    finally:
        tracemalloc.stop()
    m0, m1 = used
    assert [sys.getrefcount(systems[0]), sys.getrefcount(systems[0].tokens)] == before
    assert m1 - m0 < 32 * 1024, m1 - m0


@pytest.mark.parametrize("N, d, H", [(512, 1, 1), (512, 4, 2), (545, 3, 2), (600, 16, 1)])
def test_tiled_field_beyond_the_threshold(N, d, H):
    """Tiled against whole-matrix (same bits unshifted) and numpy; masks, ``U``, ``|beta P| = 300``."""
    rng = np.random.default_rng(N + d)
    X, U = _tokens(rng, N, d), rng.standard_normal((H, d, d))
    assert N >= compiled.TILED_MIN_N
    for stab, norm in ((False, 1.0), (True, 300.0)):
        P = _spectral(rng, H, d, norm)
        for Uk in (None, U):
            for causal in (False, True):
                tiled = _dense(X.T, P, Uk, Uk is not None, causal, stab, 0.5, tiled=True)
                whole = _dense(X.T, P, Uk, Uk is not None, causal, stab, 0.5)
                assert np.all(np.isfinite(tiled)) and (stab or np.array_equal(tiled, whole))
                np.testing.assert_allclose(tiled.T, _ref(X, P, Uk, causal, 0.5), rtol=0, atol=1e-12)


def test_tiled_step_loop_at_the_real_threshold():
    systems = [build_system(5, compiled.TILED_MIN_N + 8, 3, mask="causal", U="random", scale=0.5)]
    ref = DOP853(rtol=1e-8, atol=1e-10, kernel="numpy").integrate(systems, 0.5, samples=2)
    got = DOP853(rtol=1e-8, atol=1e-10, kernel="compiled").integrate(systems, 0.5, samples=2)
    assert got.stats.evaluations == ref.stats.evaluations and got.status is RunStatus.SUCCESS
    np.testing.assert_allclose(got.states, ref.states, rtol=0, atol=1e-12)
    assert np.max(np.abs(ref.final - ref.states[0])) > 1e-2
