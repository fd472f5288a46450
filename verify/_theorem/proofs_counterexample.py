"""Proof plans for the false claims ``4.4-sym-later`` and ``4.4-same-sign``: a counterexample search.

No step can prove these claims (docs/model.md §2: both are false).  The plan has one ``certificate`` step
that searches a certified asymptotically stable equilibrium violating the conclusion
(:func:`verify.equilibrium.search.find_counterexample`: float hints, then an arb re-check).  Its
verdict is ``fails`` with the :class:`~verify.equilibrium.EquilibriumCertificate` attached (the
composed verdict is then "refuted", exit 3) or ``unknown`` (exit 4); never ``holds``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import final

from theorems.catalogue.base import HypothesisReport
from theorems.system import AttentionSystem
from theorems.verdict import fails, unknown

from .plan import ProofPlan
from .report import ProofStep

STEP = "counterexample"


@final
@dataclass(frozen=True)
class CounterexamplePlan(ProofPlan):
    """Search a certified counterexample to the conclusion ``refutes`` names (see the module doc)."""

    refutes: str  # a conclusion of verify.equilibrium.search.find_counterexample

    def steps(self, system: AttentionSystem, hypotheses: HypothesisReport) -> list[ProofStep]:
        from verify.equilibrium.search import find_counterexample

        theorem_id = hypotheses.theorem.id
        refutes = self.refutes
        statement = ("a certified asymptotically stable equilibrium that violates the conclusion (Krawczyk test and "
                     "exact Lyapunov equations in arb ball arithmetic, verify/equilibrium); the claim is false in "
                     "general, so no step proves it")
        result = find_counterexample(system, refutes, label=f"{system.name}: counterexample to {theorem_id}")
        cert = result.certificate
        if cert is None:
            return [ProofStep(STEP, "certificate", statement, unknown(STEP, result.verdict.reason), data=result.stats)]
        check = cert.recheck()  # the search's own acceptance is not trusted alone
        if not check.holds:
            return [ProofStep(STEP, "certificate", statement,
                              unknown(STEP, f"the counterexample failed its re-check: {check.reason}"), data=result.stats)]
        what = "off span(v)" if refutes == "later-token-alignment" else "with two tokens at different points"
        verdict = fails(STEP, f"a certified asymptotically stable equilibrium {what} violates the conclusion on an "
                              f"open set of starts: {check.reason}",
                        dict(check.witness))
        return [ProofStep(STEP, "certificate", statement, verdict, cert, data=result.stats)]


LATER_TOKEN_ALIGNMENT = CounterexamplePlan("later-token-alignment")
SAME_SIGN_CONSENSUS = CounterexamplePlan("same-sign-consensus")
