"""Empirical order of each fixed-step method (renormalised) within +-0.3 of theory."""
from __future__ import annotations

import numpy as np
import pytest

from numerics import DOP853, RK4, EulerRenormalized, Midpoint

CASES = [(EulerRenormalized, 1, [0.02, 0.01, 0.005, 0.0025]),
         (Midpoint, 2, [0.04, 0.02, 0.01, 0.005]),
         (RK4, 4, [0.2, 0.1, 0.05, 0.025])]


@pytest.mark.parametrize("method, order, steps", CASES, ids=[c[0].__name__ for c in CASES])
@pytest.mark.parametrize("mask", ["full", "causal"])
def test_convergence_order(make_system, method, order, steps, mask):
    s = make_system(11, 6, 3, mask=mask, U="random", scale=1.0)
    ref = DOP853(rtol=1e-14, atol=1e-15).integrate(s, 2.0, samples=2).final
    errors = [np.max(np.abs(method(dt=h).integrate(s, 2.0, samples=2).final - ref)) for h in steps]
    assert min(errors) > 1e-13  # above the reference's own error, so the slope is the method's
    slope = np.polyfit(np.log(steps), np.log(errors), 1)[0]
    assert abs(slope - order) <= 0.3, (errors, slope)


def test_time_varying_schedule_order_rk4():
    from numerics.presets import preset

    s = preset("periodic-random-full", N=5)
    ref = DOP853(rtol=1e-14, atol=1e-15).integrate(s, 2.0, samples=2).final
    steps = [0.2, 0.1, 0.05]
    errors = [np.max(np.abs(RK4(dt=h).integrate(s, 2.0, samples=2).final - ref)) for h in steps]
    slope = np.polyfit(np.log(steps), np.log(errors), 1)[0]
    assert abs(slope - 4) <= 0.3, (errors, slope)


def test_richardson_estimate_is_close_to_the_true_error(make_system):
    s = make_system(5, 6, 3)
    ref = DOP853(rtol=1e-14, atol=1e-15).integrate(s, 2.0, samples=2).final
    traj = Midpoint(dt=0.02, estimate_error=True).integrate(s, 2.0, samples=2)
    true = np.max(np.abs(traj.final - ref))
    assert 0.5 * true <= traj.error_estimate <= 2.0 * true
