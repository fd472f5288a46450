"""Assumption 4.4 on irrational exact data: ``top_eigen`` for algebraic (and other exact) entries.

The oracle is independent of the code under test: mpmath's symmetric eigensolver at 60 digits on
entries evaluated by SymPy at 80 digits (the code uses python-flint balls and SymPy number fields).
Multiplicities of the adversarial cases are known by construction (``Q D Q^T`` with orthogonal
``Q``, or entries that equal simple numbers by an identity that SymPy does not apply on its own).
"""
from __future__ import annotations

import json
import random
from fractions import Fraction

import mpmath
import pytest
import sympy
from sympy import Rational as R
from sympy import sqrt

from theorems import simple_system
from theorems.matrices import ConstantMatrix
from theorems.predicates import USimpleTopEigenvalue
from theorems.predicates._eigen import EXACT_ALGEBRAIC_DIM, top_eigen
from theorems.predicates.evidence import TopEigen
from theorems.verdict import Status
from verify.cli.main import main

CASUS = sympy.Matrix([[sqrt(5), sqrt(2), R(1, 3)], [sqrt(2), 1, sqrt(3)], [R(1, 3), sqrt(3), -1]])
H = sqrt(2) / 2
Q3 = sympy.Matrix([[H, -H, 0], [H, H, 0], [0, 0, 1]]) * sympy.Matrix([[1, 0, 0], [0, H, -H], [0, H, H]])


def _conj(Q: sympy.Matrix, D) -> sympy.Matrix:
    return (Q * sympy.diag(*D) * Q.T).applyfunc(sympy.expand)


def _rotations(d: int) -> sympy.Matrix:
    """An orthogonal matrix with radical entries: plane rotations by 45, 30 and 60 degrees."""
    Q = sympy.eye(d)
    turns = [(H, H), (sqrt(3) / 2, R(1, 2)), (R(1, 2), sqrt(3) / 2)]
    for k in range(d - 1):
        c, s = turns[k % 3]
        G = sympy.eye(d)
        G[k, k], G[k, k + 1], G[k + 1, k], G[k + 1, k + 1] = c, -s, s, c
        Q = Q * G
    return Q


def _random_algebraic(d: int, seed: int) -> sympy.Matrix:
    rng = random.Random(seed)
    M = sympy.zeros(d, d)
    for i in range(d):
        for j in range(i, d):
            M[i, j] = M[j, i] = R(rng.randint(-5, 5), rng.randint(1, 4)) + R(rng.randint(-3, 3), 2) * sqrt(rng.choice([2, 3, 5]))
    return M


def _oracle(M: sympy.Matrix) -> list:
    """Eigenvalues, descending, by mpmath at 60 digits (independent of python-flint and SymPy's fields)."""
    with mpmath.workdps(60):
        A = mpmath.matrix([[mpmath.mpf(str(sympy.N(M[i, j], 80))) for j in range(M.cols)] for i in range(M.rows)])
        return sorted(mpmath.eigsy(A, eigvals_only=True), reverse=True)


def _top(M: sympy.Matrix):
    assert any(not e.is_Rational for e in M), "the case must exercise the irrational path"
    return top_eigen(ConstantMatrix.from_sympy(M))


def _check_holds(M: sympy.Matrix, w: dict) -> None:
    """Two-sided: the intervals contain the oracle's eigenvalues; the gap bound is below the true gap
    and within 1e-6 of it (relative)."""
    ev = _oracle(M)
    lo1, hi1 = (Fraction(x) for x in w["lambda_1_interval"])
    lo2, hi2 = (Fraction(x) for x in w["lambda_2_interval"])
    with mpmath.workdps(60):
        assert mpmath.mpf(lo1.numerator) / lo1.denominator <= ev[0] <= mpmath.mpf(hi1.numerator) / hi1.denominator
        assert mpmath.mpf(lo2.numerator) / lo2.denominator <= ev[1] <= mpmath.mpf(hi2.numerator) / hi2.denominator
        gap = ev[0] - ev[1]
        lb = Fraction(w["gap_lower_bound"])
        lb_mp = mpmath.mpf(lb.numerator) / lb.denominator
        assert 0 < lb_mp <= gap
        assert gap - lb_mp <= gap * mpmath.mpf("1e-6")
    assert w["exact"] is True and w["multiplicity"] == 1


def test_casus_irreducibilis_holds_with_a_two_sided_gap_bound():
    # SymPy writes these eigenvalues with complex cube roots: the old path could not enclose them
    assert any(lam.has(sympy.I) for lam in CASUS.eigenvals())
    status, w = _top(CASUS)
    assert status is Status.HOLDS
    _check_holds(CASUS, w)
    assert len(w["eigenvalue_intervals"]) == 3
    assert w["v_exact"] is False and len(w["v"]) == 3


def test_the_predicate_and_the_evidence_record_read_the_witness():
    U = [[str(e) for e in row] for row in CASUS.tolist()]
    v = USimpleTopEigenvalue().evaluate(simple_system([[1, 0, 0], [0, 1, 0], [0, 0, 1]], U, [[1, 0, 0], [0, 1, 0], [0, 0, 1]]))
    assert v.status is Status.HOLDS and v.exact
    top = TopEigen.from_witness(v.witness)
    assert top.gap_lower_bound == Fraction(v.witness["gap_lower_bound"]) > 0
    assert top.v is None and top.v_float is not None and len(top.v_float) == 3


def test_two_by_two_keeps_exact_eigenvalues_and_eigenvector():
    M = sympy.Matrix([[sqrt(2), 1], [1, 0]])
    status, w = _top(M)
    assert status is Status.HOLDS
    assert sympy.simplify(sympy.sympify(w["gap"]) - sqrt(6)) == 0
    lam1 = sympy.sympify(w["lambda_1"])
    v = sympy.Matrix([sympy.sympify(c) for c in w["v"]])
    assert w["v_exact"] and (M * v - lam1 * v).applyfunc(sympy.simplify) == sympy.zeros(2, 1)
    _check_holds(M, w)


def test_double_top_eigenvalue_written_with_radicals_fails():
    M = _conj(Q3, (2, 2, 1))
    status, w = _top(M)
    assert status is Status.FAILS
    assert w["multiplicity"] == 2 and w["exact"] is True and w["lambda_1"] == "2"
    assert "number_field" in w  # decided by the exact square-free factorisation


def test_double_eigenvalue_below_a_simple_top_one_holds_exactly():
    M = _conj(Q3, (1, 1, 3))
    status, w = _top(M)
    assert status is Status.HOLDS
    assert w["lambda_1"] == "3" and w["lambda_2"] == "1" and w["multiplicity_lambda_2"] == 2
    assert Fraction(w["gap_lower_bound"]) == 2  # both eigenvalues exact: the bound is the gap
    v = sympy.Matrix([sympy.sympify(c) for c in w["v"]])
    assert w["v_exact"] and v != sympy.zeros(3, 1) and (M * v - 3 * v).applyfunc(sympy.expand) == sympy.zeros(3, 1)


@pytest.mark.parametrize("d, seed", [(5, 1), (6, 2), (8, 3)])
def test_larger_algebraic_matrices_hold(d, seed):
    M = _random_algebraic(d, seed)
    status, w = _top(M)
    assert status is Status.HOLDS
    _check_holds(M, w)
    assert len(w["eigenvalue_intervals"]) == d


@pytest.mark.parametrize("d, D, expected", [
    (5, (4, 4, 1, -1, -2), Status.FAILS),
    (6, (3, 2, 2, 0, 0, -1), Status.HOLDS),
    (6, (R(1, 3),) * 2 + (0, -1, -2, -3), Status.FAILS),
])
def test_larger_conjugated_spectra(d, D, expected):
    M = _conj(_rotations(d), D)
    status, w = _top(M)
    assert status is expected
    if expected is Status.FAILS:
        assert w["multiplicity"] == 2 and w["exact"] is True
    else:
        assert w["lambda_1"] == str(max(D)) and Fraction(w["gap_lower_bound"]) <= 1


# --- attacks: a double top eigenvalue hidden behind identities ------------------------------

HIDDEN_ONE = [
    sqrt(8) - 2 * sqrt(2) + 1,                                   # SymPy folds this one itself
    sqrt(3 + 2 * sqrt(2)) - sqrt(2),                             # (1 + sqrt 2)^2 = 3 + 2 sqrt 2
    sympy.Mul(sqrt(3) - sqrt(2), sqrt(3) + sqrt(2), evaluate=False),  # difference of squares, unexpanded
    sympy.Pow(sqrt(2) + sqrt(3), 2, evaluate=False) - 2 * sqrt(6) - 4,  # (sqrt 2 + sqrt 3)^2 = 5 + 2 sqrt 6
    2 / (sqrt(5) - 1) - sqrt(5) / 2 + R(1, 2),                  # 2/(sqrt 5 - 1) = (sqrt 5 + 1)/2
    (1 + sqrt(5)) / 2 - 1 / ((1 + sqrt(5)) / 2),                # phi - 1/phi = 1
    sympy.cos(sympy.pi / 5) * 4 - sqrt(5),                       # 4 cos(36 deg) = 1 + sqrt 5
]


@pytest.mark.parametrize("one", HIDDEN_ONE)
def test_hidden_double_top_on_the_diagonal_never_holds(one):
    with mpmath.workdps(80):
        assert abs(mpmath.mpf(str(sympy.N(one, 70))) - 1) < mpmath.mpf(10) ** -60  # truth: one = 1
    M = sympy.Matrix([[one, 0, 0], [0, 1, 0], [0, 0, R(1, 2)]])
    status, w = top_eigen(ConstantMatrix.from_sympy(M))
    assert status is Status.FAILS and w["multiplicity"] == 2


@pytest.mark.parametrize("one", HIDDEN_ONE[1:4])
def test_hidden_zero_coupling_never_holds(one):
    z = one - 1  # 0 in disguise: the top eigenvalue 1 is double
    M = sympy.Matrix([[1, z, 0], [z, 1, 0], [0, 0, R(1, 2)]])
    status, w = top_eigen(ConstantMatrix.from_sympy(M))
    assert status is Status.FAILS and w["multiplicity"] == 2


def test_hidden_double_top_through_an_unexpanded_conjugation_fails():
    M = Q3 * sympy.diag(sqrt(3 + 2 * sqrt(2)), 1 + sqrt(2), -1) * Q3.T  # both = 1 + sqrt 2
    status, w = _top(M)
    assert status is Status.FAILS and w["multiplicity"] == 2


@pytest.mark.parametrize("zero", ["atan(1/2) + atan(1/3) - pi/4", "log(8) - 3*log(2)", "tan(pi/8) - sqrt(2) + 1"])
def test_hidden_transcendental_double_top_is_never_holds(zero):
    M = sympy.Matrix([[1 + sympy.sympify(zero), 0, 0], [0, 1, 0], [0, 0, R(1, 2)]])
    status, w = top_eigen(ConstantMatrix.from_sympy(M))
    assert status is not Status.HOLDS
    assert status is Status.UNKNOWN or w["multiplicity"] == 2


@pytest.mark.parametrize("k, slack", [(30, "1e-6"), (200, "0.9999")])
def test_nearly_double_but_simple_top_holds_with_a_tiny_proven_gap(k, slack):
    # k = 30: isolated by balls; k = 200: not isolated at 4096 bits (Durand-Kerner on a 1e-200 cluster),
    # but the characteristic polynomial is square-free over QQ(sqrt 2) and Mahler's bound gives the gap
    eps = sqrt(2) / 10 ** k
    M = sympy.Matrix([[1 + eps, 0, 0], [0, 1, 0], [0, 0, R(1, 2)]])
    status, w = _top(M)
    assert status is Status.HOLDS and w["exact"] is True
    lb = Fraction(w["gap_lower_bound"])
    with mpmath.workdps(k + 40):
        gap = mpmath.sqrt(2) / mpmath.mpf(10) ** k
        lb_mp = mpmath.mpf(lb.numerator) / lb.denominator
        assert 0 < lb_mp <= gap and gap - lb_mp <= gap * mpmath.mpf(slack)


def test_pi_entries_are_decided_when_isolated_and_unknown_when_not():
    status, w = top_eigen(ConstantMatrix.from_sympy(sympy.Matrix([[sympy.pi, 1], [1, sympy.pi]])))
    assert status is Status.HOLDS and sympy.simplify(sympy.sympify(w["gap"]) - 2) == 0
    status, w = top_eigen(ConstantMatrix.from_sympy(sympy.Matrix([[sympy.pi, 0], [0, sympy.pi]])))
    assert status is Status.UNKNOWN and "algebraic" in w["reason"]


def test_the_algebraic_dimension_limit_is_the_rational_one():
    assert EXACT_ALGEBRAIC_DIM >= 16
    M = _random_algebraic(16, 4)
    status, w = _top(M)
    assert status is Status.HOLDS
    _check_holds(M, w)


# --- through the CLI -------------------------------------------------------------------------

def _instance(tmp_path, U: sympy.Matrix) -> str:
    path = tmp_path / "algebraic.json"
    d = U.rows
    tokens = [[int(i == j) for j in range(d)] for i in range(d)]
    path.write_text(json.dumps({"name": "algebraic-U", "d": d, "beta": 1, "mask": "causal",
                                "heads": [{"P": "identity", "U": [[str(e) for e in row] for row in U.tolist()]}],
                                "tokens": tokens}))
    return str(path)


def _run(capsys, argv):
    code = main(argv + ["--format", "json"])
    return code, json.loads(capsys.readouterr().out)


def test_cli_assumptions_casus_irreducibilis_holds(tmp_path, capsys):
    code, payload = _run(capsys, ["assumptions", "4.4-sym", "--instance", _instance(tmp_path, CASUS)])
    assert code == 0 and payload["verdict"] == "holds"
    top = {h["name"]: h for h in payload["hypotheses"]}["U_simple_top_eigenvalue"]
    assert top["verdict"] == "holds" and Fraction(top["witness"]["gap_lower_bound"]) > 0


def test_cli_theorem_casus_irreducibilis_is_certified(tmp_path, capsys):
    code, payload = _run(capsys, ["theorem", "4.4-sym", "--instance", _instance(tmp_path, CASUS)])
    assert code == 0 and payload["verdict"] == "holds"
    steps = {s["id"]: s["verdict"] for s in payload["steps"]}
    assert steps["first_token_alignment"]["verdict"] == "holds"


def test_cli_assumptions_double_top_with_radicals_is_refuted(tmp_path, capsys):
    code, payload = _run(capsys, ["assumptions", "4.4-sym", "--instance", _instance(tmp_path, _conj(Q3, (2, 2, 1)))])
    assert code == 6 and payload["verdict"] == "not_applicable"
    top = {h["name"]: h for h in payload["hypotheses"]}["U_simple_top_eigenvalue"]
    assert top["verdict"] == "fails" and top["witness"]["multiplicity"] == 2
