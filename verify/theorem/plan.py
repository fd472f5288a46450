"""The one interface of a proof plan, and how a catalogue entry names its plan.

A :class:`~theorems.catalogue.base.Theorem` names its plan as ``"module:attribute"`` (the catalogue
is the base package and does not import :mod:`verify`); :func:`plan_of` resolves it to a
:class:`ProofPlan`.  The composer (:mod:`verify.theorem.check`) calls only this interface, so it
has no theorem-specific branch: what is particular to a result (its steps, the notes its report
adds) lives in the result's proof module.
"""
from __future__ import annotations

import abc
import importlib
from dataclasses import dataclass, field
from typing import Any, Callable, final

from theorems.catalogue.base import HypothesisReport, Theorem
from theorems.errors import InvalidInput
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
        """The proof steps (cited steps unresolved; :func:`verify.theorem.obligations.resolve` fills them)."""

    def remarks(self, outcome: Outcome) -> Remarks:
        """Notes for the report (default: none)."""
        return Remarks()


StepsFunction = Callable[[AttentionSystem, HypothesisReport], list[ProofStep]]


@final
@dataclass(frozen=True)
class Steps(ProofPlan):
    """A plan given by its steps function alone."""

    build: StepsFunction

    def steps(self, system: AttentionSystem, hypotheses: HypothesisReport) -> list[ProofStep]:
        return self.build(system, hypotheses)


@final
@dataclass(frozen=True)
class ClaimPlan(ProofPlan):
    """A claim proved symbolically by the catalogue entry's own ``proof`` (D1, LN1): one symbolic step."""

    def steps(self, system: AttentionSystem, hypotheses: HypothesisReport) -> list[ProofStep]:
        theorem = hypotheses.theorem
        return [ProofStep(theorem.id, "symbolic", theorem.conclusion, hypotheses.proof)]


CLAIM = ClaimPlan()


def plan_of(theorem: Theorem) -> ProofPlan:
    """The :class:`ProofPlan` a catalogue entry names (an object, or ``"module:attribute"``)."""
    ref = theorem.plan
    if isinstance(ref, ProofPlan):
        return ref
    if not isinstance(ref, str):
        raise InvalidInput(f"theorem {theorem.id}: plan", "a ProofPlan or 'module:attribute' naming one", ref,
                           "register the plan with the catalogue entry (see docs/adding-a-result.md)")
    module, _, attribute = ref.partition(":")
    try:
        plan = getattr(importlib.import_module(module), attribute)
    except (ImportError, AttributeError) as err:
        raise InvalidInput(f"theorem {theorem.id}: plan", "'module:attribute' naming an importable ProofPlan", ref,
                           str(err)) from err
    if not isinstance(plan, ProofPlan):
        raise InvalidInput(f"theorem {theorem.id}: plan", "a ProofPlan instance", type(plan).__name__)
    return plan
