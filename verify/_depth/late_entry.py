"""Certified late entry for the layer map (eq. 4): ball enclosures of ``L0`` layers, then the hemisphere.

Eq. 4 with ``U^h = I`` and constant ``P^h``: ``x_i <- pi(x_i + tau sum_h sum_{j in M(i)} a^h_ij x_j)``,
``pi(v) = v/|v|``.  Starting from the exact (rational) tokens, every layer is evaluated in
python-flint ``arb`` balls (``exp`` of the softmax, the square root of the normalisation, all
outward rounded), so after layer ``k`` each true token lies in the box of balls ``X_k[i]``.  At
each layer the float LP of :func:`theorems.predicates.hemisphere.hemisphere_verdict` run on the
midpoints proposes a rational ``z``; it counts only when the balls prove ``<z, x> > 0`` for every
point of every box (:func:`verify._depth.bounds.chart_balls`).  Then the layer-map bound applies from
layer ``L0`` on.  Nothing here is a float decision: a box the balls cannot decide is "not yet".

Not guaranteed: that an entry is found when one exists (balls widen with depth, the LP may pick a
poor ``z``); a budget without entry is "unknown", never a bound.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Callable, Sequence

import flint
import numpy as np

from .bounds import PREC, Chart, ball, chart_balls

Matrix = Sequence[Sequence[Fraction]]


def layer_balls(X: list[list[flint.arb]], P: Sequence[Matrix], beta: Fraction, tau: Fraction,
                causal: bool) -> list[list[flint.arb]]:
    """One layer of eq. 4 in balls (call inside ``flint.ctx.workprec``)."""
    n, d = len(X), len(X[0])
    Xm = flint.arb_mat(n, d, [c for row in X for c in row])
    A = [[flint.arb(0)] * n for _ in range(n)]
    b, t = ball(beta), ball(tau)
    for Ph in P:
        Pm = flint.arb_mat(d, d, [ball(c) for row in Ph for c in row])
        S = Xm * Pm * Xm.transpose()
        for i in range(n):
            keys = range(i + 1) if causal else range(n)
            e = {j: (b * S[i, j]).exp() for j in keys}
            Z = sum(e.values(), flint.arb(0))
            for j in keys:
                A[i][j] = A[i][j] + e[j] / Z
    out = []
    for i in range(n):
        v = [X[i][c] + t * sum((A[i][j] * X[j][c] for j in range(n)), flint.arb(0)) for c in range(d)]
        norm = sum((c * c for c in v), flint.arb(0)).sqrt()
        out.append([c / norm for c in v])
    return out


def initial_balls(tokens: Matrix) -> list[list[flint.arb]]:
    """Balls around the normalised rational tokens (exact unit data stay exact up to ``fmpq`` rounding)."""
    out = []
    for row in tokens:
        v = [ball(c) for c in row]
        norm = sum((c * c for c in v), flint.arb(0)).sqrt()
        out.append([c / norm for c in v])
    return out


def _candidate_z(X: list[list[flint.arb]]) -> list[Fraction] | None:
    from theorems.predicates import hemisphere_verdict

    mids = np.array([[float(c.mid()) for c in row] for row in X])
    verdict = hemisphere_verdict(mids)
    if not verdict.holds:
        return None
    return [Fraction(v) for v in verdict.witness["z"]]


def find_entry(tokens: Matrix, P: Sequence[Matrix], beta: Fraction, tau: Fraction, budget: int,
               z_fixed: Sequence[Fraction] | None = None,
               score: Callable[[int, Chart], float] | None = None) -> tuple[int, list[Fraction], Chart] | None:
    """A layer ``L0 <= budget`` at which the balls prove an open hemisphere (full attention):
    ``(L0, z, chart)``; ``None`` when none is proved within the budget.  Without ``score`` the first
    such layer; with it, the proved layer of smallest ``score(L0, chart)`` (the search continues to
    the budget: a later entry has a wider margin and often a much smaller total bound).  With
    ``z_fixed`` (the re-check), only that ``z`` is tried, at layer ``budget``."""
    best = None
    with flint.ctx.workprec(PREC):
        X = initial_balls(tokens)
        for k in range(budget + 1):
            if z_fixed is None or k == budget:
                z = list(z_fixed) if z_fixed is not None else _candidate_z(X)
                chart = chart_balls(z, X) if z is not None else None
                if chart is not None:
                    if score is None:
                        return k, z, chart
                    value = score(k, chart)
                    if best is None or value < best[0]:
                        best = (value, (k, z, chart))
                elif z_fixed is not None:
                    return None
            if k < budget:
                X = layer_balls(X, P, beta, tau, causal=False)
                if not all(c.is_finite() for row in X for c in row):
                    break
    return None if best is None else best[1]
