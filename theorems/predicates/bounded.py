"""``P`` bounded: ``sup_{t >= 0} ||P^h(t)||_2 <= p`` for every head (docs/model.md §2, lemma ``weights``).

The bound ``p`` is an exact rational, proved as follows.

* Constant ``P`` (exact or float data): ``p`` is the float spectral norm rounded up and
  ``p^2 I - P^T P`` is shown positive definite in exact arithmetic (float entries are exact
  rationals), see :func:`theorems.predicates._rational.spectral_upper`.
* Symbolic ``P(t)``: every entry is enclosed over ``t in [0, oo)`` by the arb engine
  (:mod:`theorems.enclosure`; success also proves the entry defined at every ``t >= 0``), giving a nonnegative rational matrix ``B`` with
  ``|P_ij(t)| <= B_ij``; then ``||P(t)||_2 <= || |P(t)| ||_2 <= ||B||_2 <= p`` (the spectral
  norm is monotone on nonnegative matrices).  An entry with ``|P_ij(t)| -> oo`` (SymPy limit)
  makes the predicate **fail**, with times ``t_k`` where ``||P(t_k)||_2 >= |P_ij(t_k)| >= k``.
* Layer stack: the maximum of the layer bounds (interpolation never leaves their convex hull).

Not guaranteed: tightness of ``p``; a symbolic entry outside the interval rules gives unknown.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import sympy

from ..errors import InvalidType
from ..expressions import t
from ..matrices import ConstantMatrix, LayerStack, MatrixSchedule, SymbolicMatrix
from ..system import AttentionSystem
from ..verdict import Status, Verdict, fails, holds, unknown
from ..enclosure import abs_sup
from ..enclosure import enclose as enclose_at
from ..enclosure.halfline import box
from ._rational import enclose, fstr, matrix_norm_upper, spectral_upper
from .base import Predicate
from .evidence import PBound

_K = sympy.Symbol("k", integer=True, positive=True)
_CHECKED_K = (1, 2, 3, 5, 10)


@dataclass(frozen=True)
class ScheduleBound:
    """Outcome for one schedule: a proven ``p`` (holds), a divergence witness (fails) or unknown."""

    status: Status
    p: Fraction | None
    method: str
    exact: bool
    detail: dict[str, Any] = field(default_factory=dict)


def schedule_bound(schedule: MatrixSchedule) -> ScheduleBound:
    """Proven upper bound on ``sup_t ||schedule(t)||_2`` (or the reason there is none)."""
    if isinstance(schedule, ConstantMatrix):
        nb = matrix_norm_upper(schedule)
        return ScheduleBound(Status.HOLDS, nb.p, nb.method, nb.exact)
    if isinstance(schedule, LayerStack):
        bounds = [matrix_norm_upper(m) for m in schedule.layers]
        p = max(b.p for b in bounds)
        methods = sorted({b.method for b in bounds})
        return ScheduleBound(Status.HOLDS, p, f"max over {len(bounds)} layers of: " + "; ".join(methods),
                             all(b.exact for b in bounds), {"per_layer": [fstr(b.p) for b in bounds]})
    if isinstance(schedule, SymbolicMatrix):
        return _symbolic_bound(schedule)
    raise InvalidType("schedule", "a ConstantMatrix, SymbolicMatrix or LayerStack", type(schedule).__name__)


def _symbolic_bound(m: SymbolicMatrix) -> ScheduleBound:
    expr = m.expr
    if m.open_conditions:
        return ScheduleBound(Status.UNKNOWN, None, "domain conditions not proven", True,
                             {"open_domain_conditions": list(m.open_conditions)})
    d = expr.rows
    bound = [[Fraction(0)] * d for _ in range(d)]
    open_entries: list[tuple[int, int]] = []
    for i in range(d):
        for j in range(d):
            ub = abs_sup(expr[i, j])
            if ub is None:
                open_entries.append((i, j))
            else:
                bound[i][j] = ub
    for i, j in open_entries:
        witness = unbounded_witness(expr[i, j])
        if witness is not None:
            witness["entry"] = [i, j]
            return ScheduleBound(Status.FAILS, None, witness.pop("method"), True, witness)
    if open_entries:
        shown = [f"[{i}][{j}] = {expr[i, j]}" for i, j in open_entries]
        return ScheduleBound(Status.UNKNOWN, None, "the arb enclosure found no bound", True,
                             {"unbounded_or_uncovered_entries": shown})
    nb = spectral_upper(bound)
    return ScheduleBound(Status.HOLDS, nb.p, "interval enclosure of every entry over t in [0, oo), then "
                         + nb.method + " on the entrywise bound matrix B", nb.exact,
                         {"entry_bounds": [[fstr(v) for v in row] for row in bound]})


def unbounded_witness(entry: sympy.Expr) -> dict[str, Any] | None:
    """Times ``t_k`` with ``|entry(t_k)| >= k`` when SymPy proves ``|entry| -> oo``; else ``None``.

    A polynomial ``a t^n + ...`` gets the closed form ``t_k = (k + S)/|a| + 1`` (``S`` the sum of
    the other coefficients' absolute values): for ``t >= 1``,
    ``|f(t)| >= t^(n-1) (|a| t - S) >= |a| t - S >= k``.  Other entries get ``t_k`` found by
    doubling.  In both cases ``|entry(t_k)| >= k`` is re-checked in exact/enclosed arithmetic.
    """
    checks: list[dict[str, str]] = []
    if entry.is_polynomial(t) and sympy.degree(entry, t) >= 1:
        poly = sympy.Poly(entry, t)
        coeffs = poly.all_coeffs()
        a_lo = enclose(sympy.Abs(coeffs[0]))[0]
        s_hi = sum((enclose(sympy.Abs(c))[1] for c in coeffs[1:]), Fraction(0))
        if a_lo <= 0:
            return None
        a_q = sympy.Rational(a_lo.numerator, a_lo.denominator)
        s_q = sympy.Rational(s_hi.numerator, s_hi.denominator)
        t_k = (_K + s_q) / a_q + 1
        for k in _CHECKED_K:
            tk = t_k.subs(_K, k)
            if not _abs_at_least(entry, tk, k):
                return None
            checks.append({"k": str(k), "t_k": str(tk)})
        return {"method": "polynomial entry: |P_ij(t)| >= |a| t - S for t >= 1", "expression": str(entry),
                "limit_abs": "oo", "t_k": str(t_k), "k_symbol": "k", "checked": checks,
                "claim": "||P(t_k)||_2 >= |P_ij(t_k)| >= k for every integer k >= 1"}
    if sympy.count_ops(entry) > _LIMIT_MAX_OPS or _exp_nesting(entry) > 2:
        return None  # SymPy's limit can run unboundedly on large or towered expressions
    try:
        lim = sympy.limit(sympy.Abs(entry), t, sympy.oo)
    except (NotImplementedError, ValueError, TypeError):
        return None
    if lim != sympy.oo:
        return None
    for k in _CHECKED_K:
        found = None
        for power in range(0, 80):
            tk = sympy.Integer(2) ** power
            if _abs_at_least(entry, tk, k):
                found = tk
                break
        if found is None:
            return None
        checks.append({"k": str(k), "t_k": str(found)})
    return {"method": "SymPy limit |P_ij(t)| -> oo; t_k found by doubling and re-checked",
            "expression": str(entry), "limit_abs": "oo", "t_k": None, "checked": checks,
            "claim": "||P(t_k)||_2 >= |P_ij(t_k)| >= k at the checked k; the limit gives every k"}


def _abs_at_least(entry: sympy.Expr, time: sympy.Expr, k: int) -> bool:
    """``|entry(time)| >= k`` proven by an arb enclosure at the exact time (no SymPy evaluation)."""
    q = Fraction(int(time.p), int(time.q))
    iv = enclose_at(entry, box(q, q))
    if iv is None:
        return False
    lo, hi = iv.fractions()
    return (lo is not None and lo >= k) or (hi is not None and hi <= -k)


_LIMIT_MAX_OPS = 40


def _exp_nesting(e: sympy.Basic) -> int:
    inner = max((_exp_nesting(a) for a in e.args), default=0)
    return inner + (1 if isinstance(e, (sympy.exp, sympy.sinh, sympy.cosh)) or
                    (isinstance(e, sympy.Pow) and e.exp.has(t)) else 0)


class PBounded(Predicate):
    """``sup_t ||P^h(t)||_2 <= p`` for all heads; witness ``p`` (exact rational string),
    ``per_head`` (one bound per head, ``None`` where none was proved) and ``method``."""
    reads = ("P",)

    id = "P_bounded"
    statement = "every head's P(t) is bounded: sup_t ||P^h(t)||_2 <= p"

    def evaluate(self, system: AttentionSystem) -> Verdict:
        results = [schedule_bound(head.P) for head in system.heads]
        per_head = [fstr(r.p) if r.p is not None else None for r in results]
        methods = [r.method for r in results]
        exact = all(r.exact for r in results)
        for h, r in enumerate(results):
            if r.status is Status.FAILS:
                witness = {"head": h, "per_head": per_head, "method": r.method, **r.detail}
                return fails(self.id, f"head {h}: entry {r.detail.get('entry')} of P(t) = "
                             f"{r.detail.get('expression')} is unbounded (|P_ij(t)| -> oo)", witness, exact)
        open_heads = [h for h, r in enumerate(results) if r.status is Status.UNKNOWN]
        if open_heads:
            witness = {"per_head": per_head, "methods": methods,
                       "open": {str(h): results[h].detail for h in open_heads}}
            return unknown(self.id, f"no bound proved for head(s) {open_heads}: an entry is not covered "
                           "by the interval rules and no divergence was proved", witness, exact)
        p = max(r.p for r in results)
        witness = {"p": fstr(p), "p_float": float(p), "per_head": per_head,
                   "method": methods[0] if len(set(methods)) == 1 else "; ".join(methods)}
        details = [r.detail for r in results]
        if any(details):
            witness["details"] = details
        return holds(self.id, f"||P^h(t)||_2 <= {fstr(p)} for all t >= 0 and all {len(results)} head(s)",
                     witness, exact, PBound(Fraction(p)))


__all__ = ["PBounded", "ScheduleBound", "schedule_bound", "unbounded_witness"]
