"""P uniformly continuous: Lipschitz / periodic proofs, oscillation witnesses re-checked by SymPy."""
from fractions import Fraction

import numpy as np
import pytest
import sympy

from theorems import simple_system
from theorems.errors import InvalidInput
from theorems.expressions import t
from theorems.predicates import PUniformlyContinuous
from theorems.system_json import system_from_dict
from theorems.verdict import Status

A = [["1", "-2"], ["1/2", "3"]]
B = [["2", "0"], ["1", "-1"]]
TOKENS = [[1, 0], [0, 1]]
K = sympy.Symbol("k", integer=True, positive=True)


def _evaluate(P):
    return PUniformlyContinuous().evaluate(simple_system(P, "identity", TOKENS))


def test_sin_t_squared_times_A_fails_with_a_rechecked_witness():
    v = _evaluate([[f"sin(t^2)*({a})" for a in row] for row in A])
    assert v.status is Status.FAILS
    w = v.witness
    s_k = sympy.sympify(w["s_k"], locals={"k": K})
    t_k = sympy.sympify(w["t_k"], locals={"k": K})
    # Independent SymPy check: the sine values are exactly +1 and -1, so they differ by 2 ...
    assert sympy.simplify(sympy.sin(sympy.expand(s_k ** 2)) - sympy.sin(sympy.expand(t_k ** 2))) == 2
    # ... while the times merge.
    assert sympy.limit(s_k - t_k, K, sympy.oo) == 0
    i, j = w["entry"]
    a = float(sympy.Rational(A[i][j]))
    gaps = []
    for k in range(w["k_from"], w["k_from"] + 200, 20):
        s, u = float(s_k.subs(K, k)), float(t_k.subs(K, k))
        assert s >= 0 and u >= 0
        assert abs(a * np.sin(s * s) - a * np.sin(u * u)) == pytest.approx(2 * abs(a), rel=1e-6)
        gaps.append(s - u)
    assert all(g > 0 for g in gaps) and all(x > y for x, y in zip(gaps, gaps[1:]))
    assert gaps[-1] < 0.05


def test_sin_t_A_plus_B_holds_with_a_lipschitz_bound_that_dominates_finite_differences():
    v = _evaluate([[f"sin(t)*({a}) + ({b})" for a, b in zip(ra, rb)] for ra, rb in zip(A, B)])
    assert v.status is Status.HOLDS and v.exact
    L = Fraction(v.witness["lipschitz_bound"])
    fa = np.array([[float(sympy.Rational(x)) for x in r] for r in A])
    s = np.linspace(0, 20, 4001)
    slopes = [np.linalg.norm((np.sin(s[n + 1]) - np.sin(s[n])) * fa, 2) / (s[n + 1] - s[n]) for n in range(len(s) - 1)]
    assert max(slopes) <= float(L) <= 1.0001 * np.linalg.norm(np.abs(fa), 2)


@pytest.mark.parametrize("entry, difference", [
    ("3*cos(2*t^2 + t + 1) + sin(t)", 6),
    ("t - sin(t^2)", 2),
    ("sin(t^3)/2", 1),
    ("-2*sin(5 - t^2)", 4),
])
def test_oscillations_with_lipschitz_remainders_fail(entry, difference):
    v = _evaluate([[entry, "0"], ["0", "1"]])
    assert v.status is Status.FAILS
    w = v.witness
    assert abs(sympy.sympify(w["term_difference"])) == difference
    s_k = sympy.sympify(w["s_k"], locals={"k": K})
    t_k = sympy.sympify(w["t_k"], locals={"k": K})
    f = sympy.sympify(entry.replace("^", "**"), locals={"t": t})
    L = float(Fraction(w["remainder_lipschitz"]))
    for k in (w["k_from"], w["k_from"] + 50, w["k_from"] + 500):
        s, u = s_k.subs(K, k), t_k.subs(K, k)
        gap = float(s - u)
        assert 0 < gap < 1
        assert abs(float(f.subs(t, s) - f.subs(t, u))) >= difference - L * gap - 1e-9


@pytest.mark.parametrize("entry", ["sin(t^2) + sin(2*t^2)", "t*sin(t^2)"])
def test_undecidable_by_these_means_is_unknown(entry):
    assert _evaluate([[entry, "0"], ["0", "1"]]).status is Status.UNKNOWN


@pytest.mark.parametrize("entry,where", [("tan(t)", "vanishes at some t in"), ("atan(tan(t))", "vanishes at some t in"),
                                         ("1/(t - 1)", "at t = 1")])
def test_entries_undefined_somewhere_on_the_half_line_are_rejected(entry, where):
    """tan(t) has a pole at pi/2: it is not a function on [0, oo), so the instance is refused."""
    with pytest.raises(InvalidInput) as info:
        _evaluate([[entry, "0"], ["0", "1"]])
    assert "heads[0].P[0][0]" in str(info.value) and where in str(info.value)


def test_periodic_and_continuous_without_a_derivative_bound_holds():
    v = _evaluate([["sqrt(1 + sin(t))", "0"], ["0", "1"]])
    assert v.status is Status.HOLDS
    assert "periodic" in v.reason
    assert v.witness["details"][0]["entry_methods"][0][0].startswith("periodic")


def _stack_system(layers, **options):
    data = {"d": 2, "beta": 1, "mask": "full", "tokens": TOKENS,
            "heads": [{"P": {"kind": "stack", "layers": layers, **options}, "U": "identity"}]}
    return system_from_dict(data)


LAYERS = [[["0", "0"], ["0", "0"]], [["3", "0"], ["0", "4"]], [["3", "1"], ["0", "4"]]]


def test_linear_stack_lipschitz_constant_includes_the_wraparound_when_periodic():
    v = PUniformlyContinuous().evaluate(_stack_system(LAYERS, dt=0.5, interpolation="linear", periodic=True))
    assert v.status is Status.HOLDS and v.exact
    L = Fraction(v.witness["lipschitz_bound"])
    # Worst pair is the wrap-around 2 -> 0: ||M_0 - M_2||_F = sqrt(26), divided by dt = 1/2.
    assert (L / 2) ** 2 >= 26 and float(L) <= 2 * 26 ** 0.5 * (1 + 1e-6)
    v = PUniformlyContinuous().evaluate(_stack_system(LAYERS, dt=0.5, interpolation="linear", periodic=False))
    L = Fraction(v.witness["lipschitz_bound"])
    assert (L / 2) ** 2 >= 25 and float(L) <= 2 * 5 * (1 + 1e-6)
    # Numerical cross-check of the constant on the schedule itself.
    P = _stack_system(LAYERS, dt=0.5, interpolation="linear", periodic=False).heads[0].P
    s = np.linspace(0, 3, 3001)
    worst = max(np.linalg.norm(P.at(s[n + 1]) - P.at(s[n]), 2) / (s[n + 1] - s[n]) for n in range(len(s) - 1))
    assert worst <= float(L)


def test_constant_interpolation_with_a_jump_fails_with_the_boundary_witness():
    v = PUniformlyContinuous().evaluate(_stack_system(LAYERS, dt=0.25, interpolation="constant"))
    assert v.status is Status.FAILS
    w = v.witness
    assert w["layers"] == [0, 1] and Fraction(w["boundary_time"]) == Fraction(1, 4)
    P = _stack_system(LAYERS, dt=0.25, interpolation="constant").heads[0].P
    for j in (1, 10, 1000):
        before = float(Fraction(w["boundary_time"]) - Fraction(1, 4) / (2 * j))
        jump = np.linalg.norm(P.at(before) - P.at(float(Fraction(w["t_j"]))), 2)
        assert jump >= abs(float(sympy.sympify(w["jump_entry_value"]))) > 0


def test_equal_layers_hold_and_the_first_jump_is_reported():
    same = [[["1", "2"], ["3", "4"]]] * 3
    v = PUniformlyContinuous().evaluate(_stack_system(same))
    assert v.status is Status.HOLDS and v.witness["lipschitz_bound"] == "0"
    eye, other = [["1", "0"], ["0", "1"]], [["2", "0"], ["0", "1"]]
    v = PUniformlyContinuous().evaluate(_stack_system([eye, eye, other], periodic=False))
    assert v.status is Status.FAILS and v.witness["layers"] == [1, 2]
    assert sympy.sympify(v.witness["jump_entry_value"]) == 1


def test_float_stack_jump_is_exact_even_when_tiny():
    layers = [[[1.0, 0.0], [0.0, 1.0]], [[1.0 + 2.0 ** -40, 0.0], [0.0, 1.0]]]
    v = PUniformlyContinuous().evaluate(_stack_system(layers, periodic=False))
    assert v.status is Status.FAILS
    assert Fraction(sympy.Rational(v.witness["jump_entry_value"])) == Fraction(1, 2 ** 40)
