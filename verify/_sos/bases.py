"""Monomial bases for Gram matrices: half-degree bounds and Newton-polytope pruning.

For an unconstrained identity ``p = m^T X m`` only monomials ``m_a`` with ``2 a`` in the Newton
polytope ``conv(supp p)`` can appear (Reznick, *Extremal PSD forms with few terms*, 1978), and a
monomial ``m_a`` whose square ``2 a`` is not in ``supp p`` and is not ``a_i + a_j`` of two other
basis monomials must have a zero diagonal entry, hence a zero row: it is dropped too
(the "diagonal consistency" step).  Pruning only shrinks the search; soundness never depends
on it, because the certificate is re-checked exactly whatever basis it uses.  The convex-hull test
is a floating-point LP with a tolerance that errs on the side of keeping a monomial.
"""
from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np

from . import poly


def half_degree_basis(n: int, low: int, high: int) -> list[poly.Monomial]:
    return poly.monomials_up_to(n, max(low, 0), high) if high >= max(low, 0) else []


def _in_hull(point: np.ndarray, vertices: np.ndarray) -> bool:
    k = vertices.shape[0]
    if k == 0:
        return False
    a_eq = np.vstack([vertices.T, np.ones((1, k))])
    b_eq = np.concatenate([point, [1.0]])
    from scipy.optimize import linprog  # lazily: only a search needs it (cold start)

    res = linprog(np.zeros(k), A_eq=a_eq, b_eq=b_eq, bounds=[(0, None)] * k, method="highs")
    if res.status != 0:
        return False
    return bool(np.allclose(a_eq @ res.x, b_eq, atol=1e-7))


def newton_basis(support: Iterable[poly.Monomial], n: int) -> list[poly.Monomial]:
    """Monomials ``a`` with ``2a`` in ``conv(support)``, then diagonal-consistency pruning."""
    points = sorted(set(support))
    if not points:
        return []
    degrees = [sum(m) for m in points]
    low, high = (min(degrees) + 1) // 2, max(degrees) // 2
    lo_var = [min(m[i] for m in points) for i in range(n)]
    hi_var = [max(m[i] for m in points) for i in range(n)]
    vertices = np.array(points, dtype=float).reshape(len(points), n)
    candidates = []
    for mono in half_degree_basis(n, low, high):
        doubled = [2 * e for e in mono]
        if any(d < lo or d > hi for d, lo, hi in zip(doubled, lo_var, hi_var)):
            continue
        if tuple(doubled) in set(points) or _in_hull(np.array(doubled, dtype=float), vertices):
            candidates.append(mono)
    return prune_diagonal(candidates, points)


def prune_diagonal(basis: Sequence[poly.Monomial], support: Iterable[poly.Monomial]) -> list[poly.Monomial]:
    support_set = set(support)
    current = list(basis)
    changed = True
    while changed:
        changed = False
        sums: dict[poly.Monomial, int] = {}
        for i, a in enumerate(current):
            for b in current[i + 1:]:
                key = poly.mono_mul(a, b)
                sums[key] = sums.get(key, 0) + 1
        kept = []
        for a in current:
            square = poly.mono_mul(a, a)
            if square in support_set or sums.get(square, 0) > 0:
                kept.append(a)
            else:
                changed = True
        current = kept
    return current
