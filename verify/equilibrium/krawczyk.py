"""The Krawczyk test for a zero of the chart field, in arb ball arithmetic.

For a ``C^1`` map ``phi`` on a box ``X`` with midpoint ``m``, any matrix ``C`` and an interval
matrix ``J(X)`` containing ``D phi(y)`` for every ``y`` in ``X``, the Krawczyk operator

    K(X) = m - C phi(m) + (I - C J(X)) (X - m)

satisfies: if ``K(X)`` lies in the interior of ``X``, then ``X`` contains exactly one zero of
``phi`` (Krawczyk 1969; Moore 1977; e.g. A. Neumaier, *Interval Methods for Systems of
Equations*, Thm 5.1.8).  ``C`` is only a preconditioner: it is recomputed here from the midpoint
Jacobian and never trusted.  Every quantity on the path to "contained" is an arb ball or an exact
rational; the comparisons are arb's, which answer False when the balls cannot decide.

Not guaranteed: a failed test says nothing (the box may still contain a zero).
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence, final

from flint import arb, arb_mat, fmpq

from .chart_field import FieldData, chart_field
from .dual import Scalars


def arb_scalars() -> Scalars:
    """arb at the caller's working precision (call inside ``flint.ctx.workprec``)."""
    return Scalars(exp=lambda v: v.exp(), sqrt=lambda v: v.sqrt(),
                   const=lambda q: arb(fmpq(q.numerator, q.denominator)), zero=arb(0))


def rational_ball(q: Fraction) -> arb:
    return arb(fmpq(q.numerator, q.denominator))


def box_balls(mid: Sequence[Fraction], rad: Sequence[Fraction]) -> list[arb]:
    """Balls containing ``[m - r, m + r]`` (the hull of the two rational endpoints)."""
    return [rational_ball(m - r).union(rational_ball(m + r)) for m, r in zip(mid, rad)]


def upper_fraction(x: arb) -> Fraction:
    """An exact rational ``>= every point of x`` (the ball's upper endpoint, a dyadic)."""
    man, exp = x.upper().mid().man_exp()
    man, exp = int(man), int(exp)
    return Fraction(man * 2 ** exp) if exp >= 0 else Fraction(man, 2 ** -exp)


@final
@dataclass(frozen=True)
class KrawczykResult:
    contained: bool
    reason: str
    contraction: Fraction | None
    """Upper bound of ``||I - C J(X)||_inf`` (the contraction factor of the Krawczyk map)."""
    jacobian: list[list[arb]] | None
    """The enclosure ``J(X)`` (for the stability check, which needs the same box)."""


def krawczyk(data: FieldData, mid: Sequence[Fraction], rad: Sequence[Fraction]) -> KrawczykResult:
    """Run the test on the rational box ``mid +- rad`` (call inside ``flint.ctx.workprec``)."""
    s = arb_scalars()
    n = data.n
    at_mid, _ = chart_field(data, [rational_ball(m) for m in mid], s, jacobian=False)
    X = box_balls(mid, rad)
    _, J = chart_field(data, X, s, jacobian=True)
    if not all(v.is_finite() for v in at_mid) or not all(v.is_finite() for row in J for v in row):
        return KrawczykResult(False, "the field or its Jacobian is not finite on the box", None, J)
    _, J_mid = chart_field(data, [rational_ball(m) for m in mid], s, jacobian=True)
    try:
        C = arb_mat([[v.mid() for v in row] for row in J_mid]).inv()
    except ZeroDivisionError:
        return KrawczykResult(False, "the midpoint Jacobian could not be inverted", None, J)
    C = arb_mat([[C[r, c].mid() for c in range(n)] for r in range(n)])
    JX = arb_mat(J)
    M = arb_mat([[int(r == c) for c in range(n)] for r in range(n)]) - C * JX
    phi = arb_mat([[v] for v in at_mid])
    dev = arb_mat([[X[k] - rational_ball(mid[k])] for k in range(n)])
    K = arb_mat([[rational_ball(m)] for m in mid]) - C * phi + M * dev
    contraction = max(upper_fraction(sum((abs(M[r, c]) for c in range(n)), arb(0))) for r in range(n))
    for k in range(n):
        lo, hi = rational_ball(mid[k] - rad[k]), rational_ball(mid[k] + rad[k])
        if not (K[k, 0] > lo and K[k, 0] < hi):
            return KrawczykResult(False, f"K(X) is not inside the box in coordinate {k}: K_{k} = {K[k, 0].str(5)}, "
                                         f"box [{float(mid[k] - rad[k]):.6g}, {float(mid[k] + rad[k]):.6g}]",
                                  contraction, J)
    return KrawczykResult(True, f"K(X) lies in the interior of X (contraction ||I - C J(X)||_inf <= "
                                f"{float(contraction):.3g})", contraction, J)
