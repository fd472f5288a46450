"""Deciding whether an expression in ``t`` vanishes identically on ``[0, oo)``, in bounded time.

1. A nonzero value at an exact probe time, proven by an arb enclosure that excludes ``0``,
   decides "not identically zero" (with the time as witness).
2. Otherwise, for expressions of at most :data:`SIMPLIFY_MAX_OPS` operations, SymPy's
   ``simplify`` returning exactly ``0`` decides "identically zero".  That is a symbolic identity;
   callers use it only for entries proven defined on all of ``[0, oo)`` (the instance reader
   refuses entries undefined somewhere and marks the undecided ones).
3. Anything else is undecided: ``simplify`` on large expressions can run for minutes.
"""
from __future__ import annotations

from fractions import Fraction

import sympy

from ..enclosure import T, enclose
from ..enclosure.halfline import box
from ..verdict import Status

SIMPLIFY_MAX_OPS = 40
PROBES = (Fraction(0), Fraction(1), Fraction(1, 2), Fraction(2), Fraction(3), Fraction(7, 3), Fraction(10),
          Fraction(1, 7))


def nonzero_at(expr: sympy.Expr) -> tuple[str, str] | None:
    """A probe time ``t0`` and an interval excluding 0 that contains ``expr(t0)``, or None."""
    expr = sympy.sympify(expr)
    for t0 in (PROBES if expr.has(T) else PROBES[:1]):
        iv = enclose(expr, box(t0, t0))
        if iv is not None and iv.excludes_zero():
            lo, hi = iv.fractions()
            shown = f"[{float(lo):.6g}, {float(hi):.6g}]" if abs(lo) < 10 ** 300 and abs(hi) < 10 ** 300 else "nonzero"
            return (str(t0.numerator) if t0.denominator == 1 else f"{t0.numerator}/{t0.denominator}"), shown
    return None


def decide_zero(expr: sympy.Expr) -> tuple[Status, dict]:
    """``HOLDS`` (identically 0), ``FAILS`` (witness ``t``, ``value_at_t``) or ``UNKNOWN``."""
    expr = sympy.sympify(expr)
    if expr == 0:
        return Status.HOLDS, {}
    hit = nonzero_at(expr)
    if hit is not None:
        return Status.FAILS, {"t": hit[0], "value_at_t": hit[1]}
    if sympy.count_ops(expr) > SIMPLIFY_MAX_OPS:
        return Status.UNKNOWN, {"reason": f"more than {SIMPLIFY_MAX_OPS} operations: not simplified"}
    if sympy.simplify(expr) == 0:
        return Status.HOLDS, {"simplified": "SymPy simplify gives exactly 0"}
    return Status.UNKNOWN, {"reason": "neither simplified to 0 nor shown nonzero at a probe time"}


__all__ = ["PROBES", "SIMPLIFY_MAX_OPS", "decide_zero", "nonzero_at"]


def scan_zero(D: sympy.MatrixBase) -> tuple[tuple[int, int, dict] | None, list[tuple[int, int]]]:
    """Every entry of ``D`` through :func:`decide_zero`: ``((i, j, info), undecided)`` at the first entry
    proven nonzero (``undecided``: the entries before it that could not be decided), else
    ``(None, undecided)``; ``D`` vanishes exactly iff both are empty."""
    undecided: list[tuple[int, int]] = []
    for i in range(D.rows):
        for j in range(D.cols):
            status, info = decide_zero(D[i, j])
            if status is Status.FAILS:
                return (i, j, info), undecided
            if status is Status.UNKNOWN:
                undecided.append((i, j))
    return None, undecided
