"""A theorem of the paper as data: hypotheses, conclusion, citation, reading note, example.

Like an equinox module, a :class:`Theorem` is a frozen record validated at construction; the
heavy work (evaluating hypotheses, proving symbolic claims) happens only in explicit calls.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Literal, TypeVar

from ..errors import InvalidInput
from ..predicates.base import Predicate
from ..system import AttentionSystem
from ..verdict import Status, Verdict, applicability, combine

Kind = Literal["theorem", "lemma", "claim", "proposition"]
EvidenceVariant = Literal["cos", "abs"]
"""Metric of the numerical evidence: ``"cos"``, or ``"abs"`` (``|cos|``) for results predicting
alignment with a line (docs/model.md §4)."""
E = TypeVar("E")


@dataclass(frozen=True)
class Theorem:
    """One result. ``reading`` states which parts are this project's reading of the paper.

    ``proof`` is set for claims that this project proves symbolically (D1, LN1); the
    certificates of ``verify theorem`` live in :mod:`verify.certificates`, not here.

    ``plan`` is left ``None`` for the built-in results: the table of their proof plans lives in
    :mod:`verify._theorem.plans`, the layer that knows both ends (this base package never names
    :mod:`verify`).  An entry added from outside may carry its plan object here (any object with the
    ``ProofPlan`` interface); the verify layer checks it.  ``evidence`` is the metric of the numerical
    evidence, or None for results with nothing to simulate (docs/adding-a-result.md).
    """

    id: str
    kind: Kind
    title: str
    setting: str
    hypotheses: tuple[Predicate, ...]
    conclusion: str
    citation: str
    reading: str
    example: Callable[[], AttentionSystem]
    proof: Callable[[], Verdict] | None = None
    plan: Any = None
    evidence: EvidenceVariant | None = "cos"

    def __post_init__(self) -> None:
        ids = [h.id for h in self.hypotheses]
        if len(set(ids)) != len(ids):
            raise InvalidInput(f"theorem {self.id}: hypotheses", "distinct predicate ids", ids)
        if isinstance(self.plan, (str, bytes)):
            raise InvalidInput(f"theorem {self.id}: plan", "a proof plan object (or None for a built-in result)",
                               self.plan, "names of modules are not resolved: pass the plan itself")
        if self.evidence not in ("cos", "abs", None):
            raise InvalidInput(f"theorem {self.id}: evidence", "'cos', 'abs' or None", self.evidence)

    def check(self, system: AttentionSystem | None = None) -> "HypothesisReport":
        """Evaluate every hypothesis on ``system`` (default: the built-in example)."""
        system = system if system is not None else self.example()
        verdicts = tuple(h.evaluate(system) for h in self.hypotheses)
        proof = self.proof() if self.proof is not None else None
        return HypothesisReport(self, system, verdicts, proof)

    def describe(self) -> dict[str, Any]:
        return {
            "id": self.id, "kind": self.kind, "title": self.title, "setting": self.setting,
            "hypotheses": [{"id": h.id, "statement": h.statement} for h in self.hypotheses],
            "conclusion": self.conclusion, "citation": self.citation, "reading": self.reading,
        }


@dataclass(frozen=True)
class HypothesisReport:
    """The verdict of every hypothesis of ``theorem`` on ``system`` (and a claim's proof)."""

    theorem: Theorem
    system: AttentionSystem
    verdicts: tuple[Verdict, ...]
    proof: Verdict | None = None

    @property
    def status(self) -> Status:
        parts = [v.status for v in self.verdicts]
        if self.proof is not None:
            parts.append(self.proof.status)
        return combine(parts)

    @property
    def failing(self) -> tuple[Verdict, ...]:
        return tuple(v for v in self.verdicts if v.status is Status.FAILS)

    def evidence(self, kind: type[E], holding: bool = True) -> E | None:
        """The typed payload of kind ``kind`` (:mod:`theorems.predicates.evidence`) of the first
        hypothesis verdict that carries one (that holds, unless ``holding=False``); else None."""
        for v in self.verdicts:
            if isinstance(v.evidence, kind) and (v.holds or not holding):
                return v.evidence
        return None

    def to_json(self) -> dict[str, Any]:
        s = self.system
        out: dict[str, Any] = {
            "verdict": applicability(self.status),
            "theorem": self.theorem.describe(),
            "instance": {"name": s.name, "d": s.d, "N": s.N, "H": s.H, "mask": s.mask, "beta": str(s.beta)},
            "hypotheses": [v.to_json() for v in self.verdicts],
        }
        if self.proof is not None:
            out["proof"] = self.proof.to_json()
        return out
