"""Interval enclosure of a SymPy expression in ``t`` over the whole half-line ``t in [0, oo)``.

:func:`enclosure` returns ``(lo, hi)`` with rational or infinite endpoints such that
``lo <= f(t) <= hi`` for every ``t >= 0``, or ``None`` when the expression is not covered
(unsupported function, possible division by zero, logarithm of a non-positive range).  An
infinite endpoint means "no finite bound found", never "proved unbounded".

Composition rules (each one a local fact, as in cvxpy's atoms): ``t`` ranges over ``[0, oo]``;
sums and products combine endpoints; integer powers are exact; ``sin``/``cos`` lie in ``[-1, 1]``
(or the tighter image of a short argument range); ``tanh``, ``atan``, ``exp``, ``log``, ``sinh``,
``sqrt`` are monotone; ``cosh`` is even.  Function values at rational endpoints are computed
in a private 200-bit mpmath context and widened by ``2^-150`` relative plus ``2^-300`` absolute;
constants go through :func:`theorems.predicates._rational.enclose`.  What is not guaranteed:
that the enclosure is tight (it is often not), nor rigour beyond mpmath's and evalf's accuracy.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Callable, Union

import mpmath
import sympy

from ..expressions import t as T
from ._rational import enclose, to_fraction

INF = math.inf
Endpoint = Union[Fraction, float]
Interval = tuple[Endpoint, Endpoint]

_CTX = mpmath.MPContext()
_CTX.prec = 200
_REL = Fraction(1, 2 ** 150)
_ABS = Fraction(1, 2 ** 300)
_PI_HI = enclose(sympy.pi)[1]
_TWO_PI_LO = 2 * enclose(sympy.pi)[0]


def _mp(x: Fraction):
    return _CTX.mpf(x.numerator) / x.denominator


def _frac(v) -> Fraction:
    man, exp = v.man_exp
    return Fraction(int(man)) * (Fraction(2) ** int(exp))


def _value(fn: Callable, x: Endpoint, at_minus_inf: Endpoint, at_plus_inf: Endpoint) -> tuple[Endpoint, Endpoint]:
    """Enclosure ``(lo, hi)`` of ``fn(x)`` at one endpoint (limits at infinite endpoints)."""
    if x == -INF:
        return at_minus_inf, at_minus_inf
    if x == INF:
        return at_plus_inf, at_plus_inf
    v = _frac(fn(_mp(x)))
    pad = abs(v) * _REL + _ABS
    return v - pad, v + pad


def _increasing(fn, iv: Interval, lim_lo: Endpoint, lim_hi: Endpoint) -> Interval:
    return _value(fn, iv[0], lim_lo, lim_hi)[0], _value(fn, iv[1], lim_lo, lim_hi)[1]


def _mul1(x: Endpoint, y: Endpoint) -> Endpoint:
    if x == 0 or y == 0:
        return Fraction(0)
    return x * y


def _mul(a: Interval, b: Interval) -> Interval:
    products = [_mul1(x, y) for x in a for y in b]
    return min(products), max(products)


def _recip(a: Interval) -> Interval | None:
    lo, hi = a
    if lo <= 0 <= hi:
        return None
    return (Fraction(0) if hi in (INF, -INF) else 1 / hi), (Fraction(0) if lo in (INF, -INF) else 1 / lo)


def _int_pow(a: Interval, n: int) -> Interval | None:
    if n < 0:
        r = _recip(a)
        return None if r is None else _int_pow(r, -n)
    lo, hi = a
    if n == 0:
        return Fraction(1), Fraction(1)
    plo, phi = lo ** n, hi ** n
    if n % 2:
        return plo, phi
    if lo >= 0:
        return plo, phi
    if hi <= 0:
        return phi, plo
    return Fraction(0), max(plo, phi)


def _trig(fn, a: Interval) -> Interval:
    lo, hi = a
    if lo == -INF or hi == INF or hi - lo >= _TWO_PI_LO:
        return Fraction(-1), Fraction(1)
    # Extremes inside the range: sample the critical points k*pi/2 between the endpoints.
    values = [_value(fn, lo, 0, 0), _value(fn, hi, 0, 0)]
    half_pi = sympy.pi / 2
    first = math.ceil(float(lo) / (math.pi / 2)) - 1
    last = math.floor(float(hi) / (math.pi / 2)) + 1
    lo_out, hi_out = min(v[0] for v in values), max(v[1] for v in values)
    for k in range(first, last + 1):
        c_lo, c_hi = enclose(k * half_pi)
        if c_hi >= lo and c_lo <= hi:
            cv = enclose(sympy.sin(k * half_pi) if fn is _CTX.sin else sympy.cos(k * half_pi))
            lo_out, hi_out = min(lo_out, cv[0]), max(hi_out, cv[1])
    return max(lo_out, Fraction(-1)), min(hi_out, Fraction(1))


def enclosure(expr: sympy.Expr) -> Interval | None:
    """Rational enclosure of ``expr`` over ``t in [0, oo)`` (see the module docstring)."""
    expr = sympy.sympify(expr)
    if not expr.free_symbols:
        try:
            lo, hi = enclose(expr)
        except (ValueError, TypeError):
            return None
        return lo, hi
    if expr == T:
        return Fraction(0), INF
    if expr.free_symbols - {T}:
        return None
    if isinstance(expr, sympy.Add):
        lo, hi = Fraction(0), Fraction(0)
        for arg in expr.args:
            part = enclosure(arg)
            if part is None:
                return None
            lo, hi = lo + part[0], hi + part[1]
        return lo, hi
    if isinstance(expr, sympy.Mul):
        out: Interval = (Fraction(1), Fraction(1))
        for arg in expr.args:
            part = enclosure(arg)
            if part is None:
                return None
            out = _mul(out, part)
        return out
    if isinstance(expr, sympy.Pow):
        return _pow(expr)
    if len(expr.args) != 1:
        return None
    inner = enclosure(expr.args[0])
    if inner is None:
        return None
    return _function(expr, inner)


def _pow(expr: sympy.Pow) -> Interval | None:
    base, exponent = expr.args
    if exponent.is_Integer:
        b = enclosure(base)
        return None if b is None else _int_pow(b, int(exponent))
    if exponent.is_Rational:
        b = enclosure(base)
        if b is None or b[0] < 0:
            return None
        q = to_fraction(exponent)
        fn = lambda x: _CTX.power(x, _CTX.mpf(q.numerator) / q.denominator)  # noqa: E731
        if q > 0:
            return _increasing(fn, b, Fraction(0), INF)
        if b[0] == 0:
            return None
        return _value(fn, b[1], INF, Fraction(0))[0], _value(fn, b[0], INF, Fraction(0))[1]
    if not base.free_symbols and base.is_positive:
        return enclosure(sympy.exp(exponent * sympy.log(base), evaluate=False))
    return None


def _function(expr: sympy.Expr, a: Interval) -> Interval | None:
    lo, hi = a
    if isinstance(expr, sympy.sin):
        return _trig(_CTX.sin, a)
    if isinstance(expr, sympy.cos):
        return _trig(_CTX.cos, a)
    if isinstance(expr, sympy.exp):
        return _increasing(_CTX.exp, a, Fraction(0), INF)
    if isinstance(expr, sympy.tanh):
        out = _increasing(_CTX.tanh, a, Fraction(-1), Fraction(1))
        return max(out[0], Fraction(-1)), min(out[1], Fraction(1))
    if isinstance(expr, sympy.atan):
        return _increasing(_CTX.atan, a, -_PI_HI / 2, _PI_HI / 2)
    if isinstance(expr, sympy.sinh):
        return _increasing(_CTX.sinh, a, -INF, INF)
    if isinstance(expr, sympy.cosh):
        m = Fraction(0) if lo <= 0 <= hi else min(abs(lo), abs(hi))
        return _value(_CTX.cosh, m, INF, INF)[0], _value(_CTX.cosh, max(abs(lo), abs(hi)), INF, INF)[1]
    if isinstance(expr, sympy.log):
        if lo <= 0:
            return None
        return _increasing(_CTX.log, a, -INF, INF)
    if isinstance(expr, sympy.Abs):
        if lo >= 0:
            return lo, hi
        if hi <= 0:
            return -hi, -lo
        return Fraction(0), max(-lo, hi)
    return None


def abs_upper(expr: sympy.Expr) -> Endpoint | None:
    """``sup_{t >= 0} |expr|`` bounded above (rational), ``INF`` if no bound, ``None`` if uncovered."""
    iv = enclosure(expr)
    if iv is None:
        return None
    return max(abs(iv[0]), abs(iv[1]))
