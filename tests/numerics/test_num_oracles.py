"""Closed-form oracles (docs/model.md §3): with P = 0 every attention weight is constant.

* causal, two tokens, U = I: ``a = <x_1, x_2>`` obeys ``da/dt = w (1 - a^2)`` with
  ``w = a_21 = 1/2``, so ``a(t) = tanh(t/2 + atanh(a_0))``;
* full attention, two tokens: each token moves toward the other with weight 1/2, so
  ``da/dt = 1 - a^2`` and ``a(t) = tanh(t + atanh(a_0))``.
"""
from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from numerics import DOP853, RK4, TaylorMP
from theorems.system_build import simple_system

ZERO = [[0, 0, 0], [0, 0, 0], [0, 0, 0]]
# Rational unit vectors with a_0 = <x_1, x_2> = -3/5.
TOKENS = [[1, 0, 0], ["-3/5", "4/5", 0]]


def _inner(traj) -> np.ndarray:
    X = traj.states[:, 0]
    return np.sum(X[:, 0] * X[:, 1], axis=-1)


@pytest.mark.parametrize("mask, rate", [("causal", 0.5), ("full", 1.0)])
def test_tanh_law_float64(mask, rate):
    s = simple_system(ZERO, "identity", TOKENS, beta=1, mask=mask)
    traj = DOP853(rtol=1e-12, atol=1e-14).integrate(s, 6.0, samples=25)
    expected = np.tanh(rate * traj.times + math.atanh(-0.6))
    np.testing.assert_allclose(_inner(traj), expected, rtol=0, atol=1e-11)
    assert expected[-1] > 0.9  # the law was checked far from its start


@pytest.mark.parametrize("mask, rate", [("causal", 0.5), ("full", 1.0)])
def test_tanh_law_to_thirty_digits(mask, rate):
    s = simple_system(ZERO, "identity", TOKENS, beta=1, mask=mask)
    traj = TaylorMP(digits=32, check=False).integrate(s, 3.0, samples=4)
    ctx = mpmath.MPContext()
    ctx.prec = 160
    for k, t in enumerate(traj.times):
        x = traj.states_mp[k][0]
        a = ctx.fsum(ctx.mpf(x[0, j]) * ctx.mpf(x[1, j]) for j in range(3))
        exact = ctx.tanh(ctx.mpf(rate) * ctx.mpf(float(t)) + ctx.atanh(ctx.mpf(-3) / 5))
        assert abs(a - exact) < ctx.mpf(10) ** -30


def test_first_token_fixed_under_rk4_and_tanh_with_rk4():
    s = simple_system(ZERO, "identity", TOKENS, beta=1, mask="causal")
    traj = RK4(dt=0.01).integrate(s, 4.0, samples=5)
    np.testing.assert_allclose(traj.states[:, 0, 0], np.tile([1.0, 0, 0], (5, 1)), rtol=0, atol=1e-15)
    np.testing.assert_allclose(_inner(traj), np.tanh(0.5 * traj.times + math.atanh(-0.6)), rtol=0, atol=1e-9)
