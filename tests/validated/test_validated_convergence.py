"""Issue 22 (d): the widths shrink with the step and with the order as the method predicts.

With a fixed step ``h`` and Taylor order ``K``, one step adds the width of the Lagrange remainder
``h^{K+1} X_{K+1}(B)``; its midpoint moves the centre, so only its radius, proportional to the
width of the a-priori box ``B`` (itself ``~ h |F|``), widens the set: ``~ h^{K+2}`` per step and
``~ h^{K+1}`` after the ``T / h`` steps of a fixed horizon.  The measured order (the slope of
``log2 width`` between ``h`` and ``h/2``) must approach ``K + 1`` from above (coarse steps add the
superlinear growth of the interval overestimation with ``|B|``): two-sided bounds below.  At a
fixed step the width must drop by a large factor per added order.
"""
from __future__ import annotations

import math
from fractions import Fraction

import pytest

from verify.validated import Field, Tokens, ValidatedOptions, ValidatedStatus, integrate_validated

TOKENS = [[Fraction(3, 5), Fraction(4, 5), 0], [0, Fraction(3, 5), Fraction(4, 5)], [Fraction(4, 5), 0, Fraction(3, 5)]]
EYE = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
ROTATION = [[0, 1, 0], [-1, 0, 0], [0, 0, 1]]  # U not symmetric: a genuinely non-gradient field
FIELD = Field(1, [EYE], [ROTATION], "full")
HORIZON = Fraction(1, 2)


def width(order: int, step: Fraction) -> float:
    traj = integrate_validated(FIELD, Tokens(TOKENS), HORIZON, options=ValidatedOptions(order=order, step=step))
    assert traj.status is ValidatedStatus.SUCCESS, traj.message
    assert len(traj.steps) == HORIZON / step
    return traj.final_width


@pytest.mark.parametrize("order", [3, 5])
def test_measured_order_approaches_K_plus_one(order):
    steps = [Fraction(1, 32), Fraction(1, 64), Fraction(1, 128)]
    widths = [width(order, h) for h in steps]
    slopes = [math.log2(widths[i] / widths[i + 1]) for i in range(len(widths) - 1)]
    assert all(order + 0.7 <= s <= order + 2.5 for s in slopes), slopes
    assert slopes[-1] <= slopes[0] + 0.1  # no faster than before: the asymptote is approached from above


def test_width_drops_with_the_order():
    widths = [width(order, Fraction(1, 32)) for order in (3, 4, 6, 8)]
    assert all(a > 3 * b for a, b in zip(widths, widths[1:])), widths
    assert widths[-1] < 1e-4 * widths[0]  # about a factor 8 per order at h = 1/32


def test_a_fixed_step_without_a_priori_box_stops_with_a_status():
    traj = integrate_validated(FIELD, Tokens(TOKENS), HORIZON, options=ValidatedOptions(order=4, step=Fraction(2)))
    assert traj.status is ValidatedStatus.STEP_TOO_SMALL
    assert "a-priori box" in traj.message and traj.steps == () and traj.reached == 0
