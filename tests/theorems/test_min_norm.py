"""The exact open-hemisphere fallback (Wolfe's nearest point, :mod:`theorems.predicates._min_norm`)
against an independent exact truth: by Caratheodory, ``0 in conv(X)`` iff some subset of at most
``d + 1`` points has ``0`` as a convex combination (exact linear algebra with SymPy)."""
from __future__ import annotations

import itertools
import random
from fractions import Fraction

import pytest
import sympy

from theorems.predicates import hemisphere_verdict
from theorems.predicates._min_norm import min_norm_point


def _zero_in_hull(points: list[list[Fraction]]) -> bool:
    d = len(points[0])
    for k in range(1, min(len(points), d + 1) + 1):
        for subset in itertools.combinations(range(len(points)), k):
            A = sympy.Matrix([[sympy.Rational(points[i][r].numerator, points[i][r].denominator) for i in subset]
                              for r in range(d)] + [[1] * k])
            b = sympy.Matrix([0] * d + [1])
            try:
                sol, params = A.gauss_jordan_solve(b)
            except ValueError:
                continue
            if params.shape[0] == 0 and all(v >= 0 for v in sol):
                return True
            if params.shape[0]:  # a family of solutions: try the vertices by zeroing the free parameters
                sol0 = sol.subs({p: 0 for p in params})
                if all(v >= 0 for v in sol0):
                    return True
    return False


def _near_degenerate(rng: random.Random, n: int, d: int) -> list[list[Fraction]]:
    """Points around a plane through 0 or around antipodes, perturbed by tiny exact rationals."""
    base = [[Fraction(rng.randint(-4, 4), rng.randint(1, 4)) for _ in range(d)] for _ in range(n)]
    if rng.random() < 0.5 and n >= 2:
        base[1] = [-v for v in base[0]]
    out = []
    for row in base:
        if not any(row):
            row = [Fraction(1)] + row[1:]
        tiny = Fraction(rng.choice([-1, 0, 1]), 10 ** rng.randint(15, 40))
        out.append([row[0] + tiny] + row[1:])
    return out


@pytest.mark.parametrize("seed", range(60))
def test_nearest_point_decides_as_caratheodory(seed):
    rng = random.Random(seed)
    n, d = rng.randint(2, 5), rng.randint(2, 3)
    points = [r for r in _near_degenerate(rng, n, d) if any(r)]
    p, weights = min_norm_point(points)
    truth_zero = _zero_in_hull(points)
    assert (not any(p)) == truth_zero
    assert sum(weights.values()) == 1 and all(w > 0 for w in weights.values())
    assert [sum(weights[i] * points[i][k] for i in weights) for k in range(d)] == p
    if any(p):
        assert all(sum(a * b for a, b in zip(p, x)) >= sum(a * a for a in p) for x in points)


def test_hemisphere_of_two_almost_antipodal_exact_tokens_holds_exactly():
    x = [Fraction(4, 5), Fraction(3, 5), Fraction(0)]
    y = [-Fraction(4, 5), -Fraction(3, 5) + Fraction(1, 10 ** 30), Fraction(0)]
    v = hemisphere_verdict([[float(c) for c in x], [float(c) for c in y]], [x, y])
    assert v.holds and v.exact
    z = [Fraction(c) for c in v.witness["z"]]
    assert all(sum(a * b for a, b in zip(z, t)) > 0 for t in (x, y))
    w = hemisphere_verdict([[float(c) for c in x], [-float(c) for c in x]], [x, [-c for c in x]])
    assert w.status.value == "fails" and w.exact
