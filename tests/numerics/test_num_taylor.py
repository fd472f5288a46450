"""The arbitrary-precision Taylor integrator."""
from __future__ import annotations

import mpmath
import numpy as np
import pytest

from numerics import DOP853, TaylorMP
from numerics.field_mp import field_mp
from numerics.fixed_point import to_fixed_array, to_float_array
from numerics.presets import preset
from numerics.taylor_recurrence import taylor_coefficients
from theorems.errors import InvalidInput


def _max_diff(a, b, ctx) -> mpmath.mpf:
    return max(abs(ctx.mpf(u) - ctx.mpf(v)) for u, v in zip(a.flat, b.flat))


def test_reaches_requested_digits_against_a_finer_run(make_system):
    s = preset("constant-identity-full", N=5, seed=3)
    coarse = TaylorMP(digits=30, check=False).integrate(s, 2.0, samples=3)
    fine = TaylorMP(digits=45, check=False).integrate(s, 2.0, samples=3)
    ctx = mpmath.MPContext()
    ctx.prec = 200
    diff = max(_max_diff(a, b, ctx) for a, b in zip(coarse.states_mp, fine.states_mp))
    assert ctx.mpf(10) ** -45 < diff < ctx.mpf(10) ** -30  # nonzero (they differ) yet 30 digits agree
    assert coarse.precision.digits == 30 and coarse.precision.bits >= 100


def test_error_estimate_from_second_run_is_meaningful():
    s = preset("constant-random-causal", N=4, seed=1)
    traj = TaylorMP(digits=20).integrate(s, 1.5, samples=2)
    fine = TaylorMP(digits=40, check=False).integrate(s, 1.5, samples=2)
    ctx = mpmath.MPContext()
    ctx.prec = 160
    true = float(_max_diff(traj.states_mp[-1], fine.states_mp[-1], ctx))
    assert 0 < true < 1e-20
    assert 0.1 * true <= traj.error_estimate <= 10 * true + 1e-28
    assert "digits" in traj.error_kind


def test_global_mpmath_precision_is_untouched():
    before = (mpmath.mp.prec, mpmath.mp.dps)
    TaylorMP(digits=25, check=False).integrate(preset("constant-identity-full", N=3), 0.5, samples=2)
    assert (mpmath.mp.prec, mpmath.mp.dps) == before


def test_first_coefficient_is_the_field(make_system):
    s = make_system(4, 4, 3, mask="causal", U="random", scale=1.5)
    prec = 150
    X0 = to_fixed_array(s.tokens.tolist(), prec)
    beta = 1 << prec
    BPT = ((to_fixed_array(s.P_at(0)[0].tolist(), prec) * beta) >> prec).T.copy()
    UT = to_fixed_array(s.U_at(0)[0].tolist(), prec).T.copy()
    exact, tail, switch = taylor_coefficients(X0, [((BPT,), (UT,))], 3, prec, True)
    ref = field_mp(s, s.tokens.tolist(), 0.0, prec=prec)
    ctx = mpmath.MPContext()
    ctx.prec = prec
    got = np.array([[ctx.mpf((int(v), -prec)) for v in row] for row in exact[1]], dtype=object)
    assert switch == 4 and tail is None
    assert _max_diff(got, ref, ctx) < ctx.mpf(2) ** (-prec + 12)
    assert np.max(np.abs(to_float_array(exact[1], prec))) > 1e-3


@pytest.mark.parametrize("name", ["periodic-symmetric-causal", "piecewise-random-full"])
def test_time_varying_schedules_agree_with_dop853(name):
    s = preset(name, N=4, seed=2)
    ref = DOP853(rtol=1e-13, atol=1e-15).integrate(s, 2.5, samples=3)
    traj = TaylorMP(digits=18, check=False).integrate(s, 2.5, samples=3)
    err = np.max(np.abs(traj.states - ref.states))
    assert err < 1e-11
    assert np.max(np.abs(traj.final - traj.states[0])) > 1e-2  # the tokens moved


def test_bad_digits_rejected():
    with pytest.raises(InvalidInput, match="digits"):
        TaylorMP(digits=2)
