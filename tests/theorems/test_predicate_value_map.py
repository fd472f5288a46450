"""Value-map hypotheses: exact decisions, float deviations that never round into "holds"."""
from fractions import Fraction

import numpy as np
import pytest
import sympy

from theorems import simple_system
from theorems.predicates import (UIdentity, USimpleTopEigenvalue, USymmetric, UTimeInvariant,
                                 antisymmetric_share, identity_deviation)
from theorems.system_json import system_from_dict
from theorems.verdict import Status

TOKENS2 = [[1, 0], [0, 1]]
TOKENS3 = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]


def _sys(U, d=2):
    return simple_system("identity" if d == 2 else [[1, 0, 0], [0, 1, 0], [0, 0, 1]], U,
                         TOKENS2 if d == 2 else TOKENS3)


@pytest.mark.parametrize("U, identity, symmetric, invariant", [
    ("identity", Status.HOLDS, Status.HOLDS, Status.HOLDS),
    ([["1", "2"], ["2", "1"]], Status.FAILS, Status.HOLDS, Status.HOLDS),
    ([["1", "2"], ["3", "1"]], Status.FAILS, Status.FAILS, Status.HOLDS),
    ([["cos(t)^2 + sin(t)^2", "0"], ["0", "1"]], Status.HOLDS, Status.HOLDS, Status.HOLDS),
    ([["sin(t)", "1"], ["1", "0"]], Status.FAILS, Status.HOLDS, Status.FAILS),
    ([["1", "t"], ["0", "1"]], Status.FAILS, Status.FAILS, Status.FAILS),
    ([[1.0, 0.0], [0.0, 1.0]], Status.HOLDS, Status.HOLDS, Status.HOLDS),
])
def test_exact_decisions(U, identity, symmetric, invariant):
    s = _sys(U)
    assert UIdentity().evaluate(s).status is identity
    assert USymmetric().evaluate(s).status is symmetric
    assert UTimeInvariant().evaluate(s).status is invariant


def test_tiny_float_deviation_fails_and_reports_its_size():
    eps = 2.0 ** -45
    s = _sys([[1.0, 0.5], [0.5 + eps, 1.0]])
    v = USymmetric().evaluate(s)
    assert v.status is Status.FAILS
    share = v.witness["per_head"][0]["antisymmetric_share"]
    expected = np.sqrt(2) * eps / (np.sqrt(2) * eps + np.linalg.norm(2 * np.array([[1, 0.5], [0.5, 1]]) + [[0, eps], [eps, 0]]))
    assert share == pytest.approx(expected, rel=1e-9)
    v = UIdentity().evaluate(_sys([[1.0 + eps, 0.0], [0.0, 1.0]]))
    assert v.status is Status.FAILS
    assert v.witness["per_head"][0]["identity_deviation"] == pytest.approx(eps / np.sqrt(2), rel=1e-12)


def test_deviation_functions():
    assert identity_deviation(np.eye(4)) == 0.0
    assert identity_deviation(2 * np.eye(4)) == pytest.approx(1.0, rel=1e-15)
    assert antisymmetric_share(np.zeros((3, 3))) == 0.0
    assert antisymmetric_share(np.array([[0, 1], [-1, 0]])) == 1.0
    assert antisymmetric_share(np.array([[2, 1], [1, 5]])) == 0.0
    u = np.array([[0.0, 2.0], [0.0, 0.0]])
    assert antisymmetric_share(u) == pytest.approx(0.5, rel=1e-15)


def test_stack_value_maps():
    layers = [[["1", "0"], ["0", "1"]], [["1", "0"], ["0", "1"]]]
    data = {"d": 2, "beta": 1, "mask": "causal", "tokens": TOKENS2,
            "heads": [{"P": "identity", "U": {"kind": "stack", "layers": layers}}]}
    s = system_from_dict(data)
    assert UIdentity().evaluate(s).status is Status.HOLDS
    assert UTimeInvariant().evaluate(s).status is Status.HOLDS
    data["heads"][0]["U"]["layers"] = layers + [[["1", "1"], ["0", "1"]]]
    s = system_from_dict(data)
    v = UIdentity().evaluate(s)
    assert v.status is Status.FAILS and v.witness["per_head"][0]["layer"] == 2
    v = UTimeInvariant().evaluate(s)
    assert v.status is Status.FAILS and v.witness["per_head"][0]["layers"] == [0, 2]


def test_top_eigenvalue_of_the_spec_example_diag():
    v = USimpleTopEigenvalue().evaluate(_sys([["1", 0, 0], [0, "-1/2", 0], [0, 0, "-2"]], d=3))
    assert v.status is Status.HOLDS and v.exact
    w = v.witness
    assert sympy.sympify(w["lambda_1"]) == 1 and sympy.sympify(w["lambda_2"]) == sympy.Rational(-1, 2)
    assert sympy.sympify(w["gap"]) == sympy.Rational(3, 2)
    assert 0 < Fraction(w["gap_lower_bound"]) <= Fraction(3, 2)
    v_vec = sympy.Matrix([sympy.sympify(x) for x in w["v"]])
    U = sympy.diag(1, sympy.Rational(-1, 2), -2)
    assert U * v_vec == v_vec and v_vec != sympy.zeros(3, 1)


def test_top_eigenvalue_irrational_gap_is_exact_with_a_rational_lower_bound():
    U = [["2", "1", "0"], ["1", "2", "1"], ["0", "1", "2"]]  # eigenvalues 2 + sqrt(2), 2, 2 - sqrt(2)
    v = USimpleTopEigenvalue().evaluate(_sys(U, d=3))
    assert v.status is Status.HOLDS
    w = v.witness
    assert sympy.simplify(sympy.sympify(w["gap"]) - sympy.sqrt(2)) == 0
    lb = Fraction(w["gap_lower_bound"])
    assert 0 < lb and Fraction(lb) ** 2 < 2
    assert set(w) >= {"lambda_1", "lambda_2", "gap", "gap_lower_bound", "v"}
    vec = np.array(w["v"], dtype=float)
    M = np.array(U, dtype=float)
    assert np.allclose(M @ vec, (2 + np.sqrt(2)) * vec, rtol=0, atol=1e-12)


def test_top_eigenvalue_float_data_is_decided_exactly():
    """Decided on the binary rationals the floats hold (a proven gap), but float data are never
    labelled exact (docs/format.md, Numbers); one exact entry makes the same matrix exact data."""
    v = USimpleTopEigenvalue().evaluate(_sys([[0.3, 0.1], [0.1, 0.2]]))
    assert v.status is Status.HOLDS and not v.exact
    w = USimpleTopEigenvalue().evaluate(_sys([[0.3, 0.1], [0.1, "1/5"]]))
    assert w.status is Status.HOLDS and w.exact
    gap = float(np.diff(np.linalg.eigvalsh(np.array([[0.3, 0.1], [0.1, 0.2]])))[0])
    assert float(Fraction(v.witness["gap_lower_bound"])) <= gap <= float(Fraction(v.witness["gap_lower_bound"])) * (1 + 1e-6)


@pytest.mark.parametrize("U, status", [
    ([["2", "0"], ["0", "2"]], Status.FAILS),          # repeated top eigenvalue
    ([["1", "0", "0"], ["0", "3", "0"], ["0", "0", "3"]], Status.FAILS),
    ([["1", "2"], ["0", "1"]], Status.UNKNOWN),         # not symmetric: not applicable
    ([["1 + sin(t)", "0"], ["0", "0"]], Status.UNKNOWN),  # not time-invariant
    ([["5", "0", "0"], ["0", "3", "0"], ["0", "0", "3"]], Status.HOLDS),  # lower repeats are fine
])
def test_top_eigenvalue_statuses(U, status):
    v = USimpleTopEigenvalue().evaluate(_sys(U, d=len(U)))
    assert v.status is status
    if status is Status.FAILS:
        assert v.witness["multiplicity"] >= 2


def test_top_eigenvalue_algebraic_entries():
    v = USimpleTopEigenvalue().evaluate(_sys([["sqrt(2)", "1"], ["1", "0"]]))
    assert v.status is Status.HOLDS
    assert sympy.simplify(sympy.sympify(v.witness["gap"]) - sympy.sqrt(6)) == 0
