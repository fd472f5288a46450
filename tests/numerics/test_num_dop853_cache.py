"""DOP853's plan cache: a repeated run reuses its set-up and gives the bits of a fresh run; other
systems, grids or options never hit another run's plan; threads never share a workspace."""
from __future__ import annotations

import dataclasses
import pickle
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from numerics import DOP853
from numerics import _dop853_plan as plan_module

KERNELS = ["numpy", pytest.param("compiled", marks=pytest.mark.skipif(
    not __import__("numerics._dop853_compiled", fromlist=["x"]).numba_installed(), reason="numba not installed"))]


def _same(a, b) -> None:
    np.testing.assert_array_equal(a.states, b.states)
    np.testing.assert_array_equal(a.times, b.times)
    assert (a.stats.steps, a.stats.rejected, a.stats.evaluations) == (b.stats.steps, b.stats.rejected, b.stats.evaluations)
    assert a.error_estimate == b.error_estimate and a.status is b.status and a.precision == b.precision


@pytest.mark.parametrize("kernel", KERNELS)
def test_cached_runs_are_bit_identical_to_fresh_ones(make_system, kernel):
    systems = [make_system(k, 8, 3, mask="causal", U="random") for k in range(3)]
    run = DOP853(rtol=1e-9, atol=1e-11, kernel=kernel)
    first = run.integrate(systems, 3.0, samples=5)
    plan = run._plans._plans[next(iter(run._plans._plans))]
    again = run.integrate(list(systems), 3.0, samples=5)  # a new list of the same objects hits the cache
    assert len(run._plans) == 1 and run._plans._plans[plan.key] is plan
    fresh = DOP853(rtol=1e-9, atol=1e-11, kernel=kernel).integrate(systems, 3.0, samples=5)
    _same(first, again)
    _same(first, fresh)
    assert first.states is not again.states  # results are never a shared buffer
    assert np.max(np.abs(first.final - first.states[0])) > 1e-3


def test_other_systems_grids_and_options_do_not_reuse_a_plan(make_system):
    a, b = make_system(1, 6, 3), make_system(2, 6, 3)
    run = DOP853(kernel="numpy")
    ra = run.integrate(a, 2.0, samples=3)
    rb = run.integrate(b, 2.0, samples=3)
    assert not np.array_equal(ra.states, rb.states)
    _same(rb, DOP853(kernel="numpy").integrate(b, 2.0, samples=3))
    rt = run.integrate(a, 2.0, t_eval=[0.5, 1.0])
    assert list(rt.times) == [0.0, 0.5, 1.0, 2.0] and len(run._plans) == 3
    run.integrate(a, 1.0, samples=3)
    assert len(run._plans) == 4
    for k in range(plan_module.CACHE_SIZE + 2):
        run.integrate(a, 1.0 + k, samples=2)
    assert len(run._plans) == plan_module.CACHE_SIZE


def test_the_cache_is_invisible_to_equality_copies_and_pickles(make_system):
    run = DOP853(rtol=1e-8)
    run.integrate(make_system(3, 5, 3), 1.0, samples=2)
    assert run == DOP853(rtol=1e-8) and hash(run) == hash(DOP853(rtol=1e-8)) and "_plans" not in repr(run)
    assert len(pickle.loads(pickle.dumps(run))._plans) == 0
    assert len(dataclasses.replace(run, rtol=1e-9)._plans) == 0


@pytest.mark.parametrize("kernel", KERNELS)
def test_threads_sharing_an_integrator_get_the_serial_result(make_system, kernel):
    systems = [make_system(10 + k, 9, 4, U="symmetric") for k in range(2)]
    run = DOP853(rtol=1e-9, atol=1e-11, kernel=kernel)
    ref = run.integrate(systems, 2.0, samples=3)
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda _: run.integrate(systems, 2.0, samples=3), range(8)))
    for g in got:
        _same(g, ref)
    assert 1 <= len(run._plans) <= plan_module.CACHE_SIZE
