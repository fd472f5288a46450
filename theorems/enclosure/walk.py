"""Rigorous range enclosure of a SymPy expression in ``t`` over an interval of ``t``.

:func:`enclose` returns an :class:`~theorems.enclosure.box.Iv` containing ``f(t)`` for every
``t`` in the box, or ``None`` when it cannot *prove* that ``f`` is defined on the whole box (a
denominator, ``log`` or ``tan`` argument, or the base of a fractional power whose range is not
shown to avoid the bad set) or when ``f`` leaves the function class (docs/format.md).  Success
therefore also proves that ``f`` is defined, and continuous, at every point of the box: every
function of the class is continuous on its domain.

With ``strict=True`` success proves that ``f`` is real-analytic on a neighbourhood of the box:
in addition, ``|x|`` needs ``x != 0`` and a fractional power ``x^q`` needs ``x > 0`` (the two
places where a function of the class is continuous but not differentiable).  Derivative-based
conclusions (Lipschitz bounds, "dU/dt = 0 so U is constant") are drawn only after a strict
success.

Each rule is a local fact (as cvxpy's atoms): sums, products and integer powers by extended
interval arithmetic; ``exp``, ``log``, ``atan``, ``tanh``, ``sinh``, fractional powers are
monotone; ``cosh`` is even; ``sin``/``cos`` take their extremes at ``k pi/2`` points, located
in ball arithmetic (a critical point is skipped only when it is provably outside the range);
``tan`` is increasing between poles and needs ``cos`` provably nonzero.  Polynomials in ``t`` of
degree >= 2 are evaluated in Horner form (tighter on long ranges).  Argument reduction of huge
``sin`` arguments is arb's own (rigorous); arguments beyond ``2^1000`` give ``[-1, 1]``.
Exponentials of arguments beyond ``EXP_CAP`` count as unbounded (never as a finite bound).
All arithmetic is arb balls at ``prec`` bits; nothing passes through a float.
"""
from __future__ import annotations

from flint import arb, ctx

import sympy

from .box import ENTIRE, Iv, add, exact_arb, from_fraction, hull, int_pow, make, monotone, mul, neg, point

EXP_CAP = 2 ** 20
"""``exp(x)`` for ``x > EXP_CAP`` is treated as unbounded (and ``exp(-x)`` as ``[0, exp(-EXP_CAP)]``)."""
TRIG_CAP = 2 ** 1000
MAX_INT_POWER = 10_000
DEFAULT_PREC = 128

T = sympy.Symbol("t", real=True, nonnegative=True)


def enclose(expr: sympy.Expr, box: Iv, *, strict: bool = False, prec: int = DEFAULT_PREC,
            var: sympy.Symbol = T) -> Iv | None:
    """Enclosure of ``expr`` for ``var`` in ``box`` (see the module docstring), or ``None``."""
    with ctx.workprec(prec):
        return _Walker(box, strict, var).walk(sympy.sympify(expr))


class _Walker:
    def __init__(self, box: Iv, strict: bool, var: sympy.Symbol) -> None:
        self.box = box
        self.strict = strict
        self.var = var
        self.memo: dict[sympy.Basic, Iv | None] = {}

    def walk(self, e: sympy.Basic) -> Iv | None:
        if e in self.memo:
            return self.memo[e]
        out = self._walk(e)
        self.memo[e] = out
        return out

    def _walk(self, e: sympy.Basic) -> Iv | None:
        if e == self.var:
            return self.box
        if isinstance(e, sympy.Symbol):
            return None
        if isinstance(e, sympy.Rational):
            return _rational(e)
        if isinstance(e, sympy.Float):
            return _rational(sympy.Rational(e))
        if e is sympy.pi:
            return point(arb.pi())
        if e is sympy.E:
            return point(arb(1).exp())
        if isinstance(e, (sympy.Add, sympy.Mul)):
            is_sum = isinstance(e, sympy.Add)
            if is_sum and e.has(self.var) and e.is_polynomial(self.var) and sympy.degree(e, self.var) >= 2:
                return self._horner(e)
            total, op = (from_fraction(0), add) if is_sum else (from_fraction(1), mul)
            for arg in e.args:
                part = self.walk(arg)
                if part is None:
                    return None
                total = op(total, part)
            return total
        if isinstance(e, sympy.Pow):
            return self._pow(*e.args)
        if isinstance(e, sympy.Function) and len(e.args) == 1:
            inner = self.walk(e.args[0])
            return None if inner is None else self._function(e, inner)
        return None

    def _horner(self, e: sympy.Expr) -> Iv | None:
        coeffs = sympy.Poly(e, self.var).all_coeffs()
        acc = self.walk(coeffs[0])
        for c in coeffs[1:]:
            part = self.walk(c)
            if acc is None or part is None:
                return None
            acc = add(mul(acc, self.box), part)
        return acc

    def _pow(self, base: sympy.Expr, exponent: sympy.Expr) -> Iv | None:
        b = self.walk(base)
        if b is None:
            return None
        if isinstance(exponent, sympy.Integer):
            n = int(exponent)
            return int_pow(b, n) if abs(n) <= MAX_INT_POWER else None
        if isinstance(exponent, sympy.Rational):
            q = exact_arb(sympy.Rational(exponent).p) / exact_arb(sympy.Rational(exponent).q)
            fn = lambda x: x ** q  # noqa: E731
            if exponent > 0:
                ok = b.positive() if self.strict else b.nonnegative()
                if not ok:
                    return None
                return monotone(b, lambda x: arb(0) if x == 0 else fn(x), True, None, None,
                                plus_inf_is_infinite=True)
            if not b.positive():
                return None
            return monotone(b, fn, False, None, arb(0))
        if not b.positive():
            return None
        logb = _log(b)
        ex = self.walk(exponent)
        return None if ex is None else _exp(mul(ex, logb))

    def _function(self, e: sympy.Function, a: Iv) -> Iv | None:
        if isinstance(e, sympy.sin):
            return _trig(a, sympy.pi / 2)
        if isinstance(e, sympy.cos):
            return _trig(a, sympy.Integer(0))
        if isinstance(e, sympy.tan):
            return _tan(a)
        if isinstance(e, sympy.exp):
            return _exp(a)
        if isinstance(e, sympy.log):
            return _log(a) if a.positive() else None
        if isinstance(e, sympy.atan):
            half = arb.pi() / 2
            return monotone(a, lambda x: x.atan(), True, (-half).lower(), half.upper())
        if isinstance(e, sympy.tanh):
            return monotone(a, lambda x: x.tanh(), True, arb(-1), arb(1))
        if isinstance(e, sympy.sinh):
            return _capped(a, lambda x: x.sinh(), odd=True)
        if isinstance(e, sympy.cosh):
            return _cosh(a)
        if isinstance(e, sympy.Abs):
            return _abs(a, self.strict)
        return None


def _rational(q: sympy.Rational) -> Iv:
    ball = exact_arb(int(q.p)) / exact_arb(int(q.q))
    return make(ball, ball)


def _exp_end(x: arb, up: bool) -> arb | None:
    if x > EXP_CAP:
        return None if up else arb(EXP_CAP).exp().lower()
    if x < -EXP_CAP:
        return arb(-EXP_CAP).exp().upper() if up else arb(0)
    ball = x.exp()
    return ball.upper() if up else ball.lower()


def _exp(a: Iv) -> Iv:
    lo = arb(0) if a.lo is None else _exp_end(a.lo, False)
    hi = None if a.hi is None else _exp_end(a.hi, True)
    return Iv(lo, hi)


def _log(a: Iv) -> Iv:
    return monotone(a, lambda x: x.log(), True, None, None, plus_inf_is_infinite=True)


def _capped(a: Iv, fn, odd: bool) -> Iv:
    """A monotone function of exponential growth (``sinh``): ends beyond ``EXP_CAP`` are infinite."""
    def end(x, up):
        if x is None or abs(x) > EXP_CAP:
            if x is not None and not up and x > 0:
                return fn(arb(EXP_CAP)).lower()
            if x is not None and up and x < 0:
                return fn(arb(-EXP_CAP)).upper()
            return None
        ball = fn(x)
        return ball.upper() if up else ball.lower()
    return Iv(end(a.lo, False), end(a.hi, True))


def _cosh(a: Iv) -> Iv:
    if a.contains_zero():
        low = arb(1)
    else:
        near = a.lo if a.positive() else -a.hi
        low = arb(EXP_CAP).cosh().lower() if near > EXP_CAP else near.cosh().lower()
    far = a.abs_upper()
    high = None if far is None or far > EXP_CAP else far.cosh().upper()
    return Iv(low, high)


def _abs(a: Iv, strict: bool) -> Iv | None:
    if a.nonnegative() and not (strict and not a.positive()):
        return a
    if a.hi is not None and bool(a.hi <= 0) and not (strict and not a.negative()):
        return neg(a)
    if strict:
        return None
    top = a.abs_upper()
    return Iv(arb(0), top)


def _trig(a: Iv, offset: sympy.Expr) -> Iv:
    """``sin`` (offset pi/2) or ``cos`` (offset 0): extremes ``(-1)^k`` at ``offset + k pi``."""
    unit = Iv(arb(-1), arb(1))
    if not a.bounded or abs(a.lo) > TRIG_CAP or abs(a.hi) > TRIG_CAP:
        return unit
    pi = arb.pi()
    if not (a.hi - a.lo < 2 * pi):
        return unit
    fn = (lambda x: x.sin()) if offset != 0 else (lambda x: x.cos())
    va, vb = fn(a.lo), fn(a.hi)
    lo = va.lower() if va.lower() < vb.lower() else vb.lower()
    hi = va.upper() if va.upper() > vb.upper() else vb.upper()
    off = pi / 2 if offset != 0 else arb(0)
    k_first = int(((a.lo - off) / pi).lower().floor().unique_fmpz())
    k_last = int(((a.hi - off) / pi).upper().ceil().unique_fmpz())
    if k_last - k_first > 8:  # the critical points are not located precisely enough
        return unit
    for k in range(k_first, k_last + 1):
        c = off + k * pi
        if bool(c < a.lo) or bool(c > a.hi):
            continue
        if k % 2 == 0:
            hi = arb(1)
        else:
            lo = arb(-1)
    lo = lo if lo > -1 else arb(-1)
    hi = hi if hi < 1 else arb(1)
    return Iv(lo, hi)


def _tan(a: Iv) -> Iv | None:
    """``tan`` is increasing between consecutive poles; ``cos`` provably nonzero on ``a`` puts
    the whole range between two poles."""
    if not a.bounded:
        return None
    if not _trig(a, sympy.Integer(0)).excludes_zero():
        return None
    return make(a.lo.tan(), a.hi.tan())


__all__ = ["DEFAULT_PREC", "ENTIRE", "EXP_CAP", "Iv", "T", "enclose", "hull"]
