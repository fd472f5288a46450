"""Rational enclosures of the attention-weight bounds of the ``weights`` lemma.

``exp(-2 beta p)/|M(i)| <= a^h_ij <= exp(2 beta p)/|M(i)|``.  The exponentials are irrational, so
certificates take rational bounds ``w_lo <= exp(-2 beta p)`` and ``w_hi >= exp(2 beta p)``
computed with mpmath's interval arithmetic (outward rounding, scoped precision) and converted to
exact fractions from the binary endpoints, so no float rounding can move a bound inwards.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import mpmath
from mpmath.ctx_iv import MPIntervalContext
import sympy


def _to_fraction(raw: tuple) -> Fraction:
    """Exact value of a raw mpmath binary float tuple ``(sign, man, exp, bc)``."""
    sign, man, exp, _ = raw
    value = Fraction(int(man) * 2 ** exp) if exp >= 0 else Fraction(int(man), 2 ** -exp)
    return -value if sign else value


def _interval(expr: sympy.Expr, prec: int):
    """Evaluate a constant expression in a private interval context (no global precision)."""
    iv = MPIntervalContext()
    iv.prec = prec
    if expr.is_Rational:  # lambdify would return a plain Python number
        return iv.mpf(sympy.Rational(expr).p) / iv.mpf(sympy.Rational(expr).q)
    return sympy.lambdify((), expr, modules=[{"exp": iv.exp, "sqrt": iv.sqrt, "pi": iv.pi, "E": iv.e,
                                               "Rational": lambda a, b: iv.mpf(a) / b}, iv])()


@dataclass(frozen=True)
class ExpBounds:
    """Exact rationals with ``lo <= exp(-2 beta p)`` and ``hi >= exp(2 beta p)``."""

    beta: str
    p: str
    lo: Fraction
    hi: Fraction

    def to_json(self) -> dict[str, str]:
        return {"beta": self.beta, "p": self.p, "exp(-2 beta p) >=": str(self.lo), "exp(2 beta p) <=": str(self.hi)}


def exp_bounds(beta: sympy.Expr, p: Fraction | str | sympy.Expr, digits: int = 12) -> ExpBounds:
    """Rational outer bounds of ``exp(-+2 beta p)`` with about ``digits`` significant digits.

    The rationals are simplified to short continued-fraction convergents that still lie on the
    safe side of the rigorous interval endpoints.
    """
    p_expr = sympy.nsimplify(sympy.sympify(str(p)))
    x = 2 * sympy.sympify(beta) * p_expr
    prec = int(digits * 3.33) + 20
    low_iv = _interval(sympy.exp(-x), prec)
    high_iv = _interval(sympy.exp(x), prec)
    lo_exact, hi_exact = _to_fraction(low_iv._mpi_[0]), _to_fraction(high_iv._mpi_[1])
    scale = Fraction(10) ** digits
    lo = Fraction((lo_exact * scale).__floor__(), 1) / scale
    hi = Fraction(-((-hi_exact * scale).__floor__()), 1) / scale
    if lo <= 0:  # extremely small weights: keep the exact dyadic bound rather than 0
        lo = lo_exact
    return ExpBounds(str(beta), str(p_expr), lo, hi)
