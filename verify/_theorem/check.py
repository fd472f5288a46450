"""``check_theorem``: hypotheses, exact certificates, symbolic steps and numerical evidence,
composed into one :class:`~verify._theorem.report.TheoremReport` (the library call behind
``verify theorem ID``).

The composer knows no theorem: the catalogue entry names its proof plan and its evidence variant
(:class:`theorems.catalogue.base.Theorem`), and the plan says what is particular to the result
(:class:`verify._theorem.plan.ProofPlan`).
"""
from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from theorems.catalogue import get
from theorems.system import AttentionSystem
from theorems.verdict import Status

from .obligations import resolve
from .plan import Outcome
from .plans import plan_of
from .report import ProofStep, TheoremReport, compose, provenance

if TYPE_CHECKING:  # numerics is imported only when a simulation runs
    from numerics.support.progress import Progress


def check_theorem(theorem_id: str, system: AttentionSystem | None = None, *, simulate: bool = True,
                  t_end: float = 20.0, progress: Progress | None = None) -> TheoremReport:
    """Check ``theorem_id`` on ``system`` (default: the theorem's built-in example)."""
    started = time.perf_counter()
    theorem = get(theorem_id)
    plan = plan_of(theorem)
    system = system if system is not None else theorem.example()
    hypotheses = theorem.check(system)
    steps: list[ProofStep] = []
    late: tuple[str, ...] = ()
    if hypotheses.status is Status.HOLDS:
        steps = resolve(plan.steps(system, hypotheses), hypotheses.verdicts)
    else:  # a hypothesis that fails at t = 0 may hold later (a late entry the plan proves)
        found = plan.late_steps(system, hypotheses)
        if found is not None:
            steps, late = resolve(found, hypotheses.verdicts), plan.establishes
    status, explanation = compose(hypotheses, steps, late)
    evidence = _evidence(theorem.evidence, system, t_end, progress) if simulate else None
    remarks = plan.remarks(Outcome(system, hypotheses, status, evidence, t_end))
    if evidence is not None:
        evidence.update(remarks.evidence)
    explanation += remarks.note
    options: dict[str, Any] = {"theorem": theorem.id, "simulate": simulate, "t_end": t_end}
    return TheoremReport(theorem, hypotheses, tuple(steps), status, explanation, evidence, provenance(options, started))


def _evidence(variant: str | None, system: AttentionSystem, t_end: float,
              progress: Progress | None) -> dict[str, Any] | None:
    if variant is None:
        return None
    from numerics.evidence import simulate_evidence

    return simulate_evidence(system, t_end=t_end, variant=variant, progress=progress)
