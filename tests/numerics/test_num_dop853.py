"""The batched float64 DOP853 against SciPy's, and batch/single consistency."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from numerics import DOP853, RunStatus
from numerics.field import BatchedField
from theorems.errors import InvalidInput


def _scipy(s, t_end, rtol, atol):
    F = BatchedField.of(s)
    shape = (1, s.N, s.d)
    sol = solve_ivp(lambda t, y: F(np.array([t]), y.reshape(shape)).ravel(), (0, t_end), s.tokens.ravel(),
                    method="DOP853", rtol=rtol, atol=atol)
    return sol.y[:, -1].reshape(s.N, s.d), sol.nfev


@pytest.mark.parametrize("seed", [0, 1])
def test_same_accuracy_and_work_as_scipy(make_system, seed):
    s = make_system(seed, 16, 3, scale=1.0)
    ref, _ = _scipy(s, 8.0, 1e-13, 1e-15)
    ours = DOP853(rtol=1e-9, atol=1e-11).integrate(s, 8.0, samples=2)
    theirs, nfev = _scipy(s, 8.0, 1e-9, 1e-11)
    err_ours = np.max(np.abs(ours.final[0] - ref))
    err_theirs = np.max(np.abs(theirs - ref))
    assert 1e-14 < err_ours < 1e-7 and err_theirs > 1e-14
    assert 0.1 < err_ours / err_theirs < 10
    assert 0.8 < ours.stats.evaluations / nfev < 1.25


def test_batch_equals_single_runs(make_system):
    systems = [make_system(k, 8, 4, U="random", scale=0.7 + 0.3 * k) for k in range(3)]
    batch = DOP853(rtol=1e-10, atol=1e-12).integrate(systems, 5.0, samples=6)
    for k, s in enumerate(systems):
        single = DOP853(rtol=1e-10, atol=1e-12).integrate(s, 5.0, samples=6)
        np.testing.assert_allclose(batch.states[:, k], single.states[:, 0], rtol=0, atol=1e-12)
    assert batch.states.shape == (6, 3, 8, 4)
    np.testing.assert_allclose(batch.times, np.linspace(0, 5, 6))


def test_max_steps_gives_a_status_not_an_exception(make_system):
    traj = DOP853(max_steps=3).integrate(make_system(0, 6, 3), 10.0, samples=11)
    assert traj.status is RunStatus.MAX_STEPS and not traj.ok
    assert "max_steps" in traj.status.message
    assert traj.states.shape[0] == traj.times.shape[0] < 11


def test_invalid_tolerance_names_the_argument():
    with pytest.raises(InvalidInput, match="rtol"):
        DOP853(rtol=0.0)
    with pytest.raises(InvalidInput, match="t_end"):
        DOP853().integrate(_dummy(), -1.0)


def _dummy():
    from theorems.system_build import simple_system

    return simple_system([[0, 0], [0, 0]], "identity", [[1, 0], [0, 1]])


def test_progress_callback_reaches_one(make_system):
    seen = []
    DOP853().integrate(make_system(0, 5, 3), 3.0, samples=4, progress=seen.append)
    assert seen and seen[-1] == pytest.approx(1.0, abs=1e-12) and all(0 <= v <= 1 for v in seen)
