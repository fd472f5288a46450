"""``U`` positive definite (the hypothesis of the same-sign reading of 4.4, SPEC §2).

Decided exactly: the constant ``U`` of each head, as exact rationals (float data as the binary
rationals they hold), is symmetric and every pivot of its symmetric Gaussian elimination is
positive (Sylvester's criterion in LDL^T form).  Irrational or time-varying data: unknown.
"""
from __future__ import annotations

from fractions import Fraction

import sympy

from ..matrices import ConstantMatrix
from ..system import AttentionSystem
from ..verdict import Status, Verdict, combine, fails, holds, unknown
from .base import Predicate


def _rationals(m: ConstantMatrix) -> list[list[Fraction]] | None:
    if m.exact is None:
        return [[Fraction(float(v)) for v in row] for row in m.array]
    if not all(isinstance(v, sympy.Rational) for v in m.exact):
        return None
    return [[Fraction(int(v.p), int(v.q)) for v in m.exact.row(i)] for i in range(m.exact.rows)]


def positive_pivots(M: list[list[Fraction]]) -> tuple[bool, str]:
    """Symmetric elimination: positive definite iff symmetric and every pivot is > 0."""
    n = len(M)
    if any(M[i][j] != M[j][i] for i in range(n) for j in range(n)):
        return False, "U is not symmetric"
    work = [row[:] for row in M]
    for k in range(n):
        if work[k][k] <= 0:
            return False, f"pivot {k} of the LDL^T elimination is {work[k][k]} <= 0"
        for i in range(k + 1, n):
            f = work[i][k] / work[k][k]
            for j in range(k, n):
                work[i][j] -= f * work[k][j]
    return True, "every LDL^T pivot is positive"


class UPositiveDefinite(Predicate):
    """Every head's constant ``U`` is symmetric positive definite (exact)."""

    id = "U_positive_definite"
    statement = "U is symmetric positive definite"

    def evaluate(self, system: AttentionSystem) -> Verdict:
        results = []
        for h, head in enumerate(system.heads):
            if not (isinstance(head.U, ConstantMatrix)):
                results.append((Status.UNKNOWN, f"head {h}: U is not a constant matrix"))
                continue
            M = _rationals(head.U)
            if M is None:
                results.append((Status.UNKNOWN, f"head {h}: U has irrational entries"))
                continue
            ok, why = positive_pivots(M)
            results.append((Status.HOLDS if ok else Status.FAILS, f"head {h}: {why}"))
        status = combine(s for s, _ in results)
        reason = "; ".join(r for _, r in results)
        builder = {Status.HOLDS: holds, Status.FAILS: fails, Status.UNKNOWN: unknown}[status]
        return builder(self.id, reason, {"per_head": [{"verdict": s.value, "reason": r} for s, r in results]})
