"""``U`` positive definite (the hypothesis of the same-sign reading of 4.4, docs/model.md §2).

Decided exactly: the constant ``U`` of each head, as exact rationals (float data as the binary
rationals they hold), is symmetric and has only positive eigenvalues, decided from its exact
characteristic polynomial (:mod:`theorems.psd_flint`).  Irrational or time-varying data: unknown.
"""
from __future__ import annotations

from ..matrices import ConstantMatrix
from ..psd_flint import psd_decision
from ..system import AttentionSystem
from ..verdict import Status, Verdict, combine, fails, holds, unknown
from ._rational import rational_matrix
from .base import Predicate


def positive_definite(M: list[list]) -> tuple[bool, str]:
    """Exactly: symmetric and positive definite (:func:`theorems.psd_flint.psd_decision`)."""
    n = len(M)
    if any(M[i][j] != M[j][i] for i in range(n) for j in range(n)):
        return False, "U is not symmetric"
    decision = psd_decision(M)
    if decision.definite:
        return True, "U is positive definite (exact characteristic polynomial: every eigenvalue > 0)"
    return False, (f"U is not positive definite: {decision.reason}" if not decision.psd else
                   f"U is singular (rank {decision.rank} of {n}): a zero eigenvalue")


class UPositiveDefinite(Predicate):
    """Every head's constant ``U`` is symmetric positive definite (exact)."""
    reads = ("U",)

    id = "U_positive_definite"
    statement = "U is symmetric positive definite"

    def evaluate(self, system: AttentionSystem) -> Verdict:
        results = []
        for h, head in enumerate(system.heads):
            if not (isinstance(head.U, ConstantMatrix)):
                results.append((Status.UNKNOWN, f"head {h}: U is not a constant matrix"))
                continue
            M = rational_matrix(head.U)
            if M is None:
                results.append((Status.UNKNOWN, f"head {h}: U has irrational entries"))
                continue
            ok, why = positive_definite(M)
            results.append((Status.HOLDS if ok else Status.FAILS, f"head {h}: {why}"))
        status = combine(s for s, _ in results)
        reason = "; ".join(r for _, r in results)
        builder = {Status.HOLDS: holds, Status.FAILS: fails, Status.UNKNOWN: unknown}[status]
        return builder(self.id, reason, {"per_head": [{"verdict": s.value, "reason": r} for s, r in results]})
