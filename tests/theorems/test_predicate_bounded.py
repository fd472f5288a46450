"""P bounded: proven rational bounds re-checked independently; divergence witnesses re-checked."""
from fractions import Fraction

import numpy as np
import pytest
import sympy

from theorems import simple_system
from theorems.expressions import t
from theorems.predicates import PBounded
from theorems.predicates._rational import spectral_upper
from theorems.system_json import system_from_dict
from theorems.verdict import Status

A = [["1", "-2"], ["1/2", "3"]]
B = [["2", "0"], ["1", "-1"]]
TOKENS = [[1, 0], [0, 1]]


def _frac(text: str) -> Fraction:
    return Fraction(text)


def _exact_psd_margin(p: Fraction, m: sympy.Matrix) -> bool:
    """Independent re-check with SymPy: p^2 I - M^T M is positive definite."""
    gram = sympy.Rational(p.numerator, p.denominator) ** 2 * sympy.eye(m.cols) - m.T * m
    return all(gram[:k, :k].det() > 0 for k in range(1, m.cols + 1))


def test_sin_t_A_plus_B_holds_with_a_proven_rational_bound():
    P = [[f"sin(t)*({a}) + ({b})" for a, b in zip(ra, rb)] for ra, rb in zip(A, B)]
    v = PBounded().evaluate(simple_system(P, "identity", TOKENS))
    assert v.status is Status.HOLDS and v.exact
    p = _frac(v.witness["p"])
    assert v.witness["per_head"] == [v.witness["p"]]
    grid = np.linspace(0, 50, 20001)
    fa = np.array([[float(sympy.Rational(x)) for x in r] for r in A])
    fb = np.array([[float(sympy.Rational(x)) for x in r] for r in B])
    true_sup = max(np.linalg.norm(np.sin(s) * fa + fb, 2) for s in grid)
    assert float(p) >= true_sup
    # The entrywise method is sound but not wildly loose here: || |A| + |B| ||_2.
    assert float(p) <= 1.0001 * np.linalg.norm(np.abs(fa) + np.abs(fb), 2)
    bounds = [[Fraction(x) for x in row] for row in v.witness["details"][0]["entry_bounds"]]
    assert _exact_psd_margin(p, sympy.Matrix(bounds))


def test_t_times_A_fails_with_a_checked_divergent_sequence():
    P = [[f"t*({a})" for a in row] for row in A]
    v = PBounded().evaluate(simple_system(P, "identity", TOKENS))
    assert v.status is Status.FAILS
    w = v.witness
    k = sympy.Symbol("k", integer=True, positive=True)
    t_k = sympy.sympify(w["t_k"], locals={"k": k})
    i, j = w["entry"]
    entry = sympy.Rational(A[i][j]) * t
    for kk in (1, 4, 17, 1000):
        tk = t_k.subs(k, kk)
        assert tk.is_Rational
        m = sympy.Matrix(A).applyfunc(sympy.Rational) * tk
        assert abs(entry.subs(t, tk)) >= kk
        assert float(sympy.sqrt(max((m.T * m).eigenvals()))) >= kk


def test_exp_t_fails_and_t_exp_minus_t_is_unknown_not_holds():
    v = PBounded().evaluate(simple_system([["exp(t)", "0"], ["0", "1"]], "identity", TOKENS))
    assert v.status is Status.FAILS
    for check in v.witness["checked"]:
        assert float(sympy.exp(sympy.Rational(check["t_k"]))) >= int(check["k"])
    v = PBounded().evaluate(simple_system([["t*exp(-t)", "0"], ["0", "1"]], "identity", TOKENS))
    assert v.status is Status.UNKNOWN


@pytest.mark.parametrize("P", [
    [["1", "2"], ["3", "4"]],
    [["3/7", "-1/9"], ["0", "5/2"]],
    [[0.1, 0.2], [0.3, 0.4]],
    [["sqrt(2)/2", "1"], ["0", "pi"]],
])
def test_constant_bounds_are_tight_and_exactly_valid(P):
    v = PBounded().evaluate(simple_system(P, "identity", TOKENS))
    assert v.status is Status.HOLDS
    p = _frac(v.witness["p"])
    true = np.linalg.norm(np.array([[float(sympy.sympify(x)) for x in r] for r in P]), 2)
    assert true <= float(p) <= true * (1 + 1e-6) + 1e-12
    if all(sympy.sympify(x).is_Rational for r in P for x in r):
        assert v.exact
        assert _exact_psd_margin(p, sympy.Matrix(P).applyfunc(sympy.nsimplify))


def test_zero_matrix_has_bound_zero():
    v = PBounded().evaluate(simple_system("zero", "identity", TOKENS))
    assert v.status is Status.HOLDS and v.witness["p"] == "0"


def test_layer_stack_takes_the_max_over_layers_and_heads():
    layers = [[["1", "0"], ["0", "1"]], [["0", "3"], ["0", "0"]], [["1/2", "0"], ["0", "-2"]]]
    data = {"d": 2, "beta": 1, "mask": "full", "tokens": TOKENS,
            "heads": [{"P": {"kind": "stack", "layers": layers, "dt": 0.5}, "U": "identity"},
                      {"P": [["5", "0"], ["0", "0"]], "U": "identity"}]}
    v = PBounded().evaluate(system_from_dict(data))
    assert v.status is Status.HOLDS
    per_head = [_frac(x) for x in v.witness["per_head"]]
    assert 3 <= per_head[0] <= Fraction(3) * (1 + Fraction(1, 10 ** 6))
    assert 5 <= per_head[1] <= Fraction(5) * (1 + Fraction(1, 10 ** 6))
    assert _frac(v.witness["p"]) == max(per_head)


def test_spectral_upper_large_matrix_uses_a_proven_frobenius_bound():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((70, 70))
    nb = spectral_upper([[Fraction(float(x)) for x in row] for row in a])
    assert not nb.exact
    fro_exact = sum(Fraction(float(x)) ** 2 for x in a.ravel())
    assert nb.p ** 2 >= fro_exact
    assert float(nb.p) <= np.linalg.norm(a) * (1 + 1e-6)


def test_multiple_heads_one_unbounded_fails_naming_the_head():
    data = {"d": 2, "beta": 1, "mask": "full", "tokens": TOKENS,
            "heads": [{"P": "identity", "U": "identity"}, {"P": [["t^2 - 3*t", "0"], ["0", "1"]], "U": "identity"}]}
    v = PBounded().evaluate(system_from_dict(data))
    assert v.status is Status.FAILS and v.witness["head"] == 1
    k = sympy.Symbol("k", integer=True, positive=True)
    t_k = sympy.sympify(v.witness["t_k"], locals={"k": k})
    for kk in range(1, 30):
        tk = t_k.subs(k, kk)
        assert abs(tk ** 2 - 3 * tk) >= kk
