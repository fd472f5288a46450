"""The exact decision of "open hemisphere" when the LP hint cannot decide: Wolfe's minimum-norm
point of the convex hull of the rows, in exact rational arithmetic.

Let ``p`` be the point of ``conv(x_1..x_N)`` nearest to 0.  If ``p != 0``, then
``<p, x_i> >= |p|^2 > 0`` for every ``i`` (the optimality condition of the nearest point), so
``z = p`` is an exact witness of an open hemisphere.  If ``p = 0``, its convex weights
``lambda`` are a Farkas witness: ``lambda >= 0``, ``sum lambda = 1``, ``sum lambda_i x_i = 0``.
Either way the caller re-checks the witness exactly; this module only finds it.

Wolfe's algorithm (P. Wolfe, Finding the nearest point in a polytope, Math. Programming 11, 1976)
keeps an affinely independent corral ``S`` and the convex weights of the current point; every
step solves a small linear system exactly (Fractions), so it terminates without any tolerance.
The cost grows with ``N`` and ``d``: callers use it on small instances only (:data:`MAX_POINTS`).
"""
from __future__ import annotations

from fractions import Fraction

from ._rational import solve_rational

MAX_POINTS = 400
MAX_ITERATIONS = 2_000

Vector = list[Fraction]


def _dot(a: Vector, b: Vector) -> Fraction:
    return sum((x * y for x, y in zip(a, b)), Fraction(0))


def _affine_minimizer(points: list[Vector], S: list[int]) -> list[Fraction] | None:
    """Weights ``mu`` (sum 1) of the point of the affine hull of ``S`` nearest to 0."""
    k = len(S)
    G = [[_dot(points[i], points[j]) for j in S] + [Fraction(1)] for i in S]
    G.append([Fraction(1)] * k + [Fraction(0)])
    sol = solve_rational(G, [Fraction(0)] * k + [Fraction(1)])
    return None if sol is None else sol[:k]


def min_norm_point(points: list[Vector]) -> tuple[Vector, dict[int, Fraction]] | None:
    """``(p, weights)``: the exact nearest point to 0 of the convex hull and its convex weights
    (index -> weight > 0), or None above the size limits or when the iteration limit is hit."""
    N = len(points)
    if N == 0 or N > MAX_POINTS:
        return None
    d = len(points[0])
    start = min(range(N), key=lambda i: _dot(points[i], points[i]))
    S, lam = [start], {start: Fraction(1)}
    x = list(points[start])
    for _ in range(MAX_ITERATIONS):
        xx = _dot(x, x)
        if xx == 0:
            return x, lam
        j = min(range(N), key=lambda i: _dot(x, points[i]))
        if _dot(x, points[j]) >= xx or j in lam:
            return x, lam
        S.append(j)
        lam[j] = Fraction(0)
        while True:
            mu = _affine_minimizer(points, S)
            if mu is None:
                return None  # affinely dependent corral: cannot happen in exact arithmetic; give up
            if all(m > 0 for m in mu):
                lam = dict(zip(S, mu))
                break
            theta = min(lam[i] / (lam[i] - m) for i, m in zip(S, mu) if m <= 0 and lam[i] - m != 0)
            lam = {i: (1 - theta) * lam[i] + theta * m for i, m in zip(S, mu)}
            S = [i for i in S if lam[i] > 0]
            lam = {i: lam[i] for i in S}
        x = [sum((lam[i] * points[i][k] for i in S), Fraction(0)) for k in range(d)]
    return None


__all__ = ["MAX_POINTS", "min_norm_point"]
