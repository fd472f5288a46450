"""Exact rational bounds for attention weights (SPEC §2, ``weights`` lemma).

``exp(-2 beta p)/n <= a_ij <= exp(2 beta p)/n`` with ``n = |M(i)|``; summed over ``H`` heads the
total weight on one key lies in ``[H exp(-2 beta p)/n, H exp(2 beta p)/n]``.  ``exp`` is
irrational and ``beta`` often is too (the paper's ``1/sqrt(d)``), so certificates take rational
bounds computed with mpmath interval arithmetic in a private context (outward rounding, no global
precision) and converted exactly from the binary endpoints; the rationals are then shortened
only in the safe direction.
"""
from __future__ import annotations

import math
from fractions import Fraction

import sympy
from mpmath.ctx_iv import MPIntervalContext

from theorems.errors import InvalidInput


def _to_fraction(raw: tuple) -> Fraction:
    """Exact value of a raw mpmath binary float tuple ``(sign, man, exp, bc)``."""
    sign, man, exp, _ = raw
    value = Fraction(int(man) * 2 ** exp) if exp >= 0 else Fraction(int(man), 2 ** -exp)
    return -value if sign else value


def _interval(expr: sympy.Expr, prec: int):
    """Evaluate a constant expression in a private interval context (no global precision).

    A tree walk, so every rational is entered exactly (``p/q`` as an interval quotient) and no
    float ever stands in for a constant; anything outside the supported constructors is refused.
    """
    iv = MPIntervalContext()
    iv.prec = prec
    return _walk(sympy.sympify(expr), iv)


def _walk(expr: sympy.Expr, iv):
    if expr.is_Integer:
        return iv.mpf(int(expr))
    if expr.is_Rational:
        return iv.mpf(int(expr.p)) / iv.mpf(int(expr.q))
    if expr is sympy.pi:
        return iv.pi
    if expr is sympy.E:
        return iv.e
    if isinstance(expr, sympy.Add):
        total = iv.mpf(0)
        for arg in expr.args:
            total = total + _walk(arg, iv)
        return total
    if isinstance(expr, sympy.Mul):
        total = iv.mpf(1)
        for arg in expr.args:
            total = total * _walk(arg, iv)
        return total
    if isinstance(expr, sympy.exp):
        return iv.exp(_walk(expr.args[0], iv))
    if isinstance(expr, sympy.log):
        return iv.log(_walk(expr.args[0], iv))
    if isinstance(expr, sympy.Pow):
        base, power = expr.args
        if power.is_Integer:
            value = _walk(base, iv) ** abs(int(power))
            return value if power >= 0 else 1 / value
        if power.is_Rational:
            return iv.exp(_walk(power, iv) * iv.log(_walk(base, iv)))
    raise InvalidInput("beta, p", "an exact constant built from rationals, sqrt, powers, exp, log, pi and E", str(expr))


def _exact(value, field: str) -> sympy.Expr:
    if isinstance(value, (float, bool)):
        raise InvalidInput(field, "an exact number (int, Fraction, 'p/q' or a SymPy expression)", value)
    expr = sympy.sympify(str(value)) if isinstance(value, (Fraction, str)) else sympy.sympify(value)
    if not expr.is_number or expr.is_real is False or expr.has(sympy.Float):
        raise InvalidInput(field, "an exact real constant", value)
    return expr


def exp_bounds(y, digits: int = 12) -> tuple[Fraction, Fraction]:
    """Rationals ``lo <= exp(y) <= hi`` for an exact real constant ``y`` (relative width ~10^-digits)."""
    expr = sympy.exp(_exact(y, "y"))
    box = _interval(expr, int(digits * 3.33) + 40)
    lo, hi = _to_fraction(box._mpi_[0]), _to_fraction(box._mpi_[1])
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
