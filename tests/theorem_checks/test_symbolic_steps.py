"""Symbolic proof steps: each identity holds, and the checker rejects a wrong identity."""
from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
import sympy

from theorems.verdict import Status
from verify._theorem import symbolic
from verify.certificates.weights import exp_bounds

STEPS = [symbolic.first_token_fixed, symbolic.token_two_gram_equation, symbolic.token_i_gram_equation,
         symbolic.hemisphere_derivative, symbolic.chart_identity, symbolic.first_eigen_coordinate]


@pytest.mark.parametrize("step", STEPS, ids=lambda f: f.__name__)
def test_identity_holds(step):
    verdict = step()
    assert verdict.status is Status.HOLDS
    assert all(v == "0" for v in verdict.witness["residuals"].values())


def test_reduction_rejects_a_wrong_identity():
    x1, x2 = symbolic._vec("x1"), symbolic._vec("x2")
    a = x1.dot(x2)
    # d<x1,x2>/dt = w (1 - a^2) is right; w (1 - a) is wrong
    w = sympy.Symbol("w")
    dx2 = symbolic._proj(x2, w * x1)
    good = symbolic._reduce_on_spheres(x1.dot(dx2) - w * (1 - a ** 2), [x1, x2])
    bad = symbolic._reduce_on_spheres(x1.dot(dx2) - w * (1 - a), [x1, x2])
    assert good == 0 and bad != 0
    assert symbolic._verdict("wrong", "w(1-a)", {"r": bad}).status is Status.FAILS


@pytest.mark.parametrize("beta,p", [(sympy.Integer(1), "3/2"), (sympy.Rational(1, 8), "100"),
                                    (1 / sympy.sqrt(3), "7/3"), (sympy.Integer(2), "0")])
def test_exp_bounds_are_rigorous_and_tight(beta, p):
    x_exact = 2 * beta * sympy.sympify(p)
    lo, _ = exp_bounds(-x_exact)
    _, hi = exp_bounds(x_exact)
    with mpmath.workdps(60):
        x = mpmath.mpf(sympy.N(x_exact, 70))
        low, high = mpmath.exp(-x), mpmath.exp(x)
        lo_m, hi_m = mpmath.mpf(lo.numerator) / lo.denominator, mpmath.mpf(hi.numerator) / hi.denominator
        assert lo_m <= low and hi_m >= high
        assert low - lo_m <= low * 1e-9 + mpmath.mpf(10) ** -12
        assert hi_m - high <= high * 1e-9
    assert isinstance(lo, Fraction) and lo > 0


def test_exp_bounds_irrational_exponent_far_below_one():
    """Irrational exponents with exp(y) < 1e-12: both endpoints must still enclose (no float shortcut)."""
    for k in range(1, 60):
        y = -sympy.Rational(4000 + 7 * k, 100) * 2 / sympy.sqrt(3)
        lo, hi = exp_bounds(y)
        with mpmath.workdps(80):
            true = mpmath.exp(mpmath.mpf(-(4000 + 7 * k)) / 100 * 2 / mpmath.sqrt(3))
            assert mpmath.mpf(lo.numerator) / lo.denominator <= true <= mpmath.mpf(hi.numerator) / hi.denominator
            assert (mpmath.mpf(hi.numerator) / hi.denominator) / true - 1 < 1e-9
