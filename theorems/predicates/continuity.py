"""``P`` uniformly continuous in ``t`` (hypothesis of Theorem 3.2, used by the time-varying
consensus argument; docs/model.md §2 and §6).

Decided entrywise (a matrix function is uniformly continuous iff every entry is):

* **Lipschitz** (sufficient): ``P_ij`` proven real-analytic on ``[0, oo)`` by a strict arb walk,
  then an arb bound ``|dP_ij/dt| <= L_ij`` over ``t in [0, oo)``;
  the matrix is then Lipschitz in the spectral norm with constant ``||L||_2`` (proved rational).
* **Periodic and continuous** (sufficient): ``P_ij`` proven defined (so continuous) at every
  ``t >= 0`` by the arb engine, SymPy's ``periodicity`` proposes ``T`` and ``P_ij(t + T) - P_ij(t)``
  simplifies to ``0``.
* **Fails**: an entry ``c sin(g(t)) + R(t)`` or ``c cos(g(t)) + R(t)`` with ``g`` a polynomial of
  degree ``>= 2`` whose level sets have closed forms (quadratics, ``a t^n + b``) and ``R``
  Lipschitz.  Times ``s_k, t_k`` with ``g(s_k) = 2 pi k + pi/2`` and ``g(t_k) = 2 pi k - pi/2``
  (for cos: ``2 pi k`` and ``2 pi k - pi``) make the oscillating term differ by exactly ``2|c|``
  while ``s_k - t_k -> 0``; since ``|R(s_k) - R(t_k)| <= L_R |s_k - t_k| -> 0`` nothing cancels.
  Both facts are verified by SymPy with ``k`` a positive integer symbol.
* Layer stacks: linear interpolation is Lipschitz with ``max_k ||M_{k+1} - M_k||_F / dt``
  (wrap-around pair included when periodic); constant interpolation with two different
  consecutive layers jumps at the layer boundary and fails.

Everything else is unknown.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
import sympy

from ..errors import InvalidType
from ..expressions import t
from ..matrices import ConstantMatrix, LayerStack, MatrixSchedule, SymbolicMatrix, compare_values
from ..system import AttentionSystem
from ..verdict import Status, Verdict, fails, holds, unknown
from ..enclosure import abs_sup, defined_on_halfline, smooth_on_halfline
from ._rational import (EXACT_DIM_LIMIT, enclose, enclose_matrix, entry_sym, fstr, spectral_upper,
                        sqrt_upper, to_fraction)
from ._zero import SIMPLIFY_MAX_OPS, decide_zero
from .base import Predicate

K = sympy.Symbol("k", integer=True, positive=True)
"""The index symbol of witness sequences (``s_k``, ``t_k``)."""


@dataclass(frozen=True)
class ContinuityResult:
    status: Status
    method: str
    lipschitz: Fraction | None = None
    detail: dict[str, Any] = field(default_factory=dict)


def entry_uniform_continuity(f: sympy.Expr) -> ContinuityResult:
    """Decide uniform continuity of one scalar function of ``t`` on ``[0, oo)``.

    The derivative route needs ``f`` proven real-analytic on ``[0, oo)`` first (a strict arb
    walk): a bounded derivative of a function with a jump (``atan(tan(t))``) proves nothing.
    The periodic route needs ``f`` proven continuous on ``[0, oo)`` and ``f(t + T) - f(t)``
    simplifying to ``0``.
    """
    if not f.has(t):
        return ContinuityResult(Status.HOLDS, "constant", Fraction(0))
    if not defined_on_halfline(f):
        return ContinuityResult(Status.UNKNOWN, "not proven defined and continuous at every t >= 0", None)
    if smooth_on_halfline(f):
        slope = abs_sup(sympy.diff(f, t))
        if slope is not None:
            return ContinuityResult(Status.HOLDS, "bounded derivative (Lipschitz)", slope)
    period = _period(f)
    if period is not None:
        return ContinuityResult(Status.HOLDS, "periodic and continuous on [0, oo)", None, {"period": str(period)})
    witness = oscillation_witness(f)
    if witness is not None:
        return ContinuityResult(Status.FAILS, "oscillation with shrinking period", None, witness)
    return ContinuityResult(Status.UNKNOWN, "no derivative bound, no period, no oscillation witness", None)


def _period(f: sympy.Expr) -> sympy.Expr | None:
    """A period ``T > 0`` of ``f`` (SymPy's guess, then ``f(t + T) - f(t)`` simplified to 0)."""
    if sympy.count_ops(f) > SIMPLIFY_MAX_OPS:
        return None  # periodicity and simplify can run for minutes on large expressions
    try:
        period = sympy.periodicity(f, t)
        if period is None or period.free_symbols or not period.is_positive:
            return None
        if decide_zero(f.subs(t, t + period) - f)[0] is not Status.HOLDS:
            return None
    except (NotImplementedError, ValueError, TypeError, AttributeError):
        return None
    return period


def _levels(fn) -> tuple[sympy.Expr, sympy.Expr]:
    if fn is sympy.sin:
        return 2 * sympy.pi * K + sympy.pi / 2, 2 * sympy.pi * K - sympy.pi / 2
    return 2 * sympy.pi * K, 2 * sympy.pi * K - sympy.pi


def oscillation_witness(f: sympy.Expr) -> dict[str, Any] | None:
    """Closed-form sequences refuting uniform continuity of ``f`` (see the module doc), or None."""
    bad = []
    for term in sympy.Add.make_args(f):
        coeff, rest = term.as_independent(t, as_Add=False)
        if isinstance(rest, (sympy.sin, sympy.cos)) and coeff.is_real and coeff != 0:
            g = rest.args[0]
            if g.is_polynomial(t) and sympy.degree(g, t) >= 2:
                bad.append((term, coeff, rest))
    if len(bad) != 1:
        return None
    term, coeff, rest = bad[0]
    if sympy.count_ops(f) > SIMPLIFY_MAX_OPS:
        return None
    remainder = sympy.simplify(f - term)
    if remainder.has(t) and not smooth_on_halfline(remainder):
        return None
    slope = abs_sup(sympy.diff(remainder, t)) if remainder.has(t) else Fraction(0)
    if slope is None:
        return None
    fn, g = type(rest), rest.args[0]
    coeffs = sympy.Poly(g, t).all_coeffs()
    if not all(c.is_real for c in coeffs):
        return None
    sign = 1 if enclose(coeffs[0])[0] > 0 else -1
    gn = [sign * c for c in coeffs]
    a, c0, n = gn[0], gn[-1], len(gn) - 1
    y_plus, y_minus = _levels(fn)
    if n == 2:
        root = lambda y: (-gn[1] + sympy.sqrt(gn[1] ** 2 - 4 * a * (c0 - y))) / (2 * a)  # noqa: E731
    elif all(c == 0 for c in gn[1:-1]):
        root = lambda y: ((y - c0) / a) ** sympy.Rational(1, n)  # noqa: E731
    else:
        return None
    s_k, t_k = root(y_plus), root(y_minus)
    # For k >= k0 the lower level is >= g's constant term, so both roots are real and >= 0.
    k0 = max(1, math.ceil((float(enclose(c0)[1]) + math.pi) / (2 * math.pi)) + 1)
    if enclose(y_minus.subs(K, k0) - c0)[0] < 0:
        return None
    gs = sympy.Poly(gn, t).as_expr()
    for point, level in ((s_k, y_plus), (t_k, y_minus)):
        if sympy.simplify(sympy.expand(gs.subs(t, point)) - level) != 0:
            return None
    jump = sympy.simplify(coeff * (fn(sign * y_plus) - fn(sign * y_minus)))
    if jump.free_symbols or enclose(sympy.Abs(jump))[0] <= 0:
        return None
    if sympy.limit(s_k - t_k, K, sympy.oo) != 0:
        return None
    samples = []
    for k in range(k0, k0 + 3):
        sv, tv = float(s_k.subs(K, k)), float(t_k.subs(K, k))
        samples.append({"k": k, "s_k": sv, "t_k": tv, "gap": sv - tv,
                        "entry_difference": float(f.subs(t, s_k.subs(K, k)) - f.subs(t, t_k.subs(K, k)))})
    return {"expression": str(f), "term": str(term), "s_k": str(s_k), "t_k": str(t_k), "k_symbol": "k",
            "k_from": k0, "term_difference": str(jump), "gap_limit": "0", "remainder": str(remainder),
            "remainder_lipschitz": fstr(slope), "samples": samples,
            "claim": "|P_ij(s_k) - P_ij(t_k)| >= |term_difference| - remainder_lipschitz |s_k - t_k|, "
                     "which tends to |term_difference| > 0 while s_k - t_k -> 0 (k integer >= k_from)",
            "checked_by": "SymPy: g(s_k), g(t_k) simplify to the levels; term difference simplifies to a "
                          "nonzero constant; limit(s_k - t_k, k, oo) = 0"}


def _symbolic(m: SymbolicMatrix) -> ContinuityResult:
    if m.open_conditions:
        return ContinuityResult(Status.UNKNOWN, "domain conditions not proven", None,
                                {"open_domain_conditions": list(m.open_conditions)})
    expr = m.expr
    d = expr.rows
    results = {}
    for i in range(d):
        for j in range(d):
            r = results[i, j] = entry_uniform_continuity(expr[i, j])
            if r.status is Status.FAILS:
                return ContinuityResult(Status.FAILS, r.method, None, {"entry": [i, j], **r.detail})
    open_entries = [f"[{i}][{j}] = {expr[i, j]}" for (i, j), r in results.items() if r.status is Status.UNKNOWN]
    if open_entries:
        return ContinuityResult(Status.UNKNOWN, "undecided entries", None, {"undecided_entries": open_entries})
    if all(r.lipschitz is not None for r in results.values()):
        bound = [[results[i, j].lipschitz for j in range(d)] for i in range(d)]
        nb = spectral_upper(bound)
        return ContinuityResult(Status.HOLDS, "bounded derivative: ||P(s) - P(t)||_2 <= L |s - t|", nb.p,
                                {"entry_lipschitz": [[fstr(v) for v in row] for row in bound]})
    methods = [[results[i, j].method for j in range(d)] for i in range(d)]
    return ContinuityResult(Status.HOLDS, "every entry Lipschitz or periodic-and-continuous", None,
                            {"entry_methods": methods})


def _diff_frobenius_sq_upper(a: ConstantMatrix, b: ConstantMatrix) -> tuple[Fraction, bool]:
    """Upper bound on ``||B - A||_F^2``: exact for rational or small float data; large float data
    use float arithmetic enlarged by its worst-case rounding error (``exact`` False)."""
    if a.exact is None and b.exact is None and a.dim > EXACT_DIM_LIMIT:
        diff = np.abs(b.array - a.array)
        n = diff.size + 3
        gamma = Fraction(n, 2 ** 53) / (1 - Fraction(n, 2 ** 53))
        return Fraction(float(np.sum(diff * diff))) * (1 + gamma) / (1 - gamma) + Fraction(n, 2 ** 1070), False
    (alo, ahi), (blo, bhi) = enclose_matrix(a), enclose_matrix(b)
    sq = sum((max(abs(bh - al), abs(bl - ah)) ** 2 for ral, rah, rbl, rbh in zip(alo, ahi, blo, bhi)
              for al, ah, bl, bh in zip(ral, rah, rbl, rbh)), Fraction(0))
    return sq, alo == ahi and blo == bhi


def _stack(stack: LayerStack) -> ContinuityResult:
    n = len(stack.layers)
    pairs = [(k, k + 1) for k in range(n - 1)] + ([(n - 1, 0)] if stack.periodic and n > 1 else [])
    dt = to_fraction(stack.dt)
    if stack.interpolation == "linear":
        worst, worst_pair, exact = Fraction(0), None, True
        for k, k1 in pairs:
            sq, pair_exact = _diff_frobenius_sq_upper(stack.layers[k], stack.layers[k1])
            exact = exact and pair_exact
            if worst_pair is None or sq > worst:
                worst, worst_pair = sq, [k, k1]
        lipschitz = sqrt_upper(worst) / dt
        return ContinuityResult(Status.HOLDS, "linear interpolation: Lipschitz with max_k ||M_{k+1} - M_k||_F / dt",
                                lipschitz, {"dt": fstr(dt), "pairs_checked": len(pairs), "worst_pair": worst_pair,
                                            "exact_data": exact})
    undecided = None
    for k, k1 in pairs:
        same, big = compare_values(stack.layers[k], stack.layers[k1])
        if same is None and undecided is None:
            undecided = {"layers": [k, k1], "entry": list(big)}
        if same is False:  # ``big``: an entry whose jump is proven nonzero (exactly, or by an arb enclosure)
            boundary = (k + 1) * dt
            diff = stack.layers[k1].array - stack.layers[k].array
            jump = sympy.simplify(entry_sym(stack.layers[k1], *big) - entry_sym(stack.layers[k], *big))
            return ContinuityResult(Status.FAILS, "piecewise-constant stack jumps at a layer boundary", None, {
                "layers": [k, k1], "boundary_time": fstr(boundary),
                "s_j": f"{fstr(boundary)} - {fstr(dt)}/(2*j)", "t_j": fstr(boundary), "j_symbol": "j",
                "jump_entry": list(big), "jump_entry_value": str(jump),
                **({"jump_frobenius": float((diff ** 2).sum() ** 0.5)}  # float data only: exact jumps can round to 0
                   if stack.layers[k].exact is None and stack.layers[k1].exact is None else {}),
                "claim": "P(s_j) = M_k and P(t_j) = M_k' for every j >= 1, so ||P(s_j) - P(t_j)||_2 >= "
                         "|jump_entry_value| > 0 while s_j - t_j -> 0"})
    if undecided is not None:
        return ContinuityResult(Status.UNKNOWN, "could not decide whether two consecutive layers differ", None,
                                undecided)
    return ContinuityResult(Status.HOLDS, "all layers equal: the stack is constant", Fraction(0))


def schedule_uniform_continuity(schedule: MatrixSchedule) -> ContinuityResult:
    if isinstance(schedule, ConstantMatrix):
        return ContinuityResult(Status.HOLDS, "constant", Fraction(0))
    if isinstance(schedule, SymbolicMatrix):
        return _symbolic(schedule)
    if isinstance(schedule, LayerStack):
        return _stack(schedule)
    raise InvalidType("schedule", "a ConstantMatrix, SymbolicMatrix or LayerStack", type(schedule).__name__)


class PUniformlyContinuous(Predicate):
    """Every head's ``P(t)`` is uniformly continuous on ``[0, oo)``.  Witness: ``per_head``
    (method, ``lipschitz_bound`` when one is proved, details); on failure the head, entry and the
    sequences ``s_k``, ``t_k`` (or ``s_j``, ``t_j`` for a stack jump)."""
    reads = ("P",)

    id = "P_uniformly_continuous"
    statement = "every head's P(t) is uniformly continuous in t"

    def evaluate(self, system: AttentionSystem) -> Verdict:
        results = [schedule_uniform_continuity(head.P) for head in system.heads]
        per_head = [{"method": r.method, "lipschitz_bound": fstr(r.lipschitz) if r.lipschitz is not None else None,
                     **({"verdict": r.status.value} if r.status is not Status.HOLDS else {})} for r in results]
        for h, r in enumerate(results):
            if r.status is Status.FAILS:
                return fails(self.id, f"head {h}: {r.method}; P is not uniformly continuous",
                             {"head": h, "method": r.method, **r.detail, "per_head": per_head})
        open_heads = [h for h, r in enumerate(results) if r.status is Status.UNKNOWN]
        if open_heads:
            return unknown(self.id, f"uniform continuity undecided for head(s) {open_heads}",
                           {"per_head": per_head, "open": {str(h): results[h].detail for h in open_heads}})
        witness: dict[str, Any] = {"per_head": per_head}
        if all(r.lipschitz is not None for r in results):
            witness["lipschitz_bound"] = fstr(max(r.lipschitz for r in results))
        details = [r.detail for r in results]
        if any(details):
            witness["details"] = details
        exact = all(r.detail.get("exact_data", True) for r in results)
        return holds(self.id, "every head's P is uniformly continuous (" + "; ".join(sorted({r.method for r in results}))
                     + ")", witness, exact)


__all__ = ["ContinuityResult", "K", "PUniformlyContinuous", "entry_uniform_continuity", "oscillation_witness",
           "schedule_uniform_continuity"]
