"""Open hemisphere: LP hints turned into exact witnesses, re-checked here with Fractions/SymPy."""
from fractions import Fraction

import numpy as np
import pytest
import sympy

from theorems import InvalidInput, simple_system
from theorems.predicates import OpenHemisphere, hemisphere_verdict
from theorems.verdict import Status


def _system(tokens):
    d = len(tokens[0])
    return simple_system([[1 if i == j else 0 for j in range(d)] for i in range(d)], "identity", tokens)


def _farkas_recheck(witness, rows):
    lam = {int(i): sympy.Rational(v) for i, v in witness["lambda"].items()}
    assert all(v >= 0 for v in lam.values())
    assert sum(lam.values()) == 1
    d = len(rows[0])
    combo = [sum(lam[i] * sympy.sympify(rows[i][r]) for i in lam) for r in range(d)]
    assert all(sympy.simplify(c) == 0 for c in combo)


def _z_recheck(witness, rows):
    z = [Fraction(v) for v in witness["z"]]
    inners = [sum(zj * (Fraction(xj) if isinstance(xj, float) else Fraction(str(xj))) for zj, xj in zip(z, row))
              for row in rows]  # a float is the binary rational it holds
    assert min(inners) > 0
    assert Fraction(witness["min_inner"]) == min(inners)


def test_x_and_minus_x_fails_with_an_exact_farkas_witness():
    x = ["3/5", "0", "4/5"]
    rows = [x, ["-3/5", "0", "-4/5"]]
    v = OpenHemisphere().evaluate(_system(rows))
    assert v.status is Status.FAILS and v.exact
    assert v.witness["lambda"] == {"0": "1/2", "1": "1/2"}
    _farkas_recheck(v.witness, rows)


@pytest.mark.parametrize("rows", [
    [[1, 0], [0, 1], [-1, 0]],                                     # closed but not open half-plane
    [[1, 0, 0], [0, 1, 0], [0, 0, 1], ["-1/3", "-2/3", "-2/3"]],    # 0 in the interior of the hull
    [["3/5", "4/5"], ["-4/5", "3/5"], ["-3/5", "-4/5"], ["4/5", "-3/5"]],
])
def test_no_open_hemisphere_cases_fail_with_exact_witnesses(rows):
    v = OpenHemisphere().evaluate(_system(rows))
    assert v.status is Status.FAILS
    _farkas_recheck(v.witness, rows)


@pytest.mark.parametrize("rows", [
    [[1, 0], [0, 1]],
    [["3/5", "4/5"], ["-3/5", "4/5"], ["5/13", "12/13"]],
    [[0, 0, 1], ["3/5", "4/5", 0], ["-3/5", "4/5", 0], ["-7/25", 0, "24/25"]],
])
def test_hemisphere_holds_with_an_exact_z(rows):
    v = OpenHemisphere().evaluate(_system(rows))
    assert v.status is Status.HOLDS and v.exact
    _z_recheck(v.witness, rows)


def test_float_tokens_are_checked_as_the_rationals_they_hold():
    rows = np.array([[0.6, 0.8], [0.8, -0.6]])
    v = hemisphere_verdict(rows)
    assert v.status is Status.HOLDS
    z = [Fraction(s) for s in v.witness["z"]]
    assert min(sum(zj * Fraction(float(xj)) for zj, xj in zip(z, row)) for row in rows) > 0
    antipodal = np.array([[0.6, 0.8], [-0.6, -0.8], [1.0, 0.0]])
    v = hemisphere_verdict(antipodal)
    assert v.status is Status.FAILS
    lam = {int(i): Fraction(s) for i, s in v.witness["lambda"].items()}
    assert sum(lam.values()) == 1 and all(x >= 0 for x in lam.values())
    assert all(sum(lam[i] * Fraction(float(antipodal[i, r])) for i in lam) == 0 for r in range(2))


def test_nearly_antipodal_floats_do_not_fail_from_a_tolerance():
    # x and a float perturbation of -x: the exact data *are* in an open hemisphere.
    y = np.array([-0.6, -0.8 + 2.0 ** -50])
    v = hemisphere_verdict(np.array([[0.6, 0.8], y]))
    assert v.status is not Status.FAILS
    if v.status is Status.HOLDS:
        _z_recheck(v.witness, [[0.6, 0.8], list(y)])


def test_irrational_exact_tokens():
    r = "sqrt(2)/2"
    v = OpenHemisphere().evaluate(_system([[r, r], [f"-{r}", f"-{r}"]]))
    assert v.status is Status.FAILS
    _farkas_recheck(v.witness, [[r, r], [f"-{r}", f"-{r}"]])
    v = OpenHemisphere().evaluate(_system([[r, r], [1, 0]]))
    assert v.status is Status.HOLDS


def test_single_token_and_bad_arrays():
    assert hemisphere_verdict(np.array([[0.0, 1.0]])).status is Status.HOLDS
    with pytest.raises(InvalidInput):
        hemisphere_verdict(np.array([1.0, 0.0]))
    with pytest.raises(InvalidInput):
        hemisphere_verdict(np.array([[np.nan, 1.0]]))
