"""Hypotheses on the value maps ``U^h``: ``U = I`` (Theorems 3.2, 4.2), and Assumption 4.4
(``U`` symmetric, time-invariant, largest eigenvalue simple with eigenvector ``v``).

Exact (rational, algebraic or symbolic) data are decided exactly: a difference is zero only when
SymPy simplifies it to ``0``; a nonzero difference is shown nonzero by an enclosure that excludes
``0`` at a given time.  Float data are compared as the exact rationals they hold and the size of a
deviation is reported (:func:`identity_deviation`, :func:`antisymmetric_share`); a nonzero
deviation never becomes "holds", however small.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
import sympy

from ..expressions import t
from ..enclosure import enclose, smooth_on_halfline
from ..enclosure.halfline import box
from ..matrices import ConstantMatrix, LayerStack, MatrixSchedule, SymbolicMatrix, compare_values, exact_entries
from ..system import AttentionSystem
from ..verdict import Status, Verdict, combine, fails, holds, unknown
from ._eigen import top_eigen
from ._zero import PROBES, decide_zero, nonzero_at, scan_zero
from .base import Predicate
from .evidence import TopEigen


def identity_deviation(U: np.ndarray) -> float:
    """``||U - I||_F / ||I||_F = ||U - I||_F / sqrt(d)``: 0 exactly when ``U = I``."""
    U = np.asarray(U, dtype=float)
    return float(np.linalg.norm(U - np.eye(U.shape[0])) / np.sqrt(U.shape[0]))


def antisymmetric_share(U: np.ndarray) -> float:
    """``||U - U^T||_F / (||U - U^T||_F + ||U + U^T||_F)`` in ``[0, 1]``: 0 exactly when ``U`` is
    symmetric, 1 when it is antisymmetric (0 for ``U = 0``)."""
    U = np.asarray(U, dtype=float)
    anti, sym = float(np.linalg.norm(U - U.T)), float(np.linalg.norm(U + U.T))
    return 0.0 if anti + sym == 0 else anti / (anti + sym)


def _nonzero_at(expr: sympy.Expr) -> tuple[str, str] | None:
    """A time ``t0`` with ``expr(t0) != 0`` proved by an arb enclosure excluding 0, or None."""
    return nonzero_at(expr)


def _zero_check(name: str, schedule: MatrixSchedule, target, measure, measure_name: str) -> tuple[Status, dict]:
    """Decide ``D(U) = 0`` entrywise for ``D = target(U)``; witness of the first nonzero entry."""
    if isinstance(schedule, LayerStack):
        for k, layer in enumerate(schedule.layers):
            status, detail = _zero_check(name, layer, target, measure, measure_name)
            if status is not Status.HOLDS:
                return status, {"layer": k, **detail}
        return Status.HOLDS, {"layers_checked": len(schedule.layers)}
    if isinstance(schedule, ConstantMatrix) and schedule.exact is None:
        # IEEE subtraction of finite floats gives exactly 0 iff the operands are equal, so the
        # float difference decides exact equality of the data.
        U = schedule.array
        D = U - (np.eye(U.shape[0]) if name == UIdentity.id else U.T)
        nonzero = np.argwhere(D != 0)
        detail = {measure_name: measure(U)}
        if len(nonzero) == 0:
            return Status.HOLDS, detail
        i, j = (int(v) for v in nonzero[0])
        return Status.FAILS, {**detail, "entry": [i, j], "entry_value": float(D[i, j]), "nonzero_entries": len(nonzero)}
    if isinstance(schedule, SymbolicMatrix) and schedule.open_conditions:
        return Status.UNKNOWN, {"open_domain_conditions": list(schedule.open_conditions)}
    expr = schedule.exact if isinstance(schedule, ConstantMatrix) else schedule.expr
    D = target(sympy.Matrix(expr))
    nonzero, open_entries = scan_zero(D)
    if nonzero is not None:
        i, j, info = nonzero
        return Status.FAILS, {"entry": [i, j], "entry_value": str(D[i, j]), **info,
                              measure_name: measure(schedule.at(float(Fraction(info["t"]))))}
    undecided = [f"[{i}][{j}] = {D[i, j]}" for i, j in open_entries]
    if undecided:
        return Status.UNKNOWN, {"undecided_entries": undecided}
    return Status.HOLDS, {measure_name: 0.0}


def _per_head(pred_id: str, system: AttentionSystem, check, what: str) -> Verdict:
    results = [check(head.U) for head in system.heads]
    per_head = [{"verdict": s.value, **d} for s, d in results]
    status = combine(s for s, _ in results)
    bad = [h for h, (s, _) in enumerate(results) if s is status]
    if status is Status.HOLDS:
        return holds(pred_id, f"{what} holds exactly for every head", {"per_head": per_head})
    builder = fails if status is Status.FAILS else unknown
    word = "fails" if status is Status.FAILS else "is undecided"
    return builder(pred_id, f"{what} {word} for head(s) {bad}", {"heads": bad, "per_head": per_head})


class UIdentity(Predicate):
    """``U^h(t) = I`` for all heads and times.  Float witness: ``identity_deviation``."""
    reads = ("U",)

    id = "U_identity"
    statement = "every head's value map is the identity: U^h(t) = I"

    def evaluate(self, system: AttentionSystem) -> Verdict:
        check = lambda U: _zero_check(self.id, U, lambda M: M - sympy.eye(M.rows),  # noqa: E731
                                      identity_deviation, "identity_deviation")
        return _per_head(self.id, system, check, "U = I")


class USymmetric(Predicate):
    """``U^h(t) = U^h(t)^T``.  Float witness: ``antisymmetric_share`` (see that function)."""
    reads = ("U",)

    id = "U_symmetric"
    statement = "every head's value map is symmetric: U^h(t)^T = U^h(t)"

    def evaluate(self, system: AttentionSystem) -> Verdict:
        check = lambda U: _zero_check(self.id, U, lambda M: M - M.T,  # noqa: E731
                                      antisymmetric_share, "antisymmetric_share")
        return _per_head(self.id, system, check, "U symmetric")


def constant_value(schedule: MatrixSchedule) -> tuple[Status, Any, dict]:
    """``(HOLDS, value, {})`` when ``schedule`` is constant in ``t`` (value a SymPy matrix for exact
    data, a ConstantMatrix for float data), ``(FAILS, None, witness)`` when it provably varies."""
    if isinstance(schedule, ConstantMatrix):
        return Status.HOLDS, schedule, {}
    if isinstance(schedule, LayerStack):
        first, undecided = schedule.layers[0], None
        for k, layer in enumerate(schedule.layers[1:], start=1):
            same, entry = compare_values(first, layer)
            if same is False:
                i, j = entry
                diff = exact_entries(layer)[i, j] - exact_entries(first)[i, j]
                witness = {"layers": [0, k], "entry": [i, j], "entry_difference": str(diff)}
                if first.exact is None and layer.exact is None:  # a float measurement only means something for float data
                    witness["max_entry_difference"] = float(np.abs(layer.array - first.array).max())
                return Status.FAILS, None, witness
            if same is None and undecided is None:
                undecided = {"layers": [0, k], "entry": list(entry), "reason": "equality of the entries undecided"}
        if undecided is not None:
            return Status.UNKNOWN, None, undecided
        return Status.HOLDS, first, {}
    if schedule.open_conditions:
        return Status.UNKNOWN, None, {"open_domain_conditions": list(schedule.open_conditions)}
    expr = sympy.Matrix(schedule.expr)
    undecided = []
    for i in range(expr.rows):
        for j in range(expr.cols):
            # "dU/dt = 0 so U is constant" needs U differentiable on all of [0, oo): proven by a
            # strict arb walk first (atan(tan(t)) - t has derivative 0 and jumps).
            if not expr[i, j].has(t):
                continue
            moved = _moves(expr[i, j])
            if moved is not None:
                return Status.FAILS, None, {"entry": [i, j], "times": ["0", moved[0]],
                                            "values": moved[1], "expression": str(expr[i, j])}
            if smooth_on_halfline(expr[i, j]) and decide_zero(sympy.diff(expr[i, j], t))[0] is Status.HOLDS:
                continue
            undecided.append(f"[{i}][{j}] = {expr[i, j]}")
    if undecided:
        return Status.UNKNOWN, None, {"undecided_entries": undecided}
    value = expr.subs(t, 0).applyfunc(sympy.simplify)
    return Status.HOLDS, ConstantMatrix.from_sympy(value), {
        "simplified": "U proven real-analytic on [0, oo) (strict arb walk) and dU/dt simplifies to 0"}


def _moves(entry: sympy.Expr) -> tuple[str, list[str]] | None:
    """A probe time ``t0`` where ``entry(t0)`` and ``entry(0)`` have disjoint arb enclosures."""
    at0 = enclose(entry, box(Fraction(0), Fraction(0)))
    if at0 is None:
        return None
    for t0 in PROBES[1:]:
        other = enclose(entry, box(t0, t0))
        if other is None:
            continue
        if (other.lo is not None and at0.hi is not None and bool(other.lo > at0.hi)) or \
                (other.hi is not None and at0.lo is not None and bool(other.hi < at0.lo)):
            shown = [f"[{float(a):.6g}, {float(b):.6g}]" for a, b in (at0.fractions(), other.fractions())]
            return (f"{t0.numerator}/{t0.denominator}" if t0.denominator != 1 else str(t0.numerator)), shown
    return None


class UTimeInvariant(Predicate):
    """``U^h`` does not depend on ``t``.  Failure witness: two times (or layers) and an entry
    whose values differ, shown by an enclosure excluding 0."""
    reads = ("U",)

    id = "U_time_invariant"
    statement = "every head's value map is time-invariant"

    def evaluate(self, system: AttentionSystem) -> Verdict:
        def check(U):
            status, _, detail = constant_value(U)
            return status, detail
        return _per_head(self.id, system, check, "U time-invariant")


class USimpleTopEigenvalue(Predicate):
    """Assumption 4.4 (this project's reading): the symmetric, time-invariant ``U`` has a simple
    largest eigenvalue ``lambda_1`` with eigenvector ``v``; the gap ``lambda_1 - lambda_2 > 0``.

    Witness keys (one head: top level; several: also ``per_head``): ``lambda_1``, ``lambda_2``,
    ``gap`` (exact SymPy strings), ``gap_lower_bound`` (rational string), ``v`` (exact when
    ``lambda_1`` is rational, else float, see ``v_exact``).  Not symmetric or not time-invariant:
    unknown (the hypothesis is not meaningful; the other predicates report why).
    """
    reads = ("U",)

    id = "U_simple_top_eigenvalue"
    statement = "the symmetric time-invariant U has a simple largest eigenvalue (positive gap)"

    def evaluate(self, system: AttentionSystem) -> Verdict:
        results = []
        for head in system.heads:
            status, value, detail = constant_value(head.U)
            if status is not Status.HOLDS:
                results.append((Status.UNKNOWN, {"reason": "U is not (provably) time-invariant", **detail}))
                continue
            sym_status, sym_detail = _zero_check(USymmetric.id, value, lambda M: M - M.T, antisymmetric_share,
                                                 "antisymmetric_share")
            if sym_status is not Status.HOLDS:
                results.append((Status.UNKNOWN, {"reason": "U is not (provably) symmetric", **sym_detail}))
                continue
            results.append(top_eigen(value))
        status = combine(s for s, _ in results)
        per_head = [{"verdict": s.value, **d} for s, d in results]
        witness: dict[str, Any] = dict(results[0][1]) if len(results) == 1 else {}
        witness["per_head"] = per_head
        exact = all(d.get("exact", True) for _, d in results)
        bad = [h for h, (s, _) in enumerate(results) if s is status]
        if status is Status.HOLDS:
            gaps = [d["gap_lower_bound"] for _, d in results if d.get("gap_lower_bound")]
            smallest = min(gaps, key=lambda g: Fraction(g)) if gaps else None
            evidence = TopEigen.from_witness(results[0][1]) if len(results) == 1 else None
            return holds(self.id, f"largest eigenvalue of U is simple (gap >= {smallest})" if smallest
                         else "d = 1: the only eigenvalue is simple", witness, exact, evidence)
        if len(results) == 1 and results[0][1].get("v_float") is not None:  # the simulation remark reads v_float
            evidence = TopEigen.from_witness(results[0][1])
        else:
            evidence = None
        builder = fails if status is Status.FAILS else unknown
        reasons = "; ".join(f"head {h}: {results[h][1].get('reason', '')}" for h in bad)
        return builder(self.id, reasons, witness, exact, evidence)


__all__ = ["UIdentity", "USimpleTopEigenvalue", "USymmetric", "UTimeInvariant", "antisymmetric_share",
           "constant_value", "identity_deviation"]
