"""The sharp 3.2 ODE bound (verify/_depth/bounds.py: ode_full_sharp) against the plain one and an
independent evaluation of its integral.

* never larger than the plain bound ``ln(Q/eps) / (2 H e_lo r_lo)`` (``g >= e_lo``);
* with ``k = 0`` (weights uniform, ``P = 0``) equal to ``ln(Q/eps) / (2 H r_lo)`` up to the outward
  shortening;
* at least the integral ``int_{eps_D}^{D0} du / (a u max(e_lo, exp(-k u)))`` (mpmath quadrature at 30
  digits, split where the two branches meet), since the bound is that integral rounded up;
* the rate never exceeds ``2 a`` and is at least the plain rate.
"""
from __future__ import annotations

import random
from fractions import Fraction

import mpmath
import pytest

from verify._depth import bounds as B


def _chart(rng: random.Random) -> B.Chart:
    Z2 = Fraction(rng.randint(50, 100), 100)
    r_lo = Fraction(rng.randint(5, 95), 100)
    D2 = Fraction(rng.randint(1, 400), 100)
    return B.Chart(Z2, r_lo, D2)


@pytest.mark.parametrize("seed", range(40))
def test_sharp_bound_is_between_the_integral_and_the_plain_bound(seed):
    rng = random.Random(seed)
    chart = _chart(rng)
    H = rng.choice([1, 2])
    e_lo = Fraction(rng.randint(1, 900), 1000)
    k = Fraction(rng.randint(0, 800), 100)
    eps = Fraction(1, rng.choice([20, 100, 1000]))
    sharp = B.ode_full_sharp(chart, H, e_lo, k, eps)
    plain = B.ode_full(chart, H, e_lo, eps)
    assert sharp.value <= plain.value * (1 + Fraction(1, 10 ** 12))
    assert plain.rate <= sharp.rate <= 2 * H * chart.r_lo
    if chart.Q <= eps:
        assert sharp.value == 0
        return
    with mpmath.workdps(30):
        a = mpmath.mpf(H) * chart.r_lo.numerator / chart.r_lo.denominator
        e = mpmath.mpf(e_lo.numerator) / e_lo.denominator
        kk = mpmath.mpf(k.numerator) / k.denominator
        lo = mpmath.sqrt(2 * mpmath.mpf(eps.numerator) / eps.denominator * chart.Z2.denominator / chart.Z2.numerator)
        hi = mpmath.sqrt(mpmath.mpf(chart.D2.numerator) / chart.D2.denominator)
        meet = -mpmath.log(e) / kk if kk > 0 else hi
        points = [lo] + ([meet] if lo < meet < hi else []) + [hi]
        integral = mpmath.quad(lambda u: 1 / (a * u * max(e, mpmath.exp(-kk * u))), points)
        value = mpmath.mpf(sharp.value.numerator) / sharp.value.denominator
        assert value >= integral
        assert value <= integral * (1 + mpmath.mpf("1e-6")) + mpmath.mpf("1e-9")  # tight, not merely sound


def test_uniform_weights_give_the_plain_rate():
    chart = B.Chart(Fraction(1), Fraction(1, 2), Fraction(2))
    sharp = B.ode_full_sharp(chart, 1, Fraction(1, 10), Fraction(0), Fraction(1, 100))
    exact = mpmath.log(mpmath.mpf(1) / mpmath.mpf("0.01")) / (2 * mpmath.mpf("0.5"))
    assert abs(float(sharp.value) - float(exact)) < 1e-9
    assert sharp.rate == 1  # 2 a g(D0) with g = 1
