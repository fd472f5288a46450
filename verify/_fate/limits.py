"""The entry tests of the three routes and the limits they prove (arb balls and rationals only).

* ``hemisphere`` (full mask, every ``U^h = I``): a rational ``z`` with ``<z, x_i> > 0`` on every
  ball.  Theorem 3.2 (consensus from an open hemisphere; the hemisphere is forward invariant, so
  entering it later suffices: docs/model.md §2) gives a limit ``x*``; in the chart
  ``y_i = x_i / <z, x_i>`` the flow is a consensus protocol with nonnegative weights
  (docs/model.md §3, "3.2, consensus"), so the convex hull of the ``y_i`` never grows and
  ``x* = y*/|y*|`` with ``y*`` in the box hull of the ``y_i`` at the entry time.
* ``cap`` (causal mask, every ``U^h = I``): ``x_1`` never moves; every ``<x_1, x_i> > 0`` on the
  balls.  docs/depth.md ("4.2, ODE"): ``min_i <x_1, x_i(t)> >= tanh(c t + artanh m0) -> 1``, so every
  token tends to ``x_1(0)``.
* ``basin``: :func:`verify._fate.basin.entered`; the limit is the certified equilibrium.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Callable, Sequence

from flint import arb

from verify.equilibrium.krawczyk import rational_ball

from .flow import Rows
from .problem import FateProblem


def hemisphere_test(z: Sequence[Fraction]) -> Callable[[Rows], bool]:
    zb = [rational_ball(v) for v in z]
    return lambda X: all(sum((a * b for a, b in zip(zb, x)), arb(0)) > 0 for x in X)


LIMIT_WIDTH = 1e-6
"""The hemisphere route keeps enclosing until the limit's balls are this narrow (or ``t_max``)."""


def narrow_hemisphere_test(z: Sequence[Fraction], prec: int) -> Callable[[Rows], bool]:
    """``z`` proves the hemisphere and the limit's balls (:func:`hemisphere_limit`) are narrower than
    :data:`LIMIT_WIDTH` (the chart hull only shrinks after entry, so waiting pins ``x*`` down)."""
    from flint import ctx

    from verify.validated.balls import max_width

    inside = hemisphere_test(z)

    def test(X: Rows) -> bool:
        if not inside(X):
            return False
        with ctx.workprec(prec):
            return max_width([hemisphere_limit(z, X)]) < LIMIT_WIDTH
    return test


def first_token(problem: FateProblem) -> list[arb]:
    """``x_1(0)`` as balls (``c / |c|`` when the instance normalises)."""
    x = [rational_ball(v) for v in problem.tokens[0]]
    if problem.normalize:
        norm = sum((v * v for v in x), arb(0)).sqrt()
        x = [v / norm for v in x]
    return x


def cap_test(problem: FateProblem) -> Callable[[Rows], bool]:
    x1 = first_token(problem)
    return lambda X: all(sum((a * b for a, b in zip(x1, x)), arb(0)) > 0 for x in X[1:])


def hemisphere_limit(z: Sequence[Fraction], X: Rows) -> list[arb]:
    """Balls containing ``y/|y|`` for every ``y`` in the box hull of ``x_i / <z, x_i>``."""
    zb = [rational_ball(v) for v in z]
    hull: list[arb] = []
    for x in X:
        s = sum((a * b for a, b in zip(zb, x)), arb(0))
        y = [v / s for v in x]
        hull = y if not hull else [h.union(v) for h, v in zip(hull, y)]
    norm = sum((v * v for v in hull), arb(0)).sqrt()
    return [v / norm for v in hull]


def propose_z(X: Rows) -> tuple[Fraction, ...] | None:
    """A dyadic candidate ``z`` (mean of the midpoints, else the hemisphere LP): a hint only."""
    import numpy as np

    from theorems.hemisphere_margin import hemisphere_lp

    M = np.array([[float(v.mid()) for v in x] for x in X])
    if not np.all(np.isfinite(M)):
        return None
    z = M.sum(axis=0)
    if np.min(M @ z) <= 0:
        lp = hemisphere_lp(M)
        if lp.z is None:
            return None
        z = lp.z
    norm = float(np.linalg.norm(z))
    if norm == 0:
        return None
    return tuple(Fraction(round(v / norm * 2**20), 2**20) for v in z)


def distinct(x: Sequence[arb], y: Sequence[arb]) -> bool:
    """``x != y`` for every pair of points in the balls (``|x - y|^2 > 0`` in arb)."""
    return bool(sum(((a - b) * (a - b) for a, b in zip(x, y)), arb(0)) > 0)


def ball_text(v: arb) -> str:
    return v.str(12, radius=True)


__all__ = ["ball_text", "cap_test", "distinct", "first_token", "hemisphere_limit", "hemisphere_test", "propose_z"]
