"""Exact rational bounds for attention weights (docs/model.md §2, ``weights`` lemma).

``exp(-2 beta p)/n <= a_ij <= exp(2 beta p)/n`` with ``n = |M(i)|``; summed over ``H`` heads the
total weight on one key lies in ``[H exp(-2 beta p)/n, H exp(2 beta p)/n]``.  ``exp`` is
irrational and ``beta`` often is too (the paper's ``1/sqrt(d)``), so certificates take rational
bounds computed by the toolkit's one enclosure engine (python-flint ``arb`` balls, outward
rounded, precision passed explicitly; :mod:`theorems.enclosure`), converted exactly from the
binary endpoints; the rationals are then shortened only in the safe direction.
"""
from __future__ import annotations

import math
from fractions import Fraction

import sympy

from theorems.enclosure import constant_interval
from theorems.errors import InvalidInput
from theorems.parsing import Grammar, parse


def _exact(value, field: str) -> sympy.Expr:
    if isinstance(value, (float, bool)):
        raise InvalidInput(field, "an exact number (int, Fraction, 'p/q' or a SymPy expression)", value)
    if isinstance(value, Fraction):
        expr = sympy.Rational(value.numerator, value.denominator)
    elif isinstance(value, str):
        expr = parse(value, Grammar(variables={}), field).expr
    elif isinstance(value, (int, sympy.Basic)):
        expr = sympy.sympify(value)
    else:
        raise InvalidInput(field, "an exact number (int, Fraction, 'p/q' or a SymPy expression)", value)
    if not expr.is_number or expr.is_real is False or expr.has(sympy.Float):
        raise InvalidInput(field, "an exact real constant", value)
    return expr


def exp_bounds(y, digits: int = 12) -> tuple[Fraction, Fraction]:
    """Rationals ``lo <= exp(y) <= hi`` for an exact real constant ``y`` (relative width ~10^-digits)."""
    expr = sympy.exp(_exact(y, "y"))
    box = constant_interval(expr, prec=int(digits * 3.33) + 40)
    if box is None:
        raise InvalidInput("beta, p", "an exact real constant of the function class (verify docs format)", str(expr))
    lo, hi = box.fractions()
    # shorten to `digits` significant digits, rounding outwards (relative, so tiny values stay tight)
    e = math.floor(math.log10(float(lo))) if lo > 0 and float(lo) > 0 else None
    if e is None:
        return lo, hi
    scale = Fraction(10) ** (digits - 1 - e)
    short_lo = Fraction(math.floor(lo * scale)) / scale
    short_hi = Fraction(math.ceil(hi * scale)) / scale
    if short_lo <= 0:
        short_lo = lo
    return short_lo, short_hi


def attention_weight_bounds(heads: int, beta, p, n_keys: int) -> tuple[Fraction, Fraction]:
    """Rational ``(w_lo, w_hi)`` with ``w_lo <= sum_h a^h_ij <= w_hi`` when ``||P^h|| <= p``, ``|M(i)| = n_keys``.

    ``w_hi`` is also capped by ``heads`` (each weight is at most 1).
    """
    for name, value in (("heads", heads), ("n_keys", n_keys)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InvalidInput(name, "a positive integer", value)
    b, q = _exact(beta, "beta"), _exact(p, "p")
    if b < 0 or q < 0:
        raise InvalidInput("beta, p", "nonnegative constants", (str(b), str(q)))
    lo, _ = exp_bounds(-2 * b * q)
    _, hi = exp_bounds(2 * b * q)
    return Fraction(heads) * lo / n_keys, min(Fraction(heads), Fraction(heads) * hi / n_keys)
