"""The one interface of a proof plan, and how a catalogue entry gets its plan.

The built-in entries' plans are the table :mod:`verify._theorem.plans` (the catalogue is the base
package and never names :mod:`verify`); an entry added from outside may carry its plan object.
:func:`verify._theorem.plans.plan_of` gives the :class:`ProofPlan`.  The composer (:mod:`verify._theorem.check`) calls only this interface, so it
has no theorem-specific branch: what is particular to a result (its steps, the notes its report
adds) lives in the result's proof module.
"""
from __future__ import annotations

import abc
from dataclasses import dataclass, field
from typing import Any, Callable, final

from theorems.catalogue.base import HypothesisReport
from theorems.system import AttentionSystem
from theorems.verdict import Status

from .report import ProofStep


@final
@dataclass(frozen=True)
class Outcome:
    """What a plan's :meth:`ProofPlan.remarks` may look at: the composed verdict and the evidence."""

    system: AttentionSystem
    hypotheses: HypothesisReport
    status: Status
    evidence: dict[str, Any] | None
    t_end: float


@final
@dataclass(frozen=True)
class Remarks:
    """A note appended to the explanation and extra entries for the numerical evidence.

    Remarks never change the verdict: they report (an exceptional start, a simulation's finding)."""

    note: str = ""
    evidence: dict[str, Any] = field(default_factory=dict)


class ProofPlan(abc.ABC):
    """The steps proving one result on an instance whose hypotheses all hold."""

    @abc.abstractmethod
    def steps(self, system: AttentionSystem, hypotheses: HypothesisReport) -> list[ProofStep]:
        """The proof steps (cited steps unresolved; :func:`verify._theorem.obligations.resolve` fills them)."""

    def remarks(self, outcome: Outcome) -> Remarks:
        """Notes for the report (default: none)."""
        return Remarks()

    establishes: tuple[str, ...] = ()
    """Hypotheses this plan may prove at a later time when they fail (or are undecided) at ``t = 0``."""

    def late_steps(self, system: AttentionSystem, hypotheses: HypothesisReport) -> list[ProofStep] | None:
        """The steps of a proof from a later time, when every hypothesis that does not hold at
        ``t = 0`` is one the plan :attr:`establishes` (its ``late_entry`` step proves it there); None
        when there is no such route (default)."""
        return None


StepsFunction = Callable[[AttentionSystem, HypothesisReport], list[ProofStep]]


@final
@dataclass(frozen=True)
class Steps(ProofPlan):
    """A plan given by its steps function alone."""

    build: StepsFunction
    late: StepsFunction | None = None
    establishes: tuple[str, ...] = ()

    def steps(self, system: AttentionSystem, hypotheses: HypothesisReport) -> list[ProofStep]:
        return self.build(system, hypotheses)

    def late_steps(self, system: AttentionSystem, hypotheses: HypothesisReport) -> list[ProofStep] | None:
        open_ = {v.name for v in hypotheses.verdicts if v.status is not Status.HOLDS}
        if self.late is None or not open_ or not open_ <= set(self.establishes):
            return None
        return self.late(system, hypotheses)


@final
@dataclass(frozen=True)
class ClaimPlan(ProofPlan):
    """A claim proved symbolically by the catalogue entry's own ``proof`` (D1, LN1): one symbolic step."""

    def steps(self, system: AttentionSystem, hypotheses: HypothesisReport) -> list[ProofStep]:
        theorem = hypotheses.theorem
        return [ProofStep(theorem.id, "symbolic", theorem.conclusion, hypotheses.proof)]


CLAIM = ClaimPlan()
