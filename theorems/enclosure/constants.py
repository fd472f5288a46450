"""Rigorous rational enclosures of constant SymPy numbers (``sqrt(2)/2``, ``exp(-2 beta p)``, ``pi``).

Rationals and floats are exact points (a float is the binary rational it holds).  Anything else
goes through the arb walker (:mod:`theorems.enclosure.walk`), whose ball endpoints are exact
binary rationals, so ``lo <= value <= hi`` is a theorem, not an ``evalf`` estimate.
"""
from __future__ import annotations

from fractions import Fraction

import sympy

from ..errors import InvalidInput
from .box import Iv, to_fraction
from .halfline import box
from .walk import DEFAULT_PREC, enclose


def enclose_constant(expr: sympy.Expr, prec: int = DEFAULT_PREC) -> tuple[Fraction, Fraction]:
    """Rationals ``lo <= expr <= hi``; ``ValueError`` when ``expr`` is not a real constant of the
    function class (a free symbol, a complex value, an undefined operation) or is unbounded."""
    expr = sympy.sympify(expr)
    if isinstance(expr, sympy.Rational):
        q = Fraction(int(expr.p), int(expr.q))
        return q, q
    if isinstance(expr, sympy.Float):
        r = sympy.Rational(expr)
        q = Fraction(int(r.p), int(r.q))
        return q, q
    if expr.free_symbols:
        raise InvalidInput("expression", "a constant (no free symbol)", str(expr))
    iv = enclose(expr, box(Fraction(0), Fraction(0)), prec=prec)
    if iv is None or not iv.bounded:
        raise InvalidInput("expression", "an enclosable real constant", str(expr))
    lo, hi = iv.fractions()
    return lo, hi


def constant_interval(expr: sympy.Expr, prec: int = DEFAULT_PREC) -> Iv | None:
    """The arb interval of a constant (None when it cannot be enclosed)."""
    iv = enclose(sympy.sympify(expr), box(Fraction(0), Fraction(0)), prec=prec)
    return iv if iv is not None and iv.bounded else None


__all__ = ["enclose_constant", "constant_interval", "to_fraction"]
