"""Property tests of the arb enclosure engine against mpmath at 100 digits.

For random expressions of the function class (docs/format.md) and random times, including
``t`` beyond ``1e20``, every enclosure the engine returns contains mpmath's 100-digit value; and
for random boxes of ``t`` the box enclosure contains the value at points sampled inside.  The
tolerance is two-sided and tiny (``1e-80`` relative): far below the engine's 128-bit width, far
above mpmath's 100-digit error.
"""
from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from theorems.enclosure import T, enclose
from theorems.enclosure.halfline import box

t = T
MP = mpmath.MPContext()
MP.dps = 100

_LEAVES = st.sampled_from([t, t, t, sympy.Integer(2), sympy.Rational(-3, 7), sympy.pi, sympy.E,
                           sympy.Rational(1, 10 ** 30), sympy.Integer(10) ** 25])


def _combine(children):
    unary = st.sampled_from(["sin", "cos", "atan", "tanh", "exp_bounded", "abs", "sqrt_pos", "log_pos",
                             "recip_pos", "cosh_bounded", "tan_small"])
    binary = st.sampled_from(["add", "sub", "mul", "pow2", "pow3"])
    return st.one_of(
        st.tuples(unary, children).map(lambda p: _apply1(*p)),
        st.tuples(binary, children, children).map(lambda p: _apply2(*p)),
    )


def _apply1(name, a):
    if name == "sin":
        return sympy.sin(a)
    if name == "cos":
        return sympy.cos(a)
    if name == "atan":
        return sympy.atan(a)
    if name == "tanh":
        return sympy.tanh(a)
    if name == "exp_bounded":
        return sympy.exp(sympy.sin(a))
    if name == "abs":
        return sympy.Abs(a)
    if name == "sqrt_pos":
        return sympy.sqrt(1 + a ** 2)
    if name == "log_pos":
        return sympy.log(2 + sympy.cos(a))
    if name == "recip_pos":
        return 1 / (3 + sympy.sin(a))
    if name == "cosh_bounded":
        return sympy.cosh(sympy.atan(a))
    return sympy.tan(sympy.atan(a) / 2)


def _apply2(name, a, b):
    if name == "add":
        return a + b
    if name == "sub":
        return a - b
    if name == "mul":
        return a * b
    if name == "pow2":
        return a ** 2
    return a ** 3


EXPRESSIONS = st.recursive(_LEAVES, _combine, max_leaves=8)
TIMES = st.one_of(
    st.fractions(min_value=0, max_value=50, max_denominator=1000),
    st.integers(min_value=10 ** 20, max_value=10 ** 30).map(Fraction),
    st.sampled_from([Fraction(0), Fraction(1, 3), Fraction(10 ** 22 + 1, 7)]),
)


def _mp_value(expr, t0: Fraction):
    f = sympy.lambdify(t, expr, modules=[{"Abs": MP.fabs}, "mpmath"])
    old = mpmath.mp.dps
    try:
        mpmath.mp.dps = 100  # lambdify's mpmath printer uses the global context: scoped here
        value = f(mpmath.mpf(t0.numerator) / t0.denominator)
        return +mpmath.mpmathify(value)  # evaluate constants (pi) at 100 digits, inside the scope
    finally:
        mpmath.mp.dps = old


def _contains(iv, value) -> bool:
    v = MP.mpf(value)
    slack = MP.mpf(10) ** -80 * (1 + abs(v))
    lo, hi = iv.fractions()
    ok_lo = lo is None or MP.mpf(lo.numerator) / lo.denominator <= v + slack
    ok_hi = hi is None or v - slack <= MP.mpf(hi.numerator) / hi.denominator
    return ok_lo and ok_hi


CHECKED = {"points": 0, "boxes": 0}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(EXPRESSIONS, TIMES)
def test_point_enclosure_contains_the_100_digit_value(expr, t0):
    iv = enclose(expr, box(t0, t0))  # a non-dyadic t0 becomes a tiny ball around it: still sound
    if iv is None:
        return
    value = _mp_value(expr, t0)
    if isinstance(value, mpmath.mpc) or not MP.isfinite(value):
        return
    assert _contains(iv, value), (expr, t0, iv.fractions(), value)
    CHECKED["points"] += 1


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(EXPRESSIONS, st.integers(0, 2 ** 12), st.integers(1, 2 ** 8), st.lists(st.integers(0, 64), min_size=3, max_size=3))
def test_box_enclosure_contains_every_sampled_value(expr, a16, w16, fractions_of_64):
    lo, hi = Fraction(a16, 16), Fraction(a16 + w16, 16)
    iv = enclose(expr, box(lo, hi))
    if iv is None:
        return
    for k in fractions_of_64:
        t0 = lo + (hi - lo) * Fraction(k, 64)
        value = _mp_value(expr, t0)
        if isinstance(value, mpmath.mpc) or not MP.isfinite(value):
            continue
        assert _contains(iv, value), (expr, lo, hi, t0, iv.fractions(), value)
    CHECKED["boxes"] += 1


def test_the_property_tests_checked_enough_cases():
    """Run after the two property tests (file order): both must have checked many cases."""
    assert CHECKED["points"] >= 100, CHECKED
    assert CHECKED["boxes"] >= 50, CHECKED


@pytest.mark.parametrize("k", [17, 20, 25])
def test_huge_trig_arguments_keep_interior_extrema(k):
    """sin on [A - 2, A + 2] with A = 3 pi/2 + 2 pi 10^k: the range contains sin = -1 and crosses 0."""
    A = sympy.Rational(int(MP.nint((3 * MP.pi / 2 + 2 * MP.pi * MP.mpf(10) ** k) * 10 ** 6)), 10 ** 6)
    iv = enclose(sympy.sin(A + 2 * sympy.sin(t)), box(Fraction(0), None))
    lo, hi = iv.fractions()
    assert lo == -1 and hi > 0
