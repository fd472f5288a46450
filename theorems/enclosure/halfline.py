"""Enclosures over the whole half-line ``t in [0, oo)``, and proofs of domain conditions there.

The half-line is cut at ``0, 1/4, 1/2, 1, 2, 4, ..., 2^TAIL_EXP`` plus the tail
``[2^TAIL_EXP, oo)``; each finite piece is bisected (up to ``MAX_DEPTH`` times, within a budget
of ``MAX_WALKS`` walks) where the plain enclosure fails.  A result over the half-line is the
hull of the pieces' results, so it holds at every ``t >= 0``.

:func:`check_condition` decides a domain condition ``g > 0``, ``g >= 0`` or ``g != 0`` on
``[0, oo)``: *proven* (every piece's enclosure satisfies it), *violated* (an exact rational
``t0`` where ``g(t0)`` provably breaks it, or, for ``g != 0``, an interval ``[a, b]`` on which
``g`` is proven continuous with ``g(a) < 0 < g(b)`` or the reverse: a zero by the intermediate
value theorem), or *open*.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Literal

import sympy

from .box import Iv, exact_arb, hull, point, to_fraction
from .walk import DEFAULT_PREC, T, enclose

TAIL_EXP = 24
MAX_DEPTH = 7
MAX_WALKS = 4000
_CUTS = [Fraction(0), Fraction(1, 4), Fraction(1, 2)] + [Fraction(2) ** k for k in range(TAIL_EXP + 1)]

Kind = Literal["positive", "nonnegative", "nonzero"]
_TESTS: dict[str, Callable[[Iv], bool]] = {
    "positive": Iv.positive, "nonnegative": Iv.nonnegative, "nonzero": Iv.excludes_zero}


def box(lo: Fraction, hi: Fraction | None) -> Iv:
    """The interval ``[lo, hi]`` of ``t`` (``hi=None``: ``+oo``); endpoints must be dyadic."""
    return Iv(point(exact_arb(lo)).lo, None if hi is None else point(exact_arb(hi)).hi)


def pieces() -> list[tuple[Fraction, Fraction | None]]:
    return [(a, b) for a, b in zip(_CUTS, _CUTS[1:])] + [(_CUTS[-1], None)]


class _Budget:
    def __init__(self) -> None:
        self.left = MAX_WALKS

    def take(self) -> bool:
        self.left -= 1
        return self.left >= 0


def _piece(expr, lo, hi, strict, test, budget, depth, prec) -> list[Iv] | None:
    """Enclosures covering ``[lo, hi]`` that each pass ``test`` (bisecting), or None."""
    if not budget.take():
        return None
    out = enclose(expr, box(lo, hi), strict=strict, prec=prec)
    if out is not None and (test is None or test(out)):
        return [out]
    if hi is None or depth >= MAX_DEPTH:
        return None
    mid = (lo + hi) / 2
    left = _piece(expr, lo, mid, strict, test, budget, depth + 1, prec)
    if left is None:
        return None
    right = _piece(expr, mid, hi, strict, test, budget, depth + 1, prec)
    return None if right is None else left + right


def covering(expr: sympy.Expr, *, strict: bool = False, test: Callable[[Iv], bool] | None = None,
             prec: int = DEFAULT_PREC) -> list[Iv] | None:
    """Enclosures over pieces covering ``[0, oo)``, each passing ``test``; None when not shown."""
    expr = sympy.sympify(expr)
    budget = _Budget()
    if not expr.has(T):
        out = enclose(expr, box(Fraction(0), None), strict=strict, prec=prec)
        return None if out is None or (test is not None and not test(out)) else [out]
    parts: list[Iv] = []
    for lo, hi in pieces():
        got = _piece(expr, lo, hi, strict, test, budget, 0, prec)
        if got is None:
            return None
        parts.extend(got)
    return parts


def halfline_range(expr: sympy.Expr, *, strict: bool = False, prec: int = DEFAULT_PREC) -> Iv | None:
    """One interval containing ``expr(t)`` for every ``t >= 0`` (None: not shown defined)."""
    parts = covering(expr, strict=strict, prec=prec)
    if parts is None:
        return None
    out = parts[0]
    for p in parts[1:]:
        out = hull(out, p)
    return out


def abs_sup(expr: sympy.Expr, *, strict: bool = False) -> Fraction | None:
    """A rational ``B >= |expr(t)|`` for all ``t >= 0``; None when no finite bound is shown."""
    iv = halfline_range(expr, strict=strict)
    if iv is None:
        return None
    top = iv.abs_upper()
    return None if top is None else to_fraction(top)


def defined_on_halfline(expr: sympy.Expr) -> bool:
    """``expr`` is proven defined (hence continuous) at every ``t >= 0``."""
    return covering(expr) is not None


def smooth_on_halfline(expr: sympy.Expr) -> bool:
    """``expr`` is proven real-analytic on a neighbourhood of ``[0, oo)`` (strict walk)."""
    return covering(expr, strict=True) is not None


@dataclass(frozen=True)
class Condition:
    """Outcome of :func:`check_condition`: ``status`` proven / violated / open; ``where`` says
    where it is violated (a point ``t0`` or an interval ``[a, b]`` holding a zero)."""

    status: Literal["proven", "violated", "open"]
    where: str = ""


_GRID = sorted({Fraction(k, 16) for k in range(0, 16 * 16 + 1)} | {Fraction(2) ** k for k in range(5, 61)})


def _value_at(expr, t0: Fraction, prec: int) -> Iv | None:
    return enclose(expr, box(t0, t0), prec=prec) if expr.has(T) else enclose(expr, box(t0, t0), prec=prec)


def check_condition(kind: Kind, g: sympy.Expr, prec: int = DEFAULT_PREC) -> Condition:
    """Decide ``g > 0`` / ``g >= 0`` / ``g != 0`` on ``[0, oo)`` (see the module docstring)."""
    g = sympy.sympify(g)
    test = _TESTS[kind]
    if covering(g, test=test, prec=prec) is not None:
        return Condition("proven")
    if not g.has(T):
        for p in (4 * prec, 16 * prec):
            value = enclose(g, box(Fraction(0), None), prec=p)
            if value is not None and test(value):
                return Condition("proven")
            found = _violates(kind, value)
            if found:
                return Condition("violated", f"the constant {g} is {found}")
        return Condition("open")
    previous: tuple[Fraction, Iv] | None = None
    for t0 in _GRID:
        value = _value_at(g, t0, prec)
        if value is None:
            previous = None
            continue
        found = _violates(kind, value)
        if found:
            return Condition("violated", f"at t = {_show(t0)} it is {found}")
        if kind == "nonzero" and previous is not None and _opposite(previous[1], value):
            a, b = previous[0], t0
            if enclose(g, box(a, b), prec=prec) is not None:
                a, b = _bisect_zero(g, a, b, prec)
                return Condition("violated", f"it vanishes at some t in [{_show(a)}, {_show(b)}] "
                                 f"(t ~ {float((a + b) / 2):.6g}; sign change of a function proven continuous there)")
        previous = (t0, value)
    return Condition("open")


def _violates(kind: str, value: Iv | None) -> str:
    if value is None:
        return ""
    if kind == "positive" and value.hi is not None and bool(value.hi <= 0):
        return "<= 0"
    if kind == "nonnegative" and value.negative():
        return "< 0"
    if kind == "nonzero" and value.lo is not None and value.hi is not None and bool(value.lo == 0) and bool(value.hi == 0):
        return "exactly 0"
    return ""


def _opposite(a: Iv, b: Iv) -> bool:
    return (a.negative() and b.positive()) or (a.positive() and b.negative())


def _bisect_zero(g, a: Fraction, b: Fraction, prec: int) -> tuple[Fraction, Fraction]:
    """Shrink ``[a, b]`` (opposite proven signs at the ends) to width about ``1e-9``."""
    sa = _value_at(g, a, prec)
    for _ in range(40):
        if b - a < Fraction(1, 10 ** 9):
            break
        m = (a + b) / 2
        vm = _value_at(g, m, prec)
        if vm is None or not vm.excludes_zero():
            break
        if _opposite(sa, vm):
            b = m
        else:
            a, sa = m, vm
    return a, b


def _show(q: Fraction) -> str:
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


__all__ = ["Condition", "abs_sup", "box", "check_condition", "covering", "defined_on_halfline",
           "halfline_range", "pieces", "smooth_on_halfline"]
