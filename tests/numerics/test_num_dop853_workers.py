"""Splitting a DOP853 batch over worker threads changes nothing but the wall time.

Bitwise: BLAS's matrix-vector kernel rounds the entries of its remainder loop differently, so the
integrator runs every stage combination over whole blocks of 64 entries (``_dop853_core._padded``);
an instance's arithmetic then does not depend on where it sits in its sub-batch.  Without the
padding the states differed by up to 2e-14 after a few dozen steps.
"""
from __future__ import annotations

import numpy as np
import pytest

from numerics import DOP853
from numerics.field import BatchedField
from numerics.field_kernel import FieldBuffers, field_into
from numerics.presets import preset, with_random_tokens
from theorems.errors import InvalidInput


def _same_run(a, b, atol: float) -> None:
    assert a.ok and b.ok
    np.testing.assert_array_equal(a.times, b.times)
    np.testing.assert_allclose(a.states, b.states, rtol=0, atol=atol)
    assert (a.stats.steps, a.stats.rejected, a.stats.evaluations) == (b.stats.steps, b.stats.rejected, b.stats.evaluations)
    assert a.error_estimate == pytest.approx(b.error_estimate, rel=1e-12, abs=0)


@pytest.mark.parametrize("mask, U", [("full", "identity"), ("causal", "random")])
def test_split_batch_equals_single_thread_batch(make_system, mask, U):
    systems = [make_system(k, 7, 3, mask=mask, U=U, scale=0.5 + 0.2 * k) for k in range(7)]
    whole = DOP853(rtol=1e-10, atol=1e-12, workers=1).integrate(systems, 4.0, samples=5)
    for workers in (2, 3):
        split = DOP853(rtol=1e-10, atol=1e-12, workers=workers).integrate(systems, 4.0, samples=5)
        assert split.stats.workers == workers and whole.stats.workers == 1
        _same_run(whole, split, atol=0)


def test_split_batch_with_time_varying_schedule():
    systems = with_random_tokens(preset("piecewise-random-full", N=6, d=3), 4, seed=3)
    whole = DOP853(rtol=1e-9, atol=1e-11, workers=1).integrate(systems, 3.0, samples=4)
    split = DOP853(rtol=1e-9, atol=1e-11, workers=2).integrate(systems, 3.0, samples=4)
    _same_run(whole, split, atol=0)


def test_split_batch_equals_single_runs(make_system):
    systems = [make_system(10 + k, 8, 4, U="random", scale=0.6 + 0.1 * k) for k in range(5)]
    batch = DOP853(rtol=1e-10, atol=1e-12, workers=2).integrate(systems, 5.0, samples=6)
    singles = [DOP853(rtol=1e-10, atol=1e-12).integrate(s, 5.0, samples=6) for s in systems]
    for k, single in enumerate(singles):
        np.testing.assert_allclose(batch.states[:, k], single.states[:, 0], rtol=0, atol=0)
    assert batch.stats.steps == sum(s.stats.steps for s in singles)
    assert batch.error_estimate == pytest.approx(max(s.error_estimate for s in singles), rel=1e-12, abs=0)


def test_automatic_workers_only_split_large_batches(make_system):
    small = DOP853(rtol=1e-6, atol=1e-8).integrate([make_system(k, 4, 3) for k in range(3)], 1.0, samples=2)
    assert small.stats.workers == 1
    assert small.to_json()["stats"]["workers"] == 1


def test_progress_with_workers_is_monotone_and_reaches_one(make_system):
    seen = []
    systems = [make_system(k, 5, 3) for k in range(4)]
    DOP853(workers=2).integrate(systems, 3.0, samples=4, progress=seen.append)
    assert seen and seen[-1] == pytest.approx(1.0, abs=1e-12)
    assert all(0 <= a <= b <= 1 for a, b in zip(seen, seen[1:]))


@pytest.mark.parametrize("bad", [0, -1, True, 1.5])
def test_invalid_workers_names_the_argument(bad):
    with pytest.raises(InvalidInput, match="workers"):
        DOP853(workers=bad)


def test_reordered_tableau_rows_reproduce_the_tableau():
    from numerics import _dop853_core as core
    from numerics import _dop853_tableau as tab

    def unpack(coef, block, S):
        full = np.zeros(S + 1)
        full[block] = coef
        return full[core._Y], full[core._ROW]

    for s in range(1, core._S):
        y, k = unpack(core._STAGE[s], core._STAGE_ROWS[s], core._S)
        assert y == 1.0
        np.testing.assert_array_equal(k, np.concatenate([tab.A[s, :s], np.zeros(core._S - s)]))
    for row, (y0, ref) in zip(core._FINAL, [(1.0, tab.B), (0.0, tab.E5[:core._S]), (0.0, tab.E3[:core._S])]):
        y, k = unpack(row, core._FINAL_ROWS, core._S)
        assert y == y0
        np.testing.assert_array_equal(k, ref)


def test_in_place_kernel_with_scale_equals_the_field_times_scale(make_system):
    systems = [make_system(k, 6, 4, U="random", mask="causal") for k in range(3)]
    F = BatchedField.of(systems)
    X = F.initial_state()
    ref = F(np.zeros(3), X)
    h = np.array([0.5, 1.0, 2.0])
    buf = FieldBuffers(5, 6, 4)  # larger than the batch: the kernel works on leading slices
    P, U, beta, stabilize = F.matrices(np.zeros(3))
    got = field_into(X, P, U, beta, True, stabilize, np.empty_like(X), buf, h)
    np.testing.assert_allclose(got, h[:, None, None] * ref, rtol=0, atol=1e-15)
    assert np.max(np.abs(ref)) > 1e-2


def test_runs_without_threadpoolctl(make_system, monkeypatch):
    import sys

    from numerics.support import blas

    systems = [make_system(k, 5, 3) for k in range(2)]
    ref = DOP853(workers=2).integrate(systems, 1.0, samples=3)
    monkeypatch.setitem(sys.modules, "threadpoolctl", None)  # import fails as if not installed
    blas._controller.cache_clear()
    try:
        assert blas._controller() is None
        got = DOP853(workers=2).integrate(systems, 1.0, samples=3)
    finally:
        blas._controller.cache_clear()
    np.testing.assert_array_equal(got.states, ref.states)
