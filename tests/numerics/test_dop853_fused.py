"""The fused compiled DOP853 loop (:mod:`numerics._dop853_numba`): its pieces against numpy, and whole
runs against the pure-numpy step loop on the instance kinds the batch path supports."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba", reason="numba not installed: the compiled DOP853 path is not available")

from numerics import DOP853, RunStatus  # noqa: E402
from numerics import _dop853_compiled as compiled  # noqa: E402
from numerics import _dop853_core as core  # noqa: E402
from numerics import _dop853_numba as nb  # noqa: E402
from numerics import _field_numba as fnb  # noqa: E402
from numerics import _products_numba as products  # noqa: E402
from numerics.field import attention_field  # noqa: E402
from theorems.system_json import system_from_dict  # noqa: E402


def _heads_system(seed: int, N: int, d: int, H: int, mask: str, U: str, scale: float = 0.8):
    """``H`` heads, each with its own random ``P`` and an identity, symmetric or random ``U``."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((N, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    heads = []
    for _ in range(H):
        A = rng.standard_normal((d, d))
        Um = {"identity": np.eye(d), "symmetric": (A + A.T) / 2, "random": A}[U]
        heads.append({"P": (scale * rng.standard_normal((d, d))).tolist(), "U": Um.tolist()})
    return system_from_dict({"name": f"heads-{seed}", "d": d, "beta": 1, "mask": mask, "heads": heads,
                             "tokens": X.tolist()})


def _kinds(build):
    """Instance kinds of the batch path: masks, heads, U, the stabilised softmax, batches with their
    own matrices, and shapes off the kernel's blocks (``N`` not a multiple of 8, ``d`` of 1-17)."""
    return {
        "full-identity-N33-d17": [build(0, 33, 17, scale=0.3)],
        "causal-random-U": [build(1, 12, 5, mask="causal", U="random")],
        "causal-stabilised": [build(2, 10, 3, mask="causal", scale=90.0)],
        "full-symmetric-U-own-P": [build(3 + k, 9, 8, U="symmetric", scale=0.4 + 0.1 * k) for k in range(3)],
        "two-heads-causal": [_heads_system(4, 11, 4, 2, "causal", "random")],
        "three-heads-full-symmetric": [_heads_system(5, 16, 9, 3, "full", "symmetric", scale=0.5)],
        "d2-full": [build(6 + k, 20, 2) for k in range(2)],
    }


KINDS = list(_kinds(lambda *a, **k: None))


@pytest.mark.parametrize("kind", KINDS)
def test_fused_loop_takes_the_numpy_steps_and_agrees_to_1e_12(make_system, kind):
    systems = _kinds(make_system)[kind]
    ref = DOP853(rtol=1e-9, atol=1e-11, kernel="numpy").integrate(systems, 4.0, samples=9)
    fast = DOP853(rtol=1e-9, atol=1e-11, kernel="compiled").integrate(systems, 4.0, samples=9)
    assert (ref.precision.backend, fast.precision.backend) == ("numpy", "numba")
    assert ref.status is fast.status is RunStatus.SUCCESS
    assert (fast.stats.steps, fast.stats.rejected, fast.stats.evaluations) == \
        (ref.stats.steps, ref.stats.rejected, ref.stats.evaluations)
    np.testing.assert_array_equal(fast.times, ref.times)
    np.testing.assert_allclose(fast.states, ref.states, rtol=0, atol=1e-12)
    assert np.max(np.abs(ref.final - ref.states[0])) > 1e-3  # the run moved: the comparison checked something
    assert fast.error_estimate == pytest.approx(ref.error_estimate, rel=1e-2)


def test_row_ranges_and_sample_chunks_change_nothing(make_system, monkeypatch):
    """Parts of a batch with per-instance matrices (row slices of the whole batch's ``P`` and ``U``),
    and a samples buffer small enough to cut every part into chunks of instances: bit for bit."""
    systems = [make_system(20 + k, 7, 5, U="random", scale=0.5 + 0.1 * k) for k in range(7)]
    whole = DOP853(kernel="compiled", workers=1).integrate(systems, 3.0, samples=6)
    split = DOP853(kernel="compiled", workers=3).integrate(systems, 3.0, samples=6)
    monkeypatch.setattr(compiled, "_SAMPLE_BUDGET", 6 * 7 * 5 * 2)  # two instances per kernel call
    chunked = DOP853(kernel="compiled", workers=2).integrate(systems, 3.0, samples=6)
    ref = DOP853(kernel="numpy", workers=1).integrate(systems, 3.0, samples=6)
    for got in (split, chunked):
        np.testing.assert_array_equal(got.states, whole.states)
        assert (got.stats.steps, got.stats.evaluations) == (whole.stats.steps, whole.stats.evaluations)
    np.testing.assert_allclose(whole.states, ref.states, rtol=0, atol=1e-12)
    assert split.stats.workers == 3 and np.max(np.abs(whole.final - whole.states[0])) > 1e-3


def test_given_first_step_and_step_limit(make_system):
    s = make_system(30, 8, 4, U="symmetric")
    ref = DOP853(kernel="numpy", first_step=1e-3).integrate(s, 2.0, samples=3)
    fast = DOP853(kernel="compiled", first_step=1e-3).integrate(s, 2.0, samples=3)
    assert fast.stats.steps == ref.stats.steps
    np.testing.assert_allclose(fast.states, ref.states, rtol=0, atol=1e-12)
    short = DOP853(kernel="compiled", first_step=1e-3, max_steps=2).integrate(s, 2.0, samples=3)
    assert short.status is RunStatus.MAX_STEPS and short.stats.steps + short.stats.rejected == 2


def _transposed_field(X, P, U, causal, stabilize, scale):
    """The compiled field of one instance (``X`` ``(N, d)``), in the caller's layout."""
    d, N = X.shape[1], X.shape[0]
    has_U = U is not None
    Uc = np.ascontiguousarray(U) if has_U else np.zeros((1, d, d))
    Xt = np.ascontiguousarray(X.T)
    out, Y, V, S, z, m = (np.empty((d, N)), np.empty((d, N)), np.empty((d, N)), np.empty((N, N)), np.empty(N),
                          np.empty(N))
    nb.field_into(Xt, np.ascontiguousarray(P), Uc, has_U, causal, stabilize, scale, out, Y, S, V, z, m)
    return out.T


@pytest.mark.parametrize("N, d, H", [(1, 3, 1), (7, 1, 1), (9, 4, 2), (13, 8, 1), (24, 12, 3), (17, 17, 1)])
@pytest.mark.parametrize("causal", [False, True])
def test_compiled_field_equals_the_numpy_field(N, d, H, causal):
    rng = np.random.default_rng(N * 100 + d * 10 + H)
    X = rng.standard_normal((N, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    P = rng.standard_normal((H, d, d))
    U = rng.standard_normal((H, d, d))
    for Uk in (None, U):
        for stabilize, s in ((False, 1.0), (True, 60.0)):  # beta |P| large enough to need the max-shift
            ref = attention_field(X[None], s * P[None], None if Uk is None else Uk[None], None, causal, stabilize)[0]
            got = _transposed_field(X, s * P, Uk, causal, stabilize, 0.5)
            np.testing.assert_allclose(got, 0.5 * ref, rtol=0, atol=1e-13 * (1 + np.max(np.abs(ref))))
            assert np.all(np.isfinite(got))


def test_softmax_weights_are_exp_to_one_ulp_and_zero_outside_the_mask():
    rng = np.random.default_rng(7)
    v = np.concatenate([rng.uniform(-708, 709, 20000), rng.uniform(-1, 1, 20000),
                        [-708.0, 709.0, 0.0, np.log(2) / 2, -np.log(2) / 2, 1e-300]])
    v = np.concatenate([v, np.zeros(-v.size % 100)]).reshape(-1, 100)
    S, z = v.copy(), np.empty(100)
    fnb._softmax_weights(S, np.zeros(100), False, False, z)
    ref = np.exp(v)
    ulp = np.abs(S - ref) / np.spacing(ref)
    assert ulp.max() <= 1.0 and ulp.size == v.size
    np.testing.assert_allclose(z, ref.sum(axis=0), rtol=1e-14, atol=0)
    scores = rng.uniform(-3, 900, (8, 8))  # beyond exp's range once shifted: masked or not, never inf
    shift = np.array([max(scores[j, i] for j in range(i + 1)) for i in range(8)])  # over the keys j <= i
    S = scores.copy()
    fnb._softmax_weights(S, shift, True, True, z)
    keys = np.tril(np.ones((8, 8), dtype=bool)).T  # S[j, i] with j <= i
    assert np.all(S[~keys] == 0.0) and np.all(S[keys] > 0)
    clamped = np.maximum(scores - shift[None, :], -708.0)  # the documented clamp below exp's range
    np.testing.assert_allclose(S[keys], np.exp(clamped[keys]), rtol=3e-16, atol=0)
    assert np.max(S) == 1.0  # the shifted maximum of each column


@pytest.mark.parametrize("r, k, N", [(1, 1, 1), (3, 5, 7), (16, 16, 32), (5, 9, 3), (32, 17, 33), (2, 12, 64)])
def test_matmul_blocks_give_the_product(r, k, N):
    rng = np.random.default_rng(r + 10 * k + 100 * N)
    M, X = rng.standard_normal((r, k)), rng.standard_normal((k, N))
    for Mk in (M, np.asfortranarray(M)):  # the field passes a transposed (F-ordered) view
        out = np.full((r, N), np.nan)
        products._matmul(Mk, X, out)
        np.testing.assert_allclose(out, M @ X, rtol=0, atol=1e-14 * k * np.max(np.abs(M)) * np.max(np.abs(X)))


def test_error_norm_equals_the_numpy_reference():
    rng = np.random.default_rng(11)
    d, N = 6, 10
    x, xn = rng.standard_normal((d, N)), rng.standard_normal((d, N))
    e5, e3 = 1e-7 * rng.standard_normal((d, N)), 1e-6 * rng.standard_normal((d, N))
    e5[0, 0] = e3[0, 0] = 0.0  # both estimates vanish: the size skips 0/0
    R = np.stack([xn.T.ravel(), e5.T.ravel(), e3.T.ravel()])  # the numpy loop's (N, d) order
    norm_ref, size_ref = core._error_norm(x.T.ravel(), R, np.empty((2, d * N)), 1, d * N, 1e-8, 1e-10)
    norm, size = nb._error_norm(x, xn, e5.copy(), e3.copy(), 1e-8, 1e-10, np.empty((3, N)))
    assert norm == pytest.approx(float(norm_ref[0]), rel=1e-13, abs=0) and 0.1 < norm < 1e3
    assert size == pytest.approx(float(size_ref[0]), rel=1e-13, abs=0) and size > 0


@pytest.mark.parametrize("size", [1, 7, 8, 63, 512, 1000])
def test_workspace_is_cache_line_aligned(size):
    for _ in range(4):
        a = nb._aligned(size)
        assert a.shape == (size,) and a.ctypes.data % 64 == 0 and a.flags.c_contiguous


def test_cluster_parts_take_the_whole_batch_loop(monkeypatch):
    """``verify simulate --workers``: a part must run the step loop the serial batch runs, even when
    its own size alone would pick the other one (the loops agree to round-off only)."""
    from numerics.batch_parts import join_parts, simulate_part
    from numerics.presets import preset, with_random_tokens
    from theorems.system_json import system_to_dict

    system = preset("constant-identity-full", N=6, d=3, seed=1)
    monkeypatch.setattr(compiled, "_MIN_AUTO_WORK", 1000.0)  # B N^2 d H t_end: 1620 whole, 648 and 324 parts
    whole = DOP853(rtol=1e-9, atol=1e-11).integrate(with_random_tokens(system, 5, 7), 3.0, samples=9)
    parts = [simulate_part(system_to_dict(system), 5, 7, lo, hi, 3.0, 9, 1e-9, 1e-11)
             for lo, hi in ((0, 2), (2, 3), (3, 5))]
    assert whole.precision.backend == "numba" and {p["precision"][3] for p in parts} == {"numba"}
    np.testing.assert_array_equal(join_parts(parts, 3).states, whole.states)
