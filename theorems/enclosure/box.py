"""Closed real intervals with exact binary endpoints and infinite ends, on python-flint ``arb``.

An :class:`Iv` is ``[lo, hi]`` where each endpoint is an *exact* ``arb`` (radius 0) or ``None``
for ``-oo`` / ``+oo``.  Every operation computes its result endpoints with ``arb`` ball arithmetic
and keeps only the outward end of each ball (``lower()`` for a lower endpoint, ``upper()`` for an
upper one), so the result contains every value the operation can take on the operands.  The
product follows Moore's rule ``0 * oo = 0``, which is correct for intervals of finite reals.

What is not guaranteed: tightness.  Precision is whatever the caller's ``flint.ctx.workprec``
scope says; the walker (:mod:`theorems.enclosure.walk`) always sets one.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Optional

from flint import arb, fmpq

End = Optional[arb]


def exact_arb(q: Fraction | int) -> arb:
    """A ball containing the rational ``q`` (exact when ``q`` is dyadic and short)."""
    q = Fraction(q)
    return arb(fmpq(q.numerator, q.denominator))


def to_fraction(x: arb) -> Fraction:
    """The exact value of an exact (radius-0) ``arb``."""
    man, exp = x.man_exp()
    man, exp = int(man), int(exp)
    return Fraction(man * 2 ** exp) if exp >= 0 else Fraction(man, 2 ** -exp)


def _low(ball: arb) -> End:
    return ball.lower() if ball.is_finite() else None


def _high(ball: arb) -> End:
    return ball.upper() if ball.is_finite() else None


@dataclass(frozen=True)
class Iv:
    """``[lo, hi]``; ``None`` stands for an infinite end.  Construct with :func:`make`."""

    lo: End
    hi: End

    @property
    def bounded(self) -> bool:
        return self.lo is not None and self.hi is not None

    def positive(self) -> bool:
        """Every point is ``> 0``."""
        return self.lo is not None and bool(self.lo > 0)

    def negative(self) -> bool:
        return self.hi is not None and bool(self.hi < 0)

    def nonnegative(self) -> bool:
        return self.lo is not None and bool(self.lo >= 0)

    def excludes_zero(self) -> bool:
        return self.positive() or self.negative()

    def contains_zero(self) -> bool:
        return (self.lo is None or bool(self.lo <= 0)) and (self.hi is None or bool(self.hi >= 0))

    def abs_upper(self) -> End:
        """An upper bound on ``|x|`` over the interval (``None``: unbounded)."""
        if not self.bounded:
            return None
        a, b = abs(self.lo).upper(), abs(self.hi).upper()  # outward: exact at any precision
        return a if a >= b else b

    def fractions(self) -> tuple[Fraction | None, Fraction | None]:
        return (None if self.lo is None else to_fraction(self.lo),
                None if self.hi is None else to_fraction(self.hi))


def make(lo_ball: arb | None, hi_ball: arb | None) -> Iv:
    """Interval from a ball whose lower end is a lower bound and a ball whose upper end is an
    upper bound (``None``: infinite).  A NaN or infinite ball gives an infinite end."""
    return Iv(None if lo_ball is None else _low(lo_ball), None if hi_ball is None else _high(hi_ball))


def point(x: arb) -> Iv:
    return make(x, x)


def from_fraction(q: Fraction | int) -> Iv:
    return point(exact_arb(q))


ENTIRE = Iv(None, None)


def hull(a: Iv, b: Iv) -> Iv:
    lo = None if a.lo is None or b.lo is None else (a.lo if a.lo <= b.lo else b.lo)
    hi = None if a.hi is None or b.hi is None else (a.hi if a.hi >= b.hi else b.hi)
    return Iv(lo, hi)


def add(a: Iv, b: Iv) -> Iv:
    lo = None if a.lo is None or b.lo is None else _low(a.lo + b.lo)
    hi = None if a.hi is None or b.hi is None else _high(a.hi + b.hi)
    return Iv(lo, hi)


def neg(a: Iv) -> Iv:
    # ball operations round to the current precision: keep the outward end of each result
    return Iv(None if a.hi is None else (-a.hi).lower(), None if a.lo is None else (-a.lo).upper())


# Extended endpoints for products: (kind, value) with kind -1 (-oo), 0 (finite), +1 (+oo).
def _ends(a: Iv) -> list[tuple[int, arb | None]]:
    return [(-1, None) if a.lo is None else (0, a.lo), (1, None) if a.hi is None else (0, a.hi)]


def _sign(kind: int, value: arb | None) -> int:
    if kind:
        return kind
    return 1 if value > 0 else (-1 if value < 0 else 0)


def mul(a: Iv, b: Iv) -> Iv:
    """Moore's extended product: the hull of the four endpoint products with ``0 * oo = 0``."""
    lows: list[End] = []
    highs: list[End] = []
    unbounded_below = unbounded_above = False
    for ka, va in _ends(a):
        for kb, vb in _ends(b):
            if ka == 0 and kb == 0:
                ball = va * vb
                lows.append(_low(ball))
                highs.append(_high(ball))
                if lows[-1] is None:
                    unbounded_below = unbounded_above = True
                continue
            s = _sign(ka, va) * _sign(kb, vb)
            if s > 0:
                unbounded_above = True
            elif s < 0:
                unbounded_below = True
            else:
                lows.append(arb(0))
                highs.append(arb(0))
    lo = None if unbounded_below or not lows else _extreme(lows, smallest=True)
    hi = None if unbounded_above or not highs else _extreme(highs, smallest=False)
    return Iv(lo, hi)


def _extreme(values: list[arb], smallest: bool) -> arb:
    """Min or max of exact balls (comparisons of exact balls are decided, never uncertain)."""
    best = values[0]
    for v in values[1:]:
        if (v < best) if smallest else (v > best):
            best = v
    return best


def recip(a: Iv) -> Iv | None:
    """``1/x`` over ``a``; ``None`` unless ``a`` provably excludes 0."""
    if not a.excludes_zero():
        return None
    lo = arb(0) if a.hi is None else _low(1 / a.hi)
    hi = arb(0) if a.lo is None else _high(1 / a.lo)
    return Iv(lo, hi)


def int_pow(a: Iv, n: int) -> Iv | None:
    """``x^n`` for an integer ``n`` (negative powers need ``0`` excluded)."""
    if n < 0:
        r = recip(a)
        return None if r is None else int_pow(r, -n)
    if n == 0:
        return from_fraction(1)
    if n == 1:
        return a

    def pw(x: End, up: bool) -> End:
        if x is None:
            return None
        ball = x ** n
        return _high(ball) if up else _low(ball)

    if n % 2 or a.nonnegative():
        if n % 2:
            lo = None if a.lo is None else pw(a.lo, False)
            hi = None if a.hi is None else pw(a.hi, True)
            return Iv(lo, hi)
        return Iv(pw(a.lo, False), None if a.hi is None else pw(a.hi, True))
    if a.hi is not None and bool(a.hi <= 0):
        return Iv(pw(a.hi, False), None if a.lo is None else pw(a.lo, True))
    top_lo = None if a.lo is None else pw(a.lo, True)
    top_hi = None if a.hi is None else pw(a.hi, True)
    hi = None if top_lo is None or top_hi is None else (top_lo if top_lo >= top_hi else top_hi)
    return Iv(arb(0), hi)


def monotone(a: Iv, fn, increasing: bool, at_minus_inf: End, at_plus_inf: End,
             minus_inf_is_infinite: bool = False, plus_inf_is_infinite: bool = False) -> Iv:
    """Image of ``a`` under a monotone ``fn`` (a ball function); limits at the infinite ends."""
    def value(x: End, infinite_end: int, up: bool) -> End:
        if x is None:
            if infinite_end < 0:
                return None if minus_inf_is_infinite else at_minus_inf
            return None if plus_inf_is_infinite else at_plus_inf
        ball = fn(x)
        return _high(ball) if up else _low(ball)

    if increasing:
        return Iv(value(a.lo, -1, False), value(a.hi, 1, True))
    return Iv(value(a.hi, 1, False), value(a.lo, -1, True))
