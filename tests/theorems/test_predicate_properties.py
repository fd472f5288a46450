"""Property tests: predicate verdicts are invariant under token permutations and under a common
rational orthogonal change of basis (x -> Q x, P -> Q P Q^T, U -> Q U Q^T); hemisphere witnesses
are exact; symmetry is decided exactly for random rational data."""
import json
from fractions import Fraction

import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from theorems import simple_system
from theorems.predicates import (MaskIs, OneHead, OpenHemisphere, PBounded, PUniformlyContinuous, UIdentity,
                                 USimpleTopEigenvalue, USymmetric, UTimeInvariant)
from theorems.verdict import Status

SETTINGS = settings(max_examples=30, deadline=None)
rationals = st.builds(sympy.Rational, st.integers(-5, 5), st.integers(1, 4))
dims = st.sampled_from([2, 3])


def matrices(d, nonzero=False):
    m = st.lists(st.lists(rationals, min_size=d, max_size=d), min_size=d, max_size=d).map(sympy.Matrix)
    return m.filter(lambda a: a != sympy.zeros(d, d)) if nonzero else m


@st.composite
def orthogonal(draw, d):
    """Rational orthogonal matrix: Cayley transform of a rational antisymmetric S, times a signed
    permutation.  Exact data stay exact."""
    S = sympy.zeros(d, d)
    for i in range(d):
        for j in range(i + 1, d):
            S[i, j] = draw(rationals)
            S[j, i] = -S[i, j]
    Q = (sympy.eye(d) - S) * (sympy.eye(d) + S).inv()
    perm = draw(st.permutations(range(d)))
    signs = draw(st.lists(st.sampled_from([-1, 1]), min_size=d, max_size=d))
    R = sympy.zeros(d, d)
    for i, p in enumerate(perm):
        R[i, p] = signs[i]
    return R * Q


@st.composite
def unit_vectors(draw, d):
    """Rational points of the sphere by inverse stereographic projection."""
    u = [draw(rationals) for _ in range(d - 1)]
    n2 = sum(c * c for c in u)
    return [2 * c / (n2 + 1) for c in u] + [(n2 - 1) / (n2 + 1)]


@st.composite
def token_sets(draw, d):
    tokens = draw(st.lists(unit_vectors(d), min_size=1, max_size=5))
    if draw(st.booleans()):
        tokens.append([-c for c in draw(st.sampled_from(tokens))])
    return tokens


def _strings(m):
    return [[str(v) for v in m.row(i)] for i in range(m.rows)]


def _P_entries(kind, A, B):
    d = A.rows
    form = {"constant": "({b})", "sin": "sin(t)*({a}) + ({b})", "sin2": "sin(t^2)*({a})", "linear": "t*({a})"}[kind]
    return [[form.format(a=A[i, j], b=B[i, j]) for j in range(d)] for i in range(d)]


PREDICATES = [PBounded(), PUniformlyContinuous(), UIdentity(), USymmetric(), UTimeInvariant(),
              USimpleTopEigenvalue(), OpenHemisphere(), MaskIs("full"), MaskIs("causal"), OneHead()]


@st.composite
def instances(draw):
    d = draw(dims)
    kind = draw(st.sampled_from(["constant", "sin", "sin2", "linear"]))
    A, B = draw(matrices(d, nonzero=True)), draw(matrices(d))
    U = draw(matrices(d))
    if draw(st.booleans()):
        U = U + U.T
    mask = draw(st.sampled_from(["full", "causal"]))
    return d, kind, A, B, U, draw(token_sets(d)), draw(orthogonal(d)), mask


def _statuses(d, kind, A, B, U, tokens, mask):
    system = simple_system(_P_entries(kind, A, B), _strings(U), [[str(c) for c in x] for x in tokens], mask=mask)
    return {p.id: p.evaluate(system) for p in PREDICATES}


@SETTINGS
@given(instances(), st.randoms())
def test_verdicts_invariant_under_orthogonal_change_of_basis_and_permutation(inst, rnd):
    d, kind, A, B, U, tokens, Q, mask = inst
    before = _statuses(d, kind, A, B, U, tokens, mask)
    rotated = [list(Q * sympy.Matrix(x)) for x in tokens]
    rnd.shuffle(rotated)
    after = _statuses(d, kind, Q * A * Q.T, Q * B * Q.T, Q * U * Q.T, rotated, mask)
    for pid, verdict in before.items():
        assert verdict.status is after[pid].status, (pid, verdict.reason, after[pid].reason)
        json.dumps(verdict.to_json())
        json.dumps(after[pid].to_json())
    expected_bounded = Status.FAILS if kind == "linear" else Status.HOLDS
    assert before["P_bounded"].status is expected_bounded
    top, top_rot = before["U_simple_top_eigenvalue"], after["U_simple_top_eigenvalue"]
    if top.status is Status.HOLDS:
        assert sympy.simplify(sympy.sympify(top.witness["gap"]) - sympy.sympify(top_rot.witness["gap"])) == 0


@SETTINGS
@given(dims.flatmap(lambda d: st.tuples(st.lists(unit_vectors(d), min_size=1, max_size=6),
                                         st.lists(rationals, min_size=d, max_size=d))))
def test_hemisphere_witness_z_is_exactly_positive(data):
    tokens, w = data
    if not any(w):
        w = [sympy.Integer(1)] + w[1:]
    oriented = []
    for x in tokens:
        s = sum(a * b for a, b in zip(w, x))
        if s != 0:
            oriented.append(x if s > 0 else [-c for c in x])
    if not oriented:
        oriented = [[sympy.Integer(1)] + [sympy.Integer(0)] * (len(w) - 1)]
    v = OpenHemisphere().evaluate(simple_system("identity", "identity", [[str(c) for c in x] for x in oriented]))
    assert v.status is Status.HOLDS and v.exact
    z = [Fraction(s) for s in v.witness["z"]]
    inner = [sum(zj * Fraction(str(c)) for zj, c in zip(z, x)) for x in oriented]
    assert min(inner) > 0
    assert Fraction(v.witness["min_inner"]) == min(inner)


@SETTINGS
@given(dims.flatmap(lambda d: st.tuples(matrices(d), matrices(d, nonzero=True))))
def test_symmetric_rational_U_holds_and_any_antisymmetric_part_fails(data):
    M, N = data
    sym = M + M.T
    anti = N - N.T
    system = simple_system("identity", _strings(sym), [[1] + [0] * (sym.rows - 1)])
    assert USymmetric().evaluate(system).status is Status.HOLDS
    if anti != sympy.zeros(*anti.shape):
        broken = simple_system("identity", _strings(sym + anti), [[1] + [0] * (sym.rows - 1)])
        v = USymmetric().evaluate(broken)
        assert v.status is Status.FAILS
        i, j = v.witness["per_head"][0]["entry"]
        assert sympy.Rational(v.witness["per_head"][0]["entry_value"]) == 2 * anti[i, j] != 0
